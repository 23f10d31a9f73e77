"""wrd_score.stats: system-level bootstrap intervals and the paired test (the correlations: test_validation.py)."""
import numpy as np
import pytest

from wrd_score import stats, validation
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


def test_a_clearly_worse_system_also_has_a_small_p_as_in_sacrebleu():
    # Issue 23.9: p is the probability that a difference this large arises by chance (sacreBLEU's
    # meaning, two-sided); a clearly worse system differs just as significantly (it was p ~ 0.99).
    base = _scores(200, 1)
    worse = paired_system_test(base, base - 0.05, n_boot=500)
    assert worse.delta < 0 and worse.p_value == pytest.approx(1 / 501)


def test_identical_systems_give_p_one():
    x = _scores(100)
    # every resampled difference is 0, as large as the observed one: no evidence of a difference
    assert paired_system_test(x, x, n_boot=1000).p_value == 1.0
    assert paired_system_test(x, x, n_boot=1000, method="ar").p_value == 1.0


def test_no_difference_in_the_mean_gives_a_large_p():
    # Per-example differences of +-0.1 that cancel exactly: nothing to explain, p far above 0.05.
    base = np.full(200, 0.5)
    system = base + np.tile([0.1, -0.1], 100)
    for method in ("bs", "ar"):
        test = paired_system_test(base, system, n_boot=2000, seed=3, method=method)
        assert abs(test.delta) < 1e-12 and test.p_value > 0.5, method


def test_approximate_randomisation_is_scipys_permutation_test():
    from scipy import stats as sp

    base, system = _scores(60, 1), _scores(60, 2, shift=0.03)
    got = paired_system_test(base, system, n_boot=999, seed=4, method="ar")
    want = sp.permutation_test((base, system), lambda b, s, axis: np.mean(s - b, axis=axis), vectorized=True,
                               permutation_type="samples", n_resamples=999, alternative="two-sided",
                               random_state=np.random.default_rng(4))
    assert got.p_value == want.pvalue and got.delta == pytest.approx(system.mean() - base.mean())
    assert paired_system_test(base, system, 999, seed=4, method="ar") == got  # seeded


def test_validate_and_score_share_one_p_value_rule():
    # Issue 23.9: validate printed p(Δρ<=0) = 0.000 while score used (1 + k) / (N + 1).
    rng = np.random.default_rng(2)
    h = rng.random(60)
    good, bad = h + rng.normal(scale=0.1, size=60), rng.random(60)
    _, p_better = validation.paired_bootstrap([(good, bad, h)], n_boot=400)
    _, p_worse = validation.paired_bootstrap([(bad, good, h)], n_boot=400)
    assert p_better == p_worse == pytest.approx(1 / 401)
    assert stats.paired_p_value(np.zeros(9), 0.0) == 1.0 and stats.paired_p_value(np.array([1.0, -1.0, 3.0]), 5.0) == 0.25


@pytest.mark.parametrize("n_boot", [1, 2, 39])
def test_too_few_resamples_for_a_95_percent_interval_are_refused(n_boot):
    # Issue 22.15: --bootstrap 1 / --confidence-n 1 printed one-resample "95% intervals" (and numpy warnings).
    with pytest.raises(ValueError, match=rf"n_boot must be an integer between {stats.MIN_RESAMPLES} and"):
        system_confidence(_scores(50), n_boot=n_boot)
    with pytest.raises(ValueError, match=rf"n_boot must be an integer between {stats.MIN_RESAMPLES} and"):
        paired_system_test(_scores(50), _scores(50, 1), n_boot=n_boot)
    with pytest.raises(ValueError, match=rf"n_boot must be an integer between {stats.MIN_RESAMPLES} .*\(0: no intervals"):
        stats.correlation_stats(_scores(50), _scores(50, 1), (0, 1), n_boot=n_boot)
    assert stats.MIN_RESAMPLES == 40  # 2 / (1 - 0.95): one resample beyond each bound of the interval


def test_human_scores_outside_the_human_range_are_refused():
    # Issue 22.15: --human-range 0 1 on 0-5 data was accepted (MSE 7.1).
    h = np.linspace(0, 5, 30)
    with pytest.raises(ValueError, match=r"human scores run from 0 to 5, outside the human range 0\.\.1"):
        stats.correlation_stats(h / 5, h, (0, 1), n_boot=0)
    assert stats.correlation_stats(h / 5, h, (0, 5), n_boot=0)["mse"] == pytest.approx(0.0)


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
    (dict(n_boot=0), ValueError, r"n_boot must be an integer between 40 and .*, got 0"),
    (dict(n_boot=10.5), ValueError, r"n_boot must be an integer between 40 and .*, got 10.5"),
    (dict(n_boot=True), ValueError, r"n_boot must be an integer between 40 and .*, got True"),
    (dict(seed=-1), ValueError, r"seed must be an integer >= 0, got -1"),
    (dict(seed="0"), ValueError, r"seed must be an integer >= 0, got '0'"),
    (dict(level=1.0), ValueError, r"level must be a number strictly between 0 and 1, got 1.0"),
    (dict(level=95), ValueError, r"level must be a number strictly between 0 and 1, got 95"),
])
def test_system_confidence_refuses_bad_arguments(kwargs, error, message):
    args = {"values": [0.1, 0.2, 0.3], "n_boot": 100, "seed": 0, **kwargs}
    with pytest.raises(error, match=message):
        system_confidence(**args)


def test_paired_test_refuses_bad_arguments():
    with pytest.raises(ValueError, match=r"must score the same examples, got 3 and 2 scores"):
        paired_system_test([0.1, 0.2, 0.3], [0.1, 0.2])
    with pytest.raises(ValueError, match=r"system_values\[0\] is inf"):
        paired_system_test([0.1, 0.2], [float("inf"), 0.2])
    with pytest.raises(ValueError, match=r"baseline_values needs at least 2 scores"):
        paired_system_test([0.1], [0.2])
    with pytest.raises(ValueError, match=r"n_boot must be an integer between 40 and"):
        paired_system_test([0.1, 0.2], [0.2, 0.3], n_boot=-5)
    with pytest.raises(ValueError, match=r"method must be 'bs' \(paired bootstrap\) or 'ar'"):
        paired_system_test([0.1, 0.2], [0.2, 0.3], method="t")


def test_validation_reexports_the_validation_statistics():
    # `from wrd_score.validation import correlation_stats, paired_bootstrap` keeps working (scripts, app.py).
    assert validation.correlation_stats is stats.correlation_stats
    assert validation.paired_bootstrap is stats.paired_bootstrap


def test_resampling_is_bounded():
    from wrd_score import stats

    with pytest.raises(ValueError, match=f"between 40 and {stats.MAX_RESAMPLES:,}"):
        stats.system_confidence([0.1, 0.2, 0.3], n_boot=stats.MAX_RESAMPLES + 1)
    with pytest.raises(ValueError, match="use fewer resamples"):
        stats.correlation_stats(np.arange(20000.0), np.arange(20000.0), (0, 20000), n_boot=50_000)
