"""Pair scoring (scoring.py): the rules that live only there (the empty-text rule, best reference, cosine, F1),
the POT path's merging of repeated tokens, scoring a call's pairs, and the bounded problem size on every entry."""
import warnings

import numpy as np
import pytest

from wrd_score.backends.base import Encoded, FlatSpans
from wrd_score import transport
from wrd_score.scoring import (_flatten_texts, _merge_nodes, _merge_nodes_reference, _score_pairs_reference, best_of,
                               cosine_matrix,
                               empty_pair_score, empty_text_key, f1_score, pair_detail, pair_scores, score_pairs)
from wrd_score.transport import emd_plan, prf_from_plan


def _encoded(seed=0, vocab=12, dim=6, spans=()):
    rng = np.random.default_rng(seed)
    units = rng.standard_normal((vocab, dim))
    units[-1] = 0.0  # a token without a vector: it matches only itself
    norms = np.linalg.norm(units, axis=1)
    units = np.divide(units, norms[:, None], out=np.zeros_like(units), where=norms[:, None] > 0)
    return Encoded(units=units, norms=norms + 1.0, exact_only=~units.any(axis=1),
                   tokens=[f"w{i}" for i in range(vocab)], spans=[np.asarray(s, dtype=np.int64) for s in spans])


@pytest.mark.parametrize("a, b, expected", [
    ("", "", 1.0), ("", "   ", 1.0), ("\t", "\n", 1.0), ("", "size", 0.0), ("get", "set", 0.0),
    # canonically equal token-less texts (NFKC): equal under the rule
    (" \u0323\u0301 ", "\u0301\u0323", 1.0), ("\ufb01", "fi", 1.0),
])
def test_the_empty_text_rule(a, b, expected):
    assert empty_pair_score(a, b) == empty_pair_score(b, a) == expected
    assert (empty_text_key(a) == empty_text_key(b)) == (expected == 1.0)


def test_the_empty_text_rule_is_the_same_on_every_path():
    """score() (the compiled kernel, which compares empty_text_key ids), pair_scores and pair_detail (the POT
    path) must agree on pairs where a side has no token."""
    from wrd_score import WRDScorer

    preds = ["", " ", "", "!!", "get count", ""]
    refs = ["", "", "size", "!!", "", "\u00a0"]
    scorer = WRDScorer()
    assert scorer.score(preds, refs)["f1"] == [1.0, 1.0, 0.0, 1.0, 0.0, 1.0]
    enc = _encoded(spans=[[], [], [0, 1]])
    masses = np.ones(len(enc.tokens))
    for i, j, expected in [(0, 1, empty_pair_score("", " ")), (0, 2, 0.0), (2, 0, 0.0)]:
        texts = ["", " ", "a b"]
        assert pair_scores(enc, texts[i], texts[j], enc.spans[i], enc.spans[j], masses, "wrd", True) == \
            (expected, expected)
        detail = pair_detail(enc, texts[i], texts[j], enc.spans[i], enc.spans[j], masses, "wrd", True)
        assert (detail.precision, detail.recall, detail.f1) == (expected, expected, expected)


def test_best_of_picks_the_highest_and_the_first_on_ties():
    flat, best = best_of(np.array([0.2, 0.9, 0.9, 0.5, 0.1, 0.7, 0.7]), [3, 1, 3])
    assert flat.tolist() == [1, 3, 5] and best == [1, 0, 1]
    flat, best = best_of(np.array([0.3, 0.1]), [1, 1])  # one reference each: no search
    assert flat.tolist() == [0, 1] and best == [0, 0]
    flat, best = best_of(np.zeros(0), [])
    assert flat.tolist() == [] and best == []


def test_f1_is_the_harmonic_mean_and_zero_where_both_are_zero():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no division warning for P = R = 0
        f1 = f1_score([0.5, 0.0, 1.0, 0.0], [0.25, 0.0, 1.0, 0.8])
    np.testing.assert_allclose(f1, [1 / 3, 0.0, 1.0, 0.0], rtol=0, atol=1e-15)
    assert f1.dtype == np.float64


def test_f1_of_signed_precision_and_recall_stays_between_them():
    """With clip_negative=False P or R can be negative, where 2PR/(P+R) left [-1, 1] (P = 0.0855, R = -0.0794 gave
    -2.23; P = -0.070, R = 0.072 gave -6.1) or, with both negative, gave 0, above both. F1 is the harmonic mean where
    both are positive and the smaller of the two elsewhere: continuous across 0, monotone, within [min, max]."""
    p = np.array([0.0855, -0.0701, -0.2, -0.3, 0.4, 0.0, -0.1, 0.5, 1e-3])
    r = np.array([-0.0794, 0.0718, -0.1, 0.0, -1e-300, -0.2, 0.0, 0.25, 1e-3])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        f1 = f1_score(p, r)
    assert f1.tolist()[:7] == np.minimum(p, r).tolist()[:7]
    assert f1[7] == 1 / 3 and f1[8] == 1e-3
    assert (f1 >= np.minimum(p, r)).all() and (f1 <= np.maximum(p, r)).all()
    # continuity at 0: a tiny negative recall gives an F1 near the harmonic mean's limit, 0
    assert abs(f1_score([0.4], [-1e-12])[0]) < 1e-11 and abs(f1_score([0.4], [1e-12])[0]) < 1e-11


