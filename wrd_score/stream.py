"""Scoring an unbounded stream of pairs in chunks, with memory bounded by the chunk size.

:func:`iter_scores` pulls ``chunk_size`` pairs at a time from any iterable (a generator over a
file of a million lines is fine), scores each chunk with one batched :meth:`WRDScorer.score` call
(tokenisation and embedding lookup once per distinct string of the chunk, all pairs of the chunk
in one compiled transport call) and yields one :class:`PairScore` per pair, in input order.

Scores do not depend on ``chunk_size`` (static: bit for bit; contextual: within
:data:`~wrd_score.backends.contextual.SCORE_TOLERANCE`, as a text's float32 vectors move in their last bits
with the batch it is encoded in): every pair is scored alone, and IDF weights, the only thing a chunk could
change otherwise, come from one table fixed beforehand (:func:`wrd_score.weights.shared_idf`): fitted on every reference when
they are all at hand (a list), else given as ``idf=`` (a one-pass stream).

With a backend that encodes in batches (contextual), each chunk is announced to the backend before
the previous one is scored (``backend.expect``), so that chunks cost what one call would: the last,
partial batch of each text length is filled with the next chunk's texts of that length, and a text
in two neighbouring chunks is encoded once.  ``iter_chunks`` then holds two chunks of pairs at a time.

>>> from wrd_score import WRDScorer
>>> pairs = [("getCount", "get_count"), ("size", ["getSize", "size"])]
>>> [(s.f1, s.best_reference) for s in iter_scores(WRDScorer(), pairs, chunk_size=1)]
[(1.0, 0), (1.0, 1)]
"""
from __future__ import annotations

from itertools import islice
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

from .checks import check_int, check_references, check_texts, groups_of, reference_lists
from .scorer import result_dict
from .weights import shared_idf

__all__ = ["PairScore", "iter_chunks", "iter_scores", "score_chunked", "MAX_CHUNK_SIZE"]

#: Most pairs in one chunk (SECURITY.md): a chunk is held whole, about 1 KB a pair of method names, so this bounds
#: a chunk near 1 GB, as ``rescale.MAX_BASELINE_PAIRS`` bounds the pairs scored in one call.
MAX_CHUNK_SIZE = 1_000_000

#: Called after each chunk with (pairs scored so far, total pairs).
Progress = Callable[[int, int], None]

Reference = Union[str, Sequence[str]]


class PairScore(NamedTuple):
    """Scores of one prediction against its reference(s); ``best_reference`` indexes them."""

    precision: float
    recall: float
    f1: float
    best_reference: int


def _check_chunk_size(chunk_size: Any) -> int:
    return check_int("chunk_size", chunk_size, 1, MAX_CHUNK_SIZE)


def _split(chunk: List[Any], start: int) -> Tuple[List[str], List[Reference]]:
    predictions: List[str] = []
    references: List[Reference] = []
    for offset, item in enumerate(chunk):
        if not isinstance(item, (tuple, list)) or len(item) != 2:
            raise TypeError(f"pairs[{start + offset}] must be a (prediction, reference) pair, got {item!r:.80}")
        predictions.append(item[0])
        references.append(item[1])
    return predictions, references


def _announce(scorer: Any, predictions: Sequence[Any], references: Sequence[Any]) -> None:
    """Tell a batching backend which texts the next chunk holds (anything not a string is left out:
    the chunk's own call reports it)."""
    texts = list(predictions)
    for refs in references:
        texts.extend([refs] if isinstance(refs, str) else refs if isinstance(refs, (list, tuple)) else ())
    scorer.backend.expect(texts)


