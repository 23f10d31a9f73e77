"""The embedding store's vector code: scale-safe norms and unit rows, and the compiled passes over a float16
table (unit rows, means of rows) that give the bits of numpy's float64 arithmetic without its temporaries.

The hand-written LLVM IR these passes call (the float16 widening, numpy's eight running sums) is in
:mod:`wrd_score._kernels`.
"""
from __future__ import annotations

from typing import Tuple

import numpy as np

from .._kernels import eight_sums, prefetch_row, widen_row
from ..deps import HAVE_NUMBA, njit

__all__ = ["safe_norms", "unit_rows", "table_unit_rows", "row_means", "quantize_rows", "dequantize_rows"]


def _by_largest_entry(rows: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """``(top, rows / top)`` with ``top`` each row's largest absolute entry (0 rows stay 0): rows
    scaled into a range where squaring neither overflows nor underflows."""
    top = np.abs(rows).max(axis=1) if rows.shape[1] else np.zeros(len(rows))
    return top, np.divide(rows, top[:, None], out=np.zeros_like(rows), where=top[:, None] > 0)


def safe_norms(vectors: np.ndarray) -> np.ndarray:
    """Euclidean row norms that neither overflow nor underflow (cosines must not depend on scale).

    Rows of ordinary magnitude take the plain ``np.linalg.norm`` (so scores stay bit-identical);
    rows where squaring would leave float64's range are divided by their largest entry first.
    """
    norms = np.linalg.norm(vectors, axis=1)
    risky = ~((norms > 1e-100) & (norms < 1e100))
    if risky.any():
        top, scaled = _by_largest_entry(vectors[risky])
        norms[risky] = top * np.linalg.norm(scaled, axis=1)
    return norms


def unit_rows(vectors: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """``(units, norms)`` of float64 rows, scale-invariant: ``units`` of ``c * vectors`` equal those of
    ``vectors`` (to rounding) for any finite ``c > 0``; a zero row gets a zero unit and norm 0."""
    norms = safe_norms(vectors)
    ok = norms > 0
    plain = ok & (norms > 1e-100) & (norms < 1e100)
    if plain.all():  # the common case: one division pass, no zero-filled buffer first
        return vectors / norms[:, None], norms
    units = np.zeros_like(vectors)
    np.divide(vectors, norms[:, None], out=units, where=plain[:, None])
    odd = ok & ~plain
    if odd.any():
        _, scaled = _by_largest_entry(vectors[odd])
        units[odd] = scaled / np.linalg.norm(scaled, axis=1)[:, None]
    return units, norms


@njit(cache=True, nogil=True)
def _block_sum(values, lo, n):
    """numpy's sum of a block of at most 128 float64 (eight running sums), the same bits."""
    if n < 8:
        total = 0.0
        for i in range(n):
            total += values[lo + i]
        return total
    total = eight_sums(values, lo, n)
    for i in range(lo + n - n % 8, lo + n):
        total += values[i]
    return total


@njit(cache=True, nogil=True)
def _pairwise_sum(values, n, todo, sums):
    """``np.add.reduce(values[:n])`` as numpy sums a contiguous float64 row: blocks of up to 128 by
    :func:`_block_sum`, longer runs split in halves (the first a multiple of 8) summed apart, then
    added.  numpy recurses; this walks the same tree with a stack (``todo``: 3 x 64 int64, ``sums``:
    64 float64), since numba's cache cannot load a recursive function."""
    todo[0, 0] = 0  # start
    todo[1, 0] = n  # length
    todo[2, 0] = 0  # 0: not split yet, 1: first half summed, 2: both halves summed
    depth = 1
    done = 0  # sums on the value stack
    while depth > 0:
        top = depth - 1
        lo, size, stage = todo[0, top], todo[1, top], todo[2, top]
        half = size // 2
        half -= half % 8
        if size <= 128:
            sums[done] = _block_sum(values, lo, size)
            done += 1
            depth -= 1
        elif stage == 0:
            todo[2, top] = 1
            todo[0, depth], todo[1, depth], todo[2, depth] = lo, half, 0
            depth += 1
        elif stage == 1:
            todo[2, top] = 2
            todo[0, depth], todo[1, depth], todo[2, depth] = lo + half, size - half, 0
            depth += 1
        else:
            sums[done - 2] = sums[done - 2] + sums[done - 1]
            done -= 1
            depth -= 1
    return sums[0]


#: Rows :func:`_half_unit_rows` asks the processor to fetch ahead of the one it works on.
_PREFETCH_AHEAD = 4


@njit(cache=True, nogil=True)
def _half_unit_rows(bits, rows, units, norms, squares, todo, sums):
    """Rows ``rows`` of a float16 table (as its bits) widened to float64, their ``np.linalg.norm`` and,
    where that is of plain size, their unit rows, one row at a time while it is in cache; other rows
    are left for :func:`unit_rows` (from the table: a NaN row here may hold a quieted NaN)."""
    d = bits.shape[1]
    count = rows.shape[0]
    for r in range(min(_PREFETCH_AHEAD, count)):
        prefetch_row(bits, rows[r])
    for r in range(count):
        if r + _PREFETCH_AHEAD < count:
            prefetch_row(bits, rows[r + _PREFETCH_AHEAD])
        widen_row(bits, rows[r], units, r)
        for k in range(d):
            squares[k] = units[r, k] * units[r, k]
        norm = np.sqrt(0.0 + _pairwise_sum(squares, d, todo, sums))
        norms[r] = norm
        if norm > 1e-100 and norm < 1e100:
            for k in range(d):
                units[r, k] = units[r, k] / norm


def table_unit_rows(table: np.ndarray, rows: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """``unit_rows(table[rows].astype(np.float64))``, the same bits, without its float64 temporaries
    for a float16 table (the shipped embeddings): gathered, widened, normed and divided in one
    compiled pass per row (a third of a whole ``encode`` of 20,000 method-name pairs went to those
    numpy passes).  The norm is numpy's pairwise sum (checked bit-equal on every row of the
    default embedding and on random rows of 1-4096 dimensions); rows of extreme norm or 0 take
    :func:`unit_rows` itself."""
    rows = np.asarray(rows, dtype=np.int64)
    if not HAVE_NUMBA or table.dtype != np.float16 or not len(rows):
        return unit_rows(table[rows].astype(np.float64))
    units = np.empty((len(rows), table.shape[1]))
    norms = np.empty(len(rows))
    _half_unit_rows(np.ascontiguousarray(table).view(np.uint16), rows, units, norms, np.empty(table.shape[1]),
                    np.empty((3, 64), dtype=np.int64), np.empty(64))
    odd = ~((norms > 1e-100) & (norms < 1e100))
    if odd.any():
        units[odd], norms[odd] = unit_rows(table[rows[odd]].astype(np.float64))
    return units, norms


@njit(cache=True, nogil=True)
def _half_row_means(bits, rows, counts, out, scratch):
    """:func:`row_means` of a float16 table (as its bits), into ``out``, one token at a time while its
    rows are in cache; ``scratch``: one float64 row."""
    d = bits.shape[1]
    at = 0
    for t in range(counts.shape[0]):
        for k in range(d):
            out[t, k] = 0.0
        for i in range(at, at + counts[t]):
            widen_row(bits, rows[i], scratch, 0)
            for k in range(d):
                out[t, k] += scratch[0, k]
        if counts[t] > 0:
            for k in range(d):
                out[t, k] = out[t, k] / counts[t]
        at += counts[t]


def row_means(table: np.ndarray, rows: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Row ``t``: the mean of the next ``counts[t]`` rows of ``table`` listed in ``rows`` (zeros for none),
    with the bits of ``table[its rows].astype(np.float64).mean(axis=0)``: the rows added one after the
    other from +0.0 (``np.add.reduceat`` would sum a column pairwise: other bits), then divided by
    the count.  A float16 table takes one compiled pass without float64 temporaries (a first call's
    composed STS-B tokens spent more time faulting in those pages than adding)."""
    rows = np.asarray(rows, dtype=np.int64)
    counts = np.asarray(counts, dtype=np.int64)
    out = np.empty((len(counts), table.shape[1]))
    if not len(counts):
        return out
    if HAVE_NUMBA and table.dtype == np.float16:
        _half_row_means(np.ascontiguousarray(table).view(np.uint16), rows, counts, out, np.empty((1, table.shape[1])))
        return out
    # The j-th rows of all tokens with more than j in one numpy add, the tokens in order of
    # decreasing count so that those are a prefix.  Gathered step by step (a float32 row widens to
    # float64 exactly as astype would): all rows at once were rows x dimensions float64 temporaries.
    order = np.argsort(-counts, kind="stable")
    starts = np.zeros(len(counts), dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    sums = np.zeros((len(counts), table.shape[1]))
    by_count, first = counts[order], starts[order]
    longer = np.searchsorted(-by_count, -np.arange(by_count[0]), side="left")  # how many have > j rows
    for j, m in enumerate(longer.tolist()):
        sums[:m] += table[rows[first[:m] + j]]
    out[order] = sums / np.maximum(by_count, 1)[:, None]
    return out


#: Rows dequantized at a time: bounds the float32 temporary of :func:`dequantize_rows` (a 1 GiB int8 table
#: would otherwise need 4 GiB of it at once).
_DEQUANTIZE_BLOCK = 1 << 16


def quantize_rows(matrix: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """``(codes, scales)``: each row as int8 codes in [-127, 127] times a float32 scale, the row's largest
    absolute entry over 127 (a zero row gets scale 0 and zero codes).  One byte a value instead of two.

    >>> codes, scales = quantize_rows(np.array([[1.0, -0.5, 0.25], [0.0, 0.0, 0.0]]))
    >>> codes.tolist(), scales.tolist()
    ([[127, -64, 32], [0, 0, 0]], [0.007874015718698502, 0.0])
    """
    values = np.asarray(matrix, dtype=np.float64)
    top = np.abs(values).max(axis=1) if values.shape[1] else np.zeros(len(values))
    scales = (top / 127.0).astype(np.float32)
    # Divided by the float32 scale as stored, so that codes times stored scales is the nearest point.
    wide = scales.astype(np.float64)[:, None]
    codes = np.divide(values, wide, out=np.zeros_like(values), where=wide > 0)
    return np.clip(np.rint(codes), -127, 127).astype(np.int8), scales


def dequantize_rows(codes: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """The float16 table of int8 ``codes`` times per-row float32 ``scales`` (:func:`quantize_rows`'s
    inverse): the table every fast path of the store reads, so an int8 file scores with the same code as a
    float16 one.  Each value is one float32 product rounded once to float16: the same bits on every CPU.

    >>> dequantize_rows(np.array([[127, -64]], dtype=np.int8), np.array([0.5], dtype=np.float32)).tolist()
    [[63.5, -32.0]]
    """
    out = np.empty(codes.shape, dtype=np.float16)
    for lo in range(0, len(codes), _DEQUANTIZE_BLOCK):
        hi = lo + _DEQUANTIZE_BLOCK
        np.multiply(codes[lo:hi], scales[lo:hi, None], out=out[lo:hi], dtype=np.float32, casting="unsafe")
    return out
