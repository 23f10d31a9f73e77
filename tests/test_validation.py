"""`wrdscore validate`: reading judgment files, the statistics, grouping, outputs and errors."""
import math

import numpy as np
import pytest
from scipy import stats

from wrd_score.cli import main
from wrd_score.validation import (all_metrics, correlation_stats, paired_bootstrap, parse_metric, read_judgments,
                                validate)

WORDS = ["get", "count", "size", "set", "value", "put", "number", "length", "remove", "delete", "add", "insert"]


@pytest.fixture
def emb(random_embedding):
    return random_embedding(WORDS, dim=6, seed=11, shift=0.5)


@pytest.fixture
def judgments(tmp_path):
    """36 rows in the shared/data format: a column that tracks `human`, one that does not, gaps."""
    rng = np.random.default_rng(5)
    rows = []
    for i in range(36):
        a = "".join(w.title() if j else w for j, w in enumerate(rng.choice(WORDS, size=2, replace=False)))
        b = "".join(w.title() if j else w for j, w in enumerate(rng.choice(WORDS, size=2, replace=False)))
        human = round(float(i % 12) / 11 * 10, 3)  # 0..10 scale
        good = human / 10 + rng.normal(scale=0.05)
        noise = rng.random()
        rows.append([f"r{i:02d}", a, b, "nan" if i in (3, 17) else str(human), f"{good:.4f}",
                     "nan" if i == 5 else f"{noise:.4f}", "g1" if i < 18 else "g2"])
    rows[0][1] = '"quotedName'  # quoting is off: the quote is part of the text
    rows[1][2] = ""  # an empty text is valid
    path = tmp_path / "judge.tsv"
    header = ["id", "prediction", "reference", "human", "baseline_good", "baseline_noise", "pair"]
    path.write_text("\n".join("\t".join(r) for r in [header] + rows) + "\n", encoding="utf8")
    return str(path)


def test_read_judgments_keeps_texts_verbatim(judgments):
    frame = read_judgments(judgments)
    assert len(frame) == 36
    assert frame["prediction"][0] == '"quotedName' and frame["reference"][1] == ""
    assert np.isnan(frame["human"][3]) and frame["human"].dtype == np.float64


def test_statistics_match_scipy_and_are_seeded():
    rng = np.random.default_rng(0)
    h = rng.random(40)
    x = h + rng.normal(scale=0.3, size=40)
    s = correlation_stats(x, h * 5, (0, 5), n_boot=300, seed=1)
    assert s["pearson"] == pytest.approx(stats.pearsonr(x, h)[0])
    assert s["spearman"] == pytest.approx(stats.spearmanr(x, h)[0])
    assert s["kendall"] == pytest.approx(stats.kendalltau(x, h)[0])
    for name in ("pearson", "spearman", "kendall"):
        assert s[name + "_lo"] < s[name] < s[name + "_hi"]
    assert s["mse"] == pytest.approx(np.mean((x - h) ** 2)) and s["mae"] == pytest.approx(np.mean(np.abs(x - h)))
    assert correlation_stats(x, h * 5, (0, 5), n_boot=300, seed=1) == s
    assert correlation_stats(x, h * 5, (0, 5), n_boot=300, seed=2)["spearman_lo"] != s["spearman_lo"]


def test_missing_values_are_dropped_and_counted():
    h = np.array([0.0, 1, 2, np.nan, 4, 5])
    x = np.array([0.0, 0.1, np.nan, 0.3, 0.4, 0.5])
    s = correlation_stats(x, h, (0, 5), n_boot=50)
    assert (s["n"], s["n_dropped"]) == (4, 2) and s["spearman"] == pytest.approx(1.0)
    constant = correlation_stats(np.ones(6), np.arange(6.0), (0, 5), n_boot=40)
    assert math.isnan(constant["spearman"]) and constant["mse"] >= 0  # undefined, reported as such


