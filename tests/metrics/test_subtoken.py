"""subtoken-f1 and exact-match: code2seq's counting rule on hand-computed fixtures, corpus micro averages."""
from __future__ import annotations

import random

import pytest

from wrd_score.metrics import get_metric
from wrd_score.metrics.subtoken import ExactMatch, SubtokenF1, exact_match, subtoken_counts, subtoken_f1, subtokens


# (prediction, reference, (true positives, false positives, false negatives), (P, R, F1)), each worked by hand
# from code2seq's rule: a predicted subtoken is a hit when it occurs anywhere in the reference (each copy counts),
# a reference subtoken the prediction lacks is a miss, and names equal when joined score the whole reference.
FIXTURES = [
    ("getCount", "get_count", (2, 0, 0), (1.0, 1.0, 1.0)),                 # equal names
    ("get count", "getCount", (2, 0, 0), (1.0, 1.0, 1.0)),
    ("GET_COUNT", "getCount", (2, 0, 0), (1.0, 1.0, 1.0)),                  # lowercased
    ("getcount", "getCount", (2, 0, 0), (1.0, 1.0, 1.0)),                   # equal once joined: the full reference
    ("ab c", "a bc", (2, 0, 0), (1.0, 1.0, 1.0)),                           # the joined test's blind spot, kept
    ("count get", "getCount", (2, 0, 0), (1.0, 1.0, 1.0)),                  # order is ignored
    ("setSize", "getSize", (1, 1, 1), (0.5, 0.5, 0.5)),
    ("get get", "getCount", (2, 0, 1), (1.0, 2 / 3, 0.8)),                  # a duplicate prediction hits twice
    ("getCountCount", "count", (2, 1, 0), (2 / 3, 1.0, 0.8)),
    ("size", "size_size", (1, 0, 0), (1.0, 1.0, 1.0)),                      # each reference copy is found
    ("get <UNK> count", "getCount", (2, 0, 0), (1.0, 1.0, 1.0)),            # UNK removed, then exact
    ("get</s><pad>", "getSize", (1, 0, 1), (1.0, 0.5, 2 / 3)),              # EOS and padding removed
    ("<unk>", "size", (0, 0, 1), (0.0, 0.0, 0.0)),                          # nothing predicted
    ("", "size", (0, 0, 1), (0.0, 0.0, 0.0)),                               # an empty prediction
    ("size", "", (0, 1, 0), (0.0, 0.0, 0.0)),                               # an empty reference
    ("foo bar", "baz", (0, 2, 1), (0.0, 0.0, 0.0)),
]


@pytest.mark.parametrize("pred, ref, counts, prf", FIXTURES, ids=[f"{p!r}-{r!r}" for p, r, *_ in FIXTURES])
def test_each_example_counts_and_scores_as_code2seq(pred, ref, counts, prf):
    assert subtoken_counts(subtokens(pred), subtokens(ref)) == counts
    result = SubtokenF1().score([pred], [ref])
    assert (result.precision[0], result.recall[0], result.f1[0]) == pytest.approx(prf, abs=1e-15)
    tp, fp, fn = counts
    assert (result.corpus["true_positives"], result.corpus["false_positives"], result.corpus["false_negatives"]) == counts


def test_the_corpus_scores_are_micro_averages_not_means_of_examples():
    preds = [p for p, *_ in FIXTURES]
    refs = [r for _, r, *_ in FIXTURES]
    # Summed by hand over FIXTURES: TP 2+2+2+2+2+2+1+2+2+1+2+1 = 21; FP 1+1+1+2 = 5; FN 1+1+1+1+1+1 = 6.
    result = SubtokenF1().score(preds, refs)
    assert (result.corpus["true_positives"], result.corpus["false_positives"], result.corpus["false_negatives"]) == (21, 5, 6)
    p, r = 21 / 26, 21 / 27
    assert result.corpus["micro_precision"] == pytest.approx(p, abs=1e-15)
    assert result.corpus["micro_recall"] == pytest.approx(r, abs=1e-15)
    assert result.corpus["micro_f1"] == pytest.approx(2 * p * r / (p + r), abs=1e-15)
    mean_f1 = sum(result.f1) / len(result.f1)
    assert abs(mean_f1 - result.corpus["micro_f1"]) > 0.05  # the papers' number is not the mean of the rows
    out = subtoken_f1(preds, refs)
    assert out["micro_f1"] == result.corpus["micro_f1"] and out["f1"] == result.f1


def test_texts_without_subtokens_follow_the_empty_text_rule_and_add_no_count():
    result = SubtokenF1().score(["", "<UNK>", "!!!", "<pad>"], ["", "", "???", "</S>"])
    assert result.f1 == [1.0, 1.0, 0.0, 1.0]   # equal once the specials are gone; "!!!" is not "???"
    assert result.corpus == {"micro_precision": 0.0, "micro_recall": 0.0, "micro_f1": 0.0,
                             "true_positives": 0, "false_positives": 0, "false_negatives": 0}


