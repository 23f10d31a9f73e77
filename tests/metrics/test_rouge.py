"""ROUGE through rouge-score: parity, identifier splitting, several references, the empty-text rule, bad input."""
from __future__ import annotations

import pytest

from wrd_score.metrics import rouge


def test_rouge_matches_rouge_score_and_splits_identifiers_on_request(sibling_pairs):
    hyps, refs = sibling_pairs
    from rouge_score import rouge_scorer

    ref = rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL"])
    out = rouge(hyps, refs)
    for i, (h, r) in enumerate(zip(hyps, refs)):
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
