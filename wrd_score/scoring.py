"""Step 5 of the pipeline: transport plan -> precision, recall, F1.

Orientation everywhere: rows are prediction tokens, columns are reference tokens.

How P and R are read off a plan (the variants ``paper`` and ``wrd``) is defined once, beside ``VARIANTS``
(:func:`wrd_score.transport.variants.plan_prf`: the batch kernel compiles it in, the POT path here calls it
through :func:`prf_from_plan`); which variant a call uses comes from its preset when not given (``wrd`` in every
bundle of :data:`wrd_score.options.PRESETS`).  Here: scoring a call's pairs (the batch kernel, re-scoring on
POT's path the pairs it declines), F1 (the harmonic mean where P and R are positive, the smaller of the two
elsewhere: :func:`f1_score`), the empty-text rule, the cosine
matrix, the best reference.  Each text's masses are normalised by one rule (:func:`wrd_score.weights.normalise_texts`),
whichever path scores the pair.
"""
from __future__ import annotations

from typing import Callable, List, Sequence, Tuple

import numpy as np

from . import transport
from .checks import check_choice, check_int
from .deps import njit
from .backends.base import Encoded, FlatSpans
from .tokenize import normal_form
from .transport import VARIANTS, VariantName, cosine_range, emd_plan, prf_from_plan
from .weights import normalise, normalise_texts

__all__ = ["VARIANTS", "cosine_range", "empty_pair_score", "empty_text_key", "best_of", "cosine_matrix", "prf_from_plan", "f1_score", "PairDetail", "pair_detail", "pair_scores",
           "score_pairs"]



#: Most transport nodes one text may bring: distinct tokens (static backend) or token occurrences
#: (contextual backend, where every occurrence has its own vector).  A pair's dense problem then
#: holds at most 4096 x 4096 float64 cells (128 MiB a matrix; POT keeps a few), and takes seconds,
#: not the minutes and gigabytes (or a C++ ``std::bad_alloc`` abort) of an unbounded one.
MAX_TRANSPORT_NODES = 4096


def check_transport_size(spans: Sequence[np.ndarray], label: Callable[[int], str], occurrences: bool = False) -> None:
    """Refuse a text whose transport problem exceeds :data:`MAX_TRANSPORT_NODES`, before any
    per-pair matrix is allocated (POT aborts the process on allocation failure: no Python error).

    ``occurrences=True`` counts every token (for :func:`pair_detail`, whose matrices are per token).
    """
    lengths = spans.lengths if isinstance(spans, FlatSpans) else np.fromiter(map(len, spans), np.int64, len(spans))
    for i in np.flatnonzero(lengths > MAX_TRANSPORT_NODES):
        span = spans[i]
        nodes = len(span) if occurrences else len(np.unique(span))
        if nodes > MAX_TRANSPORT_NODES:
            what = "tokens" if occurrences else "transport nodes (distinct tokens; every token with the contextual backend)"
            mib = 8 * nodes * nodes / 2**20
            raise ValueError(f"{label(i)} has {nodes} {what}; the limit is {MAX_TRANSPORT_NODES} per text "
                             f"(its dense transport problem would need over {mib:,.0f} MiB a matrix)")


def empty_pair_score(text_p: str, text_r: str) -> float:
    """The empty-text rule, for a pair where one side has no token: 1 if the texts are equal once
    surrounding whitespace is dropped, else 0 (nothing to transport, and nothing shared).

    Every metric of the library applies it; the compiled scorer applies it through
    :func:`empty_text_key`.

    >>> empty_pair_score("", "  "), empty_pair_score("", "size")
    (1.0, 0.0)
    """
    return 1.0 if empty_text_key(text_p) == empty_text_key(text_r) else 0.0


def empty_text_key(text: str) -> str:
    """What two token-less texts must share to be equal under :func:`empty_pair_score`: the text in
    the tokenizers' normal form (NFKC), so that canonically equal texts score 1 here too.

    >>> empty_text_key(" \u0323\u0301 ") == empty_text_key("\u0301\u0323")
    True
    """
    return normal_form(text).strip()


