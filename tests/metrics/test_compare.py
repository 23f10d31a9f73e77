"""compare(): one table of every metric with their signatures, the sibling options, `wrdscore compare`."""
from __future__ import annotations

import math

import pytest

from wrd_score.metrics import compare, moverscore


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
    with pytest.raises(TypeError, match="option must be one of .*, got 'bertscore_idff'; did you mean 'bertscore_idf'"):
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
    assert "metrics must be one of [" in capsys.readouterr().err


def test_compare_on_contextual_backend_encodes_once(sibling_pairs, minilm_path, monkeypatch):
    hyps, refs = sibling_pairs
    from wrd_score import WRDScorer

    backend = WRDScorer(backend="contextual", pooling="wordpiece").backend
    calls = []
    real = backend._compute_states
    monkeypatch.setattr(backend, "_compute_states", lambda texts: calls.append(len(texts)) or real(texts))
    backend._memo_key = None
    table = compare(hyps, refs, backend="contextual", pooling="wordpiece")
    assert calls == [len(set(hyps + refs))]
    assert "backend:contextual" in table["signatures"]["bertscore-rule[contextual]"]
    assert all(0 <= v <= 1 for v in table["wrdscore_f1"])


# ----------------------------------------------------------------------------- issue 22/23 regressions


def test_the_token_cap_is_one_line_from_compare(capsys):
    from wrd_score.cli import main
    from wrd_score.metrics import MAX_METRIC_TOKENS

    long = " ".join(["word"] * (MAX_METRIC_TOKENS + 1))
    assert main(["compare", "-c", long, "-r", "x", "--metrics", "rougeL"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"limit is {MAX_METRIC_TOKENS:,}" in err[0], err


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


def test_compare_takes_the_new_metrics(literature_pairs):
    hyps, refs = literature_pairs
    table = compare(hyps, refs, metrics=("wrdscore", "bleu", "wms", "sms", "s+wms"), bleu_split_identifiers=True,
                    wms_unit_vectors=True, tokenizer="words")
    assert {"bleu", "wms", "sms", "s+wms"} <= set(table)
    assert table["signatures"]["bleu"].endswith("split:yes")
    assert "vectors:unit" in table["signatures"]["wms"] and "vectors:raw" in table["signatures"]["sms"]
    assert "tok:words" in table["signatures"]["sms"]  # the shared backend option reached the backend metrics


def test_compare_gives_the_method_name_metrics_corpus_scores_beside_their_rows(capsys):
    # Issue 32.5: subtoken F1 (micro over the corpus, as code2seq), exact match and chrF on compare.
    import json

    from wrd_score.cli import main

    preds, refs = ["getCount", "setSize", "<UNK>"], ["get_count", "getSize", "size"]
    table = compare(preds, refs, metrics=("subtoken-f1", "exact-match", "chrf"), chrf_word_order=2,
                    **{"exact-match_rule": "sequence"})
    assert table["subtoken-f1_f1"] == [1.0, 0.5, 0.0] and table["exact-match"] == [1.0, 0.0, 0.0]
    assert table["corpus"]["subtoken-f1"]["micro_f1"] == pytest.approx(2 * 0.75 * 0.6 / 1.35)
    assert table["corpus"]["exact-match"]["accuracy"] == pytest.approx(1 / 3)
    assert set(table["corpus"]) == {"subtoken-f1", "exact-match", "chrf"}
    assert "|nw:2|" in table["signatures"]["chrf"] and table["signatures"]["exact-match"].startswith("exact-match:sequence")
    assert "corpus" not in compare(preds, refs, metrics=("rouge1",))  # only metrics that have corpus scores
    frame = compare(preds, refs, metrics=("chrf",), as_dataframe=True)
    assert frame.attrs["corpus"]["chrf"] == compare(preds, refs, metrics=("chrf",))["corpus"]["chrf"]
    args = ["compare", "-c", "getCount", "-r", "get_count", "--metrics", "subtoken-f1,exact-match,chrf"]
    assert main(args + ["--chrf-word-order", "2", "--exact-match-rule", "sequence"]) == 0
    out = capsys.readouterr().out
    assert "# subtoken-f1 corpus: micro_precision 1.0000 micro_recall 1.0000 micro_f1 1.0000 true_positives 2" in out
    assert "# exact-match: exact-match:sequence|" in out and "|nw:2|" in out
    assert main(args + ["--json"]) == 0
    assert json.loads(capsys.readouterr().out)["corpus"]["exact-match"] == {"accuracy": 1.0, "matches": 1, "examples": 1}
    assert main(["compare", "-c", "a", "-r", "a", "--metrics", "exact-match", "--chrf-word-order", "2"]) == 2
    assert "--chrf-word-order given without chrf in --metrics" in capsys.readouterr().err


@pytest.mark.parametrize("metrics, options, message", [
    (["rouge1"], dict(variant="paper"), "variant given without wrdscore in metrics"),
    (["rouge1", "bertscore"], dict(weights="idf"), "weights given without wrdscore in metrics"),
    (["rouge1"], dict(embedding="wrd-java-default"), "embedding given without"),
    (["rouge1"], dict(idf={"get": 1.0}), "idf given without wrdscore in metrics"),
])
def test_compare_refuses_an_option_that_no_metric_asked_for_reads(metrics, options, message):
    """The library's compare() scored ROUGE-1 and dropped the WRDScore option (the CLI already refused it)."""
    with pytest.raises(ValueError, match=message):
        compare(["get count"], ["size"], metrics=metrics, **options)


def test_compare_passes_an_option_to_the_metrics_that_read_it():
    got = compare(["get count"], ["size"], metrics=["rouge1", "wrdscore"], variant="paper")
    assert "variant:paper" in got["signatures"]["wrdscore"]
