"""The Space (app.py) without a browser: its functions against the library, uploads, errors, launch settings."""
import doctest
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wrd_score import Options, WRDScorer
from wrd_score.scorer import BACKENDS

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def app(space_app):
    return space_app


DEFAULT = "MiniLM + code, static (default)"
GLOVE = "GloVe 6B 50d"

ROWS = [
    ("getCount", "size", 0.8),
    ("set artwork entry", "update image", 0.3),
    ("next char", "advance", "nan"),
    ("removeItem", "deleteItem", 0.9),
    ("", "size", 0.0),
    ("is all capitalized", "detect capital use", 0.5),
    ("validate url", "perform validation", 0.6),
]


def write_csv(path, rows=ROWS, header=("prediction", "reference", "human")):
    pd.DataFrame(rows, columns=list(header)).to_csv(path, index=False)
    return str(path)


def test_doctests(app):
    failures, tried = doctest.testmod(app, verbose=False)
    assert tried >= 3 and failures == 0


# --------------------------------------------------------------------------- options
def test_metric_options_maps_embeddings_to_library_options(app):
    glove = app.metric_options(GLOVE, variant="wrd", weights="idf")
    assert glove["embedding"] == "glove-6b-50d" and glove["tokenizer"] == "words"
    assert glove["variant"] == "wrd" and glove["weights"] == "idf" and glove["backend"] == "static"
    default = app.metric_options(DEFAULT, tokenizer="words", oov="drop", clip_negative=False)
    assert default["embedding"] == "default" and default["tokenizer"] == "words"
    assert default["oov"] == "drop" and default["clip_negative"] is False
    WRDScorer(**glove)  # the library accepts what the UI produces
    WRDScorer(**default)


def test_the_preset_control_reaches_the_library(app, monkeypatch):
    from wrd_score.options import PRESETS

    # A bundle unlike the shipped ones, so the test sees the preset act whatever the shipped values are.
    monkeypatch.setitem(PRESETS["sentences"], "static", {"embedding": "default", "variant": "paper", "weights": "uniform"})
    options = app.metric_options(DEFAULT, preset="sentences")
    assert options["preset"] == "sentences" and "variant" not in options and "weights" not in options
    expected = WRDScorer(preset="sentences").score(["get count"], ["size"])
    ui = (DEFAULT, app.FROM_PRESET, app.FROM_PRESET, app.TOKENIZER_AUTO, "auto", True, False, False)
    cards, _, signature, _, _ = app.on_score_pair("get count", "size", *ui, "sentences")
    assert signature == expected["signature"] and "variant:paper" in signature
    assert f'id="wrd-f1">{expected["f1"][0]:.4f}<' in cards
    # A selector set by hand wins over the preset, as everywhere else.
    _, _, signature, _, _ = app.on_score_pair("get count", "size", DEFAULT, "wrd", *ui[2:], "sentences")
    assert "variant:wrd|" in signature and "weights:uniform" in signature
    import gradio as gr

    with pytest.raises(gr.Error, match="preset must be one of"):
        app.on_score_pair("a", "b", *ui, "code")


def test_the_default_embedding_choice_is_the_embedding_of_every_preset(app):
    # The page's default entry names its embedding explicitly, which wins over a preset's: should a
    # preset ever pick another file, the entry must stop naming one (or the preset would be overridden).
    from wrd_score.options import PRESETS

    assert {bundles["static"]["embedding"] for bundles in PRESETS.values()} == {app.EMBEDDINGS[DEFAULT]["embedding"]}


def test_metric_options_rejects_unknown_embedding(app):
    with pytest.raises(ValueError, match="embedding must be one of"):
        app.metric_options("word2vec-google-news")


@pytest.mark.skipif("contextual" in BACKENDS, reason="the contextual backend is installed")
def test_contextual_choice_without_backend_is_a_clear_error(app):
    with pytest.raises(ValueError, match="not available"):
        app.metric_options(app._CONTEXTUAL)


def test_invalid_option_values_surface_as_library_errors(app):
    options = app.metric_options(DEFAULT, weights="bogus")
    with pytest.raises(ValueError, match="weights must be one of"):
        app.score_pair("a", "b", options, siblings=False)