def test_several_references_take_the_best_f1_and_give_the_corpus_its_counts():
    result = SubtokenF1().score(["getSize", "getName"], [["setSize", "getSize"], ["name", "setName", "fooBar"]])
    assert result.best_reference == [1, 0]  # getName: "name" F1 2/3, "setName" 1/2, "fooBar" 0
    assert result.f1 == pytest.approx([1.0, 2 / 3])
    # getSize: (2, 0, 0); getName vs name: (1, 1, 0).
    assert (result.corpus["true_positives"], result.corpus["false_positives"], result.corpus["false_negatives"]) == (3, 1, 0)


def _code2seq_reading(pred, ref):
    # The rule as code2seq's paper and code state it, written independently of the module: lists of subtokens,
    # membership tests, the joined-names shortcut.
    if "".join(pred) == "".join(ref):
        return len(ref), 0, 0
    tp = fp = fn = 0
    for token in pred:
        if token in ref:
            tp += 1
        else:
            fp += 1
    for token in ref:
        if token not in pred:
            fn += 1
    return tp, fp, fn


def test_random_names_count_as_the_plain_reading_of_the_rule():
    rng = random.Random(0)
    vocab = ["get", "set", "count", "size", "name", "a", "b", "ab"]
    for _ in range(2000):
        pred = [rng.choice(vocab) for _ in range(rng.randint(0, 4))]
        ref = [rng.choice(vocab) for _ in range(rng.randint(0, 4))]
        assert subtoken_counts(pred, ref) == _code2seq_reading(pred, ref), (pred, ref)


def test_special_tokens_are_an_option_recorded_in_the_signature():
    assert str(SubtokenF1().signature()).startswith("subtoken-f1:code2seq|tok:identifier|drop:<unk>,<pad>,</s>|avg:micro")
    metric = SubtokenF1(special_tokens=("<blank>",))
    assert metric.score(["get <blank>"], ["get"]).f1 == [1.0]
    assert metric.score(["get <unk>"], ["get"]).f1 == [pytest.approx(2 / 3)]  # <unk> is the word "unk" now
    assert "|drop:<blank>|" in str(metric.signature())
    assert "|drop:none|" in str(SubtokenF1(special_tokens=()).signature())
    assert SubtokenF1(special_tokens="<a>,<b>").score(["x <a> <b>"], ["x"]).f1 == [1.0]  # as a validate spec gives it
    for bad, pattern in [(("",), "non-empty"), (("a b",), "whitespace"), (("a|b",), "'|'"), ((1,), "non-empty"),
                         (None, "list or tuple")]:
        with pytest.raises((TypeError, ValueError), match=pattern):
            SubtokenF1(special_tokens=bad)


def test_exact_match_by_code2seqs_accuracy_rule_or_strictly():
    preds = ["getCount", "get get count", "getcount", "count get", "GET_COUNT", "get <UNK> count", "size"]
    refs = ["get_count"] * 6 + ["length"]
    assert ExactMatch().score(preds, refs).score == [1.0, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0]
    assert ExactMatch(rule="sequence").score(preds, refs).score == [1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0]
    out = exact_match(preds, refs)
    assert out["accuracy"] == pytest.approx(5 / 7) and out["signature"].startswith("exact-match:code2seq|tok:identifier")
    result = ExactMatch().score(["getSize", "x"], [["size", "get_size"], ["y", "z"]])
    assert result.score == [1.0, 0.0] and result.best_reference == [1, 0]
    assert result.corpus == {"accuracy": 0.5, "matches": 1, "examples": 2}
    assert ExactMatch().score(["", "<PAD>", "!!!"], ["", "", "?"]).score == [1.0, 1.0, 0.0]
    with pytest.raises(ValueError, match="rule must be one of"):
        ExactMatch(rule="strict")


def test_both_are_registered_and_refuse_bad_input_in_one_line():
    assert get_metric("subtoken-f1").score(["a"], ["a"]).f1 == [1.0]
    assert get_metric("exact-match", rule="sequence").score(["a"], ["a"]).score == [1.0]
    for name in ("subtoken-f1", "exact-match"):
        with pytest.raises(ValueError, match="same length"):
            get_metric(name).score(["a", "b"], ["a"])
        with pytest.raises((TypeError, ValueError), match="predictions"):
            get_metric(name).score([1], ["a"])


def test_a_text_at_the_token_cap_of_every_metric_scores():
    # Membership is a set lookup, so 4,000 distinct subtokens a side (under the cap of every metric) stay cheap.
    import itertools

    words = ["".join(t) for t in itertools.islice(itertools.product("abcdefghijklmnopqrstuvwxyz", repeat=3), 4000)]
    pred, ref = " ".join(words), " ".join(reversed(words))
    result = SubtokenF1().score([pred, pred], [ref, "zzz"])
    assert result.f1[0] == 1.0 and result.precision[1] == 0.0
    assert result.corpus["true_positives"] == 4000 and result.corpus["false_positives"] == 4000