def test_paired_bootstrap_direction():
    rng = np.random.default_rng(2)
    h = rng.random(60)
    good, bad = h + rng.normal(scale=0.1, size=60), rng.random(60)
    diff, p = paired_bootstrap([(good, bad, h)], n_boot=400)
    assert diff > 0.5 and p < 0.01
    diff2, p2 = paired_bootstrap([(bad, good, h)], n_boot=400)
    # sacreBLEU's meaning (two-sided): the difference is as unlikely by chance either way round
    assert diff2 == pytest.approx(-diff) and p2 == p
    # Two metrics of equal quality: no evidence of a difference.
    other = h + rng.normal(scale=0.1, size=60)
    assert paired_bootstrap([(good, other, h)], n_boot=400)[1] > 0.05


def test_metric_specs():
    assert parse_metric("wrdscore").kwargs == {}
    spec = parse_metric("wrdscore:variant=wrd,clip-negative=false,field=recall")
    assert spec.kwargs == {"variant": "wrd", "clip_negative": False} and spec.score_field == "recall"
    assert spec.label == "wrdscore[clip_negative=False,variant=wrd].recall"
    assert parse_metric("wrdscore:embedding=glove-6b-50d,label=GloVe").label == "GloVe"
    assert parse_metric("wrdscore:backend=contextual,layer=4,5,6,variant=wrd").kwargs == {
        "backend": "contextual", "layer": "4,5,6", "variant": "wrd"}
    for bad, pattern in [("bleurt", "metric must be one of .*, got 'bleurt'; did you mean 'bleu'"),
                         ("bleu:nope=1", "an option of bleu must be one of"), ("rouge1,label=R", "follow a colon: rouge1:label=R"),
                         ("wrdscore:varaint=wrd", "an option of wrdscore must be one of .*did you mean 'variant'"),
                         ("wrdscore:variant", "not key=value"), ("column:", "needs a column"),
                         ("wrdscore:field=x", "field must be")]:
        with pytest.raises(ValueError, match=pattern):
            parse_metric(bad)