def iter_chunks(scorer: Any, pairs: Iterable[Tuple[str, Reference]], chunk_size: int = 10_000,
                idf: Optional[Mapping[str, float]] = None) -> Iterator[dict]:
    """Yield :meth:`WRDScorer.score`'s result dict for each chunk of ``chunk_size`` pairs."""
    chunk_size = _check_chunk_size(chunk_size)
    # A list holds every reference before the first chunk: one table is fitted on them all, as in
    # score_chunked; a one-pass iterator cannot be read twice, so it needs idf=.
    everything = (lambda: reference_lists(_split(list(pairs), 0)[1])) if isinstance(pairs, Sequence) else None
    idf = shared_idf(scorer.options.weights, idf, everything, scorer.backend.tokenize, part="chunk")
    iterator = iter(pairs)
    ahead = hasattr(scorer.backend, "expect")  # else read one chunk at a time (lazily)
    start = 0
    chunk = list(islice(iterator, chunk_size))
    while chunk:
        predictions, references = _split(chunk, start)
        following = list(islice(iterator, chunk_size)) if ahead else []
        if following:
            _announce(scorer, [item[0] if isinstance(item, (tuple, list)) and len(item) == 2 else None
                               for item in following],
                      [item[1] if isinstance(item, (tuple, list)) and len(item) == 2 else () for item in following])
        start += len(chunk)
        yield scorer.score(predictions, references, idf=idf)
        chunk = following if ahead else list(islice(iterator, chunk_size))


def iter_scores(scorer: Any, pairs: Iterable[Tuple[str, Reference]], chunk_size: int = 10_000,
                idf: Optional[Mapping[str, float]] = None) -> Iterator[PairScore]:
    """Yield one :class:`PairScore` per ``(prediction, reference_or_references)`` pair, in order.

    Memory is bounded by ``chunk_size`` (about 1 KB per pair of method names), not by the stream.
    """
    for result in iter_chunks(scorer, pairs, chunk_size, idf):
        for values in zip(result["precision"], result["recall"], result["f1"], result["best_reference"]):
            yield PairScore(*values)


def score_chunked(scorer: Any, predictions: Sequence[str], references: Sequence[Reference], *,
                  chunk_size: int = 10_000, idf: Optional[Mapping[str, float]] = None,
                  progress: Optional[Progress] = None) -> Dict[str, Any]:
    """:meth:`WRDScorer.score` of in-memory lists, a chunk at a time, with a progress callback.

    The result equals one ``scorer.score(predictions, references, idf=idf)`` call bit for bit with
    the static backend, and within :data:`~wrd_score.backends.contextual.SCORE_TOLERANCE` with the
    contextual one (a text's float32 vectors move in their last bits with its batch): pairs are scored alone, and with IDF weights the table is fit once on every reference (the
    table one call would fit) and shared by the chunks.  This is the one chunked scorer of the
    library (the validation harness and the app use it).

    >>> from wrd_score import WRDScorer
    >>> seen = []
    >>> out = score_chunked(WRDScorer(), ["getCount", "size"], ["get_count", "length"], chunk_size=1,
    ...                     progress=lambda done, total: seen.append(done))
    >>> out["f1"][0], seen
    (1.0, [1, 2])
    """
    chunk_size = _check_chunk_size(chunk_size)
    # Read whole, as one score() call reads them: sliced unread, two strings were scored character by character, and
    # an error named an item by its place in its chunk.
    predictions = check_texts("predictions", predictions)
    every, groups = check_references(references, len(predictions), flat=True)
    references = every if groups is None else groups
    idf = shared_idf(scorer.options.weights, idf, lambda: groups_of(every, groups), scorer.backend.tokenize,
                     part="chunk")
    keys = ("precision", "recall", "f1", "best_reference")
    out: Dict[str, Any] = {key: [] for key in keys}
    signature = None
    n = len(predictions)
    ahead = hasattr(scorer.backend, "expect")
    for start in range(0, max(n, 1), chunk_size):
        if ahead and start + chunk_size < n:
            _announce(scorer, predictions[start + chunk_size:start + 2 * chunk_size],
                      references[start + chunk_size:start + 2 * chunk_size])
        result = scorer.score(list(predictions[start:start + chunk_size]), list(references[start:start + chunk_size]),
                              idf=idf)
        for key in keys:
            out[key].extend(result[key])
        signature = result["signature"]
        if progress is not None:
            progress(min(n, start + chunk_size), n)
    # Means as WRDScorer.score computes them (sum in example order), so they match one call too.
    return result_dict(out["precision"], out["recall"], out["f1"], out["best_reference"], signature)
