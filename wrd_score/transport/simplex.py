"""The exact solver of the batch kernel: a dense transportation simplex (numba) on one pair's ``m x n`` problem.

Start: the least-cost rule, in numba's ``np.argsort`` order of the costs (ties decide the basis, so the order
among equal costs is numba's quicksort's, step for step: :func:`_next_open`); pivots: Dantzig's most negative
reduced cost, the basis kept as a spanning tree whose potentials are re-walked only below the cut.  On the
iteration cap it gives up and the caller takes POT's path (:func:`wrd_score.transport.pot.emd_plan`).
"""
from __future__ import annotations

import numpy as np

from ..deps import njit

__all__ = ["simplex", "tree_len", "tree_views", "tree_walk"]

# Pivot threshold: an entering cell must improve the cost by more than this per unit of flow.
_PIVOT_TOL = 1e-13
# numba.misc.quicksort's SMALL_QUICKSORT: it insertion-sorts ranges shorter than this.
_SMALL_QUICKSORT = 15
# A range with at most this many open cells, of distinct costs, is not sorted (see _next_open).
_FEW_OPEN = 8


@njit(cache=True, nogil=True)
def tree_len(cells, size):
    """Length of the int64 scratch ``tree`` for problems of at most ``cells`` cells and ``size`` tokens a side."""
    return 6 * cells + 4 * size + 4


@njit(cache=True, nogil=True)
def tree_views(tree, m, n):
    """The basis of an ``m x n`` problem in ``tree`` (:func:`tree_len` long): row i's basic columns
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
def tree_walk(W, m, n, alpha, beta, radj, rdeg, cadj, cdeg, parent, depth, queue):
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
    """:func:`tree_walk`'s walk below node ``start`` (whose potential, parent and depth are set):
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
def simplex(a, b, C, m, n, x, basic, u, v, row_seen, col_seen, queue, parent, path_i, path_j, ra_left, rb_left,
             tree, keys, max_iter):
    """Transportation simplex on the ``m x n`` problem; False on the iteration cap (then POT decides).

    Pivot: Dantzig's most negative reduced cost.  On return ``u``, ``v`` are the optimal duals.
    ``tree``: int64 scratch holding the basis as adjacency lists (:func:`tree_views`); on return,
    the optimal basis.  ``keys``: float scratch of ``m * n`` (the start's sort).
    """
    radj, rdeg, cadj, cdeg, depth, order, ranges, stops = tree_views(tree, m, n)
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
    if max_iter > 0 and not tree_walk(C, m, n, u, v, radj, rdeg, cadj, cdeg, parent, depth, queue):
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
