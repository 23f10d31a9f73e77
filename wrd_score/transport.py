"""Step 4 of the pipeline: masses and costs -> optimal transport plan.

``emd_plan`` is the reference: POT's exact network simplex (``ot.emd``) on one pair.

``batch_prf`` scores a whole batch of pairs in one compiled (numba) call, with no Python work per
pair: it builds each pair's cosine matrix from the unit-vector table, uses the closed forms where
they exist (an empty side, identical token bags, a side with one token), and otherwise solves the
transport problem exactly with a dense transportation simplex.  Its answer equals ``ot.emd``'s:

* The LP optimum is exact, so ``1 - WRD`` (the ``wrd`` variant's recall) is the same for any
  optimal plan.
* The ``paper`` variant's P/R are linear in the flow but with other weights than the cost, so on
  ties (several optimal plans) they can depend on which optimal plan a solver returns.  After
  solving, the kernel takes the set ``T`` of cells with zero reduced cost (every optimal plan lives
  on ``T``, by complementary slackness) and checks that the P and R weights are *potentials* on
  ``T`` (``w_ij = alpha_i + beta_j``): then every optimal plan has the same P and R, so ours equals
  POT's.  Pairs that fail the check (a genuine tie that moves P/R), hit the iteration cap, or are
  larger than ``MAX_CELLS`` are flagged and re-scored by the caller on the POT reference path.
"""
from __future__ import annotations

from typing import Optional, Tuple

import numpy as np

from ._kernels import TILE, TILE_ROWS, tile
from .deps import HAVE_NUMBA, njit

__all__ = ["VARIANTS", "emd_plan", "HAVE_NUMBA", "MAX_CELLS", "STATUS_OK", "STATUS_FALLBACK", "batch_prf", "pair_plan",
           "compile_kernels"]

#: How precision and recall are read off the transport plan (``variant=``): value -> meaning. The
#: kernels below compute both; :mod:`wrd_score.options` shows these as the option's allowed values.
VARIANTS = {
    "wrd": "recall = 1 - Word Rotator's Distance, precision = mass-weighted best cosine",
    "paper": "equations 4-5 of the paper: flow-weighted mean cosine of each token",
}

#: Problems with more cells than this go to POT (its C++ simplex scales better; these are rare).
MAX_CELLS = 4096
STATUS_OK = 0
STATUS_FALLBACK = 1

# Pivot threshold: an entering cell must improve the cost by more than this per unit of flow.
_PIVOT_TOL = 1e-13
# A non-basic cell whose reduced cost is within this of zero counts as tied (conservatively wide:
# ulp-level differences between our cosines and BLAS's must not hide a tie that POT could see).
_TIGHT_TOL = 1e-10
# Largest mismatch w_ij - alpha_i - beta_j accepted as "P/R constant on the optimal face"; moving
# at most all the mass along such cells changes P or R by less than this.
_INVARIANT_TOL = 1e-11


def emd_plan(mass_p: np.ndarray, mass_r: np.ndarray, cost: np.ndarray) -> np.ndarray:
    """Exact optimal flow ``F`` (``len(mass_p) x len(mass_r)``) for ``cost``, via POT.

    >>> emd_plan(np.array([0.5, 0.5]), np.array([1.0]), np.zeros((2, 1))).tolist()
    [[0.5], [0.5]]
    """
    import ot

    # POT's default cap (100,000 pivots) is too low for problems with thousands of nodes: it then
    # returns a non-optimal plan with only a warning, i.e. a silently wrong score.  The cap only
    # bounds the loop (nothing is allocated by it); real runs need far fewer pivots.
    mass_p = np.ascontiguousarray(mass_p, dtype=np.float64)
    mass_r = np.ascontiguousarray(mass_r, dtype=np.float64)
    cost = np.ascontiguousarray(cost, dtype=np.float64)
    # POT does not check these: an empty side segfaults its C++ solver, a mismatched cost reads
    # out of bounds, and NaN/inf gives a meaningless plan.
    if mass_p.ndim != 1 or mass_r.ndim != 1 or not len(mass_p) or not len(mass_r):
        raise ValueError(f"emd_plan needs two non-empty 1-D mass vectors, got shapes {mass_p.shape} and {mass_r.shape}")
    if cost.shape != (len(mass_p), len(mass_r)):
        raise ValueError(f"cost must have shape {(len(mass_p), len(mass_r))}, got {cost.shape}")
    if not (np.isfinite(mass_p).all() and np.isfinite(mass_r).all() and np.isfinite(cost).all()):
        raise ValueError("emd_plan needs finite masses and costs")
    size = len(mass_p) + len(mass_r)
    return ot.emd(mass_p, mass_r, cost, numItermax=max(100_000, 50 * size * size))


