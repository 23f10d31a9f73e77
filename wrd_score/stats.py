"""Statistics: correlations with human judgments, bootstrap confidence intervals, paired bootstrap tests.

Two families, one resampling scheme (rows drawn with replacement by ``numpy.random.default_rng(seed)``,
``integers(0, n, size=(n_boot, n))``, which is also what :func:`scipy.stats.bootstrap` draws):

* **Validation** (``wrdscore validate``): :func:`correlation_stats` (Pearson, Spearman, Kendall with
  95% percentile CIs, MSE, MAE) and :func:`paired_bootstrap` (the Spearman difference of two
  metrics).  These keep their own index matrix: one draw serves all three correlations, resamples in
  which a correlation is undefined (a constant resample) are dropped, and the validation numbers in
  ``docs/validation.md`` were measured with exactly this code.
* **Systems** (``wrdscore score --confidence`` / ``--paired-bs``): :func:`system_confidence` (the
  mean per-example score with a percentile CI, via :func:`scipy.stats.bootstrap`) and
  :func:`paired_system_test` (is a system better than a baseline on the same examples?).

How the system statistics relate to sacreBLEU's ``--confidence`` and ``--paired-bs`` (sacreBLEU 2.6,
``sacrebleu/significance.py``):

* sacreBLEU resamples sentences and recomputes the corpus score from summed sufficient statistics
  (corpus BLEU is not a mean of sentence scores).  A WRDScore system score *is* the mean of the
  per-example scores, so resampling those scores is exact.
* sacreBLEU reports ``mu ± h``: the mean of the bootstrap scores and half the distance between the
  order statistics ``n//40`` and ``n - n//40 - 1``.  Here: the observed mean and the percentile
  interval ``[low, high]`` (interpolated, not forced to be symmetric), at a chosen level.
* The paired p-value has sacreBLEU's meaning (``--paired-bs``, ``--paired-ar``): the probability
  that a difference at least as large as the observed one arises by chance when the two systems
  do not differ; two-sided, so a clearly worse system gets a small p too, and the sign of ``delta``
  says which way.  One rule, :func:`paired_p_value`, for every paired bootstrap (``score
  --paired-bs`` and the Δρ test of ``validate``): the resampled differences are centred on 0 (the
  null hypothesis) and ``p = (1 + #{|d* - mean(d*)| >= |d|}) / (B + 1)``, sacreBLEU's ``+1`` so
  that a finite number of resamples never claims ``p = 0``.  sacreBLEU 2.6 centres ``|d*|`` instead
  of ``d*`` and counts ``>`` (so identical systems get ``1/(B+1)``); here identical systems get
  ``p = 1``.  Approximate randomisation (:func:`paired_system_test` with ``method="ar"``) is
  :func:`scipy.stats.permutation_test` (paired: each example's two scores swapped at random,
  two-sided, the same ``+1``).
* Every interval and test needs at least :data:`MIN_RESAMPLES` resamples (40: one resample beyond
  each bound of a 95% interval, and a smallest p of 1/41 < 0.05).
* sacreBLEU takes its seed from the environment variable ``SACREBLEU_SEED`` (default 12345).  Here
  the seed is an argument (``--seed``, default 0) and the command's signature records it.
* As in sacreBLEU, every system is resampled with the same indices (same seed, same ``n``), so
  their intervals and tests share one set of resamples.
"""
from __future__ import annotations

import math
import warnings
from typing import Any, Dict, NamedTuple, Sequence, Tuple

import numpy as np

from .checks import check_int, check_number
from .scorer import mean

__all__ = ["correlation_stats", "paired_bootstrap", "paired_p_value", "format_p_value", "Confidence",
           "system_confidence", "PairedTest", "paired_system_test", "check_resamples", "human_range_bounds", "MIN_RESAMPLES", "PAIRED_METHODS", "undefined_reason"]

CORRELATIONS = ("pearson", "spearman", "kendall")
# Resampled values held at once by scipy.stats.bootstrap (its batches never change a result).
_BATCH_VALUES = 1 << 22