def best_of(values: np.ndarray, sizes: Sequence[int]) -> Tuple[np.ndarray, List[int]]:
    """The best-reference rule: for each example's consecutive run of ``sizes[i]`` pair scores
    (one per reference), the flat index of the highest and its index among the references (the
    first on ties).

    >>> flat, best = best_of(np.array([0.2, 0.9, 0.5, 0.7]), [2, 1, 1])
    >>> flat.tolist(), best
    ([1, 2, 3], [1, 0, 0])
    """
    values = np.asarray(values)
    if len(values) == len(sizes):  # one reference each (the common case): no per-example loop
        return np.arange(len(values)), [0] * len(values)
    flat = np.empty(len(sizes), dtype=np.int64)
    best: List[int] = []
    start = 0
    for i, size in enumerate(sizes):
        k = int(np.argmax(values[start:start + size]))
        flat[i] = start + k
        best.append(k)
        start += size
    return flat, best


def f1_score(precision: np.ndarray, recall: np.ndarray) -> np.ndarray:
    """The harmonic mean of P and R where both are positive, and the smaller of the two elsewhere.

    With clipped cosines P and R lie in [0, 1] and this is the usual F1, 0 when either is 0. With
    ``clip_negative=False`` (the static identifiers default since 0.6.0) either may be negative, where 2PR/(P+R) leaves [-1, 1] (P = 0.0855 and R = -0.0794 gave
    -2.23) or lands above both (two negatives gave 0). The smaller of the two continues the harmonic mean across 0
    (which tends to 0 as either does), so F1 stays continuous, monotone in each, and between P and R.

    >>> f1_score([0.5, 0.0855, -0.2], [0.25, -0.0794, -0.1]).tolist()
    [0.3333333333333333, -0.0794, -0.2]
    """
    precision = np.asarray(precision, dtype=np.float64)
    recall = np.asarray(recall, dtype=np.float64)
    total = precision + recall
    positive = (precision > 0) & (recall > 0)
    harmonic = np.divide(2 * precision * recall, total, out=np.zeros_like(total), where=positive)
    return np.where(positive, harmonic, np.minimum(precision, recall))


def cosine_matrix(enc: Encoded, rows_p: np.ndarray, rows_r: np.ndarray, clip: bool, blas: bool = False,
                  threads: int = 1) -> np.ndarray:
    """Cosines between two spans of an encoded table, with equal rows set to exactly 1, clipped.

    Where numba runs, each is the batch kernel's (:func:`wrd_score.transport.cosines`: the dot product summed left
    to right over the dimensions), so a pair's cosines have the same bits on either of WRDScore's paths and on
    every machine.  ``blas=True`` (BERTScore's and MoverScore's rules, whose scores the fingerprint pins), and any
    call without numba: numpy's product, whose last bits depend on the BLAS and on its thread count (on a 2-core
    machine, OpenBLAS with 1 and 2 threads gave different bits for every shape tried, 65 x 65 to 2,000 x 1,900).
    ``threads``: how many threads may compute a large matrix (the bits do not depend on it).
    """
    if transport.HAVE_NUMBA and not blas:
        return transport.cosines(enc.units, rows_p, rows_r, clip, threads)
    cos = enc.units[rows_p] @ enc.units[rows_r].T
    same = rows_p[:, None] == rows_r[None, :]
    # Equal rows are the same token (static) or the same occurrence: exactly 1, not 1 - 1e-16,
    # so identical texts score exactly 1 and "exact_only" tokens (zero units) still match themselves.
    cos[same] = 1.0
    np.clip(cos, 0.0 if clip else -1.0, 1.0, out=cos)
    return cos