# ------------------------------------------------------------------------------ compiled kernels

# numba.misc.quicksort's SMALL_QUICKSORT: it insertion-sorts ranges shorter than this.
_SMALL_QUICKSORT = 15
# A range with at most this many open cells, of distinct costs, is not sorted (see _next_open).
_FEW_OPEN = 8


@njit(cache=True, nogil=True)
def _tree_len(cells, size):
    """Length of the int64 scratch ``tree`` for problems of at most ``cells`` cells and ``size`` tokens a side."""
    return 6 * cells + 4 * size + 4


@njit(cache=True, nogil=True)
def _tree_views(tree, m, n):
    """The basis of an ``m x n`` problem in ``tree`` (:func:`_tree_len` long): row i's basic columns
    ``radj[i * n:i * n + rdeg[i]]``, column j's basic rows ``cadj[j * m:j * m + cdeg[j]]``, a
    node's depth in the tree (rows, then columns), and the least-cost start's sort: ``order``, its
    pending ``ranges`` and a partition's ``stops`` (:func:`_next_open`)."""
    mn = m * n
    at = 2 * mn + 2 * (m + n)
    return (tree[:mn], tree[2 * mn:2 * mn + m], tree[mn:2 * mn], tree[2 * mn + m:2 * mn + m + n],
            tree[2 * mn + m + n:at], tree[at:at + mn], tree[at + mn:at + 2 * mn + 2],
            tree[at + 2 * mn + 2:at + 4 * mn + 4])


@njit(cache=True, nogil=True, inline="always")
def _less(a, b):
    """numba's ``<`` for sorting floats (numba.np.numpy_support.lt_floats): NaN after everything."""
    return a < b or (b != b and a == a)


@njit(cache=True, nogil=True, inline="always")
def _swap(order, keys, a, b):
    """Swap positions ``a`` and ``b`` of the start's sort: a cell moves with its key."""
    order[a], order[b] = order[b], order[a]
    keys[a], keys[b] = keys[b], keys[a]


@njit(cache=True, nogil=True)
def _sort_cells(C, keys, order, ranges):
    """Begin sorting the cells of ``C`` for :func:`_next_open`: ``keys`` (float scratch of
    ``m * n``) and ``order`` get the costs and their cells (``i << 32 | j``), one pending range."""
    m, n = C.shape
    for i in range(m):
        for j in range(n):
            keys[i * n + j] = C[i, j]
            order[i * n + j] = (i << 32) | j
    ranges[0] = 0
    ranges[1] = m * n - 1
    return 0, 1


