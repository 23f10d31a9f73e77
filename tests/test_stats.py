"""wrd_score.stats: system-level bootstrap intervals and the paired test (the correlations: test_validate.py)."""
import numpy as np
import pytest

from wrd_score import stats, validate
from wrd_score.stats import paired_system_test, system_confidence


def _scores(n, seed=0, shift=0.0):
    return np.clip(np.random.default_rng(seed).beta(2, 3, n) + shift, 0, 1)


# ------------------------------------------------------------------------------ system_confidence
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_interval_contains_the_mean(seed):
    x = _scores(50, seed)
    ci = system_confidence(x, n_boot=500, seed=seed)
    assert ci.mean == pytest.approx(x.mean(), abs=1e-15)
    assert ci.low < ci.mean < ci.high


def test_interval_is_the_percentile_of_the_documented_resamples():
    # scipy.stats.bootstrap draws default_rng(seed).integers(0, n, (n_boot, n)), the indices the
    # validation statistics draw; the interval is the 2.5 and 97.5 percentiles of their means.
    x = _scores(300, 5)
    idx = np.random.default_rng(7).integers(0, len(x), size=(400, len(x)))
    expected = np.percentile(x[idx].mean(axis=1), [2.5, 97.5])
    ci = system_confidence(x, n_boot=400, seed=7)
    assert (ci.low, ci.high) == pytest.approx(tuple(expected), rel=1e-12)


def test_seeded_and_deterministic():
    x = _scores(200)
    assert system_confidence(x, 300, seed=4) == system_confidence(list(x), 300, seed=4)
    assert system_confidence(x, 300, seed=4) != system_confidence(x, 300, seed=5)


def test_width_shrinks_with_n_and_with_the_level():
    widths = [(lambda c: c.high - c.low)(system_confidence(_scores(n, 1), 500, seed=0)) for n in (100, 1000, 10000)]
    assert widths[0] > widths[1] > widths[2]
    assert widths[2] < widths[0] / 5  # about 1/sqrt(n): 10x for 100x the examples
    wide = system_confidence(_scores(500), 500, seed=0, level=0.99)
    narrow = system_confidence(_scores(500), 500, seed=0, level=0.5)
    assert wide.high - wide.low > narrow.high - narrow.low


def test_constant_scores_give_a_point_interval():
    ci = system_confidence([0.25] * 40, n_boot=100)
    assert (ci.mean, ci.low, ci.high) == (0.25, 0.25, 0.25)


def test_memory_batches_never_change_the_interval(monkeypatch):
    x = _scores(1000)
    whole = system_confidence(x, 200, seed=1)
    monkeypatch.setattr(stats, "_BATCH_VALUES", 3000)  # batches of 3 resamples
    assert system_confidence(x, 200, seed=1) == whole


# ------------------------------------------------------------------------------ paired_system_test
def test_clearly_better_system_has_a_small_p():
    base = _scores(200, 1)
    better = np.clip(base + 0.05 + 0.02 * np.random.default_rng(2).standard_normal(200), 0, 1)
    test = paired_system_test(base, better, n_boot=1000, seed=0)
    assert test.delta == pytest.approx(better.mean() - base.mean(), abs=1e-15)
    assert test.delta > 0.03 and test.p_value == pytest.approx(1 / 1001)  # the smallest p 1000 resamples give


def test_worse_system_has_p_near_one():
    base = _scores(200, 1)
    assert paired_system_test(base, base - 0.05, n_boot=500).p_value > 0.99


def test_identical_systems_give_one_half():
    x = _scores(100)
    # every resampled difference is 0: a tie, counted half
    assert paired_system_test(x, x, n_boot=1000).p_value == pytest.approx(501 / 1001)


def test_no_difference_in_the_mean_gives_about_one_half():
    # Per-example differences of +-0.1 that cancel exactly: the resampled mean difference is
    # symmetric about 0, so the system wins about half of the resamples.
    base = np.full(200, 0.5)
    system = base + np.tile([0.1, -0.1], 100)
    test = paired_system_test(base, system, n_boot=2000, seed=3)
    assert abs(test.delta) < 1e-12 and 0.4 < test.p_value < 0.6


def test_paired_test_is_seeded():
    base, system = _scores(100, 1), _scores(100, 2)
    assert paired_system_test(base, system, 300, seed=1) == paired_system_test(base, system, 300, seed=1)


# ------------------------------------------------------------------------------ bad arguments
@pytest.mark.parametrize("kwargs, error, message", [
    (dict(values=[0.5]), ValueError, r"values needs at least 2 scores to resample, got 1"),
    (dict(values=[]), ValueError, r"values needs at least 2 scores"),
    (dict(values=[0.1, float("nan"), 0.3]), ValueError, r"values\[1\] is nan; scores must be finite"),
    (dict(values=[[0.1, 0.2], [0.3, 0.4]]), ValueError, r"values must be one-dimensional"),
    (dict(values=["a", "b"]), TypeError, r"values must be a sequence of numbers"),
    (dict(n_boot=0), ValueError, r"n_boot must be an integer >= 1, got 0"),
    (dict(n_boot=10.5), ValueError, r"n_boot must be an integer >= 1, got 10.5"),
    (dict(n_boot=True), ValueError, r"n_boot must be an integer >= 1, got True"),
    (dict(seed=-1), ValueError, r"seed must be an integer >= 0, got -1"),
    (dict(seed="0"), ValueError, r"seed must be an integer >= 0, got '0'"),
    (dict(level=1.0), ValueError, r"level must be a number strictly between 0 and 1, got 1.0"),
    (dict(level=95), ValueError, r"level must be a number strictly between 0 and 1, got 95"),
])
def test_system_confidence_refuses_bad_arguments(kwargs, error, message):
    args = {"values": [0.1, 0.2, 0.3], "n_boot": 10, "seed": 0, **kwargs}
    with pytest.raises(error, match=message):
        system_confidence(**args)


def test_paired_test_refuses_bad_arguments():
    with pytest.raises(ValueError, match=r"must score the same examples, got 3 and 2 scores"):
        paired_system_test([0.1, 0.2, 0.3], [0.1, 0.2])
    with pytest.raises(ValueError, match=r"system_values\[0\] is inf"):
        paired_system_test([0.1, 0.2], [float("inf"), 0.2])
    with pytest.raises(ValueError, match=r"baseline_values needs at least 2 scores"):
        paired_system_test([0.1], [0.2])
    with pytest.raises(ValueError, match=r"n_boot must be an integer >= 1"):
        paired_system_test([0.1, 0.2], [0.2, 0.3], n_boot=-5)


def test_validate_reexports_the_validation_statistics():
    # `from wrd_score.validate import correlation_stats, paired_bootstrap` keeps working (scripts, app.py).
    assert validate.correlation_stats is stats.correlation_stats
    assert validate.paired_bootstrap is stats.paired_bootstrap


def test_resampling_is_bounded():
    from wrd_score import stats

    with pytest.raises(ValueError, match="at most"):
        stats.system_confidence([0.1, 0.2, 0.3], n_boot=stats.MAX_RESAMPLES + 1)
    with pytest.raises(ValueError, match="use fewer resamples"):
        stats.correlation_stats(np.arange(20000.0), np.arange(20000.0), (0, 20000), n_boot=50_000)
