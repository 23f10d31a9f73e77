"""The batch kernel: every pair of a call scored in one compiled (numba) call, with no Python work per pair.

For each pair it builds the cosine matrix from the unit-vector table in tiles (:func:`_cosines`, the
scalar loop's bits), takes the closed forms where they exist (an empty side, identical token bags, a side
with one token), and otherwise solves the transport problem exactly (:func:`wrd_score.transport.simplex.simplex`),
then reads P and R off the plan (:func:`wrd_score.transport.variants.plan_prf`).  Pairs it cannot vouch for are flagged (``STATUS_FALLBACK``) for the POT path.
"""
from __future__ import annotations

from typing import Optional, Tuple

import numpy as np

from .._kernels import HAVE_WIDE, TILE, TILE_ROWS, WIDE, WIDE_ROWS, pack_block, tile, wide_tile
from ..deps import HAVE_NUMBA, njit
from .simplex import simplex, tree_len, tree_views, tree_walk
from .variants import VARIANTS, VariantName, plan_prf

__all__ = ["MAX_CELLS", "STATUS_OK", "STATUS_FALLBACK", "batch_prf", "pair_plan", "cosines", "compile_kernels"]

#: Problems with more cells than this go to POT (its C++ simplex scales better; these are rare).
MAX_CELLS = 4096
STATUS_OK = 0
STATUS_FALLBACK = 1

# A non-basic cell whose reduced cost is within this of zero counts as tied (conservatively wide:
# ulp-level differences between our cosines and BLAS's must not hide a tie that POT could see).
_TIGHT_TOL = 1e-10
# Largest mismatch w_ij - alpha_i - beta_j accepted as "P/R constant on the optimal face"; moving
# at most all the mass along such cells changes P or R by less than this.
_INVARIANT_TOL = 1e-11