@njit(cache=True, nogil=True)
def _next_open(keys, order, ranges, stops, pos, pending, row_seen, col_seen):
    """The first cell of open row and column in ``np.argsort(C.ravel())`` order after position
    ``pos`` (as ``(i, j, pos, pending)``), sorting only as far as needed.

    The least-cost start picks cells in numba's ``np.argsort`` order, and equal costs abound (1.0
    for clipped cosines, 0.0 for equal tokens, repeated tokens' rows), so the order among ties
    decides the basis: this is numba.misc.quicksort's algorithm step for step (the same pivots,
    swaps and insertion sorts, numba's float "less than" with NaN last), the keys moving with the
    cells.  What changes is which ranges it sorts: ``ranges[:2 * pending]`` holds the unsorted
    ranges, disjoint and left to right from the top, and everything before the top one is sorted;
    quicksort sorts each range apart from the others, so sorting them one by one from the left, as
    the start consumes positions, gives numba's order.  A line once crossed out stays so, hence a
    range of closed cells only is never sorted (the start skips it whole), a range with one open
    cell is that cell, and a short range sorts its open cells only (insertion sort is stable, so
    they keep their order).  Most of the sort's work was in such tails."""
    while True:
        top = ranges[2 * pending - 2] if pending > 0 else order.shape[0]
        while pos < top:
            cell = order[pos]
            pos += 1
            i = cell >> 32
            j = cell & 0xFFFFFFFF
            if not (row_seen[i] | col_seen[j]):
                return i, j, pos, pending
        pending -= 1
        low = ranges[2 * pending]
        high = ranges[2 * pending + 1]
        # "|", not "or", in these tests: one unpredictable branch per cell, not two.
        few = 0
        for t in range(low, high + 1):
            cell = order[t]
            if not (row_seen[cell >> 32] | col_seen[cell & 0xFFFFFFFF]):
                stops[few] = t
                few += 1
                if few > _FEW_OPEN:
                    break
        if few <= 1:
            pos = high + 1
            if few == 1:
                cell = order[stops[0]]
                return cell >> 32, cell & 0xFFFFFFFF, pos, pending
            continue
        if few <= _FEW_OPEN and high - low >= _SMALL_QUICKSORT:
            # Few open cells: if no two have equal keys, the sort puts them in key order whatever
            # it does with the rest; they go, in that order, to the end of the range.
            for k in range(1, few):
                t = stops[k]
                key = keys[t]
                h = k
                while h > 0 and _less(key, keys[stops[h - 1]]):
                    stops[h] = stops[h - 1]
                    h -= 1
                stops[h] = t
            distinct = True
            for k in range(1, few):
                distinct &= _less(keys[stops[k - 1]], keys[stops[k]])
            if distinct:
                for k in range(few):
                    stops[_FEW_OPEN + 1 + k] = order[stops[k]]
                pos = high + 1 - few
                for k in range(few):
                    order[pos + k] = stops[_FEW_OPEN + 1 + k]
                continue
        if high - low < _SMALL_QUICKSORT:
            # numba insertion-sorts this range; keep its open cells only, in order, and sort those.
            end = low
            for t in range(low, high + 1):
                cell = order[t]
                if not (row_seen[cell >> 32] | col_seen[cell & 0xFFFFFFFF]):
                    key = keys[t]
                    k = end
                    while k > low and _less(key, keys[k - 1]):
                        order[k] = order[k - 1]
                        keys[k] = keys[k - 1]
                        k -= 1
                    order[k] = cell
                    keys[k] = key
                    end += 1
            cell = order[low]
            pos = high + 1
            if end - low > 1:
                # the rest of the open cells, sorted, are the next positions to read
                pos = high + 1 - (end - low - 1)
                for t in range(end - 1, low, -1):
                    order[pos + t - low - 1] = order[t]
            return cell >> 32, cell & 0xFFFFFFFF, pos, pending
        mid = (low + high) >> 1
        if _less(keys[mid], keys[low]):
            _swap(order, keys, low, mid)
        if _less(keys[high], keys[mid]):
            _swap(order, keys, high, mid)
        if _less(keys[mid], keys[low]):
            _swap(order, keys, low, mid)
        pivot = keys[mid]
        _swap(order, keys, high, mid)
        # numba's partition: i climbs from low to a key not below the pivot, j falls from high - 1
        # to a key not above it, they swap and go on until they meet.  The k-th swap pairs the k-th
        # such "stop" from the left with the k-th from the right (positions between the two ends
        # are untouched until the scans reach them), so both lists of stops are taken first,
        # without a branch per key, then swapped pairwise while left < right; i ends at the next
        # left stop or at the last right one swapped, whichever comes first.
        # stops[:lefts] are the left stops, rising, then high; stops[half + 1:half + 1 + rights]
        # the right ones, rising, after low - 1 (read backwards from the top).
        half = high - low + 1
        lefts = 0
        rights = 0
        stops[half] = low - 1
        if pivot == pivot:
            for t in range(low, high):
                key = keys[t]
                stops[lefts] = t
                lefts += 1 - (key < pivot)
                stops[half + 1 + rights] = t
                rights += 1 - ((pivot < key) | (key != key))
        else:
            for t in range(low, high):
                key = keys[t]
                stops[lefts] = t
                lefts += 1 - (key == key)
                stops[half + 1 + rights] = t
                rights += 1
        stops[lefts] = high
        k = 0
        while stops[k] < stops[half + rights - k]:
            i = stops[k]
            j = stops[half + rights - k]
            _swap(order, keys, i, j)
            k += 1
        i = stops[k]
        if k > 0 and stops[half + rights - k + 1] < i:
            i = stops[half + rights - k + 1]
        _swap(order, keys, i, high)
        if high > i:
            ranges[2 * pending] = i + 1
            ranges[2 * pending + 1] = high
            pending += 1
        if i > low:
            ranges[2 * pending] = low
            ranges[2 * pending + 1] = i - 1
            pending += 1
        pos = low


