"""Step 6 of the pipeline: aggregation, and the one configured entry point.

:class:`WRDScorer` validates options once, builds (and caches) the backend, and scores
predictions against one or several references each.  :func:`score` is its functional form.
"""
from __future__ import annotations

import os
import threading
from dataclasses import fields, replace
from typing import Any, Dict, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from . import __version__
from .deps import HAVE_NUMBA
from .backends.base import first_appearance_rows
from .backends.contextual import ContextualBackend  # imports no torch: the model loads on first use
from .backends.static import StaticBackend
from .checks import (check_instance, check_names, check_pair, check_references, check_texts, groups_of,
                     iter_reference_lists, reference_lists)
from .embeddings import load_embedding
from .options import BACKENDS, Options
from .rescale import baseline_field, lookup_baseline, rescale
from .scoring import best_of, check_transport_size, f1_score, pair_detail, PairDetail, score_pairs
from .signature import Signature
from .weights import IDFTable, corpus_idf, shared_idf, token_masses, uses_corpus_idf, uses_idf

__all__ = ["Options", "WRDScorer", "Scores", "score", "BACKENDS", "check_texts", "check_references", "reference_lists", "result_dict"]

References = Union[Sequence[str], Sequence[Sequence[str]]]


def _thread_count(num_threads: Optional[int]) -> int:
    """``num_threads`` as a count: None means every core this process may run on."""
    if num_threads is not None:
        return num_threads
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