class PairDetail:
    """Everything about one scored pair: tokens, cosines, masses, flow, P/R/F1 (for the app and plots)."""

    def __init__(self, tokens_p, tokens_r, cos, mass_p, mass_r, flow, precision, recall):
        self.tokens_p: List[str] = tokens_p
        self.tokens_r: List[str] = tokens_r
        self.cos = cos
        self.mass_p = mass_p
        self.mass_r = mass_r
        self.flow = flow
        self.precision = precision
        self.recall = recall
        self.f1 = float(f1_score(precision, recall))

    def __repr__(self) -> str:
        """Tokens, scores and matrix shape on one line; long token lists show their ends and their count.

        >>> PairDetail(["get", "count"], ["size"], np.array([[0.05], [0.13]]), np.array([0.02, 0.98]),
        ...            np.array([1.0]), np.array([[0.02], [0.98]]), 0.1295, 0.1295)
        PairDetail(tokens_p=['get', 'count'], tokens_r=['size'], precision=0.1295, recall=0.1295, f1=0.1295, cos.shape=(2, 1))
        >>> words = [f"w{i}" for i in range(22)]
        >>> repr(PairDetail(words, words, np.eye(22), np.full(22, 1 / 22), np.full(22, 1 / 22),
        ...                 np.eye(22) / 22, 1.0, 1.0))[:78]
        "PairDetail(tokens_p=['w0', 'w1', 'w2', 'w3', ..., 'w20', 'w21'] (22 tokens), t"
        """
        # The names are the attributes' own, so what the repr shows can be read back as shown.
        return (f"PairDetail(tokens_p={_tokens_repr(self.tokens_p)}, tokens_r={_tokens_repr(self.tokens_r)}, "
                f"precision={self.precision:.4f}, recall={self.recall:.4f}, f1={self.f1:.4f}, "
                f"cos.shape=({len(self.tokens_p)}, {len(self.tokens_r)}))")

    def to_pandas(self):
        """One row per (prediction token, reference token) cell, in row-major order: a tidy table.

        Columns: ``prediction_index``, ``reference_index`` (token positions: a token may repeat),
        ``prediction_token``, ``reference_token``, ``prediction_mass``, ``reference_mass``,
        ``cosine``, ``flow``.  Needs pandas.

        >>> detail = PairDetail(["get", "count"], ["size"], np.array([[0.25], [0.5]]), np.array([0.25, 0.75]),
        ...                     np.array([1.0]), np.array([[0.25], [0.75]]), 0.4375, 0.4375)
        >>> frame = detail.to_pandas()
        >>> print(frame[["prediction_token", "reference_token", "cosine", "flow"]].to_string(index=False))
        prediction_token reference_token  cosine  flow
                     get            size    0.25  0.25
                   count            size    0.50  0.75
        >>> float((frame.cosine * frame.flow).sum())  # = recall of the "wrd" variant
        0.4375
        """
        try:
            import pandas as pd
        except ImportError:
            raise ImportError("PairDetail.to_pandas needs pandas: pip install pandas") from None
        m, n = len(self.tokens_p), len(self.tokens_r)
        rows, cols = np.divmod(np.arange(m * n), n) if n else (np.zeros(0, np.int64), np.zeros(0, np.int64))
        return pd.DataFrame({
            "prediction_index": rows,
            "reference_index": cols,
            "prediction_token": [self.tokens_p[i] for i in rows],
            "reference_token": [self.tokens_r[j] for j in cols],
            "prediction_mass": np.asarray(self.mass_p, dtype=np.float64)[rows],
            "reference_mass": np.asarray(self.mass_r, dtype=np.float64)[cols],
            "cosine": np.asarray(self.cos, dtype=np.float64).reshape(m * n),
            "flow": np.asarray(self.flow, dtype=np.float64).reshape(m * n),
        })


def _tokens_repr(tokens: Sequence[str], head: int = 4, tail: int = 2) -> str:
    shown = [repr(t if len(t) <= 20 else t[:19] + "…") for t in tokens]
    if len(shown) <= head + tail + 1:
        return "[" + ", ".join(shown) + "]"
    return "[" + ", ".join(shown[:head] + ["..."] + shown[-tail:]) + f"] ({len(shown)} tokens)"


