"""The POT reference: POT's exact network simplex (``ot.emd``) on one pair, the path of the pairs the batch
kernel declines and of the whole metric without numba.  ``ot`` is imported on first use (its import costs
seconds: docs/architecture.md)."""
from __future__ import annotations

import numpy as np

__all__ = ["emd_plan"]


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