# --------------------------------------------------------------------------- one pair
@pytest.mark.parametrize("embedding", [DEFAULT, GLOVE])
def test_score_pair_is_the_library(app, embedding):
    options = app.metric_options(embedding)
    pred, ref = "set artwork entry", "update image"
    result = app.score_pair(pred, ref, options, siblings=False)
    scorer = WRDScorer(**options)
    expected = scorer.score([pred], [ref])
    assert (result.precision, result.recall, result.f1) == (expected["precision"][0], expected["recall"][0],
                                                            expected["f1"][0])
    assert result.detail.f1 == pytest.approx(expected["f1"][0], abs=1e-12)  # explain() agrees with score()
    assert result.signature == expected["signature"]
    row = result.comparison.iloc[0]
    assert row["metric"] == "WRDScore" and row["F1 / score"] == f"{expected['f1'][0]:.4f}"
    # The flow is a transport plan between the two mass vectors.
    d = result.detail
    np.testing.assert_allclose(d.flow.sum(axis=1), d.mass_p, atol=1e-9)
    np.testing.assert_allclose(d.flow.sum(axis=0), d.mass_r, atol=1e-9)
    assert d.cos.shape == (len(d.tokens_p), len(d.tokens_r))


def test_rescaled_scores_are_shown_and_the_raw_ones_noted(app, tmp_path, monkeypatch):
    rescale = pytest.importorskip("wrd_score.rescale")
    # A baseline of our own, so the test does not depend on which ones are shipped.
    raw = WRDScorer(**app.metric_options(DEFAULT))
    path = str(tmp_path / "baselines.json")
    rescale.save_baseline(path, rescale.baseline_key(raw.signature()), {"precision": 0.2, "recall": 0.3, "f1": 0.25})
    monkeypatch.setattr(rescale, "baseline_files", lambda embedding=None: [path])
    options = app.metric_options(DEFAULT, rescale_with_baseline=True)
    expected = WRDScorer(**options).score(["get count"], ["size"])
    result = app.score_pair("get count", "size", options, siblings=False)
    assert result.f1 == expected["f1"][0] == pytest.approx((result.detail.f1 - 0.25) / 0.75, abs=1e-12)
    assert result.signature == expected["signature"] and "rescale" in result.signature
    assert f"F1 {result.detail.f1:.4f}" in result.note


@pytest.mark.skipif("contextual" not in BACKENDS, reason="the contextual backend is not installed")
def test_contextual_pair(app):
    options = app.metric_options(app._CONTEXTUAL)
    result = app.score_pair("set artwork entry", "update image", options, siblings=False)
    expected = WRDScorer(**options).score(["set artwork entry"], ["update image"])
    assert result.f1 == expected["f1"][0] and "backend:contextual" in result.signature
    assert result.detail.cos.shape == (len(result.detail.tokens_p), len(result.detail.tokens_r))


def test_score_pair_with_siblings(app):
    siblings = pytest.importorskip("wrd_score.metrics")
    options = app.metric_options(DEFAULT)
    result = app.score_pair("get count", "size", options, siblings=True)
    table = result.comparison.set_index("metric")
    assert list(table.index[:1]) == ["WRDScore"]
    # With a static embedding the sibling rows are named for their rule and vectors, not as BERT models.
    bert, mover = "bertscore-rule[static]", "moverscore-rule[static]"  # the library's one name (issue 23.3)
    assert {bert, mover, "ROUGE-1"} <= set(table.index), result.note
    assert not {"BERTScore", "MoverScore"} & set(table.index)
    expected = siblings.compare(["get count"], ["size"], metrics=("bertscore", "rouge1"), **options)
    assert table.loc[bert, "F1 / score"] == f"{expected['bertscore-rule[static]_f1'][0]:.4f}"
    assert table.loc["ROUGE-1", "F1 / score"] == f"{expected['rouge1'][0]:.4f}" == "0.0000"
    assert table.loc[mover, "precision"] == "–"  # a single score: no NaN cell
    # Issue 32.5: what method-name papers report, in the same table.
    assert table.loc["Subtoken F1 (code2seq)", "recall"] == "0.0000" and table.loc["chrF", "precision"] == "–"
    assert table.loc["Exact match (subtokens)", "F1 / score"] == "0.0000"
    lines = result.signature.splitlines()
    assert lines[0].startswith("wrdscore:") and any(line.startswith("bertscore:") for line in lines)
    assert any("idf:no" in line for line in lines if line.startswith("moverscore"))