@njit(cache=True, nogil=True)
def _tree_walk(W, m, n, alpha, beta, radj, rdeg, cadj, cdeg, parent, depth, queue):
    """Solve ``W_ij = alpha_i + beta_j`` on the basic cells (a spanning tree), ``alpha_0 = 0``, by a
    walk of the basis' adjacency lists from row 0, noting each node's parent and depth (rows
    ``0..m-1``, columns ``m..m+n-1``); False if the basis does not span all nodes.

    Each potential is its tree parent's subtracted from one ``W`` entry, whatever the visiting order
    (a tree has one path from the root), so the bits are those of the dense scan of ``basic`` that
    this replaced, at O(m + n) work instead of O((m + n) * max(m, n)) per pivot.

    In a tree a node's neighbours are its parent and its children, so the walk skips the parent
    instead of marking nodes seen.  On a basis that is no tree (it cannot happen) the walk would
    then go round a cycle: it stops when it would visit more than ``m + n`` nodes."""
    alpha[0] = 0.0
    parent[0] = 0
    depth[0] = 0
    return _walk_from(W, m, n, alpha, beta, radj, rdeg, cadj, cdeg, parent, depth, queue, 0) == m + n


@njit(cache=True, nogil=True)
def _walk_from(W, m, n, alpha, beta, radj, rdeg, cadj, cdeg, parent, depth, queue, start):
    """:func:`_tree_walk`'s walk below node ``start`` (whose potential, parent and depth are set):
    the number of nodes it reached, ``start`` included, or -1 if it went round a cycle."""
    queue[0] = start
    head = 0
    tail = 1
    while head < tail:
        node = queue[head]
        head += 1
        up = parent[node]
        if node < m:
            for t in range(rdeg[node]):
                j = radj[node * n + t]
                if m + j != up:
                    if tail == m + n:
                        return -1
                    beta[j] = W[node, j] - alpha[node]
                    parent[m + j] = node
                    depth[m + j] = depth[node] + 1
                    queue[tail] = m + j
                    tail += 1
        else:
            j = node - m
            for t in range(cdeg[j]):
                i = cadj[j * m + t]
                if i != up:
                    if tail == m + n:
                        return -1
                    alpha[i] = W[i, j] - beta[j]
                    parent[i] = node
                    depth[i] = depth[node] + 1
                    queue[tail] = i
                    tail += 1
    return tail


@njit(cache=True, nogil=True)
def _drop(items, at, count, value):
    """Remove ``value`` from the list ``items[at:at + count + 1]``, keeping the others' order."""
    t = at
    while items[t] != value:
        t += 1
    for k in range(t, at + count):
        items[k] = items[k + 1]


