"""How precision and recall are read off an optimal transport plan: the variants of the metric, and the one
definition of each (:func:`plan_prf`), which the batch kernel compiles in and the POT path calls.

Orientation everywhere: rows are prediction tokens, columns are reference tokens; ``F`` the flow, ``m`` the
prediction's masses.

    ``paper`` (equations 4-5 of Mussabayev's paper; the first default):
        P = mean over prediction tokens j of  sum_i F_ji cos_ji / sum_i F_ji
        R = mean over reference tokens i of   sum_j F_ji cos_ji / sum_j F_ji
    ``wrd`` (the author's later release):
        R = sum_ij F_ij cos_ij  (= 1 - WRD),   P = sum_j m_j max_i cos_ji  (greedy, not transport)

Tokens with no flow take no part in a mean.  Every sum runs in index order from 0.0, one addition at a time,
so a plan gives the same bits on every path that reads it.
"""
from __future__ import annotations

from typing import Literal, Optional, Tuple

import numpy as np

from ..checks import check_choice
from ..deps import njit

__all__ = ["VARIANTS", "VariantName", "plan_prf", "prf_from_plan", "cosine_range"]

#: How precision and recall are read off the transport plan (``variant=``): value -> meaning. The batch
#: kernel and the POT path compute both (:func:`plan_prf`); :mod:`wrd_score.options` shows these as the
#: option's allowed values.
VARIANTS = {
    "wrd": "recall = 1 - Word Rotator's Distance, precision = mass-weighted best cosine",
    "paper": "equations 4-5 of the paper: flow-weighted mean cosine of each token",
}
#: A value of ``variant=`` (the keys of :data:`VARIANTS`, checked equal by tests/test_architecture.py).
VariantName = Literal["wrd", "paper"]


@njit(cache=True, nogil=True, inline="always")
def cosine_range(value):
    """A weighted mean of cosines, held to the cosine range: sums of products can overshoot it by
    ulps (1.0000000000000002 for identical texts).  With clipped cosines the result is in [0, 1].

    >>> cosine_range(1.0000000000000002), cosine_range(-1.5), cosine_range(0.25)
    (1.0, -1.0, 0.25)
    """
    return min(max(value, -1.0), 1.0)


# Inlined into the batch kernel, as the code it replaces was written there (a call would pass its arrays
# field by field on every pair).
@njit(cache=True, nogil=True, inline="always")
def plan_prf(cos, flow, mass_p, paper, count_p, count_r):
    """Precision and recall of one pair from its ``m x n`` cosine matrix, an optimal ``flow`` and the
    prediction's masses, by the ``paper`` rule (True) or the ``wrd`` rule (False), each held to the cosine range.

    ``count_p``/``count_r``: how many tokens each row/column stands for where duplicate tokens were merged into
    one transport node (the POT path, ``scoring._merge_nodes``), so that the ``paper`` means count every token as
    on the unmerged problem; ``None``: one token each (the batch kernel)."""
    m, n = cos.shape
    if paper:
        p_sum = 0.0
        p_cnt = 0.0
        for i in range(m):
            rm = 0.0
            wm = 0.0
            for j in range(n):
                rm += flow[i, j]
                wm += flow[i, j] * cos[i, j]
            if rm > 0:
                weight = 1.0 if count_p is None else count_p[i]
                p_sum += weight * (wm / rm)
                p_cnt += weight
        r_sum = 0.0
        r_cnt = 0.0
        for j in range(n):
            cm = 0.0
            wm = 0.0
            for i in range(m):
                cm += flow[i, j]
                wm += flow[i, j] * cos[i, j]
            if cm > 0:
                weight = 1.0 if count_r is None else count_r[j]
                r_sum += weight * (wm / cm)
                r_cnt += weight
        precision = p_sum / p_cnt if p_cnt > 0 else 0.0
        recall = r_sum / r_cnt if r_cnt > 0 else 0.0
    else:
        recall = 0.0
        for i in range(m):
            for j in range(n):
                recall += flow[i, j] * cos[i, j]
        precision = 0.0
        for i in range(m):
            best = cos[i, 0]
            for j in range(1, n):
                if cos[i, j] > best:
                    best = cos[i, j]
            precision += mass_p[i] * best
    return cosine_range(precision), cosine_range(recall)


def prf_from_plan(cos: np.ndarray, flow: np.ndarray, mass_p: np.ndarray, variant: VariantName,
                  count_p: Optional[np.ndarray] = None, count_r: Optional[np.ndarray] = None) -> Tuple[float, float]:
    """:func:`plan_prf` for ``variant`` (a name of :data:`VARIANTS`), from Python.

    A hand-checkable case: one prediction token split over two reference tokens.

    >>> cos = np.array([[1.0, 0.5]])
    >>> flow = np.array([[0.5, 0.5]])
    >>> prf_from_plan(cos, flow, np.array([1.0]), "paper")
    (0.75, 0.75)
    """
    check_choice("variant", variant, VARIANTS)

    def as_array(values):
        return None if values is None else np.ascontiguousarray(values, dtype=np.float64)

    precision, recall = plan_prf(as_array(cos), as_array(flow), as_array(mass_p), variant == "paper",
                                 as_array(count_p), as_array(count_r))
    return float(precision), float(recall)
