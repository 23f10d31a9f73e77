"""MoverScore's rule on this library's vectors, checked against the PyPI moverscore 1.0.3 (``moverscore_v2``).

moverscore_v2 is made to run offline on CPU by patching, in this test only, the names it takes from
transformers/NumPy (see ``benchmarks/contextual.py``).  It needs
``pip install --no-deps moverscore==1.0.3 pyemd==1.1.0`` and is skipped without it.
"""
from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest

from wrd_score.metrics import moverscore


@pytest.fixture(scope="module")
def moverscore_v2(minilm_path, repo):
    pytest.importorskip("pyemd", reason="pip install --no-deps moverscore==1.0.3 pyemd==1.1.0")
    if importlib.util.find_spec("moverscore_v2") is None:
        pytest.skip("moverscore not installed: pip install --no-deps moverscore==1.0.3 pyemd==1.1.0")
    spec = importlib.util.spec_from_file_location("_bench_contextual", repo / "benchmarks" / "contextual.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    had_float = hasattr(np, "float")
    module = bench.load_patched_moverscore(minilm_path, layer=-1)
    yield module
    sys.modules.pop("moverscore_v2", None)
    if not had_float and hasattr(np, "float"):
        del np.float  # undo the patch for the rest of the session


@pytest.fixture(params=["pot", "cpp"])
def emd_backend(request, moverscore_v2, monkeypatch):
    """pyemd 1.1 solves with POT by default (as we do); 'cpp' is the original Pele-Werman solver."""
    import functools

    import pyemd

    monkeypatch.setattr(moverscore_v2, "emd_with_flow", functools.partial(pyemd.emd_with_flow, backend=request.param))
    return request.param


def test_moverscore_agrees_with_the_moverscore_package(sibling_pairs, moverscore_v2, emd_backend):
    hyps, refs = sibling_pairs
    idf_ref = moverscore_v2.get_idf_dict(refs, nthreads=1)
    idf_hyp = moverscore_v2.get_idf_dict(hyps, nthreads=1)
    theirs = moverscore_v2.word_mover_score(refs, hyps, idf_ref, idf_hyp, stop_words=[], n_gram=1,
                                            remove_subwords=True, batch_size=64, device="cpu")
    ours = moverscore(hyps, refs, form="complement", backend="contextual", pooling="wordpiece", layer=-1)
    assert np.abs(np.asarray(theirs, dtype=np.float64) - ours["score"]).max() < 1e-4
    # The score is 1 / (1 + cost) of the same transport cost.
    inverse = moverscore(hyps, refs, backend="contextual", pooling="wordpiece", layer=-1)
    expected = 1.0 / (1.0 + (1.0 - np.asarray(theirs, dtype=np.float64)))
    assert np.abs(expected - inverse["score"]).max() < 1e-4
    # With stop words, as moverscore_v2 removes them.
    stop = ["a", "the", "is", "on", "an"]
    theirs_stop = moverscore_v2.word_mover_score(refs, hyps, idf_ref, idf_hyp, stop_words=stop, n_gram=1,
                                                 remove_subwords=True, batch_size=64, device="cpu")
    ours_stop = moverscore(hyps, refs, form="complement", stop_words=stop, backend="contextual",
                           pooling="wordpiece", layer=-1)
    assert np.abs(np.asarray(theirs_stop, dtype=np.float64) - ours_stop["score"]).max() < 1e-4
    assert not np.allclose(ours_stop["score"], ours["score"])


def test_moverscore_options_change_what_they_say(sibling_pairs, minilm_path):
    hyps, refs = sibling_pairs
    kwargs = dict(backend="contextual", pooling="wordpiece", layer=-1)
    base = moverscore(hyps, refs, **kwargs)
    keep = moverscore(hyps, refs, subwords="keep", punctuation="keep", **kwargs)
    uniform = moverscore(hyps, refs, idf=False, **kwargs)
    assert base["score"] != keep["score"] and base["score"] != uniform["score"]
    assert all(1 / 3 <= s <= 1 for s in base["score"] + keep["score"] + uniform["score"])
    assert "subwords:keep" in keep["signature"] and "idf:no" in uniform["signature"]
    # One sentence only: every IDF is 0; uniform masses keep the score meaningful (not 1).
    single = moverscore(["A man plays."], ["A man is playing a guitar."], **kwargs)
    assert 1 / 3 < single["score"][0] < 1