def test_an_empty_side_keeps_every_other_metric(app):
    # Issue 23.5: BLEU's "Number of references unknown" on an empty prediction hid all nine other metrics.
    pytest.importorskip("wrd_score.metrics")
    result = app.score_pair("", "getCount", app.metric_options(DEFAULT), siblings=True)
    assert "unavailable" not in result.note, result.note
    table = result.comparison.set_index("metric")
    assert len(table) == 1 + len(app.SIBLING_METRICS)
    assert set(table["F1 / score"]) == {"0.0000"}  # the one empty-text rule: 0 against a text with tokens


def test_identical_and_empty_pairs(app):
    options = app.metric_options(DEFAULT)
    same = app.score_pair("getCount", "get_count", options, siblings=False)
    assert same.f1 == same.detail.f1 == 1.0
    empty = app.score_pair("", "size", options, siblings=False)
    assert empty.f1 == empty.detail.f1 == 0.0
    figure = app.alignment_figure(empty.detail)
    assert any("no tokens" in t.get_text() for ax in figure.axes for t in ax.texts)


def test_long_texts_get_a_bounded_figure(app):
    options = app.metric_options(GLOVE)
    words = "the of and to in is was for on that with as by at from his an were are which".split()
    pred = " ".join(words[i % len(words)] + str(i) for i in range(90))
    detail = app.score_pair(pred, "the cat sat on the mat", options, siblings=False).detail
    figure = app.alignment_figure(detail)
    assert max(figure.get_size_inches()) <= 16.0
    assert len([t for t in figure.axes[0].get_yticklabels() if t.get_text()]) < 90  # thinned, not overlapping


def test_the_pair_figure_is_the_library_s_labelled_with_tokens(app):
    # The app draws with wrd_score.plot (tests/test_plot.py checks the figure itself).
    options = app.metric_options(DEFAULT)
    detail = app.score_pair("set artwork entry", "update image", options, siblings=False).detail
    figure = app.alignment_figure(detail)
    cos_ax, flow_ax = [ax for ax in figure.axes if ax.images]
    assert [t.get_text() for t in cos_ax.get_yticklabels()] == detail.tokens_p == ["set", "artwork", "entry"]
    assert [t.get_text() for t in cos_ax.get_xticklabels()] == detail.tokens_r == ["update", "image"]
    np.testing.assert_array_equal(flow_ax.images[0].get_array(), detail.flow)
    np.testing.assert_array_equal(cos_ax.images[0].get_array(), detail.cos)
    shown = {t.get_text() for t in flow_ax.texts}
    assert "0.00" not in shown and f"{detail.flow.max():.2f}" in shown


# --------------------------------------------------------------------------- uploads
def test_read_csv_tsv_jsonl(app, tmp_path):
    frame = app.read_upload(write_csv(tmp_path / "a.csv"))
    assert list(frame.columns) == ["prediction", "reference", "human"]
    assert frame["prediction"].tolist() == [r[0] for r in ROWS]
    assert math.isnan(frame["human"][2]) and frame["human"][0] == 0.8

    # TSV is read with quoting off: a text that begins with a quote stays as it is.
    tsv = tmp_path / "b.tsv"
    tsv.write_text('id\tPrediction\treference\n1\t"quoted start\tnull\n2\tNA\tnan\n', encoding="utf-8")
    frame = app.read_upload(str(tsv))
    assert frame["prediction"].tolist() == ['"quoted start', "NA"]
    assert frame["reference"].tolist() == ["null", "nan"]  # text, not missing values
    assert "human" not in frame.columns

    jsonl = tmp_path / "c.jsonl"
    jsonl.write_text('{"prediction": "getCount", "reference": "size", "human": 3}\n\n'
                     '{"prediction": "é", "reference": "", "human": null}\n', encoding="utf-8")
    frame = app.read_upload(str(jsonl))
    assert frame["prediction"].tolist() == ["getCount", "é"] and frame["reference"].tolist() == ["size", ""]
    assert frame["human"][0] == 3.0 and math.isnan(frame["human"][1])