def pair_detail(enc: Encoded, text_p: str, text_r: str, span_p: np.ndarray, span_r: np.ndarray,
                masses: np.ndarray, variant: VariantName, clip: bool, compiled: bool = False) -> PairDetail:
    """Score one pair, keeping the per-token matrices (for the app and plots).

    P/R are :func:`pair_scores`'s; the flow shown is its merged optimal plan split back over
    duplicate tokens in proportion to their masses (an optimal plan of the unmerged problem).
    ``compiled=True`` (``explain()``) first asks the compiled solver (:func:`transport.pair_plan`),
    whose P/R are the batch scorer's, and takes POT's path only where that declines; the default
    is POT, the reference the compiled solver is tested against.
    """
    tokens_p = [enc.tokens[i] for i in span_p]
    tokens_r = [enc.tokens[i] for i in span_r]
    m, n = len(span_p), len(span_r)
    if m == 0 or n == 0:
        value = empty_pair_score(text_p, text_r) if m == n else 0.0
        return PairDetail(tokens_p, tokens_r, np.zeros((m, n)), np.zeros(m), np.zeros(n), np.zeros((m, n)), value, value)
    cos = cosine_matrix(enc, span_p, span_r, clip)
    mass_p = normalise(masses[span_p])
    mass_r = normalise(masses[span_r])
    if text_p == text_r or (m == n and np.array_equal(np.sort(span_p), np.sort(span_r))):
        # Identical token bags: the identity matching has cost 0, so it is optimal and exact.
        flow = _identity_flow(span_p, span_r, mass_p, mass_r)
        if flow is not None:
            return PairDetail(tokens_p, tokens_r, cos, mass_p, mass_r, flow, 1.0, 1.0)
    fast = transport.pair_plan(enc.units, span_p, span_r, mass_p, mass_r, variant, clip) if compiled else None
    if fast is not None:
        return PairDetail(tokens_p, tokens_r, cos, mass_p, mass_r, fast[2], fast[0], fast[1])
    solved = _solve_merged(enc, span_p, span_r, mass_p, mass_r, variant, clip)
    precision, recall, node_flow, (group_p, node_p), (group_r, node_r) = solved
    share_p = np.divide(mass_p, node_p[group_p], out=np.zeros(m), where=node_p[group_p] > 0)
    share_r = np.divide(mass_r, node_r[group_r], out=np.zeros(n), where=node_r[group_r] > 0)
    flow = node_flow[np.ix_(group_p, group_r)] * share_p[:, None] * share_r[None, :]
    return PairDetail(tokens_p, tokens_r, cos, mass_p, mass_r, flow, precision, recall)


def pair_scores(enc: Encoded, text_p: str, text_r: str, span_p: np.ndarray, span_r: np.ndarray,
                masses: np.ndarray, variant: VariantName, clip: bool, num_threads: int = 1) -> Tuple[float, float]:
    """P and R of one pair on the POT reference path, without any per-token ``m x n`` matrix.

    Memory and time depend on the number of transport nodes (distinct tokens), not on the length
    of the texts: a 10,000-token pair with a few thousand distinct tokens stays small.
    """
    m, n = len(span_p), len(span_r)
    if m == 0 or n == 0:
        value = empty_pair_score(text_p, text_r) if m == n else 0.0
        return value, value
    mass_p = normalise(masses[span_p])
    mass_r = normalise(masses[span_r])
    if text_p == text_r or (m == n and np.array_equal(np.sort(span_p), np.sort(span_r))):
        order_p = np.argsort(span_p, kind="stable")
        order_r = np.argsort(span_r, kind="stable")
        if np.allclose(mass_p[order_p], mass_r[order_r], rtol=0, atol=1e-15):
            return 1.0, 1.0
    precision, recall = _solve_merged(enc, span_p, span_r, mass_p, mass_r, variant, clip, num_threads)[:2]
    return precision, recall


def _merge_nodes(span: np.ndarray, other: np.ndarray, exact_only: np.ndarray, mass: np.ndarray):
    """Transport nodes of one side: (representative rows, node of each token, node mass, token count).

    Merging tokens whose cost rows are identical is exact: any plan of the merged problem, split
    back in proportion to the tokens' masses, is a plan of the original one with the same cost, and
    vice versa, so the optimum and (with ``count``) P/R are those of an optimal unmerged plan.  Two
    kinds merge: repeats of one row (a static backend gives a token string one row), and
    exact-only tokens (no vector) that the other side lacks, whose cosine to all of it is 0.
    Nodes keep the order of first occurrence in the text, so the problem handed to the solver,
    and its tie-breaking, do not depend on how rows were numbered in the batch.
    """
    span = np.asarray(span, dtype=np.int64)
    if not transport.HAVE_NUMBA:
        return _merge_nodes_reference(span, other, exact_only, mass)
    rows, group, node_mass, count = _merge_nodes_compiled(
        span, np.asarray(other, dtype=np.int64), np.asarray(exact_only, dtype=np.bool_),
        np.ascontiguousarray(mass, dtype=np.float64))
    return rows, group, node_mass, count