class WRDScorer:
    """A configured WRDScore metric.

    >>> scorer = WRDScorer()
    >>> result = scorer.score(["getCount", "size"], ["get_count", "getSize"])
    >>> result["f1"][0]
    1.0
    >>> result["signature"].startswith("wrdscore:")
    True
    """

    _backend_cache: Dict[tuple, Any] = {}
    _cache_lock = threading.Lock()
    #: The fixed IDF table of weights="corpus-idf" (None for every other weights).
    corpus_idf: Optional[IDFTable] = None

    def __init__(self, options: Optional[Options] = None, **kwargs: Any) -> None:
        check_instance("options", options, Options, "pass keywords instead: WRDScorer(variant='paper')")
        check_names(kwargs, [f.name for f in fields(Options)])
        if getattr(options, "_resolved", False) and kwargs.get("preset", options.preset) != options.preset:
            # A scorer's options hold every bundle value already: a new preset would change nothing.
            raise ValueError(f"preset={kwargs['preset']!r} cannot act on options already resolved with "
                             f"preset={options.preset!r} (every value it sets is given); pass the options themselves, "
                             "or start from Options()")
        self.options = replace(Options() if options is None else options, **kwargs).validate()
        self.backend = self._get_backend(self.options)
        # The fixed table of weights="corpus-idf": read once, here, so a file without one is refused
        # when the scorer is made, and no call (chunk, shard, rank) ever fits or carries a table.
        if uses_corpus_idf(self.options.weights):
            self.corpus_idf = corpus_idf(self.backend.embedding, self.options.weights)

    @classmethod
    def _get_backend(cls, options: Options):
        key = options.backend_key()
        with cls._cache_lock:
            backend = cls._backend_cache.get(key)
        if backend is None and options.backend == "contextual":
            backend = ContextualBackend(
                model=options.model, layer=options.layer, pooling=options.pooling, tokenizer=options.tokenizer,
                device=options.device, dtype=options.dtype, batch_size=options.batch_size,
                max_length=options.max_length, stride=options.stride, trust_remote_code=options.trust_remote_code,
                runtime=options.runtime)
            with cls._cache_lock:
                backend = cls._backend_cache.setdefault(key, backend)
        if options.backend == "static":
            # load_embedding is cached too, but re-reads a file whose mtime or size changed; asking
            # it every time keeps a replaced embedding file from serving its old vectors.
            embedding = load_embedding(options.embedding, format=options.embedding_format,
                                       allow_pickle=options.allow_pickle)
            if backend is None or backend.embedding is not embedding:
                backend = StaticBackend(embedding, tokenizer=options.tokenizer, oov=options.oov)
                with cls._cache_lock:
                    cls._backend_cache[key] = backend
        return backend

    # ----------------------------------------------------------------- API
    def signature(self, idf: Optional[IDFTable] = None) -> str:
        """Every setting that can change a score of this scorer (print it with the scores).

        A string, as in every result dict; inside the library a signature stays the object
        :meth:`signature_fields` gives until it is printed.
        """
        return str(self.signature_fields(idf))

    def signature_fields(self, idf: Optional[IDFTable] = None) -> Signature:
        """:meth:`signature` as a :class:`~wrd_score.signature.Signature` value."""
        o = self.options
        parts = {"wrdscore": f"v{__version__}", "variant": o.variant}
        parts.update(self.backend.signature_fields())
        parts["weights"] = o.weights
        if uses_idf(o.weights):
            parts["idf"] = idf.source if idf is not None else "refs"
        elif uses_corpus_idf(o.weights):
            parts["idf"] = "emb"  # the embedding file's table, pinned by the file's checksum (emb:)
        parts["clip"] = "yes" if o.clip_negative else "no"
        if not HAVE_NUMBA:
            # The POT reference path sums cosines and flows in another order than the compiled kernel: the
            # same scores to within 1e-15, not the same bits, so a reader must be able to tell them apart.
            parts["solver"] = "pot"
        if o.rescale_with_baseline:
            # Recorded only when on, as bert_score does, so existing signatures keep their meaning; a baseline that
            # is not shipped adds a digest of its numbers (rescale.baseline_field).
            parts["rescale"] = baseline_field(Signature(parts), o.embedding)
        return Signature(parts)

    def idf_table(self, references: Iterable[Union[str, Sequence[str]]],
                  idf: Optional[Mapping[str, float]] = None) -> Optional[IDFTable]:
        """The IDF table a call with these references uses: ``None`` unless the weights use IDF; the
        user's ``idf`` dict (or an already fitted table) when given; else fit on every reference (each item a
        string, one reference, or a list of them, as :meth:`score` reads them).

        Fitting once and passing the table to each chunk keeps chunked scoring equal to one call
        (:func:`~wrd_score.weights.shared_idf`, the one rule).
        """
        return self._shared_idf(idf, lambda: iter_reference_lists(references))

    def _shared_idf(self, idf: Any, references: Any) -> Optional[IDFTable]:
        """:func:`~wrd_score.weights.shared_idf`, and a user's table refused where a key can never weigh a token."""
        table = shared_idf(self.options.weights, idf, references, self.backend.tokenize)
        if table is not None and table.source.startswith("user"):
            check_idf_keys(table, self.backend)
        return table

    def score(self, predictions: Sequence[str], references: References,
              idf: Optional[Mapping[str, float]] = None) -> Dict[str, Any]:
        """Score each prediction against its reference(s).

        Returns a dict with per-example ``precision``, ``recall``, ``f1``, ``best_reference``
        (index of the winning reference: the one with the highest F1, the first on ties), their
        means ``mean_precision``/``mean_recall``/``mean_f1`` and the ``signature`` (a string).
        """
        return self.scores(predictions, references, idf).as_dict()

    def scores(self, predictions: Sequence[str], references: References,
               idf: Optional[Mapping[str, float]] = None) -> "Scores":
        """:meth:`score`'s per-example lists, with the signature as a :class:`~wrd_score.signature.Signature`
        object (for callers that add fields or read them; :meth:`Scores.as_dict` prints it)."""
        predictions = check_texts("predictions", predictions)
        flat_refs, groups = check_references(references, len(predictions), flat=True)
        # The lists of references are built only if IDF is fitted on them or an error names one.
        idf_table = self._shared_idf(idf, lambda: groups_of(flat_refs, groups)) or self.corpus_idf
        # Distinct texts in first-appearance order (predictions, then references) and the pairs as
        # text indices, built with C-level dict/map calls: at 100k method-name pairs the per-item
        # Python loops these replace cost about as much as all the optimal transport.
        one_each = groups is None
        sizes = [1] * len(flat_refs) if one_each else [len(group) for group in groups]
        every = predictions + flat_refs
        text_list, rows = first_appearance_rows(every, len(every))
        enc = self.backend.encode(text_list)
        check_transport_size(enc.spans, lambda i: _where(text_list[i], predictions, groups_of(flat_refs, groups)))
        masses = token_masses(enc.norms, enc.tokens, self.options.weights, idf_table, enc.vocabulary)
        pairs = np.empty((len(flat_refs), 2), dtype=np.int64)
        pred_rows = rows[:len(predictions)]
        pairs[:, 0] = pred_rows if one_each else np.repeat(pred_rows, sizes)
        pairs[:, 1] = rows[len(predictions):]
        precision, recall = score_pairs(enc, text_list, pairs, masses, self.options.variant,
                                        self.options.clip_negative, _thread_count(self.options.num_threads),
                                        distinct=True)
        f1 = f1_score(precision, recall)
        flat, best = best_of(f1, sizes)
        out_p, out_r, out_f = precision[flat].tolist(), recall[flat].tolist(), f1[flat].tolist()
        signature = self.signature_fields(idf_table)
        if self.options.rescale_with_baseline:
            # After choosing the best reference: the map is monotone, so the choice is the same.
            base = lookup_baseline(signature, self.options.embedding, self.options)
            out_p = rescale(out_p, base["precision"]).tolist()
            out_r = rescale(out_r, base["recall"]).tolist()
            out_f = rescale(out_f, base["f1"]).tolist()
        return Scores(out_p, out_r, out_f, best, signature)

    def explain(self, prediction: str, reference: str, idf: Optional[Mapping[str, float]] = None) -> PairDetail:
        """Tokens, cosine matrix, masses and optimal flow for one pair (what the app draws).

        The scores on the returned :class:`PairDetail` are raw, whatever ``rescale_with_baseline``
        says: they describe the matrices beside them. :meth:`score` gives the rescaled numbers. ``prediction`` and
        ``reference`` are one string each (of several references, :meth:`score` gives ``best_reference``).
        """
        # One string each: with a list of references it explained the first, where score() takes the best.
        texts = list(check_pair(prediction, reference))
        idf_table = self.idf_table([texts[1]], idf) or self.corpus_idf
        enc = self.backend.encode(texts)
        check_transport_size(enc.spans, ("prediction", "reference").__getitem__, occurrences=True)
        masses = token_masses(enc.norms, enc.tokens, self.options.weights, idf_table, enc.vocabulary)
        return pair_detail(enc, texts[0], texts[1], enc.spans[0], enc.spans[1], masses,
                           self.options.variant, self.options.clip_negative, compiled=True)


