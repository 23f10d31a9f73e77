"""BERTScore (Zhang et al. 2020): greedy max-cosine matching, on the embeddings of a WRDScore backend."""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Sequence, Tuple, Union

import numpy as np

from ..scoring import cosine_matrix, cosine_range, empty_pair_score, f1_score
from ..signature import Signature
from ..checks import check_bool
from .base import Metric, MetricResult, References, column_name, pick_best, register
from .backend_idf import backend_for, encode, idf_weights, special_mask, text_pairs

__all__ = ["BERTScore", "bertscore"]


class BERTScore(Metric):
    """Greedy max-cosine BERTScore on the embeddings of a WRDScore backend.

    ``options`` are :class:`~wrd_score.Options` fields that pick the backend
    (``backend="contextual", pooling="wordpiece"`` reproduces the ``bert_score`` package).
    ``idf=True`` weighs tokens by ``ln((N + 1) / (df + 1))`` fit on the references; a dict gives
    the weights.  ``special_candidates``: like bert_score, ``[CLS]``/``[SEP]`` may be the best match
    of a token (their weight is always 0); contextual backend only.  ``clip_negative`` (the shared
    option; True when not given, whatever WRDScore's preset sets) clips cosines at 0 before the max; bert_score does this in effect
    whenever the other sentence is padded in its batch (padding cosines are 0), so only with it do
    the two agree on pairs where a token's best cosine is negative.
    A token-less side scores 0 (1 against an identical text).  With several references, the one
    with the best F1 wins (``best_reference``).  Precision and recall are held to the cosine range
    (:func:`~wrd_score.scoring.cosine_range`).  Its columns are named ``bertscore-rule[BACKEND]``
    (:func:`~wrd_score.metrics.base.column_name`): the greedy rule on this library's vectors.

    >>> BERTScore().score(["get count"], ["getCount"]).f1
    [1.0]
    """

    name = "bertscore"
    uses_backend = True

    def __init__(self, *, idf: Union[bool, Mapping[str, float]] = False, special_candidates: bool = True,
                 **options: Any) -> None:
        self.idf = idf
        self.special_candidates = check_bool("special_candidates", special_candidates)
        if not isinstance(idf, (bool, Mapping)):
            raise TypeError(f"idf must be True, False or a dict of token -> weight, got {type(idf).__name__}")
        self.backend, self.options = backend_for(options)
        # BERTScore's own default, whatever WRDScore's preset keeps: cosines clipped (see above). Read here, not
        # passed on, so that the siblings of one call keep sharing one backend.
        self.clip = True if options.get("clip_negative") is None else self.options.clip_negative
        self.name = column_name("bertscore", self.backend.kind)

    def _score(self, predictions: Sequence[str], references: References) -> MetricResult:
        predictions, refs, texts, pairs = text_pairs(predictions, references)
        backend, clip = self.backend, self.clip
        enc = encode(backend, texts, keep_special=self.special_candidates)
        weights, source = idf_weights(self.idf, enc, (backend.tokenize(r) for group in refs for r in group))
        precision = np.empty(len(pairs))
        recall = np.empty(len(pairs))
        for k, (ip, ir) in enumerate(pairs):
            precision[k], recall[k] = _greedy_pair(enc, weights, ip, ir, texts, clip)
        f1 = f1_score(precision, recall)
        flat, best = pick_best(f1, refs)
        signature = Signature.build(bertscore="greedy", **backend.signature_fields(), idf=source,
                                    special=_special_label(backend, self.special_candidates),
                                    clip="yes" if clip else "no")
        return MetricResult(self.name, f1[flat].tolist(), best, signature, precision=precision[flat].tolist(),
                            recall=recall[flat].tolist(), f1=f1[flat].tolist())


def bertscore(predictions: Sequence[str], references: References, *, idf: Union[bool, Mapping[str, float]] = False,
              special_candidates: bool = True, **options: Any) -> Dict[str, Any]:
    """Functional form of :class:`BERTScore`: a dict of ``precision``, ``recall``, ``f1``,
    ``best_reference`` and ``signature``.

    >>> bertscore(["get count"], ["getCount"])["f1"]
    [1.0]
    """
    result = BERTScore(idf=idf, special_candidates=special_candidates, **options).score(predictions, references)
    return {"precision": result.precision, "recall": result.recall, "f1": result.f1,
            "best_reference": result.best_reference, "signature": str(result.signature)}


def _special_label(backend, special_candidates: bool) -> str:
    if getattr(backend, "kind", "") != "contextual":
        return "none"  # static tokenizers have no special tokens
    return "candidates" if special_candidates else "dropped"


def _greedy_pair(enc, weights: np.ndarray, ip: int, ir: int, texts: List[str], clip: bool) -> Tuple[float, float]:
    rows_p, rows_r = enc.spans[ip], enc.spans[ir]
    if _n_content(enc, rows_p) == 0 or _n_content(enc, rows_r) == 0:
        value = empty_pair_score(texts[ip], texts[ir])
        return value, value
    w_p = _weights_or_uniform(weights[rows_p], enc, rows_p)
    w_r = _weights_or_uniform(weights[rows_r], enc, rows_r)
    cos = cosine_matrix(enc, rows_p, rows_r, clip, blas=True)
    return cosine_range(float(np.dot(w_p, cos.max(axis=1)))), cosine_range(float(np.dot(w_r, cos.max(axis=0))))


def _n_content(enc, rows: np.ndarray) -> int:
    return int((~special_mask(enc)[rows]).sum())


def _weights_or_uniform(w: np.ndarray, enc, rows: np.ndarray) -> np.ndarray:
    total = w.sum()
    if total > 0:
        return w / total
    # Every content token has IDF 0 (it occurs in every reference): bert_score divides 0 by 0
    # here (NaN); we fall back to uniform weights over the content tokens.
    content = (~special_mask(enc)[rows]).astype(np.float64)
    return content / content.sum()


register("bertscore", BERTScore, "BERTScore's greedy max-cosine rule on the same embeddings (Zhang et al. 2020); "
         "columns bertscore-rule[static|contextual]", rule=True)
