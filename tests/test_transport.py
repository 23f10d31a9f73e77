"""The batched scorer (issue 3) against the POT reference: exactness, ties, threads, streaming."""
import csv
import functools
import gzip
import json
import os
import random
import subprocess
import sys

import numpy as np
import pytest

from wrd_score import WRDScorer, transport
from wrd_score.transport import batch, simplex
from wrd_score.backends.base import Encoded
from wrd_score.scoring import _score_pairs_reference, pair_detail, score_pairs
from wrd_score.weights import token_masses

needs_numba = pytest.mark.skipif(not transport.HAVE_NUMBA, reason="numba not installed")
CONFIGS = [(variant, clip) for variant in ("paper", "wrd") for clip in (True, False)]


def _tie_heavy_batch(seed: int, n_texts: int = 400, n_pairs: int = 2000):
    """Texts over a 14-token vocabulary whose cosines are exact dyadic numbers, so tied costs abound.

    Rows have entries in {-1/2, -1/4, 0, 1/4, 1/2} over 4 dimensions, so every dot product is exact
    in binary floating point (no rounding can break a tie one way in BLAS and another in numba);
    two rows are zero (tokens without a direction), two pairs of rows are equal vectors under
    different tokens.  Masses include zeros, so whole sides can fall back to uniform masses.
    """
    rng = np.random.default_rng(seed)
    vocab = 14
    units = rng.choice([-0.5, -0.25, 0.0, 0.25, 0.5], size=(vocab, 4))
    units[0] = 0.0
    units[1] = 0.0
    units[3] = units[2]
    units[5] = units[4]
    masses = rng.choice([0.0, 0.5, 1.0, 1.0, 2.0, 3.0], size=vocab)
    masses[6] = rng.random()  # and a few non-dyadic masses
    masses[7] = rng.random()
    spans = []
    for t in range(n_texts):
        kind = t % 10
        if kind == 0:
            length = 0 if t % 20 == 0 else 1  # empty texts and one-token texts
        elif kind == 1:
            length = 1
        else:
            length = int(rng.integers(2, 8))
        spans.append(rng.integers(0, vocab, size=length).astype(np.int64))
    # Permuted copies: identical token bags under different texts.
    for t in range(0, 40):
        spans[n_texts - 1 - t] = rng.permutation(spans[t + 2])
    texts = [" ".join(f"w{r}" for r in span) for span in spans]
    texts[0] = ""
    texts[20] = "  "  # token-less, equal to texts[0] after strip()
    texts[40] = "?!"  # token-less, not equal
    for t in (20, 40):
        spans[t] = np.zeros(0, dtype=np.int64)
    enc = Encoded(units=units, norms=np.ones(vocab), exact_only=~units.any(axis=1),
                  tokens=[f"w{i}" for i in range(vocab)], spans=spans)
    pairs = rng.integers(0, n_texts, size=(n_pairs, 2))
    pairs[:50, 1] = pairs[:50, 0]  # same text
    return enc, texts, pairs, masses


@needs_numba
@pytest.mark.parametrize("variant,clip", CONFIGS)
def test_equals_pot_reference_on_tie_heavy_pairs(variant, clip):
    enc, texts, pairs, masses = _tie_heavy_batch(seed=1)
    fast_p, fast_r = score_pairs(enc, texts, pairs, masses, variant, clip)
    ref_p, ref_r = _score_pairs_reference(enc, texts, pairs, masses, variant, clip)
    np.testing.assert_allclose(fast_p, ref_p, rtol=0, atol=1e-9)
    np.testing.assert_allclose(fast_r, ref_r, rtol=0, atol=1e-9)
    # Not vacuous: most pairs, and most pairs that need a real simplex solve, stay in compiled code.
    lengths = np.array([len(s) for s in enc.spans])
    flat = _flat(enc, texts, masses)
    _, _, status = transport.batch_prf(enc.units, *flat, pairs, variant, clip)
    solved = (lengths[pairs[:, 0]] >= 2) & (lengths[pairs[:, 1]] >= 2) & (status == transport.STATUS_OK)
    assert solved.sum() > 0.3 * len(pairs), solved.sum()
    assert (status != transport.STATUS_OK).mean() < 0.25