@njit(cache=True, nogil=True)
def _merge_nodes_compiled(span, other, exact_only, mass):  # pragma: no cover - compiled
    """:func:`_merge_nodes_reference` in one compiled pass (the two ``np.unique``, ``np.isin`` and ``np.bincount``
    calls cost a 128-token pair on the POT path more than its transport problem): the same nodes, in the same
    order, and the same sums, added in token order as ``bincount`` adds them."""
    n = span.shape[0]
    key = span.copy()
    others = np.sort(other)
    for i in range(n):
        if exact_only[span[i]]:
            at = np.searchsorted(others, span[i])
            if at == others.shape[0] or others[at] != span[i]:
                key[i] = -1
    order = np.argsort(key, kind="mergesort")  # stable: a key's first occurrence leads its run
    node_of = np.empty(n, dtype=np.int64)
    firsts = np.empty(n, dtype=np.int64)
    nodes = 0
    for t in range(n):
        if t == 0 or key[order[t]] != key[order[t - 1]]:
            firsts[nodes] = order[t]
            nodes += 1
        node_of[order[t]] = nodes - 1
    by_first = np.argsort(firsts[:nodes], kind="mergesort")
    rank = np.empty(nodes, dtype=np.int64)
    for r in range(nodes):
        rank[by_first[r]] = r
    group = np.empty(n, dtype=np.int64)
    rows = np.empty(nodes, dtype=np.int64)
    node_mass = np.zeros(nodes)
    count = np.zeros(nodes)
    for r in range(nodes):
        rows[r] = span[firsts[by_first[r]]]
    for i in range(n):
        g = rank[node_of[i]]
        group[i] = g
        node_mass[g] += mass[i]
        if mass[i] > 0:
            count[g] += 1.0
    return rows, group, node_mass, count


def _merge_nodes_reference(span: np.ndarray, other: np.ndarray, exact_only: np.ndarray, mass: np.ndarray):
    """:func:`_merge_nodes` in numpy (without numba, and the twin the compiled pass is tested against)."""
    span = np.asarray(span, dtype=np.int64)
    key = span.copy()
    lonely = np.asarray(exact_only, dtype=bool)[span] & ~np.isin(span, other)
    key[lonely] = -1
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(len(order))
    group = rank[np.asarray(inverse).ravel()]
    node_mass = np.bincount(group, weights=mass, minlength=len(order))
    count = np.bincount(group, weights=(mass > 0).astype(np.float64), minlength=len(order))
    return span[first[order]], group, node_mass, count


def _solve_merged(enc: Encoded, span_p, span_r, mass_p, mass_r, variant: VariantName, clip: bool, threads: int = 1):
    rep_p, group_p, node_p, count_p = _merge_nodes(span_p, span_r, enc.exact_only, mass_p)
    rep_r, group_r, node_r, count_r = _merge_nodes(span_r, span_p, enc.exact_only, mass_r)
    cos = cosine_matrix(enc, rep_p, rep_r, clip, threads=threads)
    flow = emd_plan(node_p, node_r, 1.0 - cos)
    precision, recall = prf_from_plan(cos, flow, node_p, variant, count_p, count_r)
    return precision, recall, flow, (group_p, node_p), (group_r, node_r)


def _identity_flow(span_p, span_r, mass_p, mass_r):
    if len(span_p) != len(span_r):
        return None
    order_p = np.argsort(span_p, kind="stable")
    order_r = np.argsort(span_r, kind="stable")
    if not np.allclose(mass_p[order_p], mass_r[order_r], rtol=0, atol=1e-15):
        return None  # equal texts but different masses (contextual rows): solve it properly
    flow = np.zeros((len(span_p), len(span_r)))
    flow[order_p, order_r] = mass_p[order_p]
    return flow


