"""``evaluate.load("wrdscore")`` by the bare name, offline: the installed evaluate module placed where evaluate
looks for a cached Hub module.

evaluate resolves a bare name by asking the Hub for ``evaluate-metric/<name>`` and, when that fails (offline, or
no such module), by loading the newest cached copy,
``<HF_MODULES_CACHE>/evaluate_modules/metrics/evaluate-metric--<name>/<hash>/<name>.py`` (its
``CachedEvaluationModuleFactory``; it says "Using the latest cached version of the module").  WRDScore has no Hub
module, so :func:`install_evaluate_module` (``wrdscore install-evaluate-module``) writes the ``wrdscore.py``
installed with the package there, once per environment, and removes any copy it wrote before.  Beside the copy
it leaves ``wrdscore.installed.json`` (the package version and the copy's sha256); the module checks it when it
is imported (:func:`warn_if_stale`), so after an upgrade a copy that no longer matches the installed module
warns, naming the command that replaces it.  Nothing is downloaded, and nothing outside that folder is touched.
Not imported by ``import wrd_score`` (it imports evaluate, and so datasets).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import warnings
from pathlib import Path
from typing import Optional

from evaluate.loading import init_dynamic_modules

from . import __version__
from .integrations.huggingface import evaluate_module

__all__ = ["install_evaluate_module", "installed_copy", "copy_is_current", "warn_if_stale", "MARKER", "NAME"]

#: The bare name ``evaluate.load`` is given, and the folder evaluate keeps its cached copy in.
NAME = "wrdscore"
_FOLDER = f"evaluate-metric--{NAME}"
#: What :func:`install_evaluate_module` leaves beside the copy: the version and sha256 it was made from.
MARKER = f"{NAME}.installed.json"


def _source() -> Path:
    return Path(evaluate_module())


def _folder(modules_cache: Optional[str] = None) -> Path:
    """``<HF_MODULES_CACHE>/evaluate_modules/metrics/evaluate-metric--wrdscore``, where evaluate looks."""
    if modules_cache is not None and os.path.exists(modules_cache) and not os.path.isdir(modules_cache):
        # evaluate's own mkdir said "[Errno 17] File exists", naming neither the argument nor the problem.
        raise NotADirectoryError(f"modules_cache {modules_cache!r} is a file, not a folder")
    return Path(init_dynamic_modules(hf_modules_cache=modules_cache)) / "metrics" / _FOLDER


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def install_evaluate_module(modules_cache: Optional[str] = None) -> str:
    """Place the installed ``wrdscore.py`` where ``evaluate.load("wrdscore")`` finds it offline; return its path.

    ``modules_cache``: evaluate's modules folder (default: its ``HF_MODULES_CACHE``, ``$HF_MODULES_CACHE`` or
    ``~/.cache/huggingface/modules``).  Run it again after upgrading wrd-score: the copy is replaced.
    """
    source = _source()
    digest = _sha256(source)
    folder = _folder(modules_cache)
    folder.mkdir(parents=True, exist_ok=True)
    for init in (folder.parent / "__init__.py", folder / "__init__.py"):
        init.touch(exist_ok=True)  # packages on the import path evaluate builds from them
    # Only the copies this function wrote: evaluate picks the newest, and an old one must not linger.
    for old in folder.iterdir():
        if old.is_dir() and old.name != digest and (old / MARKER).is_file():
            shutil.rmtree(old)
    target = folder / digest
    target.mkdir(exist_ok=True)
    (target / "__init__.py").touch(exist_ok=True)
    copy = target / f"{NAME}.py"
    tmp = target / f".{NAME}.py.tmp"
    shutil.copyfile(source, tmp)
    os.replace(tmp, copy)
    # evaluate's own record of where a cached module came from, as it writes for the copies it makes.
    (target / f"{NAME}.json").write_text(json.dumps({"original file path": str(source),
                                                     "local file path": str(copy)}), encoding="utf-8")
    (target / MARKER).write_text(json.dumps({"wrd_score": __version__, "sha256": digest}), encoding="utf-8")
    os.utime(copy)  # the newest copy of the folder: the one evaluate loads
    return str(copy)


def installed_copy(modules_cache: Optional[str] = None) -> Optional[str]:
    """The copy :func:`install_evaluate_module` wrote that ``evaluate.load("wrdscore")`` would load, or None."""
    folder = _folder(modules_cache)
    copies = [p / f"{NAME}.py" for p in folder.iterdir() if (p / MARKER).is_file()] if folder.is_dir() else []
    copies = [p for p in copies if p.is_file()]
    return str(max(copies, key=lambda p: p.stat().st_mtime)) if copies else None


def copy_is_current(copy: str) -> bool:
    """Whether a copy is the installed module's (byte for byte: the sha256 recorded beside it and its own)."""
    path = Path(copy)
    try:
        recorded = json.loads((path.parent / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return (isinstance(recorded, dict) and recorded.get("sha256") == _sha256(_source()) == _sha256(path))


def warn_if_stale(module_file: str) -> None:
    """Called by ``wrdscore.py`` when it is imported: a copy placed by :func:`install_evaluate_module` that is
    not the installed module's (wrd-score was upgraded since) warns once, naming the command that replaces it.
    Copies evaluate makes itself (``evaluate.load(path)``) carry no marker and are not checked."""
    path = Path(module_file)
    if not (path.parent / MARKER).is_file() or copy_is_current(str(path)):
        return
    try:
        recorded = json.loads((path.parent / MARKER).read_text(encoding="utf-8")).get("wrd_score", "?")
    except (OSError, ValueError, AttributeError):
        recorded = "?"
    warnings.warn(f"evaluate.load('{NAME}') loaded a copy of the evaluate module made for wrd-score {recorded} "
                  f"({path}); wrd-score {__version__} is installed: run `wrdscore install-evaluate-module` to "
                  "replace it", UserWarning, stacklevel=2)
