"""The one metric interface (metrics/base.py): the registry, the token cap and the empty-text rule in every metric."""
from __future__ import annotations

import pytest

from wrd_score.metrics import metric_names
from wrd_score.validation import all_metrics


def _registered():
    from wrd_score.metrics import metric_names

    return metric_names(bundles=False)


def _built(name):
    from wrd_score.metrics import get_metric

    pytest.importorskip({"sbert": "sentence_transformers", "meteor": "wn"}.get(name, "numpy"))
    return get_metric(name)


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


def test_every_literature_metric_is_registered_once():
    names = metric_names()
    for name in ("bleu", "wms", "sms", "s+wms", "sbert", "meteor"):
        assert name in names
    assert "rouge" in names and "rouge" not in all_metrics()  # the bundle: its types are listed one by one
    assert set(all_metrics()) == set(names) - {"rouge"}
