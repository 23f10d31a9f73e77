"""Step 4 of the pipeline: masses and costs -> optimal transport plan.

``emd_plan`` (:mod:`~wrd_score.transport.pot`) is the reference: POT's exact network simplex (``ot.emd``) on
one pair.

``batch_prf`` (:mod:`~wrd_score.transport.batch`) scores a whole batch of pairs in one compiled (numba) call,
with no Python work per pair: it builds each pair's cosine matrix from the unit-vector table, uses the closed
forms where they exist (an empty side, identical token bags, a side with one token), and otherwise solves the
transport problem exactly with a dense transportation simplex (:mod:`~wrd_score.transport.simplex`).  Its
answer equals ``ot.emd``'s:

* The LP optimum is exact, so ``1 - WRD`` (the ``wrd`` variant's recall) is the same for any
  optimal plan.
* The ``paper`` variant's P/R are linear in the flow but with other weights than the cost, so on
  ties (several optimal plans) they can depend on which optimal plan a solver returns.  After
  solving, the kernel takes the set ``T`` of cells with zero reduced cost (every optimal plan lives
  on ``T``, by complementary slackness) and checks that the P and R weights are *potentials* on
  ``T`` (``w_ij = alpha_i + beta_j``): then every optimal plan has the same P and R, so ours equals
  POT's.  Pairs that fail the check (a genuine tie that moves P/R), hit the iteration cap, or are
  larger than ``MAX_CELLS`` are flagged and re-scored by the caller on the POT reference path.

How P and R are read off a plan (``VARIANTS``, the one definition of each: ``plan_prf``, which the batch kernel
compiles in and the POT path calls) is in :mod:`~wrd_score.transport.variants`.
"""
from __future__ import annotations

from ..deps import HAVE_NUMBA
from .batch import MAX_CELLS, STATUS_FALLBACK, STATUS_OK, batch_prf, compile_kernels, cosines, pair_plan
from .pot import emd_plan
from .variants import VARIANTS, VariantName, cosine_range, plan_prf, prf_from_plan

__all__ = ["VARIANTS", "VariantName", "prf_from_plan", "plan_prf", "cosine_range", "emd_plan", "HAVE_NUMBA", "MAX_CELLS", "STATUS_OK", "STATUS_FALLBACK", "batch_prf", "pair_plan",
           "cosines", "compile_kernels"]