def test_unclipped_scores_keep_f1_within_the_stated_range():
    """README: scores are in [-1, 1] with clip_negative=False, and F1 lies between P and R."""
    from wrd_score import WRDScorer

    preds = ["processType", "removeHeaderActionPerformed", "getCount", "a man plays guitar"]
    refs = ["testOfCollectionNotNull", "isNullWithNonNullObjectAndNullMessageSupplier", "setCount", "nothing at all"]
    for variant in ("wrd", "paper"):
        out = WRDScorer(clip_negative=False, variant=variant).score(preds, refs)
        p, r, f = (np.asarray(out[k]) for k in ("precision", "recall", "f1"))
        assert ((-1 <= f) & (f <= 1)).all(), (variant, f)
        assert ((np.minimum(p, r) <= f) & (f <= np.maximum(p, r))).all(), (variant, p, r, f)


def test_cosine_matrix_gives_equal_rows_exactly_one_and_clips_on_request():
    enc = _encoded()
    rows_p, rows_r = np.array([0, 1, 11]), np.array([1, 11, 2])
    clipped, raw = cosine_matrix(enc, rows_p, rows_r, True), cosine_matrix(enc, rows_p, rows_r, False)
    assert clipped[1, 0] == raw[1, 0] == 1.0  # the same row
    assert clipped[2, 1] == 1.0  # a token without a vector matches itself...
    assert clipped[2, 0] == clipped[2, 2] == 0.0  # ...and nothing else
    assert clipped.min() >= 0.0 and raw.min() >= -1.0 and raw.max() <= 1.0
    assert (raw < 0).any()
    np.testing.assert_array_equal(clipped, np.maximum(raw, 0.0))


@pytest.mark.skipif(not transport.HAVE_NUMBA, reason="the kernel's cosines are compiled")
def test_the_pot_paths_cosines_are_the_kernels_summed_left_to_right():
    """Issue 33: the POT path took numpy's BLAS product, whose last bits depend on the BLAS and its thread count
    (1 and 2 OpenBLAS threads differed on a 2-core machine), and differ from the kernel's. Now every cosine is the
    plain left-to-right sum over the dimensions, on both paths."""
    from wrd_score._kernels import tile_reference

    rng = np.random.default_rng(7)
    units = rng.standard_normal((40, 37))
    units /= np.linalg.norm(units, axis=1, keepdims=True)
    enc = Encoded(units=units, norms=np.ones(40), exact_only=np.zeros(40, bool), tokens=[str(i) for i in range(40)],
                  spans=[])
    for m, n in [(1, 1), (3, 9), (15, 2), (29, 30), (33, 17)]:
        rows_p, rows_r = rng.integers(0, 40, m), rng.integers(0, 40, n)
        want = np.empty((m, n))
        for i, a in enumerate(rows_p):
            for j, b in enumerate(rows_r):
                total = 0.0
                for k in range(units.shape[1]):
                    total += units[a, k] * units[b, k]
                want[i, j] = 1.0 if a == b else min(1.0, max(-1.0, total))
        got = cosine_matrix(enc, rows_p, rows_r, False)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(cosine_matrix(enc, rows_p, rows_r, True), np.maximum(want, 0.0))
        w = -(-n // 4) * 4  # the kernel's own tiles (their Python twin) hold the same sums
        acc = np.empty(m * w)
        for i in range(0, m):
            for j in range(0, n, 4):
                tile_reference(units, rows_p, i, 1, rows_r, j, acc, i * w + j, w)
        differ = rows_p[:, None] != rows_r[None, :]
        np.testing.assert_array_equal(np.clip(acc.reshape(m, w)[:, :n], -1, 1)[differ], want[differ])
    # BERTScore's and MoverScore's rules keep numpy's product (the fingerprint pins their bits).
    np.testing.assert_array_equal(cosine_matrix(enc, rows_p, rows_r, False, blas=True)[rows_p[:, None] != rows_r],
                                  np.clip(units[rows_p] @ units[rows_r].T, -1, 1)[rows_p[:, None] != rows_r])


@pytest.mark.skipif(not transport.HAVE_NUMBA, reason="the kernel's cosines are compiled")
def test_the_cosines_bits_do_not_depend_on_threads(monkeypatch):
    from wrd_score.transport import batch

    monkeypatch.setattr(batch, "PARALLEL_CELLS", 16)  # split even these small matrices over threads
    rng = np.random.default_rng(3)
    units = rng.standard_normal((300, 21))
    units /= np.linalg.norm(units, axis=1, keepdims=True)
    rows_p, rows_r = rng.integers(0, 300, 97), rng.integers(0, 300, 61)
    one = transport.cosines(units, rows_p, rows_r, True, threads=1)
    for threads in (2, 3, 7):
        np.testing.assert_array_equal(transport.cosines(units, rows_p, rows_r, True, threads=threads), one)


def test_merge_nodes_compiled_equals_its_numpy_twin():
    rng = np.random.default_rng(11)
    for _ in range(500):
        vocab = int(rng.integers(1, 30))
        span, other = rng.integers(0, vocab, int(rng.integers(1, 60))), rng.integers(0, vocab, int(rng.integers(1, 60)))
        exact_only = rng.random(vocab) < 0.3
        mass = rng.random(len(span)) * (rng.random(len(span)) < 0.9)
        got, want = _merge_nodes(span, other, exact_only, mass), _merge_nodes_reference(span, other, exact_only, mass)
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)  # the same nodes, order and sums, bit for bit