class Scores(NamedTuple):
    """One scoring call's per-example lists and its signature, an object until it is printed."""

    precision: List[float]
    recall: List[float]
    f1: List[float]
    best_reference: List[int]
    signature: Signature

    def as_dict(self) -> Dict[str, Any]:
        """The result dict of :meth:`WRDScorer.score` (:func:`result_dict`; the signature printed)."""
        return result_dict(self.precision, self.recall, self.f1, self.best_reference, str(self.signature))


#: (table source, backend signature) pairs whose keys were checked: a training loop passes one dict every step.
_CHECKED_IDF: Dict[Tuple[str, str], None] = {}
_CHECKED_IDF_MAX = 64
_CHECKED_IDF_LOCK = threading.Lock()


def check_idf_keys(table: IDFTable, backend: Any) -> None:
    """Refuse a user's IDF table with a key that no text can bring as a token (``getCount`` where the identifier
    tokenizer makes ``get`` and ``count``): its weight would go unused and the text's tokens would get the table's
    largest weight instead, a score that looks weighted and is not.  The tokens depend on the backend alone (its
    signature fields: embedding or model, tokenizer, pooling), so the check is remembered per table and backend."""
    seen = (table.source, repr(sorted(backend.signature_fields().items())))
    with _CHECKED_IDF_LOCK:
        if seen in _CHECKED_IDF:
            return
    for key in table.weights:
        problem = backend.idf_key_problem(key)
        if problem is not None:
            raise ValueError(f"idf key {key!r} {problem}; its weight would go unused: key the table by tokens "
                             "(WRDScorer(...).backend.tokenize(text) shows them)")
    with _CHECKED_IDF_LOCK:
        if len(_CHECKED_IDF) >= _CHECKED_IDF_MAX:
            _CHECKED_IDF.pop(next(iter(_CHECKED_IDF)))
        _CHECKED_IDF[seen] = None


def mean(values: Iterable[float]) -> float:
    """The mean of per-example scores, as every entry point reports it: the running sum in example order over n
    (0.0 for none). Streams and shards add their sums up in the same order, so their means are bit-identical to one
    call's; not ``sum()``, which Python 3.12 made compensated, nor ``np.mean``'s pairwise sum (the app's file means
    parted from the library's in the last bits).

    >>> mean([0.1, 0.2, 0.3]) == (0.1 + 0.2 + 0.3) / 3
    True
    """
    total, n = 0.0, 0
    for value in values:
        total += value
        n += 1
    return total / max(n, 1)


def result_dict(precision: List[float], recall: List[float], f1: List[float], best_reference: List[int],
                signature: str) -> Dict[str, Any]:
    """The result of :meth:`WRDScorer.score` from its per-example lists, in example order.

    Every path that scores parts of one input (chunks, ranks, Ray actors) joins them here, so its
    means are summed as one call sums them and come out bit-identical (:func:`mean`).

    >>> result_dict([1.0, 0.5], [1.0, 0.0], [1.0, 0.0], [0, 0], "sig")["mean_precision"]
    0.75
    """
    return {
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "best_reference": best_reference,
        "mean_precision": mean(precision),
        "mean_recall": mean(recall),
        "mean_f1": mean(f1),
        "signature": signature,
    }


def _where(text: str, predictions: Sequence[str], refs: Sequence[Sequence[str]]) -> str:
    """``predictions[i]`` or ``references[i][j]``: where a text first appears, for error messages."""
    if text in predictions:
        return f"predictions[{predictions.index(text)}]"
    for i, group in enumerate(refs):
        if text in group:
            return f"references[{i}][{group.index(text)}]"
    return "a text"


def score(predictions: Sequence[str], references: References, *,
          idf: Optional[Mapping[str, float]] = None, **options: Any) -> Dict[str, Any]:
    """Functional form of :class:`WRDScorer` (the backend is cached across calls).

    >>> out = score(["get count"], [["size", "get count"]])
    >>> out["f1"], out["best_reference"]
    ([1.0], [1])
    """
    return WRDScorer(**options).score(predictions, references, idf=idf)