@needs_numba
@pytest.mark.parametrize("variant,clip", CONFIGS)
def test_compiled_detail_equals_pot_detail_and_the_batch_scores(variant, clip):
    """explain()'s compiled path: the batch scorer's P/R exactly, POT's within 1e-9, and a flow that
    is feasible and as cheap as POT's optimal plan (ties may pick another optimal plan)."""
    enc, texts, pairs, masses = _tie_heavy_batch(seed=2, n_pairs=400)
    batch_p, batch_r = score_pairs(enc, texts, pairs, masses, variant, clip)
    compiled = 0
    for k, (ip, ir) in enumerate(pairs):
        args = (enc, texts[ip], texts[ir], enc.spans[ip], enc.spans[ir], masses, variant, clip)
        fast, ref = pair_detail(*args, compiled=True), pair_detail(*args)
        assert abs(fast.precision - ref.precision) <= 1e-9 and abs(fast.recall - ref.recall) <= 1e-9, k
        assert (fast.precision, fast.recall) == (batch_p[k], batch_r[k]), k
        if fast.flow.size:
            np.testing.assert_allclose(fast.flow.sum(axis=1), fast.mass_p, rtol=0, atol=1e-12)
            np.testing.assert_allclose(fast.flow.sum(axis=0), fast.mass_r, rtol=0, atol=1e-12)
            cost = 1.0 - fast.cos
            assert abs((fast.flow * cost).sum() - (ref.flow * cost).sum()) <= 1e-12, k
            plan = transport.pair_plan(enc.units, enc.spans[ip], enc.spans[ir], fast.mass_p, fast.mass_r, variant, clip)
            compiled += plan is not None
    assert compiled > 100, compiled  # not vacuous: most pairs took the compiled path


@needs_numba
def test_scoring_and_explaining_do_not_import_pot():
    """POT's import takes seconds (it imports torch through ot.backend); only a pair the compiled
    solver declines needs it."""
    code = ("import sys, wrd_score; s = wrd_score.WRDScorer(); s.score(['getCount'], ['sizeLength']); "
            "s.explain('get count value', 'size length'); wrd_score.WRDScorer(variant='paper').explain('a b c', 'd e'); "
            "print(sorted(m for m in ('ot', 'torch') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert out.stdout.strip() == "[]", out


def _flat(enc, texts, masses):
    from wrd_score.scoring import _flatten_texts

    rows, mass, offsets = _flatten_texts(enc.spans, masses)
    text_id = np.arange(len(texts), dtype=np.int64)
    seen = {}
    empty_id = np.array([seen.setdefault(t.strip(), len(seen)) if len(s) == 0 else -1
                         for t, s in zip(texts, enc.spans)], dtype=np.int64)
    return rows, mass, offsets, text_id, empty_id


@needs_numba
def test_plan_dependent_tie_goes_to_pot():
    # Two optimal plans with different precision: costs 1/4, 1/2 / 1/2, 3/4 have a zero-cost cycle,
    # but cosine/mass weights differ along it because the prediction masses differ.
    units = np.array([[1.0, 0.0], [0.0, 1.0], [0.75, 0.5], [0.5, 0.25]])
    enc = Encoded(units=units, norms=np.ones(4), exact_only=np.zeros(4, bool), tokens=list("xyab"),
                  spans=[np.array([0, 1]), np.array([2, 3])])
    masses = np.array([0.25, 0.75, 0.5, 0.5])
    cos = units[[0, 1]] @ units[[2, 3]].T

    def precision(flow):
        return np.mean((flow * cos).sum(axis=1) / flow.sum(axis=1))

    # Both plans have the same (optimal) cost but different precision: the tie really matters.
    plan_a = np.array([[0.25, 0.0], [0.25, 0.5]])
    plan_b = np.array([[0.0, 0.25], [0.5, 0.25]])
    assert np.isclose(((1 - cos) * plan_a).sum(), ((1 - cos) * plan_b).sum())
    assert abs(precision(plan_a) - precision(plan_b)) > 0.05
    flat = _flat(enc, ["x y", "a b"], masses)
    pairs = np.array([[0, 1]])
    _, _, status = transport.batch_prf(units, *flat, pairs, "paper", True)
    assert status.tolist() == [transport.STATUS_FALLBACK]
    _, _, status = transport.batch_prf(units, *flat, pairs, "wrd", True)  # 1 - WRD is tie-proof
    assert status.tolist() == [transport.STATUS_OK]
    p, r = score_pairs(enc, ["x y", "a b"], pairs, masses, "paper", True)
    ref = pair_detail(enc, "x y", "a b", enc.spans[0], enc.spans[1], masses, "paper", True)
    assert (p[0], r[0]) == (ref.precision, ref.recall)


@needs_numba
def test_duplicate_tokens_tie_is_solved_in_compiled_code():
    # "x x" vs "a b": any split of the two x's is optimal, and P/R are the same for all of them.
    units = np.array([[1.0, 0.0], [0.6, 0.8], [0.0, 1.0]])
    enc = Encoded(units=units, norms=np.ones(3), exact_only=np.zeros(3, bool), tokens=list("xab"),
                  spans=[np.array([0, 0]), np.array([1, 2])])
    masses = np.ones(3)
    flat = _flat(enc, ["x x", "a b"], masses)
    p, r, status = transport.batch_prf(units, *flat, np.array([[0, 1]]), "paper", True)
    assert status.tolist() == [transport.STATUS_OK]
    ref = pair_detail(enc, "x x", "a b", enc.spans[0], enc.spans[1], masses, "paper", True)
    assert abs(p[0] - ref.precision) < 1e-12 and abs(r[0] - ref.recall) < 1e-12


@needs_numba
def test_large_problems_fall_back_to_pot():
    rng = np.random.default_rng(3)
    units = rng.normal(size=(150, 8))
    units /= np.linalg.norm(units, axis=1, keepdims=True)
    spans = [np.arange(0, 70), np.arange(70, 140), np.arange(140, 143)]
    enc = Encoded(units=units, norms=np.ones(150), exact_only=np.zeros(150, bool),
                  tokens=[str(i) for i in range(150)], spans=spans)
    masses = rng.random(150)
    pairs = np.array([[0, 1], [0, 2]])
    flat = _flat(enc, ["a", "b", "c"], masses)
    _, _, status = transport.batch_prf(units, *flat, pairs, "paper", True)
    assert status.tolist() == [transport.STATUS_FALLBACK, transport.STATUS_OK]  # 70x70 > MAX_CELLS
    p, r = score_pairs(enc, ["a", "b", "c"], pairs, masses, "paper", True)
    ref_p, ref_r = _score_pairs_reference(enc, ["a", "b", "c"], pairs, masses, "paper", True)
    np.testing.assert_allclose(p, ref_p, atol=1e-9, rtol=0)
    np.testing.assert_allclose(r, ref_r, atol=1e-9, rtol=0)


@needs_numba
def test_threads_and_batch_size_do_not_change_results():
    enc, texts, pairs, masses = _tie_heavy_batch(seed=2, n_pairs=5000)
    one = score_pairs(enc, texts, pairs, masses, "paper", True, num_threads=1)
    two = score_pairs(enc, texts, pairs, masses, "paper", True, num_threads=2)
    parts = [score_pairs(enc, texts, pairs[i:i + 7], masses, "paper", True) for i in range(0, 700, 7)]
    for a, b in zip(one, two):
        assert np.array_equal(a, b)
    assert np.array_equal(one[0][:700], np.concatenate([p for p, _ in parts]))
    assert np.array_equal(one[1][:700], np.concatenate([r for _, r in parts]))


def test_bad_num_threads():
    enc, texts, pairs, masses = _tie_heavy_batch(seed=2, n_pairs=10)
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="num_threads"):
            score_pairs(enc, texts, pairs, masses, "paper", True, num_threads=bad)
        with pytest.raises(ValueError, match="num_threads"):
            WRDScorer(num_threads=bad)
    with pytest.raises(ValueError, match="variant"):
        score_pairs(enc, texts, pairs, masses, "nope", True)
    # Bounded like every input that costs resources: each thread is an OS thread with its own scratch (a million
    # pairs could start about 2,000 of them).
    with pytest.raises(ValueError, match=r"num_threads must be an integer between 1 and 1,024"):
        WRDScorer(num_threads=10**6)
    assert WRDScorer(num_threads=1024).options.num_threads == 1024