def score_pairs(enc: Encoded, texts: Sequence[str], pairs: np.ndarray, masses: np.ndarray,
                variant: VariantName, clip: bool, num_threads: int = 1, distinct: bool = False) -> Tuple[np.ndarray, np.ndarray]:
    """Precision and recall for every ``(prediction_text_index, reference_text_index)`` row of ``pairs``.

    Equal to calling :func:`pair_scores` (the POT reference) on every pair, within 1e-9 (checked
    by ``tests/test_transport.py``), but batched: per-text work (mass normalisation) is done once per
    text, and all pairs are scored in one compiled call (:func:`wrd_score.transport.batch_prf`).
    Pairs the compiled solver cannot vouch for (P/R-moving ties, problems over
    ``transport.MAX_CELLS`` cells) are re-scored here with :func:`pair_scores`.  Without numba,
    every pair takes the reference path.  Results do not depend on ``num_threads`` or batch size.
    ``distinct=True``: the caller vouches that no two ``texts`` are equal (``WRDScorer.score`` numbers
    them so), which spares a dict of all texts to find out.

    >>> from wrd_score.backends.base import Encoded
    >>> enc = Encoded(units=np.eye(2), norms=np.ones(2), exact_only=np.zeros(2, bool), tokens=["a", "b"],
    ...               spans=[np.array([0]), np.array([0, 1])])
    >>> p, r = score_pairs(enc, ["a", "a b"], np.array([[0, 1]]), np.ones(2), "paper", True)
    >>> p.tolist(), r.tolist()
    ([0.5], [0.5])
    """
    check_choice("variant", variant, VARIANTS)
    check_int("num_threads", num_threads)
    pairs = np.asarray(pairs, dtype=np.int64).reshape(-1, 2)
    if len(pairs) == 0:
        return np.zeros(0), np.zeros(0)
    if not transport.HAVE_NUMBA:
        return _score_pairs_reference(enc, texts, pairs, masses, variant, clip)
    flat_rows, flat_mass, offsets = _flatten_texts(enc.spans, masses)
    # Equal texts share an id (the reference's "text_p == text_r" shortcut); so do token-less texts
    # equal after strip() (the reference scores those 1).
    text_id = np.arange(len(texts), dtype=np.int64)
    if not distinct:
        first = dict(zip(texts, range(len(texts))))  # a text's last index: the same for equal texts
        if len(first) < len(texts):
            text_id = np.fromiter(map(first.__getitem__, texts), dtype=np.int64, count=len(texts))
    empty_id = np.full(len(texts), -1, dtype=np.int64)
    stripped: dict = {}
    for t in np.flatnonzero(np.diff(offsets) == 0):
        empty_id[t] = stripped.setdefault(empty_text_key(texts[t]), len(stripped))
    precision, recall, status = transport.batch_prf(enc.units, flat_rows, flat_mass, offsets, text_id, empty_id,
                                                    pairs, variant, clip, int(num_threads))
    for k in np.flatnonzero(status != transport.STATUS_OK):
        ip, ir = pairs[k]
        precision[k], recall[k] = pair_scores(enc, texts[ip], texts[ir], enc.spans[ip], enc.spans[ir], masses,
                                              variant, clip, int(num_threads))
    return precision, recall


def _flatten_texts(spans: Sequence[np.ndarray], masses: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All spans end to end, with each text's masses normalised as :func:`normalise` does."""
    if isinstance(spans, FlatSpans):  # already end to end
        flat_rows, offsets = spans.rows, spans.offsets
        lengths = spans.lengths
    else:
        lengths = np.fromiter((len(s) for s in spans), dtype=np.int64, count=len(spans))
        offsets = np.zeros(len(spans) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        flat_rows = (np.concatenate([np.asarray(s, dtype=np.int64) for s in spans]) if offsets[-1]
                     else np.zeros(0, np.int64))
    flat_mass = normalise_texts(np.asarray(masses, dtype=np.float64)[flat_rows], lengths)
    return flat_rows, np.ascontiguousarray(flat_mass), offsets


def _score_pairs_reference(enc: Encoded, texts: Sequence[str], pairs: np.ndarray, masses: np.ndarray,
                           variant: VariantName, clip: bool) -> Tuple[np.ndarray, np.ndarray]:
    """One :func:`pair_scores` (POT) per pair: the reference, and the path without numba."""
    precision = np.empty(len(pairs))
    recall = np.empty(len(pairs))
    for k, (ip, ir) in enumerate(pairs):
        precision[k], recall[k] = pair_scores(enc, texts[ip], texts[ir], enc.spans[ip], enc.spans[ir], masses,
                                              variant, clip)
    return precision, recall
