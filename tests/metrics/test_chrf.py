"""chrF through sacreBLEU: sentence and corpus parity, its signature carried into ours, options, limits."""
from __future__ import annotations

import pytest

sacrebleu = pytest.importorskip("sacrebleu")

from wrd_score.metrics import MAX_METRIC_TOKENS, get_metric  # noqa: E402
from wrd_score.metrics.chrf import CHRF, MAX_CHRF_CHARS, chrf  # noqa: E402

HYPS = ["The cat sat on the mat.", "getCount", "a dog barked loudly", "it rains in Paris", "hello world",
        "Größe zählen", "x"]
REFS = ["The cat is on the mat.", "get_count", "the dog barks loudly", "it is raining in paris", "hello world",
        "größe zählt", "completely different"]
OPTIONS = [{}, {"word_order": 2}, {"lowercase": True}, {"whitespace": True}, {"beta": 1}, {"char_order": 4},
           {"eps_smoothing": True}, {"char_order": 3, "word_order": 1, "beta": 3, "lowercase": True}]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_sentence_and_corpus_chrf_equal_sacrebleus(options):
    theirs = sacrebleu.metrics.CHRF(**options)
    result = CHRF(**options).score(HYPS, REFS)
    for i, (h, r) in enumerate(zip(HYPS, REFS)):
        assert result.score[i] == theirs.sentence_score(h, [r]).score / 100
    assert result.corpus["chrf"] == theirs.corpus_score(HYPS, [REFS]).score / 100
    assert str(result.signature) == "chrf:sacrebleu|" + str(theirs.get_signature())


def test_several_references_take_sacrebleus_best_and_the_corpus_pads_with_none():
    theirs = sacrebleu.metrics.CHRF()
    refs = [[REFS[0], "A cat sat on the mat."], REFS[1], ["nothing alike", REFS[2], REFS[2]], [REFS[3]]]
    hyps = HYPS[:4]
    result = CHRF().score(hyps, refs)
    for i, h in enumerate(hyps):
        group = [refs[i]] if isinstance(refs[i], str) else refs[i]
        assert result.score[i] == theirs.sentence_score(h, group).score / 100
        singles = [theirs.sentence_score(h, [r]).score for r in group]
        assert result.best_reference[i] == singles.index(max(singles))  # the first of equal bests
    assert result.best_reference == [1, 0, 1, 0]
    padded = [[refs[0][0], refs[1], refs[2][0], refs[3][0]], [refs[0][1], None, refs[2][1], None],
              [None, None, refs[2][2], None]]
    assert result.corpus["chrf"] == theirs.corpus_score(hyps, padded).score / 100
    assert "|nrefs:3|" in str(result.signature)
    out = chrf(hyps, refs)
    assert out["chrf"] == result.score and out["corpus_chrf"] == result.corpus["chrf"]


def test_empty_texts_follow_the_library_rule_and_leave_the_corpus_as_sacrebleu_sums_it():
    result = CHRF().score(["", "  ", "abc", "", "..."], ["", "\t", "", "abc", "..."])
    assert result.score == [1.0, 1.0, 0.0, 0.0, 1.0]  # sacreBLEU says 0 for two empty texts
    theirs = sacrebleu.metrics.CHRF()
    assert result.corpus["chrf"] == theirs.corpus_score(["", "  ", "abc", "", "..."],
                                                        [["", "\t", "", "abc", "..."]]).score / 100


def test_a_text_over_the_character_cap_is_refused_before_scoring():
    long = "ab" * (MAX_CHRF_CHARS // 2) + "c"  # one token, so under the token cap of every metric
    with pytest.raises(ValueError, match=rf"predictions\[1\] has {MAX_CHRF_CHARS + 1:,} characters; chrf scores "
                                         rf"texts of up to {MAX_CHRF_CHARS:,}"):
        CHRF().score(["a", long], ["a", "b"])
    with pytest.raises(ValueError, match=r"references\[0\]\[1\] has"):
        CHRF().score(["a"], [["b", long]])
    assert CHRF().score([long[:-1]], [long[:-1]]).score == [1.0]  # at the cap
    with pytest.raises(ValueError, match=f"limit is {MAX_METRIC_TOKENS:,}"):
        CHRF().score([" ".join(["w"] * (MAX_METRIC_TOKENS + 1))], ["w"])


def test_options_are_checked_in_one_line():
    for kwargs, pattern in [({"char_order": 0}, "char_order must be an integer between 1 and 32"),
                            ({"word_order": -1}, "word_order must be an integer between 0 and 32"),
                            ({"beta": 2.5}, "beta must be an integer"), ({"char_order": True}, "char_order"),
                            ({"lowercase": "yes"}, "lowercase must be True or False"),
                            ({"whitespace": 1}, "whitespace must be True or False")]:
        with pytest.raises((ValueError, TypeError), match=pattern):
            CHRF(**kwargs)
    with pytest.raises(TypeError):
        get_metric("chrf", tokenize="13a")
    assert get_metric("chrf", word_order=2).score(["the cat"], ["the cat"]).score == [1.0]