def test_scorer_num_threads_option_and_empty_texts():
    predictions = ["getCount", "", "", "?!", "size", "getUserName", "a"] * 200
    references = ["get_count", "  ", "x", "", "getSize", ["userName", "getName"], "a a"] * 200
    one = WRDScorer(num_threads=1).score(predictions, references)
    two = WRDScorer(num_threads=2).score(predictions, references)
    assert one == two
    assert one["f1"][:4] == [1.0, 1.0, 0.0, 0.0]
    assert not any(np.isnan(one["f1"]))


@needs_numba
@pytest.mark.parametrize("d", [1, 7, 484])
def test_kernel_cosines_are_the_plain_ordered_sums(d):
    # Scores are pinned bit for bit (benchmarks/fingerprint.py): every cosine must be the plain sum
    # over the dimensions in order, from 0.0, one product then one addition at a time, also where the
    # kernel's vector tiles (4 lanes, or 8 where the processor has AVX-512) pad a side to a multiple of
    # their lanes with repeats of its last token, and where they run transposed.  Both kinds of tile run
    # here on any processor (without AVX-512 an <8 x double> is two <4 x double>: the same operations).
    rng = np.random.default_rng(d)
    units = rng.standard_normal((30, d))
    units /= np.linalg.norm(units, axis=1)[:, None]

    def plain(rows_p, rows_r, lo):
        want = np.empty((len(rows_p), len(rows_r)))
        for i, a in enumerate(rows_p):
            for j, b in enumerate(rows_r):
                total = 0.0
                for k in range(d):
                    total += float(units[a, k]) * float(units[b, k])
                want[i, j] = total if lo is None else 1.0 if a == b else min(max(total, lo), 1.0)
        return want

    # The tiles themselves: every row count of both kinds (up to 2 * rows + 1: tiles split evenly), 1 to
    # 17 columns (every padding), each column block of the wide tiles packed once for all its tiles.
    for wide, most in ((False, batch.TILE_ROWS), (True, batch.WIDE_ROWS)):
        for m in range(1, 2 * most + 2):
            n = 1 + (m * 5) % 17
            rows_a, rows_b = rng.integers(0, 30, m).astype(np.int64), rng.integers(0, 30, n).astype(np.int64)
            acc = np.full((m + 7) * (n + 7), np.nan)
            w = batch._dot_tiles(units, rows_a, rows_b, acc, wide)
            assert w == -(-n // (batch.WIDE if wide else batch.TILE)) * (batch.WIDE if wide else batch.TILE)
            got = acc[:m * w].reshape(m, w)[:, :n]
            want = plain(rows_a, rows_b, None)  # the sums themselves
            same = rows_a[:, None] == rows_b[None, :]
            np.testing.assert_array_equal(got[~same], want[~same], err_msg=f"wide={wide} {m} x {n}")
    # Through _cosines: tiles of every row count up to TILE_ROWS (17 = 8 + 9, 30 = 10 + 10 + 10) or
    # WIDE_ROWS, in both orientations ((3, 7), (4, 13), (12, 1) and (16, 5), among others, are tiled
    # transposed: the reference side as the rows), with the 4-lane tiles only (WIDE_NEVER), the wide
    # ones only (WIDE_ALWAYS), and as the processor here takes them.
    shapes = [(1, 1), (2, 3), (3, 7), (4, 4), (5, 6), (9, 4), (4, 13), (11, 10), (3, 1), (6, 2), (13, 3),
              (7, 7), (8, 8), (10, 10), (17, 17), (1, 12), (12, 1), (5, 16), (16, 5), (3, 4), (30, 30), (11, 11),
              (12, 12), (13, 13), (14, 14), (9, 25), (25, 9), (23, 23)]
    cases = []
    for m, n in shapes:  # distinct rows on each side, so that the tiles' shapes are the ones listed
        rows_p = rng.choice(30, size=m, replace=False).astype(np.int64)
        rows_r = rng.choice(30, size=n, replace=False).astype(np.int64)
        rows_r[0] = rows_p[-1]  # an equal row: exactly 1
        cases.append((rows_p, rows_r))
    for cost, most in ((batch._tile_cost, batch.TILE_ROWS), (batch._wide_cost, batch.WIDE_ROWS)):
        swapped = {(m, n): cost(n, m) < cost(m, n) for m, n in shapes}
        assert set(swapped.values()) == {True, False}
        tile_rows = set()  # the row counts of the tiles, split as _dot_tiles splits them
        for (m, n), swap in swapped.items():
            rows = n if swap else m
            tiles = -(-rows // most)
            tile_rows |= {(t + 1) * rows // tiles - t * rows // tiles for t in range(tiles)}
        assert tile_rows >= set(range(1, most + 1)), (most, tile_rows)
    # Repeated tokens are tiled once (9 rows of 3 distinct tokens: one tile, not two), with or
    # without repeats on the other side.
    cases += [(np.array(p, dtype=np.int64), np.array(r, dtype=np.int64)) for p, r in [
        ([5, 5, 5, 2, 5, 2, 7, 5, 5], [2, 2, 9, 2]), ([4, 8], [1, 1, 1, 1, 1, 1, 1, 1, 1, 3]), ([6] * 20, [6] * 3)]]
    cases += [(rng.integers(0, 30, m).astype(np.int64), rng.integers(0, 30, n).astype(np.int64))
              for m, n in [(20, 20), (30, 9), (40, 40)]]
    assert sum(len(set(p.tolist())) < len(p) or len(set(r.tolist())) < len(r) for p, r in cases) > 6
    checked = 0
    modes = (batch.WIDE_NEVER, batch.WIDE_ALWAYS, batch._WIDE)
    for rows_p, rows_r in cases:
        m, n = len(rows_p), len(rows_r)
        for lo in (0.0, -1.0):
            want = plain(rows_p, rows_r, lo)
            for wide in modes:
                cos, C = np.empty((m, n)), np.empty((m, n))
                batch._cosines(units, rows_p, rows_r, lo, cos, C, np.empty((m + 7) * (n + 7)), wide)
                np.testing.assert_array_equal(cos, want, err_msg=f"{m} x {n}, wide mode {wide}")
                np.testing.assert_array_equal(C, 1.0 - want)
                checked += m * n
    assert checked == 2 * len(modes) * sum(len(p) * len(r) for p, r in cases)
    # What the processor here takes: the wide tiles where it has AVX-512 and they are cheaper.
    assert batch._WIDE == (batch.WIDE_WHERE_CHEAPER if batch.HAVE_WIDE else batch.WIDE_NEVER)
    assert batch._tiles(batch.WIDE_WHERE_CHEAPER, 64, 64)[0] and not batch._tiles(batch.WIDE_WHERE_CHEAPER, 3, 2)[0]

@needs_numba
def test_works_without_numba_and_says_so():
    # The pure NumPy/POT path (numba missing) sums in another order than the kernel: scores within 1e-15
    # (measured up to 7.8e-16 over the fingerprint's workloads), not the same bits, so its signature says
    # solver:pot; the baseline key, which a last-bit difference cannot move, stays the compiled path's.
    from wrd_score.signature import Signature

    preds, refs = ["getCount", "size", "x", "a man is eating"], ["count", "getSize", "get x", "a person eats food"]
    code = ("import json; from wrd_score import WRDScorer, transport; assert not transport.HAVE_NUMBA; "
            f"r = WRDScorer().score({preds!r}, {refs!r}); print(json.dumps([r['f1'], r['signature']]))")
    env = dict(os.environ, WRDSCORE_DISABLE_NUMBA="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    f1, signature = json.loads(out.stdout.strip().splitlines()[-1])
    compiled = WRDScorer().score(preds, refs)
    np.testing.assert_allclose(f1, compiled["f1"], atol=1e-15, rtol=0)
    assert "solver" not in Signature.parse(compiled["signature"])
    assert Signature.parse(signature)["solver"] == "pot"
    assert Signature.parse(signature).key() == Signature.parse(compiled["signature"]).key()


# ------------------------------------------------------------------------------- real data
def _method_name_pairs(shared_data, n):
    path = shared_data / "java_method_names" / "java_method_names.txt.gz"
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        names = sorted({line.strip() for line in handle if line.strip()})
    rng = random.Random(7)
    pairs = [(rng.choice(names), rng.choice(names)) for _ in range(n)]
    pairs += [(a, a[0].upper() + a[1:]) for a, _ in pairs[: n // 10]]  # near-duplicates
    return pairs


@needs_numba
@pytest.mark.parametrize("variant,clip", [("paper", True), ("wrd", False)])
def test_equals_pot_reference_on_real_pairs(shared_data, variant, clip):
    scorer_names = WRDScorer(variant=variant, clip_negative=clip)
    scorer_words = WRDScorer(variant=variant, clip_negative=clip, tokenizer="words")
    with open(shared_data / "stsb" / "stsb_dev.tsv", encoding="utf-8") as handle:
        rows = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))[1:301]
    for scorer, pairs in ((scorer_names, _method_name_pairs(shared_data, 1500)),
                          (scorer_words, [(r[1], r[2]) for r in rows])):
        texts = list(dict.fromkeys(t for pair in pairs for t in pair))
        index = {t: i for i, t in enumerate(texts)}
        enc = scorer.backend.encode(texts)
        masses = token_masses(enc.norms, enc.tokens, "norm", None)
        idx = np.array([(index[a], index[b]) for a, b in pairs])
        fast = score_pairs(enc, texts, idx, masses, variant, clip)
        ref = _score_pairs_reference(enc, texts, idx, masses, variant, clip)
        np.testing.assert_allclose(fast[0], ref[0], atol=1e-9, rtol=0)
        np.testing.assert_allclose(fast[1], ref[1], atol=1e-9, rtol=0)


# ------------------------------------------------------------------------------- streaming


# --------------------------------------------------- issue 12: bounded problem size on every entry


def _dense_potentials(C, basic):
    """``C_ij = u_i + v_j`` on the basic cells, ``u_0 = 0``, by a breadth-first scan of the dense
    ``basic`` matrix: what the simplex computed before it kept adjacency lists."""
    m, n = C.shape
    u, v = np.full(m, np.nan), np.full(n, np.nan)
    u[0] = 0.0
    queue = [0]
    for node in queue:
        if node < m:
            for j in range(n):
                if basic[node, j] and np.isnan(v[j]):
                    v[j] = C[node, j] - u[node]
                    queue.append(m + j)
        else:
            for i in range(m):
                if basic[i, node - m] and np.isnan(u[i]):
                    u[i] = C[i, node - m] - v[node - m]
                    queue.append(i)
    return u, v


def _run_simplex(a, b, C):
    """The compiled simplex on one problem: plan, duals and basis (it must reach the optimum)."""
    m, n = C.shape
    size = max(m, n)
    x, basic = np.empty((m, n)), np.empty((m, n), dtype=np.bool_)
    u, v, alpha, beta = (np.empty(size) for _ in range(4))
    row_seen, col_seen = np.empty(size, dtype=np.bool_), np.empty(size, dtype=np.bool_)
    queue, parent, path_i, path_j = (np.empty(2 * size, dtype=np.int64) for _ in range(4))
    tree = np.empty(simplex.tree_len(m * n, size), dtype=np.int64)
    assert simplex.simplex(a, b, C, m, n, x, basic, u, v, row_seen, col_seen, queue, parent, path_i,
                              path_j, alpha, beta, tree, np.empty(m * n), 50 * (m + n) ** 2)
    return x, u[:m], v[:n], basic


def _tied_costs(rng, m, n, kind):
    """An ``m x n`` cost matrix: random (kind 0), a few values (1), else many 1.0s (clipped
    cosines), some 0.0s (equal tokens) and a repeated row (a repeated token)."""
    if kind == 0:
        return rng.random((m, n))
    if kind == 1:
        return rng.choice([0.0, 0.25, 0.5, 1.0], size=(m, n))
    C = np.where(rng.random((m, n)) < 0.4, 1.0, rng.random((m, n)))
    C[rng.random((m, n)) < 0.1] = 0.0
    C[rng.integers(0, m)] = C[0]
    return C


@functools.lru_cache(maxsize=None)
def _numba_argsort():
    """numba's own np.argsort (its quicksort: the order among equal costs that the start follows)."""
    from numba import njit

    return njit(lambda keys: np.argsort(keys))


@needs_numba
def test_simplex_tree_walk_keeps_the_dense_potentials_and_finds_the_optimum():
    """The simplex walks its basis by adjacency lists (potentials, the entering cell's cycle): its
    duals must be bit-equal to the dense scan's on the final basis and its plan a feasible optimum
    of POT's cost, on random problems, half of them with many tied costs."""
    import ot

    rng = np.random.default_rng(7)
    for trial in range(300):
        m, n = (int(k) for k in rng.integers(2, 13, size=2))
        C = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0], size=(m, n)) if trial % 2 else rng.random((m, n))
        a, b = rng.random(m) + 0.01, rng.random(n) + 0.01
        a, b = a / a.sum(), b / b.sum()
        x, u, v, basic = _run_simplex(a, b, C)
        assert basic.sum() == m + n - 1
        dense_u, dense_v = _dense_potentials(C, basic)
        assert np.array_equal(dense_u, u) and np.array_equal(dense_v, v)
        np.testing.assert_allclose(x.sum(axis=1), a, atol=1e-12)
        np.testing.assert_allclose(x.sum(axis=0), b, atol=1e-12)
        assert (x >= 0).all() and (C - u[:, None] - v[None, :] >= -1e-12).all()
        assert abs((x * C).sum() - (ot.emd(a, b, C) * C).sum()) < 1e-12


def test_score_pairs_distinct_flag_changes_nothing_for_distinct_texts():
    """WRDScorer.score vouches that its texts are distinct (distinct=True skips the dict that
    checks): the same scores as letting score_pairs find out."""
    scorer = WRDScorer(num_threads=1)
    texts = ["getCount", "get_count", "setSize", "", " ", "size of list", "countGet"]
    enc = scorer.backend.encode(texts)
    masses = token_masses(enc.norms, enc.tokens, scorer.options.weights, scorer.corpus_idf)
    pairs = np.array([(i, j) for i in range(len(texts)) for j in range(len(texts))])
    for variant, clip in CONFIGS:
        found = score_pairs(enc, texts, pairs, masses, variant, clip)
        vouched = score_pairs(enc, texts, pairs, masses, variant, clip, distinct=True)
        assert all(np.array_equal(a, b) for a, b in zip(found, vouched))


@needs_numba
def test_least_cost_start_reads_cells_in_numbas_argsort_order():
    """The start's lazy sort (_next_open) must hand out the cells that the first open cell of
    numba's np.argsort(C.ravel()) would be, step by step, while rows and columns are crossed out;
    ties among equal costs included (the tie order is what decides the basis), on random, tie-heavy
    and NaN-holding costs, small and large."""
    rng = np.random.default_rng(11)
    for trial in range(600):
        m, n = (int(k) for k in rng.integers(2, 70 if trial % 5 == 0 else 16, size=2))
        C = _tied_costs(rng, m, n, trial % 3)
        if trial % 4 == 3:
            C[rng.random((m, n)) < 0.2] = np.nan
        reference = _numba_argsort()(C.ravel())
        keys = np.empty(m * n)
        tree = np.empty(simplex.tree_len(m * n, max(m, n)), dtype=np.int64)
        order, ranges, stops = simplex.tree_views(tree, m, n)[5:]
        pos, pending = simplex._sort_cells(C, keys, order, ranges)
        row_seen, col_seen = np.zeros(m, dtype=np.bool_), np.zeros(n, dtype=np.bool_)
        at = 0
        while not (row_seen.all() or col_seen.all()):
            while row_seen[reference[at] // n] or col_seen[reference[at] % n]:
                at += 1
            i, j, pos, pending = simplex._next_open(keys, order, ranges, stops, pos, pending, row_seen, col_seen)
            assert (i, j) == divmod(int(reference[at]), n), (trial, m, n)
            # as in the start, the picked cell's row or column is crossed out; now and then one more
            if rng.random() < 0.3:
                row_seen[rng.integers(0, m)] = True
            if rng.random() < 0.5:
                row_seen[i] = True
            else:
                col_seen[j] = True


def _reference_simplex(a, b, C, argsort):
    """The transportation simplex as it was before its speed-ups, in plain Python and dense: the
    least-cost start (cells in ``argsort(C.ravel())`` order above 36 cells, else the cheapest open
    cell, first in row-major order), Dantzig's entering cell (the first most negative reduced
    cost in row-major order), the leaving cell (the first least flow among the cycle's "-" cells,
    from the entering column on), duals from :func:`_dense_potentials`."""
    m, n = C.shape
    x, basic = np.zeros((m, n)), np.zeros((m, n), dtype=bool)
    ra, rb = a.copy(), b.copy()
    row_seen, col_seen = [False] * m, [False] * n
    order = list(argsort(C.ravel())) if m * n > 36 else None
    pos, rows_left, cols_left = 0, m, n
    while True:
        if order is not None:
            while row_seen[order[pos] // n] or col_seen[order[pos] % n]:
                pos += 1
            i, j = divmod(int(order[pos]), n)
        else:
            i = j = -1
            for ii in range(m):
                for jj in range(n):
                    if not row_seen[ii] and not col_seen[jj] and (i < 0 or C[ii, jj] < C[i, j]):
                        i, j = ii, jj
        q = max(ra[i] if ra[i] < rb[j] else rb[j], 0.0)
        x[i, j], basic[i, j] = q, True
        ra[i] -= q
        rb[j] -= q
        if rows_left == 1 and cols_left == 1:
            break
        if (ra[i] <= rb[j] and rows_left > 1) or cols_left == 1:
            row_seen[i], rows_left = True, rows_left - 1
        else:
            col_seen[j], cols_left = True, cols_left - 1
    while True:
        u, v = _dense_potentials(C, basic)
        best, enter = -simplex._PIVOT_TOL, None
        for i in range(m):
            for j in range(n):
                if not basic[i, j] and C[i, j] - u[i] - v[j] < best:
                    best, enter = C[i, j] - u[i] - v[j], (i, j)
        if enter is None:
            return x, u, v, basic
        ei, ej = enter
        came = {("c", ej): None}  # the tree path from column ej to row ei
        queue = [("c", ej)]
        for kind, k in queue:
            for other in (range(n) if kind == "r" else range(m)):
                cell = (k, other) if kind == "r" else (other, k)
                node = ("c" if kind == "r" else "r", other)
                if basic[cell] and node not in came:
                    came[node] = (kind, k)
                    queue.append(node)
        nodes = [("r", ei)]
        while came[nodes[-1]] is not None:
            nodes.append(came[nodes[-1]])
        nodes.reverse()
        cells = [(p[1], q[1]) if p[0] == "r" else (q[1], p[1]) for p, q in zip(nodes, nodes[1:])]
        leave = min(range(0, len(cells), 2), key=lambda k: (x[cells[k]], k))
        theta = x[cells[leave]]
        for k, cell in enumerate(cells):
            x[cell] = x[cell] - theta if k % 2 == 0 else x[cell] + theta
        x[ei, ej], basic[ei, ej] = theta, True
        x[cells[leave]], basic[cells[leave]] = 0.0, False


@needs_numba
def test_simplex_takes_the_same_bases_as_before_its_speed_ups():
    """Ties among costs are common (1.0 for clipped cosines, 0.0 for equal tokens, equal rows for
    repeated tokens) and decide which optimal plan comes out, so every change to the simplex must
    keep its sequence of bases: the compiled one must give the reference's plan and duals to the
    bit, on random and tie-heavy problems of fewer and more than 36 cells."""
    rng = np.random.default_rng(5)
    for trial in range(400):
        m, n = (int(k) for k in rng.integers(2, 6 if trial % 3 == 0 else 14, size=2))
        kind = trial % 4
        C = _tied_costs(rng, m, n, kind)
        a = rng.choice([1.0, 1.0, 2.0, 0.5], size=m) if kind == 3 else rng.random(m) + 0.01
        b = rng.choice([1.0, 1.0, 2.0, 0.5], size=n) if kind == 3 else rng.random(n) + 0.01
        a, b = a / a.sum(), b / b.sum()
        x, u, v, basic = _run_simplex(a, b, C)
        ref_x, ref_u, ref_v, ref_basic = _reference_simplex(a, b, C, _numba_argsort())
        assert np.array_equal(basic, ref_basic), (trial, m, n)
        assert x.tobytes() == ref_x.tobytes() and u.tobytes() == ref_u.tobytes(), (trial, m, n)
        assert v.tobytes() == ref_v.tobytes(), (trial, m, n)


@needs_numba
@pytest.mark.parametrize("variant", ["wrd", "paper"])
def test_the_batch_kernel_and_the_pot_path_read_p_and_r_off_a_plan_by_one_rule(variant):
    """P and R are defined once (transport.variants.plan_prf): the kernel compiles it in, the POT path calls it
    through prf_from_plan. Given the kernel's own cosines and plan, both must give the same bits, on pairs of
    1 to 20 tokens a side (rows of 8 and more are where numpy's pairwise sums and BLAS's dot, which the POT
    path used, part from an ordered loop)."""
    from wrd_score.transport import prf_from_plan

    rng = np.random.default_rng(7)
    units = rng.standard_normal((40, 16))
    units /= np.linalg.norm(units, axis=1)[:, None]
    compared = 0
    for _ in range(300):
        m, n = rng.integers(1, 21, size=2)
        rows_p, rows_r = rng.choice(40, size=m, replace=False), rng.choice(40, size=n, replace=False)
        mass_p, mass_r = rng.random(m) + 0.01, rng.random(n) + 0.01
        mass_p, mass_r = mass_p / mass_p.sum(), mass_r / mass_r.sum()
        plan = transport.pair_plan(units, rows_p, rows_r, mass_p, mass_r, variant, True)
        if plan is None:
            continue
        cos, cost = np.empty((m, n)), np.empty((m, n))
        batch._cosines(units, rows_p.astype(np.int64), rows_r.astype(np.int64), 0.0, cos, cost,
                       np.empty((m + 7) * (n + 7)), batch._WIDE)
        assert prf_from_plan(cos, plan[2], mass_p, variant) == plan[:2]
        compared += 1
    assert compared > 250, compared


def test_emd_plan_is_ot_emds_plan():
    """emd_plan calls POT's compiled solver itself where the POT release is one whose ot.emd path it knows
    (transport.pot._DIRECT_RELEASES): the plan must be ot.emd's, bit for bit, on random problems and on
    tie-heavy ones (few cost values, equal masses, repeated rows), with masses whose sums differ in the last
    bits (ot.emd rescales one side), and where it hands the problem to ot.emd (a zero mass)."""
    import warnings

    import ot

    from wrd_score.transport import pot

    rng = np.random.default_rng(33)
    direct = bool(pot._direct_solver())
    release = tuple(int(x) for x in ot.__version__.split(".")[:3] if x.isdigit())
    assert direct == (release in pot._DIRECT_RELEASES), ot.__version__
    calls = []
    if direct:  # count the problems that took the direct path
        solver, check = pot._direct
        pot._direct = (lambda *args: calls.append(1) or solver(*args), check)
    try:
        problems = 0
        for trial in range(400):
            m, n = (int(k) for k in rng.integers(1, 40 if trial % 10 else 160, size=2))
            kind = trial % 4
            if kind == 0:
                cost = rng.random((m, n))
            elif kind == 1:  # many ties
                cost = rng.choice([0.0, 0.5, 1.0], size=(m, n))
            elif kind == 2:  # repeated rows and columns, equal masses
                cost = rng.choice([0.0, 0.25, 1.0], size=(m, 1)) + rng.choice([0.0, 0.25], size=(1, n))
            else:  # cosine-like costs of unit vectors, some equal
                units = rng.standard_normal((6, 5))
                units /= np.linalg.norm(units, axis=1)[:, None]
                cost = 1.0 - units[rng.integers(0, 6, m)] @ units[rng.integers(0, 6, n)].T
            mass_p = np.full(m, 1.0 / m) if kind == 2 else rng.random(m) + 0.01
            mass_r = np.full(n, 1.0 / n) if kind == 2 else rng.random(n) + 0.01
            mass_p, mass_r = mass_p / mass_p.sum(), mass_r / mass_r.sum()
            if trial % 7 == 3:
                mass_r = mass_r * (1 + 1e-9)  # sums that differ: ot.emd rescales the reference side
            if trial % 11 == 5 and m > 1:
                mass_p[0] = 0.0
                mass_p /= mass_p.sum()  # a zero mass: ot.emd's own path
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # neither may stop short of the optimum
                want = ot.emd(mass_p, mass_r, cost, numItermax=max(100_000, 50 * (m + n) ** 2))
                got = pot.emd_plan(mass_p, mass_r, cost)
            assert got.dtype == want.dtype and got.shape == want.shape
            assert np.array_equal(got.view(np.int64), want.view(np.int64)), (trial, m, n)
            problems += 1
    finally:
        if direct:
            pot._direct = (solver, check)
    assert problems == 400
    if direct:
        assert 300 < len(calls) < 400, len(calls)
    # ot.emd's error for masses of different totals is kept.
    with pytest.raises(AssertionError, match="same sum"):
        pot.emd_plan(np.array([0.5, 0.5]), np.array([0.9]), np.zeros((2, 1)))