# ------------------------------------------------------------------------------------ correlations
def _rowwise_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of each row pair (one per bootstrap resample); NaN for a constant row."""
    from scipy import stats

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant resamples: scipy warns and returns NaN, as wanted
        return np.asarray(stats.pearsonr(x, y, axis=-1).statistic, dtype=np.float64)


def _rowwise_spearman(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    return _rowwise_pearson(rankdata(x, axis=-1), rankdata(y, axis=-1))


def undefined_reason(x: np.ndarray, y: np.ndarray, x_name: str = "the metric", y_name: str = "the human score") -> str:
    """Why no correlation of ``x`` with ``y`` (rows with a NaN already dropped) is defined, or "".

    >>> undefined_reason(np.zeros(4), np.arange(4.0), "rouge1")
    'rouge1 is 0 on every row'
    """
    if len(x) < 3:
        return f"{len(x)} rows with both values; a correlation needs at least 3"
    for values, name in ((x, x_name), (y, y_name)):
        if np.ptp(values) == 0:
            return f"{name} is {values[0]:.4g} on every row"
    return ""


def _statistic(name: str, x: np.ndarray, y: np.ndarray) -> float:
    from scipy import stats

    if undefined_reason(x, y):
        return float("nan")  # undefined for constant input; scipy would warn and say the same
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "pearson":
            return float(stats.pearsonr(x, y)[0])
        if name == "spearman":
            return float(stats.spearmanr(x, y)[0])
        return float(stats.kendalltau(x, y)[0])


#: Most bootstrap resamples one statistic may ask for, and most resampled cells (resamples x rows) one index
#: matrix may hold (2**28 int64 cells: 2 GiB). Percentile intervals are stable to 3 decimals long before.
MAX_RESAMPLES = 100_000
MAX_RESAMPLED_CELLS = 1 << 28
#: Fewest resamples an interval or a paired test may rest on: 2 / (1 - 0.95) = 40 puts at least one
#: resample beyond each bound of a 95% percentile interval (fewer printed one-resample "intervals"),
#: and the smallest paired p, 1/41, is below 0.05.
MIN_RESAMPLES = 40
#: Paired tests: ``bs`` paired bootstrap resampling, ``ar`` approximate randomisation (sacreBLEU's names).
PAIRED_METHODS = ("bs", "ar")


def paired_p_value(resampled: np.ndarray, observed: float) -> float:
    """The one paired p-value rule (sacreBLEU's meaning, module docstring): the share of resampled
    differences, centred on 0, at least as far from 0 as the observed one, with ``+1`` on both sides.

    >>> paired_p_value(np.array([1.0, -1.0, 3.0]), 5.0), paired_p_value(np.zeros(9), 0.0)
    (0.25, 1.0)
    """
    centred = np.abs(resampled - np.mean(resampled))
    return float((1 + np.count_nonzero(centred >= abs(observed))) / (len(resampled) + 1))


def check_resamples(n_boot: Any, name: str = "n_boot", off: bool = False) -> None:
    """Resample counts: MIN_RESAMPLES .. MAX_RESAMPLES (``off=True``: 0 too, no intervals)."""
    if off and n_boot == 0 and not isinstance(n_boot, bool):
        return
    check_int(name, n_boot, MIN_RESAMPLES, MAX_RESAMPLES,
              why=("0: no intervals; " if off else "") + "a 95% interval needs one resample beyond each bound")


def human_range_bounds(human_range: Any) -> Tuple[float, float]:
    """``(lo, hi)`` of a given human range (``--human-range LO HI``): two finite numbers with ``LO < HI``.

    >>> human_range_bounds((0, 5))
    (0.0, 5.0)
    """
    try:
        lo, hi = (float(value) for value in human_range)
    except (TypeError, ValueError):
        raise ValueError(f"human_range (--human-range) must be two numbers LO HI, got {human_range!r}") from None
    if not (math.isfinite(lo) and math.isfinite(hi) and hi > lo):
        raise ValueError(f"human_range (--human-range) must be two finite numbers with LO < HI, got {human_range!r}")
    return lo, hi


def check_human_range(human: np.ndarray, human_range: Tuple[float, float]) -> None:
    """Refuse a human range that does not hold the (finite) human scores: MSE and MAE against the
    wrong scale are meaningless (0..1 on 0..5 data gave MSE 7.1)."""
    lo, hi = human_range
    finite = human[np.isfinite(human)]
    if finite.size and (finite.min() < lo or finite.max() > hi):
        raise ValueError(f"the human scores run from {finite.min():g} to {finite.max():g}, outside the human range "
                         f"{lo:g}..{hi:g}; give the range of the scale they are on")


def _bootstrap_indices(n: int, n_boot: int, seed: int) -> np.ndarray:
    if n_boot > MAX_RESAMPLES or n_boot * n > MAX_RESAMPLED_CELLS:
        raise ValueError(f"n_boot={n_boot} resamples of {n} rows is more than this bounds ({MAX_RESAMPLES:,} resamples "
                         f"and {MAX_RESAMPLED_CELLS:,} resampled rows in all); use fewer resamples")
    return np.random.default_rng(seed).integers(0, n, size=(n_boot, n))


def _boot_values(name: str, x: np.ndarray, y: np.ndarray, idx: np.ndarray) -> np.ndarray:
    if name == "pearson":
        return _rowwise_pearson(x[idx], y[idx])
    if name == "spearman":
        return _rowwise_spearman(x[idx], y[idx])
    return np.array([_statistic("kendall", x[i], y[i]) for i in idx])


def correlation_stats(scores: Sequence[float], human: Sequence[float], human_range: Tuple[float, float],
                      n_boot: int = 1000, seed: int = 0) -> Dict[str, Any]:
    """Correlations with 95% bootstrap CIs, MSE and MAE of one metric (rows with a NaN dropped).

    >>> h = np.arange(20.0)
    >>> s = correlation_stats(h / 19, h, (0, 19), n_boot=50)
    >>> s["n"], round(s["spearman"], 6), round(s["mse"], 6)
    (20, 1.0, 0.0)
    """
    x = np.asarray(scores, dtype=np.float64)
    y = np.asarray(human, dtype=np.float64)
    if x.shape != y.shape:
        raise ValueError(f"scores and human must have the same length, got {x.shape} and {y.shape}")
    lo, hi = human_range_bounds(human_range)
    check_resamples(n_boot, off=True)
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    check_human_range(y, (lo, hi))
    out: Dict[str, Any] = {"n": int(keep.sum()), "n_dropped": int((~keep).sum())}
    idx = _bootstrap_indices(len(x), n_boot, seed) if len(x) and n_boot > 0 else None
    for name in CORRELATIONS:
        out[name] = _statistic(name, x, y)
        lo_ci = hi_ci = float("nan")
        if idx is not None and math.isfinite(out[name]):
            values = _boot_values(name, x, y, idx)
            values = values[np.isfinite(values)]
            if values.size:
                lo_ci, hi_ci = (float(v) for v in np.percentile(values, [2.5, 97.5]))
        out[name + "_lo"], out[name + "_hi"] = lo_ci, hi_ci
    target = (y - lo) / (hi - lo)
    out["mse"] = float(np.mean((x - target) ** 2)) if len(x) else float("nan")
    out["mae"] = float(np.mean(np.abs(x - target))) if len(x) else float("nan")
    return out


def paired_bootstrap(groups: Sequence[Tuple[np.ndarray, np.ndarray, np.ndarray]], n_boot: int = 1000,
                     seed: int = 0) -> Tuple[float, float]:
    """Paired bootstrap of the Spearman difference between two metrics.

    ``groups`` holds ``(a, b, human)`` arrays per group (one group without ``--group-by``); rows
    are resampled jointly within each group and the per-group differences averaged.  Returns the
    observed mean difference and its paired p-value (:func:`paired_p_value`: the probability that a
    difference this large arises by chance; two-sided, the sign of the difference says which way).

    >>> h = np.arange(30.0); good = h + 0.1 * np.sin(h); bad = np.cos(h)
    >>> diff, p = paired_bootstrap([(good, bad, h)], n_boot=200)
    >>> diff > 0.5, p == 1 / 201
    (True, True)
    """
    check_resamples(n_boot, off=True)  # 0: the observed difference only, p undefined (NaN)
    observed = []
    boots = []
    for g, (a, b, h) in enumerate(groups):
        a, b, h = (np.asarray(v, dtype=np.float64) for v in (a, b, h))
        keep = np.isfinite(a) & np.isfinite(b) & np.isfinite(h)
        a, b, h = a[keep], b[keep], h[keep]
        if len(h) < 3:
            continue
        observed.append(_statistic("spearman", a, h) - _statistic("spearman", b, h))
        idx = _bootstrap_indices(len(h), n_boot, seed + g)
        boots.append(_rowwise_spearman(a[idx], h[idx]) - _rowwise_spearman(b[idx], h[idx]))
    if not boots:
        return float("nan"), float("nan")
    with warnings.catch_warnings():
        # A constant metric (ROUGE-2 on single words) has no correlation in any group: NaN, said as "–".
        warnings.simplefilter("ignore", RuntimeWarning)
        diff = np.nanmean(np.vstack(boots), axis=0) if len(boots) > 1 else boots[0]
        delta = float(np.nanmean(observed))
    diff = diff[np.isfinite(diff)]
    if not diff.size or not math.isfinite(delta):
        return delta, float("nan")
    return delta, paired_p_value(diff, delta)


# ------------------------------------------------------------------------------------ system level
class Confidence(NamedTuple):
    """A system score (the mean per-example score) and its bootstrap percentile interval."""

    mean: float
    low: float
    high: float


class PairedTest(NamedTuple):
    """A system against a baseline: the difference of their mean scores and the one-sided p-value."""

    delta: float
    p_value: float


def _scores(values: Any, name: str) -> np.ndarray:
    try:
        x = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a sequence of numbers") from None
    if x.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional (one score per example), got shape {x.shape}")
    if len(x) < 2:
        raise ValueError(f"{name} needs at least 2 scores to resample, got {len(x)}")
    bad = np.flatnonzero(~np.isfinite(x))
    if bad.size:
        raise ValueError(f"{name}[{bad[0]}] is {x[bad[0]]}; scores must be finite")
    return x


def _check_resampling(n_boot: Any, seed: Any) -> None:
    check_resamples(n_boot)
    check_int("seed", seed, minimum=0)


def _bootstrap_means(x: np.ndarray, n_boot: int, seed: int, level: float) -> Any:
    """:func:`scipy.stats.bootstrap` of the mean of ``x`` (percentile method, seeded)."""
    from scipy import stats

    # random_state rather than rng: rng arrived in SciPy 1.15, requirements allow 1.13; both take a Generator.
    return stats.bootstrap((x,), np.mean, n_resamples=n_boot, method="percentile", confidence_level=level,
                           vectorized=True, batch=max(1, _BATCH_VALUES // len(x)),
                           random_state=np.random.default_rng(seed))


def system_confidence(values: Sequence[float], n_boot: int = 1000, seed: int = 0,
                      level: float = 0.95) -> Confidence:
    """The mean of per-example scores with a percentile bootstrap confidence interval.

    Examples are resampled with replacement ``n_boot`` times (:func:`scipy.stats.bootstrap`,
    ``method="percentile"``, generator ``numpy.random.default_rng(seed)``); the interval holds the
    central ``level`` of the resampled means.  The same seed gives the same resamples for every
    system of the same length.

    >>> ci = system_confidence([0.2, 0.4, 0.6, 0.8, 1.0] * 20, n_boot=500, seed=0)
    >>> round(ci.mean, 6), ci.low < ci.mean < ci.high, round(ci.high - ci.low, 2)
    (0.6, True, 0.11)
    >>> system_confidence([0.5], n_boot=10)
    Traceback (most recent call last):
    ...
    ValueError: values needs at least 2 scores to resample, got 1
    """
    x = _scores(values, "values")
    _check_resampling(n_boot, seed)
    check_number("level", level, 0, 1, exclusive=True)
    interval = _bootstrap_means(x, n_boot, seed, float(level)).confidence_interval
    return Confidence(mean(x.tolist()), float(interval.low), float(interval.high))


def paired_system_test(baseline_values: Sequence[float], system_values: Sequence[float], n_boot: int = 1000,
                       seed: int = 0, method: str = "bs") -> PairedTest:
    """Paired test of a system against a baseline on the same examples, sacreBLEU's ``--paired-bs``
    (``method="bs"``) or ``--paired-ar`` (``"ar"``).

    ``delta`` is ``mean(system) - mean(baseline)``; ``p_value`` the probability that a difference
    at least that large arises by chance when the two do not differ (two-sided: small for a clearly
    better and for a clearly worse system; 1 for identical ones).  ``bs``: the per-example
    differences are resampled ``n_boot`` times with the indices :func:`system_confidence` draws for
    the same seed, and :func:`paired_p_value` counts.  ``ar``: :func:`scipy.stats.permutation_test`
    swaps each example's two scores at random ``n_boot`` times (exact when ``2**n`` is smaller); its
    two-sided p doubles the smaller one-sided one, so its least value is ``2 / (n_boot + 1)``.

    >>> base = [0.2, 0.4, 0.6, 0.8, 1.0] * 20
    >>> better = [min(1.0, v + 0.1) for v in base]
    >>> test = paired_system_test(base, better, n_boot=999)
    >>> round(test.delta, 6), test.p_value
    (0.08, 0.001)
    >>> paired_system_test(base, base, n_boot=999).p_value  # no difference at all
    1.0
    >>> paired_system_test(better, base, n_boot=999, method="ar").p_value  # worse: as unlikely by chance
    0.002
    """
    b = _scores(baseline_values, "baseline_values")
    s = _scores(system_values, "system_values")
    if b.shape != s.shape:
        raise ValueError(f"baseline_values and system_values must score the same examples, got {len(b)} and "
                         f"{len(s)} scores")
    _check_resampling(n_boot, seed)
    if method not in PAIRED_METHODS:
        raise ValueError(f"method must be 'bs' (paired bootstrap) or 'ar' (approximate randomisation), got {method!r}")
    delta = float(np.mean(s) - np.mean(b))
    if method == "ar":
        from scipy import stats

        test = stats.permutation_test((b, s), _mean_difference, vectorized=True, permutation_type="samples",
                                      n_resamples=n_boot, alternative="two-sided",
                                      random_state=np.random.default_rng(seed))
        return PairedTest(delta, float(test.pvalue))
    deltas = _bootstrap_means(s - b, n_boot, seed, 0.95).bootstrap_distribution
    return PairedTest(delta, paired_p_value(deltas, delta))


def format_p_value(p: float, digits: int = 4) -> str:
    """A p-value with ``digits`` decimals, as sacreBLEU prints it (``0.0010``), except that one too small to
    show is ``< 0.0001`` (at 4 digits), never ``0.0000``: a test of ``B`` resamples never gives less than
    ``1 / (B + 1)``, so 0 would claim a certainty that no finite test has.

    >>> format_p_value(1 / 1001), format_p_value(1 / 100001), format_p_value(1 / 100001, 3)
    ('0.0010', '< 0.0001', '< 0.001')
    """
    text = f"{p:.{digits}f}"
    if p > 0 and float(text) == 0:
        return f"< {10 ** -digits:.{digits}f}"
    return text


def _mean_difference(b: np.ndarray, s: np.ndarray, axis: int) -> np.ndarray:
    return np.mean(s - b, axis=axis)