def test_utf8_bom_is_accepted(app, tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes("prediction,reference\nx,y\n".encode("utf-8-sig"))
    assert app.read_upload(str(path))["prediction"].tolist() == ["x"]


@pytest.mark.parametrize("name, content, message", [
    ("empty.csv", b"", "the file is empty"),
    ("blank.csv", b"\n \n", "the file is empty"),
    ("header.csv", b"prediction,reference\n", "header but no rows"),
    ("cols.csv", b"pred,ref\na,b\n", "needs columns 'prediction' and 'reference'"),
    ("cols.tsv", b"prediction,reference\na,b\n", "really tab-separated"),
    ("latin1.csv", "prediction,reference\nna\u00efve,caf\u00e9\n".encode("latin-1"), "not UTF-8"),
    ("nul.csv", b"prediction,reference\na\x00,b\n", "binary"),
    ("x.xlsx", b"PK\x03\x04", "unsupported file type"),
    ("noext", b"prediction,reference\na,b\n", "unsupported file type"),
    ("human.csv", b"prediction,reference,human\na,b,high\n", "human must be a number"),
    ("inf.csv", b"prediction,reference,human\na,b,inf\n", "finite"),
    ("bad.jsonl", b'{"prediction": "a", "reference": "b"}\n{oops\n', "line 2 is not valid JSON"),
    ("list.jsonl", b'["a", "b"]\n', "must be a JSON object"),
    ("num.jsonl", b'{"prediction": 3, "reference": "b"}\n', "prediction must be text"),
    ("ragged.csv", b'prediction,reference\na,b\nc,d,e,f\n', "could not read the file as CSV"),
    ("dup.csv", b'prediction,Prediction,reference\na,b,c\n', "more than one 'prediction' column"),
])
def test_bad_uploads_get_a_message(app, tmp_path, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(app.UploadError, match=message):
        app.read_upload(str(path))


def test_size_and_row_limits(app, tmp_path):
    path = write_csv(tmp_path / "a.csv")
    with pytest.raises(app.UploadError, match="scores at most 3"):
        app.read_upload(path, max_rows=3)
    with pytest.raises(app.UploadError, match="MB"):
        app.read_upload(path, max_bytes=50)
    with pytest.raises(app.UploadError, match="upload a .csv"):
        app.read_upload(None)
    assert app.MAX_ROWS >= 1000 and app.MAX_UPLOAD_BYTES >= 1 << 20


def test_contextual_row_limit_is_enforced_by_the_handler(app, tmp_path, monkeypatch):
    import gradio as gr

    monkeypatch.setattr(app, "MAX_ROWS_CONTEXTUAL", 3)
    path = write_csv(tmp_path / "a.csv")
    options = app.metric_options(DEFAULT)
    assert app.row_limit(options) == app.MAX_ROWS and app.row_limit({**options, "backend": "contextual"}) == 3
    if "contextual" not in BACKENDS:
        return
    ui = (app._CONTEXTUAL, "paper", "norm", app.TOKENIZER_AUTO, "auto", True, False, False)
    with pytest.raises(gr.Error, match="at most 3 with these options"):
        app.on_score_file(path, *ui, progress=lambda *a, **k: None)


# --------------------------------------------------------------------------- scoring a file
@pytest.mark.parametrize("weights", ["norm", "idf"])
def test_score_table_is_the_library_whatever_the_chunking(app, tmp_path, monkeypatch, weights):
    monkeypatch.setattr(app, "CHUNK_ROWS", 2)
    frame = app.read_upload(write_csv(tmp_path / "a.csv"))
    options = app.metric_options(DEFAULT, weights=weights)
    seen = []
    scored = app.score_table(frame, options, siblings=False, progress=lambda f, d: seen.append((f, d)))
    expected = WRDScorer(**options).score(frame["prediction"].tolist(), frame["reference"].tolist())
    assert scored.table["wrdscore_f1"].tolist() == expected["f1"]
    assert scored.table["wrdscore_precision"].tolist() == expected["precision"]
    assert scored.means["wrdscore_f1"] == pytest.approx(expected["mean_f1"], abs=1e-12)
    assert scored.signature == expected["signature"]
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    # The rows go in chunks of CHUNK_ROWS (the progress bar moves), also with IDF: the table is fit once on
    # every reference and shared by the chunks (wrd_score.stream.score_chunked), so scores equal one call.
    assert sum(d.startswith("WRDScore") for _, d in seen) == 4


def test_score_table_correlations(app, tmp_path):
    frame = app.read_upload(write_csv(tmp_path / "a.csv"))
    scored = app.score_table(frame, app.metric_options(DEFAULT), siblings=False)
    corr = scored.correlations.set_index("metric")
    assert corr.loc["wrdscore_f1", "n"] == 6  # one human value is missing
    keep = np.isfinite(frame["human"].to_numpy())
    from scipy import stats

    expected = stats.spearmanr(scored.table["wrdscore_f1"][keep], frame["human"][keep])[0]
    assert corr.loc["wrdscore_f1", "spearman"] == round(float(expected), 4)
    assert corr.loc["wrdscore_f1", "spearman 95% CI"].startswith("[")


def test_undefined_correlation_is_empty_not_nan(app):
    table = pd.DataFrame({"m": [0.5, 0.5, 0.5, 0.5], "human": [1.0, 2.0, 3.0, np.nan]})
    corr = app.correlations(table, ["m"])
    assert corr["pearson"].tolist() == [None] and corr["spearman 95% CI"].tolist() == [""]
    no_file_human = app.score_table(pd.DataFrame({"prediction": ["a"], "reference": ["b"]}),
                                    app.metric_options(DEFAULT), siblings=False)
    assert no_file_human.correlations is None


def test_score_table_with_siblings(app, tmp_path):
    siblings = pytest.importorskip("wrd_score.metrics")
    frame = app.read_upload(write_csv(tmp_path / "a.csv"))
    options = app.metric_options(GLOVE)
    scored = app.score_table(frame, options, siblings=True)
    assert scored.note == ""
    for column in ("rouge1", "bleu", "meteor", "bertscore-rule[static]_f1", "moverscore-rule[static]", "wms", "sms",
                   "s+wms", "sbert", "subtoken-f1_f1", "exact-match", "chrf"):
        assert column in scored.table.columns and column in set(scored.correlations["metric"])
    expected = siblings.compare(frame["prediction"].tolist(), frame["reference"].tolist(),
                                metrics=("moverscore",), **options)
    assert scored.table["moverscore-rule[static]"].tolist() == expected["moverscore-rule[static]"]
    assert len(scored.signature.splitlines()) == 1 + len(app.SIBLING_METRICS)  # WRDScore's, then one each


@pytest.mark.parametrize("name", ["in.csv", "in.tsv", "in.jsonl"])
def test_write_scored_round_trips(app, tmp_path, name):
    frame = app.read_upload(write_csv(tmp_path / "a.csv"))
    scored = app.score_table(frame, app.metric_options(DEFAULT), siblings=False)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    path = Path(app.write_scored(scored.table, name, directory=str(out_dir)))
    assert path.parent == out_dir and path.suffix == Path(name).suffix
    back = app.read_upload(str(path))
    assert back["prediction"].tolist() == frame["prediction"].tolist()
    if path.suffix == ".jsonl":
        records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert [r["wrdscore_f1"] for r in records] == scored.table["wrdscore_f1"].tolist()
    else:
        sep = "\t" if path.suffix == ".tsv" else ","
        again = pd.read_csv(path, sep=sep, quoting=3 if sep == "\t" else 0, keep_default_na=False)
        np.testing.assert_allclose(again["wrdscore_f1"], scored.table["wrdscore_f1"], rtol=1e-15)


def test_write_scored_tsv_with_tab_in_text_falls_back_to_csv(app, tmp_path):
    table = pd.DataFrame({"prediction": ["a\tb"], "reference": ["c"], "wrdscore_f1": [0.5]})
    path = app.write_scored(table, "in.tsv", directory=str(tmp_path))
    assert path.endswith(".csv") and pd.read_csv(path)["prediction"][0] == "a\tb"
    assert Path(app.write_scored(table, "../../etc/x y.csv", directory=str(tmp_path))).parent == tmp_path


def test_histogram(app):
    fig = app.histogram_figure([0.1, 0.5, 0.5, 1.0])
    ax = fig.axes[0]
    assert ax.get_title() == "WRDScore F1 over 4 rows"
    assert sum(p.get_height() for p in ax.patches) == 4


# --------------------------------------------------------------------------- handlers and page
def test_handlers_turn_bad_input_into_visible_errors(app, tmp_path):
    import gradio as gr

    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"pred,ref\na,b\n")
    ui = (DEFAULT, Options.variant, Options.weights, app.TOKENIZER_AUTO, "auto", True, False, False)
    with pytest.raises(gr.Error, match="needs columns"):
        app.on_score_file(str(bad), *ui, progress=lambda *a, **k: None)
    with pytest.raises(gr.Error, match="weights must be one of"):
        app.on_score_pair("a", "b", DEFAULT, "paper", "bogus", app.TOKENIZER_AUTO, "auto", True, False, False)


def test_handlers_return_what_the_page_shows(app, tmp_path):
    ui = (DEFAULT, Options.variant, Options.weights, app.TOKENIZER_AUTO, "auto", True, False, False)
    cards, comparison, signature, figure, note = app.on_score_pair("get count", "size", *ui)
    assert len([ax for ax in figure.axes if ax.images]) == 2  # cosines and flow, side by side
    f1 = WRDScorer().score(["get count"], ["size"])["f1"][0]
    assert f'id="wrd-f1">{f1:.4f}<' in cards and signature.startswith("wrdscore:")
    summary, means, rows, hist, download, sig, corr = app.on_score_file(write_csv(tmp_path / "a.csv"), *ui,
                                                                         progress=lambda *a, **k: None)
    assert "Scored **7** rows" in summary and len(rows) == 7
    assert means.loc[0, "metric"] == "WRDScore" and means.loc[0, "f1"] == round(rows["wrdscore_f1"].mean(), 4)
    assert Path(download.value["path"]).is_file() and download.visible and corr.visible


def test_launch_settings(app):
    assert app.launch_settings({}) == {**app.launch_settings({}), "server_name": "127.0.0.1", "server_port": None}
    space = app.launch_settings({"GRADIO_SERVER_NAME": "0.0.0.0", "GRADIO_SERVER_PORT": "7860"})
    assert space["server_name"] == "0.0.0.0" and space["server_port"] == 7860
    with pytest.raises(ValueError, match="GRADIO_SERVER_PORT"):
        app.launch_settings({"GRADIO_SERVER_PORT": "http"})
    assert app.launch_settings({})["max_file_size"] > app.MAX_UPLOAD_BYTES


def test_about_tab_shows_the_validation_summary_from_docs(app):
    summary = app._validation_markdown()
    text = (REPO / "docs" / "validation-summary.md").read_text(encoding="utf-8")
    # The file as it is, less the docs check's block markers (HTML comments, tools/docs.py).
    assert summary == "".join(line for line in text.splitlines(keepends=True) if not line.startswith(("<!-- docs:",
                                                                                                     "<!-- /docs:")))
    assert ("Spearman" in summary or "ρ" in summary) and "<!--" not in summary


def test_build_demo(app):
    demo = app.build_demo()
    public = {d.api_name for d in demo.fns.values() if d.api_visibility == "public"}
    # Issue 23 item 10: Gradio 6 took api_name=False as the name "false" (/false, /false_1, ... in the API).
    assert public == {"score_pair", "score_file"}


# ------------------------------------------------------------------------------ issue 23, item 10
def test_api_score_pair_returns_numbers(app):
    """The API gave P/R/F1 as an HTML string among unnamed outputs; /score_pair returns a dict of numbers."""
    got = app.api_score_pair("getCount", "size", siblings=True)
    want = WRDScorer().score(["getCount"], ["size"])
    assert (got["precision"], got["recall"], got["f1"]) == (want["precision"][0], want["recall"][0], want["f1"][0])
    assert got["signature"].splitlines()[0] == want["signature"]
    rouge = next(r for r in got["metrics"] if r["metric"] == "ROUGE-1")
    assert rouge["precision"] is None and isinstance(rouge["f1"], float)
    json.dumps(got)  # plain JSON for any client


@pytest.mark.parametrize("kwargs, message", [
    ({"prediction": 12}, "prediction must be a string, got int"),
    ({"reference": ["a"]}, "reference must be a string, got list"),
    ({"siblings": "yes"}, "siblings must be true or false"),
    ({"clip_negative": 1}, "clip_negative must be true or false"),
    ({"embedding": "word2vec"}, "embedding must be one of"),
    ({"prediction": "getCount " * 1000}, "5,000"),
])
def test_api_score_pair_refuses_bad_input_in_one_line(app, kwargs, message):
    import gradio as gr

    call = {"prediction": "getCount", "reference": "size", **kwargs}
    with pytest.raises(gr.Error, match=message) as info:
        app.api_score_pair(**call)
    assert "\n" not in str(info.value)


def test_means_table_has_one_row_per_metric(app, tmp_path):
    """The means were one markdown row of twenty-odd columns: "roug/e1" and "0.00/00" broke mid-word."""
    ui = (DEFAULT, Options.variant, Options.weights, app.TOKENIZER_AUTO, "auto", True, False, True)
    _, means, rows, *_ = app.on_score_file(write_csv(tmp_path / "a.csv"), *ui, progress=lambda *a, **k: None)
    assert list(means.columns) == ["metric", "precision", "recall", "f1"]
    assert means["metric"].tolist()[:2] == ["WRDScore", "ROUGE-1"] and means["metric"].is_unique
    assert means.loc[1, "precision"] is None and means.loc[1, "f1"] == round(rows["rouge1"].mean(), 4)


def test_undefined_correlation_says_why(app):
    table = pd.DataFrame({"rouge1": [0.0] * 5, "wrdscore_f1": [0.1, 0.5, 0.3, 0.9, 0.2],
                          "human": [0.2, 0.4, 0.1, 0.8, 0.3]})
    corr = app.correlations(table, ["rouge1", "wrdscore_f1"]).set_index("metric")
    assert corr.loc["rouge1", "note"] == "undefined: rouge1 is 0 on every row"
    assert pd.isna(corr.loc["rouge1", "pearson"]) and corr.loc["wrdscore_f1", "note"] == ""
    few = app.correlations(table.head(2), ["wrdscore_f1"]).set_index("metric")
    assert few.loc["wrdscore_f1", "note"].startswith("undefined: 2 rows with both values")


def test_main_warms_up_before_serving(app, monkeypatch):
    """The first request after a cold start took 24 s (imports, model loads, numba's compilation):
    main() scores the page-load example before the server starts answering."""
    import gradio as gr

    calls = []
    monkeypatch.setattr(app, "warm_up", lambda: calls.append("warm_up") or 0.0)
    monkeypatch.setattr(gr.Blocks, "launch", lambda self, **kwargs: calls.append("launch"))
    app.main()
    assert calls == ["warm_up", "launch"]


def test_warm_up_loads_what_the_first_request_needs(app):
    import sys as _sys

    from wrd_score.metrics.sentence_cosine import _MODELS

    app.warm_up()
    # What the cold request spent its time on is in memory now: POT, the SBERT model, WordNet.
    assert "ot" in _sys.modules and _MODELS and "nltk.corpus" in _sys.modules


def test_runs_from_a_plain_checkout(tmp_path):
    """A Space runs the repository without `pip install .`: the shipped embedding must still load."""
    checkout = tmp_path / "space"
    checkout.mkdir()
    (checkout / "app.py").write_bytes((REPO / "app.py").read_bytes())
    for folder in ("wrd_score", "embeddings"):
        (checkout / folder).symlink_to(REPO / folder, target_is_directory=True)
    code = (
        "import sys\n"
        # Drop the editable install's import hook so that only the checkout is importable.
        "sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in type(f).__name__.lower()\n"
        "                    and 'editable' not in getattr(f, '__name__', '').lower()]\n"
        f"sys.path.insert(0, {str(checkout)!r})\n"
        "import app, wrd_score\n"
        f"assert wrd_score.__file__.startswith({str(checkout)!r}), wrd_score.__file__\n"
        "r = app.score_pair('getCount', 'get_count', app.metric_options(app.DEFAULT_EMBEDDING), siblings=False)\n"
        "print(r.f1)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "1.0"


# ------------------------------------------------------------------------------ issue 12
UI = (DEFAULT, "paper", "norm", "auto (suits the embedding)", "auto", True, False, False)


def test_trailing_delimiter_does_not_shift_columns(app, tmp_path):
    """Item 3: pandas took the first column as an index and scored get_count against 0.9."""
    path = tmp_path / "trailing.csv"
    path.write_bytes(b"prediction,reference,human\ngetCount,get_count,0.9,\nsize,length,0.5,\n")
    with pytest.raises(app.UploadError, match="row 1 has 4 fields but the header names 3 columns"):
        app.read_upload(str(path))
    named = tmp_path / "named.csv"  # the same file with the extra column named is fine
    named.write_bytes(b"prediction,reference,human,\ngetCount,get_count,0.9,\n")
    frame = app.read_upload(str(named))
    assert frame["prediction"].tolist() == ["getCount"] and frame["human"].tolist() == [0.9]


def test_human_column_without_numbers_is_an_error(app, tmp_path):
    path = tmp_path / "nohuman.csv"
    path.write_bytes(b"prediction,reference,human\ngetCount,get_count,\nsize,length,nan\n")
    with pytest.raises(app.UploadError, match="'human' column has no numbers"):
        app.read_upload(str(path))


def test_text_cap_is_enforced_by_the_server_for_every_endpoint(app, tmp_path):
    """Item 8: the 5,000-character cap lived only in the textbox; the API scored 70,000 characters."""
    import gradio as gr

    long = "getCount " * (app.MAX_TEXT_CHARS // 9 + 1)
    with pytest.raises(gr.Error, match="5,000"):
        app.on_score_pair(long, "size", *UI)
    with pytest.raises(gr.Error, match="reference has"):
        app.on_score_pair("size", long, *UI)
    with pytest.raises(app.UploadError, match="up to 5,000"):
        app.score_pair(long, "size", app.metric_options(DEFAULT))
    path = tmp_path / "long.jsonl"
    path.write_text(json.dumps({"prediction": "a", "reference": long}) + "\n")
    with pytest.raises(gr.Error, match="row 1: the reference has"):
        app.on_score_file(str(path), *UI, progress=lambda *a, **k: None)
    ok = "x" * app.MAX_TEXT_CHARS
    assert app.score_pair(ok, ok, app.metric_options(DEFAULT), siblings=False).f1 == 1.0


@pytest.mark.parametrize("content, message", [
    ("[" * 100000 + "]" * 100000, "line 1 is nested too deeply"),            # item 15: RecursionError
    ('{"prediction": "a", "reference": "b", "human": 1' + "0" * 400 + "}", "human is too large"),  # item 13
    ('{"prediction": "a", "reference": "b", "human": 1' + "0" * 5000 + "}", "line 1 is not usable JSON"),
], ids=["deep-nesting", "400-digit-human", "5000-digit-human"])
def test_hostile_jsonl_lines_get_a_message(app, tmp_path, content, message):
    path = tmp_path / "x.jsonl"
    path.write_text(content + "\n")
    with pytest.raises(app.UploadError, match=message):
        app.read_upload(str(path))


def test_rescale_is_disabled_where_no_baseline_is_stored(app):
    """Item 17: the GloVe preset has no baseline; the box says so instead of failing at scoring time."""
    glove = app.on_options_change(GLOVE, "paper", "norm", app.TOKENIZER_AUTO, "auto", True, True)
    assert glove.interactive is False and glove.value is False and "no rescaling baseline" in glove.info
    default = app.on_options_change(DEFAULT, "paper", "norm", app.TOKENIZER_AUTO, "auto", True, True)
    assert default.interactive is True and default.value is True


def test_rouge_in_the_app_is_compare_s_rouge(app):
    # One tokenisation rule for ROUGE (issue 14): the app's ROUGE-1 equals `wrdscore compare`'s.
    from wrd_score.metrics import compare

    result = app.score_pair("isEmpty", "empty", app.metric_options(DEFAULT), siblings=True)
    shown = result.comparison.set_index("metric").loc["ROUGE-1", "F1 / score"]
    assert shown == f"{compare(['isEmpty'], ['empty'], metrics=('rouge1',))['rouge1'][0]:.4f}"