@njit(cache=True, nogil=True)
def _unlink(adj, at, deg, k, value):
    """Remove ``value`` from the list ``adj[at:at + deg[k]]`` (order within a list does not matter)."""
    last = at + deg[k] - 1
    for t in range(at, last + 1):
        if adj[t] == value:
            adj[t] = adj[last]
            break
    deg[k] -= 1


# Inlined into its caller: a call passes its 19 arrays field by field (and counts references on
# them), about a sixth of the time of solving a method-name pair of ~10 cells (names' "of which
# simplex" in benchmarks/static_stages.py went from ~16 to ~13.5 ms).
@njit(cache=True, nogil=True, inline="always")
def _simplex(a, b, C, m, n, x, basic, u, v, row_seen, col_seen, queue, parent, path_i, path_j, ra_left, rb_left,
             tree, keys, max_iter):
    """Transportation simplex on the ``m x n`` problem; False on the iteration cap (then POT decides).

    Pivot: Dantzig's most negative reduced cost.  On return ``u``, ``v`` are the optimal duals.
    ``tree``: int64 scratch holding the basis as adjacency lists (:func:`_tree_views`); on return,
    the optimal basis.  ``keys``: float scratch of ``m * n`` (the start's sort).
    """
    radj, rdeg, cadj, cdeg, depth, order, ranges, stops = _tree_views(tree, m, n)
    # Start: least-cost rule.  Each chosen cell crosses out exactly one line (row or column; both
    # only at the very last cell), so the m + n - 1 chosen cells form a spanning tree even when
    # degenerate.  It needs far fewer pivots than the north-west corner rule.
    for i in range(m):
        ra_left[i] = a[i]
        row_seen[i] = False  # "crossed out"
        rdeg[i] = 0
        for j in range(n):
            x[i, j] = 0.0
            basic[i, j] = False
    for j in range(n):
        rb_left[j] = b[j]
        col_seen[j] = False
        cdeg[j] = 0
    # Small problems scan for the cheapest open cell; larger ones sort (as far as needed).
    use_sort = m * n > 36
    if use_sort:
        pos, pending = _sort_cells(C, keys, order, ranges)
    else:
        # the open rows, then the open columns, each in rising order (row-major scans)
        for i in range(m):
            queue[i] = i
        for j in range(n):
            queue[m + j] = j
    rows_left = m
    cols_left = n
    while True:
        if use_sort:
            i, j, pos, pending = _next_open(keys, order, ranges, stops, pos, pending, row_seen, col_seen)
        else:
            i = queue[0]
            j = queue[m]
            best_cost = C[i, j]
            for r in range(rows_left):
                ii = queue[r]
                for c in range(cols_left):
                    jj = queue[m + c]
                    if C[ii, jj] < best_cost:
                        best_cost = C[ii, jj]
                        i = ii
                        j = jj
        q = ra_left[i] if ra_left[i] < rb_left[j] else rb_left[j]
        if q < 0.0:
            q = 0.0
        x[i, j] = q
        basic[i, j] = True
        radj[i * n + rdeg[i]] = j
        rdeg[i] += 1
        cadj[j * m + cdeg[j]] = i
        cdeg[j] += 1
        ra_left[i] -= q
        rb_left[j] -= q
        if rows_left == 1 and cols_left == 1:
            break
        if (ra_left[i] <= rb_left[j] and rows_left > 1) or cols_left == 1:
            row_seen[i] = True
            rows_left -= 1
            if not use_sort:
                _drop(queue, 0, rows_left, i)
        else:
            col_seen[j] = True
            cols_left -= 1
            if not use_sort:
                _drop(queue, m, cols_left, j)
    if max_iter > 0 and not _tree_walk(C, m, n, u, v, radj, rdeg, cadj, cdeg, parent, depth, queue):
        return False  # not a spanning tree: cannot happen, but never loop on it; POT takes over
    for _ in range(max_iter):
        best = -_PIVOT_TOL
        ei = -1
        ej = -1
        # The cost test first: it is rarely true (a predictable branch), and basic cells (every
        # sixth on a sentence pair, scattered) are then looked up only for the few cells below it.
        for i in range(m):
            for j in range(n):
                rc = C[i, j] - u[i] - v[j]
                if rc < best and not basic[i, j]:
                    best = rc
                    ei = i
                    ej = j
        if ei < 0:
            return True
        # The cycle: the tree path from column ej to row ei (one path in a tree), closed by the
        # entering cell; its edges, from column ej on, alternate -, +, -, ... and the first and last
        # are "-".  Both ends climb to their common ancestor; the row side's edges are kept in
        # queue (as cells) and appended in reverse.
        length = 0
        side = 0
        top = m + ej
        low = ei
        while top != low:
            if depth[top] >= depth[low]:
                up = parent[top]
                if top >= m:
                    path_i[length] = up
                    path_j[length] = top - m
                else:
                    path_i[length] = top
                    path_j[length] = up - m
                length += 1
                top = up
            else:
                up = parent[low]
                queue[side] = up * n + (low - m) if low >= m else low * n + (up - m)
                side += 1
                low = up
        upper = length  # path[:upper] climbs from column ej, the rest goes down to row ei
        for k in range(side - 1, -1, -1):
            path_i[length] = queue[k] // n
            path_j[length] = queue[k] - path_i[length] * n
            length += 1
        theta = np.inf
        leave = -1
        for k in range(0, length, 2):
            f = x[path_i[k], path_j[k]]
            if f < theta:
                theta = f
                leave = k
        for k in range(length):
            if k % 2 == 0:
                x[path_i[k], path_j[k]] -= theta
            else:
                x[path_i[k], path_j[k]] += theta
        x[ei, ej] = theta
        basic[ei, ej] = True
        radj[ei * n + rdeg[ei]] = ej
        rdeg[ei] += 1
        cadj[ej * m + cdeg[ej]] = ei
        cdeg[ej] += 1
        li = path_i[leave]
        lj = path_j[leave]
        x[li, lj] = 0.0
        basic[li, lj] = False
        _unlink(radj, li * n, rdeg, li, lj)
        _unlink(cadj, lj * m, cdeg, lj, li)
        # Only the nodes cut off from row 0 by the leaving cell have a new path to it (through the
        # entering cell): walk them alone, from the entering cell's end on their side.  The others
        # keep their parent, depth and potential, which a whole walk would compute again as is.
        if leave < upper:
            v[ej] = C[ei, ej] - u[ei]
            parent[m + ej] = ei
            depth[m + ej] = depth[ei] + 1
            start = m + ej
        else:
            u[ei] = C[ei, ej] - v[ej]
            parent[ei] = m + ej
            depth[ei] = depth[m + ej] + 1
            start = ei
        if _walk_from(C, m, n, u, v, radj, rdeg, cadj, cdeg, parent, depth, queue, start) < 0:
            return False
    return False


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
def _dot_tiles(units, rows_a, rows_b, acc):
    """``acc[i * w + j]`` = the dot product of rows ``rows_a[i]`` and ``rows_b[j]`` of ``units`` for
    every ``i, j``, in tiles of up to ``TILE_ROWS`` rows (split evenly: 16 rows are 8 + 8, not 14 + 2)
    by 4 columns; ``w``, returned, is ``len(rows_b)`` rounded up to a multiple of 4, the missing
    columns being repeats of the last one (computed, then ignored)."""
    m = rows_a.shape[0]
    n = rows_b.shape[0]
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
def _cosines(units, rows_p, rows_r, lo, cos, C, acc):
    """``cos[i, j]`` (clipped to ``[lo, 1]``, exactly 1 for equal rows) and ``C = 1 - cos``.

    Each dot product is the plain left-to-right sum over the dimensions, as it always was: the
    same operations in the same order for every cosine, so the scores are bit-identical
    (``benchmarks/fingerprint.py``).  They are computed by :func:`_dot_tiles`, whose vector lanes
    each add their own products in dimension order, with the sides as tile rows and lanes the
    way :func:`_tile_cost` finds cheaper (a product's bits do not depend on the order of its
    factors, so the transposed tiles hold the same sums): a 12-token prediction against a 1-token
    reference takes two tiles of 6 rows (the prediction's tokens), not three tiles of one sum each.
    ``acc``: scratch of ``ceil(m / 4) * 4`` rows of ``ceil(n / 4) * 4``."""
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
    if _tile_cost(nu, mu) < _tile_cost(mu, nu):
        w = _dot_tiles(units, dots_r, dots_p, acc)
        step_i = 1
        step_j = w
    else:
        w = _dot_tiles(units, dots_p, dots_r, acc)
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
    _cosines(units, rows_p, rows_r, 0.0 if clip else -1.0, cos, C, acc)
    if m == 1 or n == 1:
        # One feasible plan only: the single token sends/receives everything in proportion.
        for i in range(m):
            for j in range(n):
                x[i, j] = mr[j] if m == 1 else mp[i]
    else:
        if not _simplex(mp, mr, C, m, n, x, basic, u, v, row_seen, col_seen, queue, parent,
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
                    radj, rdeg, cadj, cdeg, depth, _, _, _ = _tree_views(tree, m, n)
                    _tree_walk(W, m, n, alpha, beta, radj, rdeg, cadj, cdeg, parent, depth, queue)
                    scale_p = m if side == 0 else n
                    for i in range(m):
                        for j in range(n):
                            if not basic[i, j] and C[i, j] - u[i] - v[j] <= _TIGHT_TOL:
                                if abs(W[i, j] - alpha[i] - beta[j]) > _INVARIANT_TOL * scale_p:
                                    return 0.0, 0.0, STATUS_FALLBACK
    # P/R exactly as scoring.prf_from_plan computes them from a plan.
    if paper:
        p_sum = 0.0
        p_cnt = 0
        for i in range(m):
            rm = 0.0
            wm = 0.0
            for j in range(n):
                rm += x[i, j]
                wm += x[i, j] * cos[i, j]
            if rm > 0:
                p_sum += wm / rm
                p_cnt += 1
        r_sum = 0.0
        r_cnt = 0
        for j in range(n):
            cm = 0.0
            wm = 0.0
            for i in range(m):
                cm += x[i, j]
                wm += x[i, j] * cos[i, j]
            if cm > 0:
                r_sum += wm / cm
                r_cnt += 1
        precision = p_sum / p_cnt if p_cnt > 0 else 0.0
        recall = r_sum / r_cnt if r_cnt > 0 else 0.0
    else:
        recall = 0.0
        for i in range(m):
            for j in range(n):
                recall += x[i, j] * cos[i, j]
        precision = 0.0
        for i in range(m):
            best = cos[i, 0]
            for j in range(1, n):
                if cos[i, j] > best:
                    best = cos[i, j]
            precision += mp[i] * best
    return min(max(precision, -1.0), 1.0), min(max(recall, -1.0), 1.0), STATUS_OK


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
    # _cosines pads both sides to multiples of TILE: (m + 3)(n + 3) <= cells + 6 * size + 9.
    acc = np.empty(cells + 6 * size + 9)
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
    tree = np.empty(_tree_len(cells, size), dtype=np.int64)  # _simplex's basis, depths, sort
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
              text_id: np.ndarray, empty_id: np.ndarray, pairs: np.ndarray, variant: str, clip: bool,
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
              variant: str, clip: bool) -> Optional[Tuple[float, float, np.ndarray]]:
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
    padded_m, padded_n = -(-m // TILE) * TILE, -(-n // TILE) * TILE  # _cosines' tiles
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
                             np.empty(_tree_len(cells, size), dtype=np.int64))
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
    return time.perf_counter() - start
