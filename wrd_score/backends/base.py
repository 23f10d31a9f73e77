"""Step 2 of the pipeline: tokens -> vectors.

Every backend turns a list of texts into one :class:`Encoded` table.  Rows are token units; a
text is the list of row indices in ``spans``.  Static backends share one row between all
occurrences of a token string (so equal rows mean equal tokens, which lets the scorer give equal
tokens a cosine of exactly 1); contextual backends give every occurrence its own row.
"""
from __future__ import annotations

from collections.abc import Sequence as SequenceABC
from dataclasses import dataclass
from itertools import count
from typing import Callable, Dict, Iterable, List, Optional, Protocol, Sequence, Tuple, Union

import numpy as np

__all__ = ["Encoded", "Backend", "FlatSpans", "first_appearance_rows"]


def first_appearance_rows(items: Iterable[str], n: int) -> Tuple[List[str], np.ndarray]:
    """The ``n`` items' distinct values in order of first appearance, and each item's index among them.

    One dict pass (``setdefault`` keeps each value's first position), then the ranks: ``0..k-1``
    scattered to the ascending first positions and gathered back by each item's first position,
    O(n) in numpy (a binary search per item cost 3 ms at 40,000 texts; a second dict and lookup
    per item more).

    >>> values, rows = first_appearance_rows(["b", "a", "b", "c"], 4)
    >>> values, rows.tolist()
    (['b', 'a', 'c'], [0, 1, 0, 2])
    """
    seen: Dict[str, int] = {}
    first = np.fromiter(map(seen.setdefault, items, count()), dtype=np.int64, count=n)
    rank = np.empty(n, dtype=np.int64)
    rank[np.fromiter(seen.values(), dtype=np.int64, count=len(seen))] = np.arange(len(seen))
    return list(seen), rank[first]


class FlatSpans(SequenceABC):
    """Every text's row indices end to end (``rows``) with ``offsets`` (text ``t`` is
    ``rows[offsets[t]:offsets[t + 1]]``): a sequence of spans built without one array per text,
    which the batch scorer reads flat as it is (at 100k method names, making and re-joining the
    per-text arrays cost about as much as all the transport).

    >>> spans = FlatSpans(np.array([0, 1, 0, 2]), np.array([0, 2, 2, 4]))
    >>> len(spans), spans[0].tolist(), spans[1].tolist(), spans[-1].tolist()
    (3, [0, 1], [], [0, 2])
    """

    def __init__(self, rows: np.ndarray, offsets: np.ndarray) -> None:
        self.rows = rows
        self.offsets = offsets

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(f"span index {index} out of range for {n} texts")
        return self.rows[self.offsets[index]:self.offsets[index + 1]]


@dataclass
class Encoded:
    """Token table for a batch of texts.

    Attributes:
        units: ``(K, d)`` float64 unit directions; all-zero rows for tokens that have no vector.
        norms: ``(K,)`` embedding norms before normalisation (the ``norm`` mass).
        exact_only: ``(K,)`` bool; such a token has no direction and matches only itself.
        tokens: the ``K`` token strings (for IDF and for display).
        spans: one int array of row indices per input text, in text order (a list, or a
            :class:`FlatSpans`).
        vocabulary: a static embedding's word list and each row's index in it (-1: not in it), or
            ``None``; what lets :func:`~wrd_score.weights.token_masses` read the embedding's IDF by row.
    """

    units: np.ndarray
    norms: np.ndarray
    exact_only: np.ndarray
    tokens: List[str]
    spans: Union[List[np.ndarray], FlatSpans]
    vocabulary: Optional[Tuple[Sequence[str], np.ndarray]] = None


def unit_problem(tokenize: Callable[[str], Sequence[str]], key: str, tokenizer: str) -> Optional[str]:
    """Why ``key`` is never one unit of ``tokenize`` (``None`` when it is one): an IDF key that is not would go
    unused, and its text's tokens would get the table's largest weight instead."""
    units = list(tokenize(key))
    if units == [key]:
        return None
    return f"is not one token: {tokenizer} makes {units} of it" if units else f"makes no token with {tokenizer}"


class Backend(Protocol):
    """What the scorer needs from an embedding backend."""

    def encode(self, texts: Sequence[str]) -> Encoded:  # pragma: no cover - protocol
        ...

    def signature_fields(self) -> Dict[str, str]:  # pragma: no cover - protocol
        ...

    def idf_key_problem(self, key: str) -> Optional[str]:  # pragma: no cover - protocol
        ...