def test_validate_end_to_end(judgments, emb, tmp_path):
    out_dir = tmp_path / "out"
    result, = validate(judgments, ["wrdscore", "wrdscore:variant=wrd", "column:baseline_*", "rouge1"],
                       options={"embedding": emb}, human_range=(0, 10), n_boot=200, output_dir=str(out_dir),
                       progress=False)
    rows = {r["metric"]: r for r in result.rows}
    assert list(rows) == ["wrdscore", "wrdscore[variant=wrd]", "baseline_good", "baseline_noise", "rouge1"]
    assert rows["baseline_good"]["n"] == 34 and rows["baseline_good"]["n_dropped"] == 2
    assert rows["baseline_noise"]["n"] == 33  # its own gap too
    assert rows["baseline_good"]["spearman"] > 0.9 and rows["baseline_good"]["mse"] < 0.01
    assert rows["wrdscore"]["p_value"] != rows["wrdscore"]["p_value"]  # NaN: no test against itself
    # WRDScore is no match for a column built from the answer: a large negative Δρ, not by chance
    assert rows["baseline_good"]["delta_spearman"] < 0 and rows["baseline_good"]["p_value"] < 0.05
    assert all(0 <= v <= 1 for v in result.scores["wrdscore"])
    csv_text = (out_dir / "judge.scores.csv").read_text()
    assert csv_text.splitlines()[0].startswith("id,prediction,reference,human,wrdscore")
    assert (out_dir / "judge.scatter.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = result.markdown()
    assert "| `baseline_good` | 34 (-2) |" in table and "range 0..10" in table


def test_group_by_reports_each_group_and_their_mean(judgments):
    result, = validate(judgments, ["column:baseline_good", "column:baseline_noise"], group_by="pair",
                       n_boot=100, progress=False)
    rows = [(r["group"], r["metric"]) for r in result.rows]
    assert rows == [("g1", "baseline_good"), ("g2", "baseline_good"), ("mean", "baseline_good"),
                    ("g1", "baseline_noise"), ("g2", "baseline_noise"), ("mean", "baseline_noise")]
    g1, g2, mean = result.rows[:3]
    assert mean["spearman"] == pytest.approx((g1["spearman"] + g2["spearman"]) / 2)
    assert mean["n"] == g1["n"] + g2["n"]
    assert result.reference_metric is None  # no WRDScore metric: no paired test
    assert result.markdown().splitlines()[2].startswith("| group | metric |")


def test_cli_prints_a_table_and_names_bad_input(judgments, emb, tmp_path, capsys):
    out_dir = tmp_path / "cli"
    code = main(["validate", judgments, "--embedding", emb, "-m", "wrdscore", "-m", "column:baseline_good",
                 "--bootstrap", "50", "--quiet", "--output-dir", str(out_dir)])
    captured = capsys.readouterr()
    assert code == 0 and "| `wrdscore` | 34 (-2) |" in captured.out
    assert (out_dir / "judge.scores.csv").exists()
    cases = [
        ([str(tmp_path / "missing.tsv")], "does not exist"),
        ([judgments, "-m", "bleurt"], "got 'bleurt'; did you mean 'bleu'?"),
        ([judgments, "-m", "column:nothing_*"], "no numeric column matches"),
        ([judgments, "--human", "nope"], "lacks the human score column"),
        ([judgments, "--group-by", "nope", "-m", "column:baseline_good"], "column 'nope' is not in"),
        ([judgments, "--human-range", "5", "1", "-m", "column:baseline_good"], "LO < HI"),
        ([judgments, "-m", "column:prediction"], "no numeric column"),
    ]
    for argv, message in cases:
        assert main(["validate", *argv, "--no-files", "--quiet", "--bootstrap", "40"]) == 2
        assert message in capsys.readouterr().err, argv


def test_a_named_score_column_that_is_not_numeric_says_which_cell_is_wrong(tmp_path, capsys):
    """Red-team 5: `-m column:m3` on a column holding one `inf` (or a typo) said "no numeric column matches 'm3';
    numeric columns: [...]" without a word about the cell, and `-m column:human` said the same of the human column."""
    path = tmp_path / "v.tsv"
    path.write_text("prediction\treference\thuman\tm1\tm3\tm4\n" + "".join(
        f"p{i}\tr{i}\t{i}\t0.{i}\t{'inf' if i == 2 else i}\t{'0,5' if i == 3 else i}\n" for i in range(1, 6)))
    for argv, message in (
            (["-m", "column:m3"], "metric 'column:m3': row 2: m3 must be finite, got 'inf'"),
            (["-m", "column:m4"], "metric 'column:m4': row 3: m4 must be a number (or empty), got '0,5'"),
            (["-m", "column:human"], "metric 'column:human': column 'human' holds the human scores (human=, --human")):
        assert main(["validate", str(path), *argv, "--no-files", "--quiet", "--bootstrap", "0"]) == 2
        assert message in capsys.readouterr().err, argv
    with pytest.raises(ValueError, match=r"^metric 'column:m3': row 2: m3 must be finite, got 'inf'"):
        validate(str(path), ["column:m3"], n_boot=0, progress=False, output_dir=None)
    # A pattern still takes the numeric columns it matches and leaves text columns alone.
    result, = validate(str(path), ["column:m*"], n_boot=0, progress=False, output_dir=None)
    assert [row["metric"] for row in result.rows] == ["m1"]


def test_validate_errors_name_the_flag_that_was_wrong(judgments, capsys):
    """Red-team 5: the command line's refusals named the library's keywords (`human_range must be ...`,
    `group_by column ...`) or no argument at all (`--human nope`: "lacks column(s) ['nope']")."""
    for argv, message in (
            (["--human-range", "5", "1"], "error: --human-range must be two finite numbers with LO < HI"),
            (["--group-by", "nope"], "error: --group-by column 'nope' is not in"),
            (["--human", "nope"], "lacks the human score column 'nope' (human=, --human)")):
        assert main(["validate", judgments, *argv, "-m", "column:baseline_good", "--no-files", "--quiet",
                     "--bootstrap", "0"]) == 2
        assert message in capsys.readouterr().err, argv


def test_more_metrics_than_the_scatter_grid_holds_are_refused_before_scoring(tmp_path, capsys, monkeypatch):
    """Red-team 5: `-m 'column:*'` on a file with 800 score columns scored them all, wrote the CSV, then drew 800
    scatter panels: 10 minutes of CPU without finishing, and a figure past matplotlib's 2^16-pixel limit. The panels
    are bounded (`plot.MAX_SCATTER_PANELS`), checked once the metrics are known, before any is scored."""
    from wrd_score import plot, validation

    n = plot.MAX_SCATTER_PANELS + 1
    path = tmp_path / "wide.tsv"
    path.write_text("prediction\treference\thuman\t" + "\t".join(f"m{i}" for i in range(n)) + "\n" + "".join(
        f"p{r}\tr{r}\t{r}\t" + "\t".join(f"0.{(r * 7 + i) % 10}" for i in range(n)) + "\n" for r in range(6)))
    scored = []
    real = validation.compute_metric
    monkeypatch.setattr(validation, "compute_metric", lambda *a, **k: scored.append(a[0]) or real(*a, **k))
    out = tmp_path / "out"
    assert main(["validate", str(path), "-m", "column:*", "--quiet", "--bootstrap", "0", "--output-dir", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{n} metrics" in err and f"at most {n - 1}" in err and "--no-files" in err, err
    assert scored == [] and not out.exists()
    with pytest.raises(ValueError, match=rf"^scores has {n} metrics; a scatter grid draws at most {n - 1}"):
        plot.plot_scatter(np.arange(3.0), {f"m{i}": [0.1, 0.2, 0.3] for i in range(n)}, str(tmp_path / "g.png"))
    # Without files (no grid) every column is validated.
    assert main(["validate", str(path), "-m", "column:*", "--quiet", "--bootstrap", "0", "--no-files"]) == 0
    assert len(scored) == n


def test_a_group_by_column_of_more_groups_than_the_limit_is_refused_before_scoring(tmp_path, capsys, monkeypatch):
    """Red-team 5: `--group-by` on a column of 1,000 values (groups of 3 rows) bootstrapped every group and metric:
    5 minutes of CPU without finishing for 3,000 rows that take seconds ungrouped. Groups are bounded
    (`validation.MAX_GROUPS`), checked before any metric is scored."""
    from wrd_score import validation

    n = validation.MAX_GROUPS + 1
    path = tmp_path / "groups.tsv"
    path.write_text("prediction\treference\thuman\tm1\tg\n" + "".join(
        f"p{r}\tr{r}\t{r % 5}\t0.{r % 7}\tg{r // 2}\n" for r in range(2 * n)))
    scored = []
    real = validation.compute_metric
    monkeypatch.setattr(validation, "compute_metric", lambda *a, **k: scored.append(a[0]) or real(*a, **k))
    assert main(["validate", str(path), "-m", "column:m1", "--group-by", "g", "--quiet", "--no-files"]) == 2
    err = capsys.readouterr().err
    assert f"error: --group-by column 'g' has {n} distinct values" in err and f"at most {n - 1}" in err, err
    assert scored == []
    path.write_text("prediction\treference\thuman\tm1\tg\n" + "".join(
        f"p{r}\tr{r}\t{r % 5}\t0.{r % 7}\tg{r // 2}\n" for r in range(2 * (n - 1))))
    assert main(["validate", str(path), "-m", "column:m1", "--group-by", "g", "--quiet", "--no-files",
                 "--bootstrap", "0"]) == 0


def test_every_shared_judgment_file_reads(shared_data):
    files = sorted(p for p in shared_data.glob("*/*.tsv") if p.parent.name in ("idbench", "stsb", "sts12-16"))
    assert len(files) >= 7
    for path in files:
        frame = read_judgments(str(path))
        assert len(frame) > 200 and np.isfinite(frame["human"]).sum() > 100, path


def test_idbench_authors_baseline_reproduces(shared_data):
    # The IdBench paper reports Spearman ~0.37-0.39 for its fastText CBOW column on similarity.
    result, = validate(str(shared_data / "idbench" / "idbench_small.tsv"), ["column:baseline_FT-cbow"],
                       n_boot=100, progress=False)
    row = result.rows[0]
    assert 0.33 < row["spearman"] < 0.42 and row["n_dropped"] > 0


def test_constant_human_column_advice_in_each_entry_points_syntax(tmp_path, capsys):
    """Issue 12, item 17: the command line suggested the Python keyword human_range=(LO, HI)."""
    path = tmp_path / "const.tsv"
    path.write_text("prediction\treference\thuman\tscore\na\tb\t3\t0.1\nc\td\t3\t0.5\ne\tf\t3\t0.9\n")
    assert main(["validate", str(path), "-m", "column:score", "--no-files", "--quiet", "--bootstrap", "40"]) == 2
    err = capsys.readouterr().err
    assert "give --human-range LO HI" in err and "human_range=(" not in err
    with pytest.raises(ValueError, match=r"give human_range=\(LO, HI\)"):
        validate(str(path), ["column:score"], n_boot=40, progress=False)


def test_validate_rows_name_the_sibling_rules_and_their_vectors():
    # Issue 23.3: validate's rows said "bertscore" for the greedy rule on static vectors.
    assert parse_metric("bertscore").label == "bertscore-rule[static]"
    assert parse_metric("moverscore", {"backend": "contextual"}).label == "moverscore-rule[contextual]"
    assert parse_metric("bertscore:backend=contextual,idf=true").label == \
        "bertscore-rule[contextual][backend=contextual,idf=True]"
    assert parse_metric("bertscore:label=B").label == "B" and parse_metric("rouge1").label == "rouge1"


@pytest.mark.parametrize("argv, message", [
    (["--human-range", "0", "1"], "human scores run from"),
    (["--bootstrap", "1"], "--bootstrap must be an integer between 40 and 100,000 (0: no intervals"),
    (["--bootstrap", "39"], "--bootstrap must be an integer between 40 and 100,000 (0: no intervals"),
])
def test_validate_refuses_a_range_that_misses_the_data_and_too_few_resamples(tmp_path, capsys, argv, message):
    # Issue 22.15: a 0..1 range on 0..5 scores, and one-resample "95% intervals", were accepted.
    path = tmp_path / "j.tsv"
    path.write_text("prediction\treference\thuman\tscore\n" + "".join(f"a{i}\tb{i}\t{i % 6}\t{i / 10}\n" for i in range(10)))
    assert main(["validate", str(path), "-m", "column:score", "--no-files", "--quiet", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_parse_metric_knows_the_registry():
    assert parse_metric("bleu:split_identifiers=true").kwargs == {"split_identifiers": True}
    assert parse_metric("s+wms:unit_vectors=true,embedding=glove-6b-50d").label == \
        "s+wms[embedding=glove-6b-50d,unit_vectors=True]"
    assert parse_metric("meteor").label == "meteor"
    for bad, pattern in [("bleu:nodes=words", "an option of bleu must be one of"),
                         ("sms:nodes=words", "an option of sms must be one of"), ("bleurt", "got 'bleurt'")]:
        with pytest.raises(ValueError, match=pattern):
            parse_metric(bad)


@pytest.fixture
def sentence_judgments(literature_pairs, tmp_path):
    hyps, refs = literature_pairs
    rows = [(f"r{i}", h, r, str(s)) for i, (h, r, s) in enumerate(zip(hyps * 3, refs[1:] + refs[:1] + refs + refs,
                                                                       range(12)))]
    path = tmp_path / "sent.tsv"
    path.write_text("\n".join("\t".join(r) for r in [("id", "prediction", "reference", "human")] + rows) + "\n",
                    encoding="utf8")
    return str(path)


def test_validate_backend_options_reach_only_backend_metrics(sentence_judgments):
    result, = validate(sentence_judgments, ["wms", "bleu", "rouge1"], options={"tokenizer": "words"}, n_boot=0,
                       progress=False)
    assert [r["metric"] for r in result.rows] == ["wms", "bleu", "rouge1"]
    assert result.scores["wms"].between(0, 1).all() and result.scores["bleu"].between(0, 1).all()


def test_validate_all_metrics_prints_every_metric(sentence_judgments, capsys):
    pytest.importorskip("sentence_transformers")
    code = main(["validate", sentence_judgments, "--all-metrics", "-m", "bleu:split_identifiers=true",
                 "--bootstrap", "0", "--no-files", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0
    from wrd_score.metrics import column_name

    for name in all_metrics():
        assert f"| `{column_name(name, 'static')}` | 12 |" in out, name
    assert "| `bleu[split_identifiers=True]` | 12 |" in out


def test_validate_takes_the_method_name_metrics_with_their_options(judgments, capsys):
    # Issue 32.5: subtoken-f1, exact-match and chrF by name, with their options and fields, per row.
    from wrd_score.metrics import get_metric

    specs = ["subtoken-f1", "subtoken-f1:field=precision,label=st-p", "exact-match:rule=sequence", "chrf:word_order=2"]
    result, = validate(judgments, specs, n_boot=0, progress=False)
    frame = read_judgments(judgments)
    preds, refs = frame["prediction"].tolist(), frame["reference"].tolist()
    assert result.scores["subtoken-f1"].tolist() == get_metric("subtoken-f1").score(preds, refs).f1
    assert result.scores["st-p"].tolist() == get_metric("subtoken-f1").score(preds, refs).precision
    assert result.scores["exact-match[rule=sequence]"].tolist() == get_metric("exact-match", rule="sequence").score(preds, refs).score
    assert result.scores["chrf[word_order=2]"].tolist() == get_metric("chrf", word_order=2).score(preds, refs).score
    assert main(["validate", judgments, "-m", "wrdscore", "-m", "subtoken-f1", "--bootstrap", "0", "--no-files",
                 "--quiet", "--embedding", "default"]) == 0
    assert "| `subtoken-f1` | 34 (-2) |" in capsys.readouterr().out
    with pytest.raises(ValueError, match=r"an option of exact-match must be one of \['rule', 'special_tokens'\], got 'word_order'"):
        validate(judgments, ["exact-match:word_order=2"], n_boot=0, progress=False)


@pytest.mark.parametrize("argv, message", [
    (["--bootstrap", "0", "--seed", "3"], "--seed given without resampling"),
    (["--bootstrap", "0", "--reference-metric", "wrdscore"], "--reference-metric given without resampling"),
    (["--no-files", "--bootstrap", "0", "--output-dir", "elsewhere"], "--output-dir given without files"),
])
def test_validate_refuses_a_setting_it_would_ignore(judgments, capsys, argv, message):
    """Before, each printed the table as if the flag had not been given."""
    assert main(["validate", judgments, "--quiet", *argv]) == 2
    assert message in capsys.readouterr().err
    with pytest.raises(ValueError, match="seed given without n_boot > 0"):
        validate(judgments, n_boot=0, seed=3, progress=False)


@pytest.mark.parametrize("argv, message", [
    (["-m", "rouge1", "--variant", "paper"], "--variant given without wrdscore in --metric"),
    (["-m", "column:baseline_good", "--embedding", "default"],
     "--embedding given without wrdscore, bertscore, moverscore, wms, sms or s+wms in --metric"),
    (["-m", "wrdscore:variant=wrd", "--variant", "paper"],
     "--variant given without wrdscore (without its own variant=) in --metric"),
    (["-m", "bertscore", "-m", "rouge1", "--weights", "idf"], "--weights given without wrdscore in --metric"),
])
def test_validate_refuses_a_wrdscore_option_no_metric_reads(judgments, capsys, argv, message):
    """Before, `-m rouge1 --variant paper` printed the rouge1 row as if --variant had not been given."""
    assert main(["validate", judgments, "--quiet", "--no-files", "--bootstrap", "0", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "it would be ignored" in err, err


def test_validate_takes_the_wrdscore_options_its_metrics_read(judgments, capsys):
    with pytest.raises(ValueError, match="variant given without wrdscore in metrics: it would be ignored"):
        validate(judgments, ["rouge1"], options={"variant": "paper"}, n_boot=0, progress=False)
    with pytest.raises(TypeError, match="got 'varaint'; did you mean 'variant'"):
        validate(judgments, ["wrdscore"], options={"varaint": "paper"}, n_boot=0, progress=False)
    # The default metrics hold wrdscore; a backend option reaches bertscore; a spec's own key beside the flag.
    for argv in (["--variant", "paper"], ["-m", "bertscore", "--tokenizer", "words"],
                 ["-m", "wrdscore:variant=wrd", "-m", "wrdscore:label=w2", "--variant", "paper"]):
        assert main(["validate", judgments, "--quiet", "--no-files", "--bootstrap", "0", *argv]) == 0, argv
    pytest.importorskip("sentence_transformers")
    assert main(["validate", judgments, "--quiet", "--no-files", "--bootstrap", "0", "--all-metrics",
                 "--weights", "uniform"]) == 0
