"""What BERTScore and MoverScore share: a WRDScore backend, its encoding, IDF and special tokens.

Both siblings run on the same backend and embeddings as WRDScore (the static default or the
contextual encoder), so a comparison table differs only by the matching rule.
"""
from __future__ import annotations

import contextlib
import math
import threading
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Sequence, Tuple, Union

import numpy as np

from ..checks import check_names, check_references, check_texts
from ..scorer import WRDScorer
from ..options import option_info
from ..weights import document_frequencies, user_idf

__all__ = ["backend_for", "shared_backends", "inputs", "distinct_texts", "text_pairs", "encode", "special_mask", "fit_log_idf", "idf_weights",
           "BACKEND_OPTIONS"]

#: The options that pick a backend (WRDScore's own scoring options do not apply to the siblings).
BACKEND_OPTIONS = frozenset(info.name for info in option_info()
                            if info.name not in ("variant", "weights", "rescale_with_baseline", "num_threads"))


def inputs(predictions: Any, references: Any) -> Tuple[List[str], List[List[str]]]:
    predictions = check_texts("predictions", predictions)
    return predictions, check_references(references, len(predictions))


_SHARED = threading.local()


@contextlib.contextmanager
def shared_backends() -> Iterator[None]:
    """Within this block (in this thread), metrics built with equal backend options share the backend and options
    of one :class:`~wrd_score.WRDScorer`: one scorer per configuration per call.  :func:`~wrd_score.metrics.compare`
    and the app's handlers open it; before, one click of the app's Score button built a scorer for each of
    BERTScore, MoverScore, WMS, SMS and S+WMS (the embedding file stat'ed, the options validated, each time)."""
    outer = getattr(_SHARED, "scorers", None)
    if outer is None:
        _SHARED.scorers = {}
    try:
        yield
    finally:
        if outer is None:
            _SHARED.scorers = None


def backend_for(options: Mapping[str, Any]):
    """The (cached) backend and validated options of a WRDScorer with these options."""
    check_names(options, sorted(BACKEND_OPTIONS))
    shared = getattr(_SHARED, "scorers", None)
    key = None
    if shared is not None:
        try:
            key = tuple(sorted(options.items()))
            hash(key)
        except TypeError:  # an unhashable value (a list of layers): built each time
            key = None
        if key in shared:
            return shared[key]
    scorer = WRDScorer(**options)
    if key is not None:
        shared[key] = (scorer.backend, scorer.options)
    return scorer.backend, scorer.options


def distinct_texts(predictions: List[str], refs: List[List[str]]) -> Tuple[List[str], Dict[str, int]]:
    # Same order as WRDScorer.score (predictions first, then references), so a backend that
    # memoises its last forward pass serves every metric of one compare() call from one encoding.
    index: Dict[str, int] = {}
    for text in predictions:
        index.setdefault(text, len(index))
    for group in refs:
        for text in group:
            index.setdefault(text, len(index))
    return list(index), index


def text_pairs(predictions: Any, references: Any) -> Tuple[List[str], List[List[str]], List[str], List[Tuple[int, int]]]:
    """Checked inputs, their distinct texts (:func:`distinct_texts`) and every (prediction, reference)
    pair as text indices, reference by reference.

    >>> text_pairs(["a", "b"], [["b", "c"], "a"])[2:]
    (['a', 'b', 'c'], [(0, 1), (0, 2), (1, 0)])
    """
    predictions, refs = inputs(predictions, references)
    texts, index = distinct_texts(predictions, refs)
    return predictions, refs, texts, [(index[p], index[r]) for p, group in zip(predictions, refs) for r in group]


def encode(backend, texts: List[str], keep_special: bool):
    if keep_special and getattr(backend, "kind", "") == "contextual":
        return backend.encode(texts, keep_special=True)
    return backend.encode(texts)


def special_mask(enc) -> np.ndarray:
    special = getattr(enc, "special", None)
    return np.zeros(len(enc.tokens), dtype=bool) if special is None else np.asarray(special, dtype=bool)


def fit_log_idf(documents: Iterable[Sequence[str]]) -> Tuple[Dict[str, float], float]:
    """IDF as bert_score and moverscore_v2 define it: ``ln((N + 1) / (df + 1))``; unseen: ``ln(N + 1)``.

    >>> table, unseen = fit_log_idf([["a", "b"], ["a"]])
    >>> round(table["a"], 4), round(table["b"], 4), round(unseen, 4)
    (0.0, 0.4055, 1.0986)
    """
    df, n = document_frequencies(documents)
    return {tok: math.log((n + 1) / (c + 1)) for tok, c in df.items()}, math.log(n + 1)


def idf_weights(idf: Union[bool, Mapping[str, float]], enc, docs: Iterable[Sequence[str]]) -> Tuple[np.ndarray, str]:
    tokens = enc.tokens
    if idf is False or idf is None:
        weights = np.ones(len(tokens))
        source = "no"
    elif idf is True:
        table, unseen = fit_log_idf(docs)
        weights = np.fromiter((table.get(t, unseen) for t in tokens), dtype=np.float64, count=len(tokens))
        source = "refs"
    elif isinstance(idf, Mapping):
        table = user_idf(idf)  # validates keys and values
        weights = np.fromiter((table(t) for t in tokens), dtype=np.float64, count=len(tokens))
        source = table.source
    else:
        raise TypeError(f"idf must be True, False or a dict of token -> weight, got {type(idf).__name__}")
    weights[special_mask(enc)] = 0.0  # special tokens never carry mass (bert_score zeroes them too)
    return weights, source
