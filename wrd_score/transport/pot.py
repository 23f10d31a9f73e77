"""The POT reference: POT's exact network simplex (``ot.emd``) on one pair, the path of the pairs the batch
kernel declines and of the whole metric without numba.  ``ot`` is imported on first use (its import costs
seconds: docs/architecture.md)."""
from __future__ import annotations

import numpy as np

__all__ = ["emd_plan"]

#: The POT releases whose ``ot.emd`` is known to hand a problem with no zero mass to its compiled solver as
#: ``emd_c(a, b * a.sum() / b.sum(), M, numItermax, 1, None, None)`` and return its plan unchanged (read in their
#: source; ``tests/test_transport.py::test_emd_plan_is_ot_emds_plan`` checks it bit for bit).  Others take
#: ``ot.emd`` itself.
_DIRECT_RELEASES = ((0, 9, 7),)

_direct = None  # (emd_c, check_result), False where this POT is not one of _DIRECT_RELEASES; None: not looked yet


def _direct_solver():
    """POT's compiled solver and its result check where ``ot.emd``'s path to them is known, else ``False``."""
    global _direct
    if _direct is None:
        import re

        import ot

        found = re.match(r"(\d+)\.(\d+)\.(\d+)", getattr(ot, "__version__", ""))
        release = tuple(int(x) for x in found.groups()) if found else None
        _direct = False
        if release in _DIRECT_RELEASES:
            try:
                from ot.lp.emd_wrap import check_result, emd_c
            except ImportError:  # pragma: no cover - a build that moved them: ot.emd
                pass
            else:
                _direct = (emd_c, check_result)
    return _direct


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
    cap = max(100_000, 50 * size * size)
    direct = _direct_solver()
    total_p, total_r = mass_p.sum(), mass_r.sum()
    # ot.emd's own steps for such a problem, without its backend dispatch, dual centring and checks (a tenth of
    # its time at 128 tokens a side): masses of equal sums (else ot.emd raises), none zero (ot.emd solves a
    # problem without those rows and columns, then puts them back), the reference side rescaled to the
    # prediction's total as ot.emd rescales it.
    if direct and abs(total_p - total_r) < 1.5e-6 and mass_p.all() and mass_r.all():
        emd_c, check_result = direct
        flow, _, _, _, code = emd_c(mass_p, mass_r * total_p / total_r, cost, cap, 1, None, None)
        check_result(code)  # ot.emd's warning where the solver stopped short of the optimum
        return flow
    return ot.emd(mass_p, mass_r, cost, numItermax=cap)