@pytest.mark.parametrize("variant", ["wrd", "paper"])
def test_merging_repeated_tokens_gives_the_unmerged_problems_scores(variant):
    """The POT path merges a text's repeats of one row, and tokens without a vector that the other side lacks,
    into one transport node each; P and R must be those of the unmerged problem (the counts keep the
    ``paper`` means per token)."""
    enc = _encoded(seed=3)
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(60):
        span_p = rng.choice([0, 0, 1, 2, 3, 11, 11], size=rng.integers(2, 9))
        span_r = rng.choice([1, 2, 2, 4, 5, 10], size=rng.integers(2, 9))
        masses = rng.random(len(enc.tokens)) + 0.05
        merged = pair_scores(enc, "p", "r", span_p, span_r, masses, variant, True)
        mass_p, mass_r = masses[span_p] / masses[span_p].sum(), masses[span_r] / masses[span_r].sum()
        cos = cosine_matrix(enc, span_p, span_r, True)
        unmerged = prf_from_plan(cos, emd_plan(mass_p, mass_r, 1.0 - cos), mass_p, variant)
        np.testing.assert_allclose(merged, unmerged, rtol=0, atol=1e-12)
        checked += len(np.unique(span_p)) < len(span_p)
    assert checked > 30  # not vacuous: most predictions repeated a token


def test_merge_nodes_keeps_first_appearance_order_and_counts_tokens_with_mass():
    span, other = np.array([5, 3, 5, 11, 3, 11]), np.array([3, 4])
    exact_only = np.zeros(12, dtype=bool)
    exact_only[11] = True
    mass = np.array([0.1, 0.2, 0.3, 0.0, 0.15, 0.25])
    rows, group, node_mass, count = _merge_nodes(span, other, exact_only, mass)
    assert rows.tolist() == [5, 3, 11] and group.tolist() == [0, 1, 0, 2, 1, 2]
    np.testing.assert_allclose(node_mass, [0.4, 0.35, 0.25])
    assert count.tolist() == [2.0, 2.0, 1.0]  # the token of mass 0 takes no part in a mean


def test_pair_detail_flow_is_a_plan_of_the_unmerged_problem_with_pair_scores_scores():
    enc = _encoded(seed=4)
    masses = np.linspace(0.5, 2.0, len(enc.tokens))
    span_p, span_r = np.array([0, 0, 1, 11, 2]), np.array([1, 3, 3, 4])
    for variant in ("wrd", "paper"):
        detail = pair_detail(enc, "p", "r", span_p, span_r, masses, variant, True)
        assert (detail.precision, detail.recall) == pair_scores(enc, "p", "r", span_p, span_r, masses, variant, True)
        assert detail.flow.shape == (5, 4) and detail.cos.shape == (5, 4)
        np.testing.assert_allclose(detail.flow.sum(axis=1), detail.mass_p, rtol=0, atol=1e-12)
        np.testing.assert_allclose(detail.flow.sum(axis=0), detail.mass_r, rtol=0, atol=1e-12)
        assert abs(detail.mass_p.sum() - 1.0) <= 1e-15 and abs(detail.mass_r.sum() - 1.0) <= 1e-15


def test_identical_token_bags_score_one_exactly():
    enc = _encoded(seed=6)
    masses = np.ones(len(enc.tokens))
    span = np.array([2, 0, 2, 5])
    for variant in ("wrd", "paper"):
        assert pair_scores(enc, "a", "b", span, span[::-1], masses, variant, True) == (1.0, 1.0)
        assert pair_detail(enc, "a", "b", span, span[::-1], masses, variant, True).f1 == 1.0