@njit(cache=True, nogil=True)
def _tile_cost(m, n):
    """Hundredths of a cycle per dimension of :func:`_dot_tiles` over ``m`` rows and ``n`` columns, as
    measured on the AMD EPYC: a tile of ``r`` rows takes 1.3 cycles (its gather) + 0.57 per row, and
    at least the 3-cycle latency of an add."""
    tiles = (m + TILE_ROWS - 1) // TILE_ROWS
    cost = 0
    for t in range(tiles):
        cost += max(300, 130 + 57 * ((t + 1) * m // tiles - t * m // tiles))
    return cost * ((n + TILE - 1) // TILE)


@njit(cache=True, nogil=True)
def _wide_cost(m, n):
    """:func:`_tile_cost` for the wide tiles (``wide=True`` in :func:`_dot_tiles`), in the same unit: fitted to their
    times against the 4-lane tiles' on the Intel Xeon (AVX-512) at 384 dimensions, 1 x 8 to 126 x 126 (model within
    20% of measured): packing a block of 8 columns takes 2.3 cycles a dimension, a tile of ``r`` rows 4.5 + 0.5 per
    row, the call 2.2 (its scratch).  So the 4-lane tiles stay cheaper below about 16 x 16 (method names)."""
    tiles = (m + WIDE_ROWS - 1) // WIDE_ROWS
    block = 230
    for t in range(tiles):
        block += 450 + 50 * ((t + 1) * m // tiles - t * m // tiles)
    return 220 + block * ((n + WIDE - 1) // WIDE)


#: What :func:`_cosines` and :func:`_cosine_table` may use: the 4-lane tiles only (0), the wide tiles where their
#: cost model finds them cheaper (1: where the processor has AVX-512, :data:`WIDE_WHERE_CHEAPER`), the wide tiles
#: always (2: the tests).
WIDE_NEVER, WIDE_WHERE_CHEAPER, WIDE_ALWAYS = 0, 1, 2
_WIDE = WIDE_WHERE_CHEAPER if HAVE_WIDE else WIDE_NEVER


@njit(cache=True, nogil=True)
def _tiles(wide, m, n):
    """Whether ``m`` rows by ``n`` columns take the wide tiles under ``wide`` (:data:`WIDE_NEVER` ...), and the
    cost of the tiles taken (:func:`_tile_cost`'s unit): each cost model runs once."""
    cost = _tile_cost(m, n)
    if wide == WIDE_NEVER:
        return False, cost
    wide_cost = _wide_cost(m, n)
    if wide == WIDE_ALWAYS or wide_cost < cost:
        return True, wide_cost
    return False, cost


@njit(cache=True, nogil=True)
def _dot_tiles(units, rows_a, rows_b, acc, wide):
    """``acc[i * w + j]`` = the dot product of rows ``rows_a[i]`` and ``rows_b[j]`` of ``units`` for
    every ``i, j``, in tiles of up to ``TILE_ROWS`` rows (split evenly: 16 rows are 8 + 8, not 14 + 2)
    by 4 columns, or (``wide``) of up to ``WIDE_ROWS`` rows by 8 columns, each block of 8 columns packed
    once, dimension by dimension, for all its tiles; ``w``, returned, is ``len(rows_b)`` rounded up to a
    multiple of 4 (8), the missing columns being repeats of the last one (computed, then ignored)."""
    m = rows_a.shape[0]
    n = rows_b.shape[0]
    if wide:
        d = units.shape[1]
        w = (n + WIDE - 1) // WIDE * WIDE
        packed = np.empty(w * d)
        for j in range(0, n, WIDE):
            pack_block(units, rows_b, j, packed, j * d)
        tiles = (m + WIDE_ROWS - 1) // WIDE_ROWS
        for t in range(tiles):
            i = t * m // tiles
            count = (t + 1) * m // tiles - i
            for j in range(0, n, WIDE):
                wide_tile(units, rows_a, i, count, packed, j * d, acc, i * w + j, w)
        return w
    w = (n + TILE - 1) // TILE * TILE
    tiles = (m + TILE_ROWS - 1) // TILE_ROWS
    for t in range(tiles):
        i = t * m // tiles
        count = (t + 1) * m // tiles - i
        for j in range(0, n, TILE):
            tile(units, rows_a, i, count, rows_b, j, acc, i * w + j, w)
    return w


#: Longest side whose repeated tokens :func:`_cosines` looks for (a quadratic scan; texts are short).
_DISTINCT_MAX = 64


@njit(cache=True, nogil=True)
def _has_repeat(rows):
    for i in range(1, rows.shape[0]):
        for t in range(i):
            if rows[t] == rows[i]:
                return True
    return False


@njit(cache=True, nogil=True)
def _distinct(rows, first, where):
    """``first[:count]``, returned count: the distinct values of ``rows`` in order of first appearance;
    ``where[i]``: the place of ``rows[i]`` in them."""
    count = 0
    for i in range(rows.shape[0]):
        at = 0
        while at < count and first[at] != rows[i]:
            at += 1
        if at == count:
            first[count] = rows[i]
            count += 1
        where[i] = at
    return count


@njit(cache=True, nogil=True)
def _cosines(units, rows_p, rows_r, lo, cos, C, acc, wide):
    """``cos[i, j]`` (clipped to ``[lo, 1]``, exactly 1 for equal rows) and ``C = 1 - cos``.

    Each dot product is the plain left-to-right sum over the dimensions, as it always was: the
    same operations in the same order for every cosine, so the scores are bit-identical
    (``benchmarks/fingerprint.py``).  They are computed by :func:`_dot_tiles`, whose vector lanes
    each add their own products in dimension order, with the sides as tile rows and lanes the
    way :func:`_tile_cost` finds cheaper (a product's bits do not depend on the order of its
    factors, so the transposed tiles hold the same sums): a 12-token prediction against a 1-token
    reference takes two tiles of 6 rows (the prediction's tokens), not three tiles of one sum each.
    ``wide`` (:data:`WIDE_NEVER` ...): whether the wide tiles may be used (the cheapest of the four ways is taken).
    ``acc``: scratch of ``(m + 7) * (n + 7)``."""
    m = rows_p.shape[0]
    n = rows_r.shape[0]
    # A token repeated in a text ("the", "a") takes one tile row or lane, not one per repeat.
    distinct = m <= _DISTINCT_MAX and n <= _DISTINCT_MAX and (_has_repeat(rows_p) or _has_repeat(rows_r))
    if distinct:
        scratch = np.empty(2 * (m + n), dtype=np.int64)
        where_p = scratch[:m]
        where_r = scratch[m:m + n]
        dots_p = scratch[m + n:m + n + _distinct(rows_p, scratch[m + n:2 * m + n], where_p)]
        dots_r = scratch[2 * m + n:2 * m + n + _distinct(rows_r, scratch[2 * m + n:], where_r)]
    else:
        where_p = where_r = dots_p = rows_p  # where_*: unused
        dots_r = rows_r
    mu = dots_p.shape[0]
    nu = dots_r.shape[0]
    # The cheapest of the 4-lane and wide tiles, each way round.
    wide_pr, cost_pr = _tiles(wide, mu, nu)
    wide_rp, cost_rp = _tiles(wide, nu, mu)
    if cost_rp < cost_pr:
        w = _dot_tiles(units, dots_r, dots_p, acc, wide_rp)
        step_i = 1
        step_j = w
    else:
        w = _dot_tiles(units, dots_p, dots_r, acc, wide_pr)
        step_i = w
        step_j = 1
    for i in range(m):
        at_i = (where_p[i] if distinct else i) * step_i
        for j in range(n):
            if rows_p[i] == rows_r[j]:
                c = 1.0
            else:
                c = acc[at_i + (where_r[j] if distinct else j) * step_j]
                if c < lo:
                    c = lo
                elif c > 1.0:
                    c = 1.0
            cos[i, j] = c
            C[i, j] = 1.0 - c


@njit(cache=True, nogil=True)
def _cosine_table(units, rows_p, rows_r, lo, acc, wide):
    """:func:`_cosines` as one ``m x n`` table, in ``acc[:m * n]`` (``acc``: ``m`` rows of ``n`` rounded up to
    a multiple of ``WIDE``): the tiles' sums, each row then compacted in place (a write never reaches a sum not
    yet read), clipped to ``[lo, 1]``, exactly 1 for equal rows."""
    m = rows_p.shape[0]
    n = rows_r.shape[0]
    w = _dot_tiles(units, rows_p, rows_r, acc, _tiles(wide, m, n)[0])
    for i in range(m):
        for j in range(n):
            if rows_p[i] == rows_r[j]:
                c = 1.0
            else:
                c = acc[i * w + j]
                if c < lo:
                    c = lo
                elif c > 1.0:
                    c = 1.0
            acc[i * n + j] = c


#: Fewest cells for which :func:`cosines` splits the rows over threads (a pool costs about 0.1 ms).
PARALLEL_CELLS = 1 << 16


def cosines(units: np.ndarray, rows_p: np.ndarray, rows_r: np.ndarray, clip: bool, threads: int = 1) -> np.ndarray:
    """The ``len(rows_p) x len(rows_r)`` cosine matrix of rows of ``units`` as the batch kernel computes it
    (:func:`_cosines`: each dot product summed left to right over the dimensions, in the kernel's tiles;
    clipped; exactly 1 for equal rows): the same bits whatever the machine, its BLAS or its thread count,
    and the same as the kernel's for the same tokens.  ``threads``: large matrices are split by rows over that
    many threads (each cosine is computed alone, so the bits do not depend on it).  Needs numba."""
    units = np.ascontiguousarray(units, dtype=np.float64)
    rows_p = np.ascontiguousarray(rows_p, dtype=np.int64)
    rows_r = np.ascontiguousarray(rows_r, dtype=np.int64)
    m, n = len(rows_p), len(rows_r)
    w = -(-n // WIDE) * WIDE  # room for either tiles' padding
    lo = 0.0 if clip else -1.0
    parts = max(1, min(int(threads), m // TILE_ROWS, m * n // PARALLEL_CELLS))
    if parts == 1 or not n:
        acc = np.empty(max(m * w, 1))
        if m and n:
            _cosine_table(units, rows_p, rows_r, lo, acc, _WIDE)
        return acc[:m * n].reshape(m, n)
    from concurrent.futures import ThreadPoolExecutor

    bounds = np.linspace(0, m, parts + 1).astype(np.int64)
    blocks = [np.empty((b - a) * w) for a, b in zip(bounds[:-1], bounds[1:])]
    with ThreadPoolExecutor(max_workers=parts) as pool:  # the kernel releases the GIL
        for job in [pool.submit(_cosine_table, units, rows_p[a:b], rows_r, lo, block, _WIDE)
                    for a, b, block in zip(bounds[:-1], bounds[1:], blocks)]:
            job.result()
    return np.concatenate([block[:(b - a) * n] for a, b, block in zip(bounds[:-1], bounds[1:], blocks)]).reshape(m, n)


@njit(cache=True, nogil=True)
def _pair_prf(units, rows_p, rows_r, mp, mr, paper, clip, cos_buf, C_buf, x_buf, basic_buf, u, v, W_buf,
              alpha, beta, row_seen, col_seen, queue, parent, path_i, path_j, acc, tree):
    """P, R and a status for one pair with ``m, n >= 1`` that is not an identical-bag pair."""
    m = rows_p.shape[0]
    n = rows_r.shape[0]
    # Contiguous m x n views of flat scratch buffers (one allocation per batch, not per pair).
    cos = cos_buf[:m * n].reshape((m, n))
    C = C_buf[:m * n].reshape((m, n))
    x = x_buf[:m * n].reshape((m, n))
    W = W_buf[:m * n].reshape((m, n))
    basic = basic_buf[:m * n].reshape((m, n))
    _cosines(units, rows_p, rows_r, 0.0 if clip else -1.0, cos, C, acc, _WIDE)
    if m == 1 or n == 1:
        # One feasible plan only: the single token sends/receives everything in proportion.
        for i in range(m):
            for j in range(n):
                x[i, j] = mr[j] if m == 1 else mp[i]
    else:
        if not simplex(mp, mr, C, m, n, x, basic, u, v, row_seen, col_seen, queue, parent,
                        path_i, path_j, alpha, beta, tree, W_buf, 50 * (m + n) * (m + n)):
            return 0.0, 0.0, STATUS_FALLBACK
        if paper:
            # Is the optimum unique up to P/R?  Tied cells: non-basic with zero reduced cost.
            tied = False
            for i in range(m):
                for j in range(n):
                    if not basic[i, j] and C[i, j] - u[i] - v[j] <= _TIGHT_TOL:
                        tied = True
            if tied:
                for side in range(2):
                    for i in range(m):
                        for j in range(n):
                            if side == 0:
                                W[i, j] = cos[i, j] / mp[i] if mp[i] > 0 else 0.0
                            else:
                                W[i, j] = cos[i, j] / mr[j] if mr[j] > 0 else 0.0
                    radj, rdeg, cadj, cdeg, depth, _, _, _ = tree_views(tree, m, n)
                    tree_walk(W, m, n, alpha, beta, radj, rdeg, cadj, cdeg, parent, depth, queue)
                    scale_p = m if side == 0 else n
                    for i in range(m):
                        for j in range(n):
                            if not basic[i, j] and C[i, j] - u[i] - v[j] <= _TIGHT_TOL:
                                if abs(W[i, j] - alpha[i] - beta[j]) > _INVARIANT_TOL * scale_p:
                                    return 0.0, 0.0, STATUS_FALLBACK
    precision, recall = plan_prf(cos, x, mp, paper, None, None)
    return precision, recall, STATUS_OK


@njit(cache=True, nogil=True)
def _sort_positions(rows, out):
    """Stable insertion sort of positions ``0..len(rows)-1`` by row (texts are short; no allocation)."""
    for k in range(rows.shape[0]):
        out[k] = k
        t = k
        while t > 0 and rows[out[t - 1]] > rows[out[t]]:
            out[t - 1], out[t] = out[t], out[t - 1]
            t -= 1


@njit(cache=True, nogil=True)
def _same_bag(rows_p, rows_r, mp, mr, same_text, op, orr):
    """The reference's identical-bag shortcut: same text or same multiset of rows, equal masses."""
    m = rows_p.shape[0]
    if m != rows_r.shape[0]:
        return False
    _sort_positions(rows_p, op)
    _sort_positions(rows_r, orr)
    if not same_text:
        for k in range(m):
            if rows_p[op[k]] != rows_r[orr[k]]:
                return False
    for k in range(m):
        if abs(mp[op[k]] - mr[orr[k]]) > 1e-15:
            return False
    return True


@njit(cache=True, nogil=True)
def _batch_kernel(units, flat_rows, flat_mass, offsets, text_id, empty_id, pairs, lo, hi, paper, clip,
                  max_len, out_p, out_r, status):
    size = max_len if max_len > 1 else 2
    cells = min(size * size, MAX_CELLS)
    cos = np.empty(cells)
    C = np.empty(cells)
    x = np.empty(cells)
    W = np.empty(cells)
    basic = np.empty(cells, dtype=np.bool_)
    # _cosines pads a side to a multiple of TILE or WIDE: (m + 7)(n + 7) <= cells + 14 * size + 49.
    acc = np.empty(cells + 14 * size + 49)
    u = np.empty(size)
    v = np.empty(size)
    alpha = np.empty(size)
    beta = np.empty(size)
    row_seen = np.empty(size, dtype=np.bool_)
    col_seen = np.empty(size, dtype=np.bool_)
    queue = np.empty(2 * size, dtype=np.int64)
    parent = np.empty(2 * size, dtype=np.int64)
    path_i = np.empty(2 * size, dtype=np.int64)
    path_j = np.empty(2 * size, dtype=np.int64)
    tree = np.empty(tree_len(cells, size), dtype=np.int64)  # simplex's basis, depths, sort
    for k in range(lo, hi):
        ip = pairs[k, 0]
        ir = pairs[k, 1]
        sp, ep = offsets[ip], offsets[ip + 1]
        sr, er = offsets[ir], offsets[ir + 1]
        m = ep - sp
        n = er - sr
        status[k] = STATUS_OK
        if m == 0 or n == 0:
            value = 1.0 if (m == n and empty_id[ip] == empty_id[ir]) else 0.0
            out_p[k] = value
            out_r[k] = value
            continue
        rows_p = flat_rows[sp:ep]
        rows_r = flat_rows[sr:er]
        mp = flat_mass[sp:ep]
        mr = flat_mass[sr:er]
        if m == n and _same_bag(rows_p, rows_r, mp, mr, text_id[ip] == text_id[ir], queue, parent):
            out_p[k] = 1.0
            out_r[k] = 1.0
            continue
        if m * n > cells:
            status[k] = STATUS_FALLBACK
            continue
        p, r, st = _pair_prf(units, rows_p, rows_r, mp, mr, paper, clip, cos, C, x, basic, u, v, W,
                             alpha, beta, row_seen, col_seen, queue, parent, path_i, path_j, acc, tree)
        out_p[k] = p
        out_r[k] = r
        status[k] = st


def batch_prf(units: np.ndarray, flat_rows: np.ndarray, flat_mass: np.ndarray, offsets: np.ndarray,
              text_id: np.ndarray, empty_id: np.ndarray, pairs: np.ndarray, variant: VariantName, clip: bool,
              num_threads: int = 1) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Precision, recall and status for every ``(text, text)`` row of ``pairs``, in compiled code.

    Texts are given flat: text ``t`` is ``flat_rows[offsets[t]:offsets[t+1]]`` (rows of ``units``)
    with normalised masses ``flat_mass[...]`` over the same slice.  ``text_id[t]`` is equal for equal
    texts; ``empty_id[t]`` is equal for texts without tokens that are equal after ``strip()``.
    Pairs with ``status == STATUS_FALLBACK`` must be re-scored on the POT path.  ``num_threads``
    splits the pairs over threads (the kernel releases the GIL); every pair is computed alone, so
    the results do not depend on it.
    """
    if not HAVE_NUMBA:
        raise RuntimeError("batch_prf needs numba; use scoring.score_pairs, which falls back to POT")
    count = len(pairs)
    out_p = np.zeros(count)
    out_r = np.zeros(count)
    status = np.zeros(count, dtype=np.int8)
    lengths = np.diff(offsets)
    # Not capped: the kernel's 1-D scratch arrays (sized from this) must hold the longest text,
    # which _same_bag sorts before the MAX_CELLS check (capped, a 10,000-token text overran them:
    # heap corruption, "double free", process abort).  The 2-D buffers are capped by MAX_CELLS.
    max_len = int(lengths.max(initial=0))
    args = (np.ascontiguousarray(units, dtype=np.float64), flat_rows, flat_mass, offsets, text_id, empty_id,
            pairs, variant == "paper", bool(clip), max_len, out_p, out_r, status)
    threads = max(1, min(int(num_threads), count // 512 if count >= 1024 else 1))
    if threads == 1:
        _batch_kernel(args[0], *args[1:7], 0, count, *args[7:])
    else:
        from concurrent.futures import ThreadPoolExecutor

        bounds = np.linspace(0, count, threads + 1).astype(np.int64)
        with ThreadPoolExecutor(max_workers=threads) as pool:
            jobs = [pool.submit(_batch_kernel, args[0], *args[1:7], int(bounds[t]), int(bounds[t + 1]), *args[7:])
                    for t in range(threads)]
            for job in jobs:
                job.result()
    return out_p, out_r, status


def pair_plan(units: np.ndarray, rows_p: np.ndarray, rows_r: np.ndarray, mass_p: np.ndarray, mass_r: np.ndarray,
              variant: VariantName, clip: bool) -> Optional[Tuple[float, float, np.ndarray]]:
    """P, R and the optimal per-token flow of one pair from the compiled solver, as :func:`batch_prf`
    scores it; ``None`` where the caller must take POT's path (no numba, more than ``MAX_CELLS``
    cells, a tie that moves P/R, the iteration cap).  Lets ``explain()`` (the app, ``wrdscore show``)
    draw a pair without importing POT, whose import costs seconds (it pulls in its backends).

    ``rows_p``/``rows_r``: rows of ``units`` (one per token, repeats allowed); masses normalised, both
    sides non-empty."""
    m, n = len(rows_p), len(rows_r)
    if not HAVE_NUMBA or m * n > MAX_CELLS or not m or not n:
        return None
    size = max(m, n, 2)
    cells = m * n
    padded_m, padded_n = m + WIDE - 1, n + WIDE - 1  # _cosines' tiles
    buffers = [np.empty(cells) for _ in range(3)]
    x = np.zeros(cells)
    W = np.empty(cells)
    basic = np.zeros(cells, dtype=np.bool_)
    u, v, alpha, beta = (np.empty(size) for _ in range(4))
    row_seen, col_seen = np.empty(size, dtype=np.bool_), np.empty(size, dtype=np.bool_)
    queue, parent, path_i, path_j = (np.empty(2 * size, dtype=np.int64) for _ in range(4))
    p, r, status = _pair_prf(np.ascontiguousarray(units, dtype=np.float64), np.asarray(rows_p, dtype=np.int64),
                             np.asarray(rows_r, dtype=np.int64), np.ascontiguousarray(mass_p, dtype=np.float64),
                             np.ascontiguousarray(mass_r, dtype=np.float64), variant == "paper", bool(clip),
                             buffers[0], buffers[1], x, basic, u, v, W, alpha, beta, row_seen, col_seen, queue,
                             parent, path_i, path_j, np.empty(padded_m * padded_n),
                             np.empty(tree_len(cells, size), dtype=np.int64))
    if status != STATUS_OK:
        return None
    return float(p), float(r), x.reshape(m, n)


def compile_kernels() -> float:
    """Compile (or load from numba's on-disk cache) the kernels; returns the seconds it took."""
    import time

    if not HAVE_NUMBA:
        return 0.0
    start = time.perf_counter()
    units = np.eye(3)
    rows = np.array([0, 1, 2, 0, 1], dtype=np.int64)
    mass = np.array([0.5, 0.5, 1 / 3, 1 / 3, 1 / 3])
    offsets = np.array([0, 2, 5], dtype=np.int64)
    ids = np.arange(2, dtype=np.int64)
    for variant in VARIANTS:
        batch_prf(units, rows, mass, offsets, ids, -np.ones(2, dtype=np.int64), np.array([[0, 1]], dtype=np.int64),
                  variant, True)
        pair_plan(units, rows[:2], rows[2:], mass[:2], mass[2:], variant, True)
    cosines(units, rows[:2], rows[2:], True)
    return time.perf_counter() - start