def test_flattened_texts_are_normalised_per_text_and_massless_texts_are_uniform():
    spans = [np.array([0, 1]), np.array([], dtype=np.int64), np.array([2, 3, 2]), np.array([4])]
    masses = np.array([1.0, 3.0, 0.0, 0.0, 2.0])
    for given in (spans, FlatSpans(np.concatenate(spans), np.array([0, 2, 2, 5, 6]))):
        rows, flat_mass, offsets = _flatten_texts(given, masses)
        assert rows.tolist() == [0, 1, 2, 3, 2, 4] and offsets.tolist() == [0, 2, 2, 5, 6]
        np.testing.assert_allclose(flat_mass, [0.25, 0.75, 1 / 3, 1 / 3, 1 / 3, 1.0], rtol=0, atol=0)
        # An inf mass was taken as massless too (uniform masses, a score of other masses): refused now.
        with pytest.raises(ValueError, match="a text's token masses sum to inf"):
            _flatten_texts(given, np.array([1.0, 3.0, 0.0, 0.0, np.inf]))


def test_score_pairs_checks_its_arguments_and_takes_no_pairs():
    enc = _encoded(spans=[[0], [1]])
    texts, masses = ["a", "b"], np.ones(len(enc.tokens))
    with pytest.raises(ValueError, match=r"variant must be one of \['wrd', 'paper'\], got 'bogus'"):
        score_pairs(enc, texts, np.array([[0, 1]]), masses, "bogus", True)
    for bad in (0, -1, True, 1.5, "2"):
        with pytest.raises(ValueError, match="num_threads must be a positive integer"):
            score_pairs(enc, texts, np.array([[0, 1]]), masses, "wrd", True, num_threads=bad)
    p, r = score_pairs(enc, texts, np.zeros((0, 2), dtype=np.int64), masses, "wrd", True)
    assert p.shape == r.shape == (0,)


@pytest.mark.parametrize("variant", ["wrd", "paper"])
def test_score_pairs_equals_one_pot_solve_per_pair(variant):
    """The batched scorer (compiled kernel, equal texts found by a dict) against the reference path."""
    rng = np.random.default_rng(9)
    spans = [rng.integers(0, 12, size=rng.integers(0, 7)) for _ in range(30)]
    enc = _encoded(seed=9, spans=spans)
    texts = [" ".join(map(str, s)) for s in spans]
    pairs = rng.integers(0, 30, size=(200, 2))
    masses = rng.random(12) + 0.1
    for clip in (True, False):
        fast = score_pairs(enc, texts, pairs, masses, variant, clip)
        ref = _score_pairs_reference(enc, texts, pairs, masses, variant, clip)
        np.testing.assert_allclose(fast, ref, rtol=0, atol=1e-9)


def test_transport_node_cap_is_a_clear_error_naming_the_text(monkeypatch):
    """Above the cap, score() and explain() refuse before any transport matrix exists (POT would
    abort the process with std::bad_alloc on a big enough problem).  The cap is lowered so the test
    is fast; the check is the same at 4096."""
    from wrd_score import WRDScorer
    from wrd_score import scorer as scorer_module

    # The globals of the scoring module the scorer calls: with the doctests collected first, pytest's importlib mode
    # imports wrd_score/scoring.py a second time, and patching that copy missed the scorer's.
    scoring_globals = scorer_module.check_transport_size.__globals__
    assert {"MAX_TRANSPORT_NODES", "emd_plan"} <= scoring_globals.keys()  # patched, not added
    monkeypatch.setitem(scoring_globals, "MAX_TRANSPORT_NODES", 20)
    monkeypatch.setitem(scoring_globals, "emd_plan", lambda *a: pytest.fail("transport ran above the cap"))
    wide = " ".join(f"qz{c}w" for c in "abcdefghijklmnopqrstu")  # 21 distinct unknown tokens: 21 n-gram nodes
    repeated = " ".join(["get count"] * 50)  # 100 tokens, 2 distinct: within the cap
    s = WRDScorer()
    assert s.score([repeated], [repeated])["f1"] == [1.0]
    with pytest.raises(ValueError, match=r"predictions\[1\] has 21 transport nodes.*limit is 20"):
        s.score(["get", wide], ["get", "size"])
    with pytest.raises(ValueError, match=r"references\[0\]\[1\] has 21 transport nodes"):
        s.score(["get"], [["size", wide]])
    with pytest.raises(ValueError, match=r"references\[1\]\[0\] has 21 transport nodes"):
        s.score(["get", "size"], ["get", wide])  # plain strings: no list per item until an error names one
    with pytest.raises(ValueError, match=r"reference has 21 tokens"):
        s.explain("get", wide)
