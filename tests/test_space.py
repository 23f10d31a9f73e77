"""wrd_score/space.py, the Space's logic, without Gradio: the page's options, a pair and a file scored against the
library, uploads within the limits, correlations, the scored file, and the API's records."""
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from wrd_score import WRDScorer
from wrd_score.scorer import BACKENDS

pd = pytest.importorskip("pandas")
space = pytest.importorskip("wrd_score.space")
PageOptions = space.PageOptions

REPO = Path(__file__).resolve().parents[1]
DEFAULT = "Static, the preset's file (default)"
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


def options_of(embedding=DEFAULT, **fields):
    return PageOptions(embedding=embedding, **fields).library_options()


def test_the_module_needs_no_gradio():
    """The Space's logic is tested without Gradio: importing and using it loads none."""
    code = ("import sys\n"
            "from wrd_score import space\n"
            "r = space.score_pair('getCount', 'get_count', space.PageOptions().library_options(), siblings=False)\n"
            "assert r.f1 == 1.0\n"
            "print('gradio' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == "False"


# --------------------------------------------------------------------------- the page's options
def test_page_options_are_one_structure_generated_from_the_options_description():
    from wrd_score.options import option_info

    info = {i.name: i for i in option_info()}
    page = PageOptions()
    assert page._fields == ("embedding", "variant", "weights", "tokenizer", "oov", "clip_negative",
                            "rescale_with_baseline", "siblings", "preset")
    for name in page._fields:
        if name != "embedding" and name in info and info[name].choices:  # the library's, after "not given"
            assert PageOptions.choices(name)[-len(info[name].choices):] == info[name].choices
    assert page.variant == page.weights == space.FROM_PRESET and page.preset == info["preset"].default
    assert page.clip_negative == space.FROM_PRESET and PageOptions.kinds()["siblings"] is bool
    # A flag the preset sets has three states ("from preset", yes, no): a choice, not a checkbox.
    assert PageOptions.kinds()["clip_negative"] is str
    assert PageOptions.choices("clip_negative") == (space.FROM_PRESET, "yes", "no")


def test_page_options_map_to_library_options():
    glove = options_of(GLOVE, variant="wrd", weights="idf")
    assert glove["embedding"] == "glove-6b-50d" and glove["tokenizer"] == "words"
    assert glove["variant"] == "wrd" and glove["weights"] == "idf" and glove["backend"] == "static"
    default = options_of(tokenizer="words", oov="drop", clip_negative="no")
    assert "embedding" not in default and default["tokenizer"] == "words"  # the preset's file applies
    assert default["oov"] == "drop" and default["clip_negative"] is False
    assert sorted(options_of(GLOVE, preset="sentences")) == ['backend', 'embedding', 'oov', 'preset', 'tokenizer']
    WRDScorer(**glove)  # the library accepts what the page produces
    WRDScorer(**default)


def test_the_preset_control_reaches_the_library(monkeypatch):
    from wrd_score.options import PRESETS

    # A bundle unlike the shipped ones, so the test sees the preset act whatever the shipped values are.
    monkeypatch.setitem(PRESETS["sentences"], "static", {"embedding": "default", "variant": "paper", "weights": "uniform",
                                                         "clip_negative": True})
    options = options_of(preset="sentences")
    assert options["preset"] == "sentences" and "variant" not in options and "weights" not in options
    expected = WRDScorer(preset="sentences").score(["get count"], ["size"])
    result = space.score_pair("get count", "size", options, siblings=False)
    assert result.signature == expected["signature"] and "variant:paper" in result.signature
    # A selector set by hand wins over the preset, as everywhere else.
    result = space.score_pair("get count", "size", options_of(preset="sentences", variant="wrd"), siblings=False)
    assert "variant:wrd|" in result.signature and "weights:uniform" in result.signature


def test_the_default_embedding_choice_leaves_the_file_to_the_preset():
    # An embedding named by the page would win over a preset's, and the presets pick different files (0.3.0):
    # the default entry names none, so each preset scores with its own bundle, as the library's default does;
    # and every preset's file has an entry of its own.
    from wrd_score.options import PRESETS

    assert "embedding" not in space.EMBEDDINGS[DEFAULT]
    named = {options.get("embedding") for options in space.EMBEDDINGS.values()}
    assert {bundles["static"]["embedding"] for bundles in PRESETS.values()} - {"default"} <= named
    for preset in PRESETS:
        by_page = WRDScorer(**options_of(preset=preset))
        assert by_page.signature() == WRDScorer(preset=preset, tokenizer="identifier").signature(), preset


def test_unknown_embedding_and_missing_backend():
    with pytest.raises(ValueError, match="embedding must be one of"):
        options_of("word2vec-google-news")
    if "contextual" not in BACKENDS:
        with pytest.raises(ValueError, match="not available"):
            options_of(space.CONTEXTUAL)


def test_invalid_option_values_surface_as_library_errors():
    with pytest.raises(ValueError, match="weights must be one of"):
        space.score_pair("a", "b", options_of(weights="bogus"), siblings=False)


@pytest.mark.parametrize("values, error, message", [
    ({"siblings": "yes"}, TypeError, "siblings must be True or False, got 'yes'"),
    ({"clip_negative": 1}, TypeError, "clip_negative must be one of 'from preset', 'yes', 'no', True or False, got 1"),
    ({"clip_negative": "maybe"}, ValueError, "clip_negative must be one of 'from preset', 'yes', 'no', True or False"),
    ({"embedding": 3}, TypeError, "embedding must be a string, got int"),
    ({"embedding": "word2vec"}, ValueError, "embedding must be one of"),
    ({"weights": "idff"}, ValueError, r"weights must be one of \['from preset', .*\], got 'idff'; did you mean 'idf'\?"),
    ({"wieghts": "idf"}, TypeError, r"option must be one of \['embedding', .*\], got 'wieghts'; did you mean 'weights'\?"),
    ({"preset": ["identifiers"]}, TypeError, "preset must be a string, got list"),
])
def test_raw_api_options_get_the_one_message(values, error, message):
    with pytest.raises(error, match=message) as info:
        PageOptions.from_api(values)
    assert "\n" not in str(info.value)


# --------------------------------------------------------------------------- one pair
@pytest.mark.parametrize("embedding", [DEFAULT, GLOVE])
def test_score_pair_is_the_library(embedding):
    options = options_of(embedding)
    pred, ref = "set artwork entry", "update image"
    result = space.score_pair(pred, ref, options, siblings=False)
    expected = WRDScorer(**options).score([pred], [ref])
    assert (result.precision, result.recall, result.f1) == (expected["precision"][0], expected["recall"][0],
                                                            expected["f1"][0])
    assert result.detail.f1 == pytest.approx(expected["f1"][0], abs=1e-12)  # explain() agrees with score()
    assert result.signature == expected["signature"] and result.signatures == {"WRDScore": expected["signature"]}
    row = result.comparison().iloc[0]
    assert row["metric"] == "WRDScore" and row["F1 / score"] == f"{expected['f1'][0]:.4f}"
    d = result.detail  # the flow is a transport plan between the two mass vectors
    np.testing.assert_allclose(d.flow.sum(axis=1), d.mass_p, atol=1e-9)
    np.testing.assert_allclose(d.flow.sum(axis=0), d.mass_r, atol=1e-9)
    assert d.cos.shape == (len(d.tokens_p), len(d.tokens_r))


def test_rescaled_scores_are_shown_and_the_raw_ones_noted(tmp_path, monkeypatch):
    from wrd_score import rescale

    # A baseline of our own, so the test does not depend on which ones are shipped.
    raw = WRDScorer(**options_of())
    path = str(tmp_path / "baselines.json")
    rescale.save_baseline(path, rescale.baseline_key(raw.signature()), {"precision": 0.2, "recall": 0.3, "f1": 0.25})
    monkeypatch.setattr(rescale, "baseline_files", lambda embedding=None: [path])
    options = options_of(rescale_with_baseline=True)
    expected = WRDScorer(**options).score(["get count"], ["size"])
    result = space.score_pair("get count", "size", options, siblings=False)
    assert result.f1 == expected["f1"][0] == pytest.approx((result.detail.f1 - 0.25) / 0.75, abs=1e-12)
    assert result.signature == expected["signature"] and "rescale" in result.signature
    assert f"F1 {result.detail.f1:.4f}" in result.note
    assert space.rescale_unavailable(options_of()) == ""
    assert "no rescaling baseline" in space.rescale_unavailable(options_of(GLOVE))


@pytest.mark.skipif("contextual" not in BACKENDS, reason="the contextual backend is not installed")
def test_contextual_pair():
    options = options_of(space.CONTEXTUAL)
    result = space.score_pair("set artwork entry", "update image", options, siblings=False)
    expected = WRDScorer(**options).score(["set artwork entry"], ["update image"])
    assert result.f1 == expected["f1"][0] and "backend:contextual" in result.signature


def test_score_pair_with_siblings():
    from wrd_score.metrics import compare

    options = options_of()
    result = space.score_pair("get count", "size", options, siblings=True)
    table = result.comparison().set_index("metric")
    assert list(table.index[:1]) == ["WRDScore"] and len(table) == 1 + len(space.SIBLING_METRICS)
    # With a static embedding the sibling rows are named for their rule and vectors, not as BERT models.
    bert, mover = "bertscore-rule[static]", "moverscore-rule[static]"  # the library's one name (issue 23.3)
    assert {bert, mover, "ROUGE-1"} <= set(table.index), result.note
    expected = compare(["get count"], ["size"], metrics=("bertscore", "rouge1"), **options)
    assert table.loc[bert, "F1 / score"] == f"{expected['bertscore-rule[static]_f1'][0]:.4f}"
    assert table.loc["ROUGE-1", "F1 / score"] == f"{expected['rouge1'][0]:.4f}" == "0.0000"
    assert table.loc[mover, "precision"] == "–"  # a single score: no NaN cell
    # Issue 32.5: what method-name papers report, in the same table.
    assert table.loc["Subtoken F1 (code2seq)", "recall"] == "0.0000" and table.loc["chrF", "precision"] == "–"
    assert table.loc["Exact match (subtokens)", "F1 / score"] == "0.0000"
    # One signature per metric, by the label the table shows (issue 32: ten signatures joined by newlines).
    assert list(result.signatures) == list(table.index)
    assert result.signatures["WRDScore"].startswith("wrdscore:") and result.signatures[bert].startswith("bertscore:")
    assert "idf:no" in result.signatures[mover]


def test_one_scorer_per_configuration_per_click(monkeypatch, tmp_path):
    """One pair with every sibling built six WRDScorers (the siblings on a backend each built one)."""
    built = []
    original = WRDScorer.__init__
    monkeypatch.setattr(WRDScorer, "__init__", lambda self, *a, **k: built.append(k) or original(self, *a, **k))
    space.score_pair("get count", "size", options_of(), siblings=True)
    # WRDScore's own, and one shared by BERTScore, MoverScore, WMS, SMS and S+WMS.
    assert len(built) == 2, built
    built.clear()
    space.score_table(space.read_upload(write_csv(tmp_path / "a.csv")), options_of(), siblings=True)
    assert len(built) == 2, built


def test_an_empty_side_keeps_every_other_metric():
    # Issue 23.5: BLEU's "Number of references unknown" on an empty prediction hid all nine other metrics.
    result = space.score_pair("", "getCount", options_of(), siblings=True)
    assert "unavailable" not in result.note, result.note
    table = result.comparison().set_index("metric")
    assert len(table) == 1 + len(space.SIBLING_METRICS)
    assert set(table["F1 / score"]) == {"0.0000"}  # the one empty-text rule: 0 against a text with tokens


def test_identical_and_empty_pairs():
    from wrd_score.plot import alignment_figure

    same = space.score_pair("getCount", "get_count", options_of(), siblings=False)
    assert same.f1 == same.detail.f1 == 1.0
    empty = space.score_pair("", "size", options_of(), siblings=False)
    assert empty.f1 == empty.detail.f1 == 0.0
    figure = alignment_figure(empty.detail)
    assert any("no tokens" in t.get_text() for ax in figure.axes for t in ax.texts)


def test_rouge_in_the_space_is_compare_s_rouge():
    # One tokenisation rule for ROUGE (issue 14): the Space's ROUGE-1 equals `wrdscore compare`'s.
    from wrd_score.metrics import compare

    result = space.score_pair("isEmpty", "empty", options_of(), siblings=True)
    shown = result.comparison().set_index("metric").loc["ROUGE-1", "F1 / score"]
    assert shown == f"{compare(['isEmpty'], ['empty'], metrics=('rouge1',))['rouge1'][0]:.4f}"


def test_pair_record_is_plain_json():
    result = space.score_pair("getCount", "size", options_of(), siblings=True)
    record = space.pair_record(result)
    assert json.loads(json.dumps(record)) == record
    want = WRDScorer(**options_of()).score(["getCount"], ["size"])
    assert (record["precision"], record["recall"], record["f1"]) == (want["precision"][0], want["recall"][0],
                                                                     want["f1"][0])
    assert record["signature"] == want["signature"] == record["signatures"]["WRDScore"]
    assert all("\n" not in sig for sig in record["signatures"].values()) and len(record["signatures"]) > 5
    rouge = next(r for r in record["metrics"] if r["metric"] == "ROUGE-1")
    assert rouge["precision"] is None and isinstance(rouge["f1"], float)
    assert record["tokens"] == {"prediction": ["get", "count"], "reference": ["size"]}


def test_text_cap():
    """The 5,000-character cap lived only in the textbox; the API scored 70,000 characters."""
    long = "getCount " * (space.MAX_TEXT_CHARS // 9 + 1)
    with pytest.raises(space.UploadError, match="up to 5,000"):
        space.score_pair(long, "size", options_of())
    with pytest.raises(space.UploadError, match="the reference has"):
        space.score_pair("size", long, options_of())
    with pytest.raises(TypeError, match="the prediction must be a string, got int"):
        space.score_pair(12, "size", options_of())
    ok = "x" * space.MAX_TEXT_CHARS
    assert space.score_pair(ok, ok, options_of(), siblings=False).f1 == 1.0


# --------------------------------------------------------------------------- uploads
def test_read_csv_tsv_jsonl(tmp_path):
    frame = space.read_upload(write_csv(tmp_path / "a.csv"))
    assert list(frame.columns) == ["prediction", "reference", "human"]
    assert frame["prediction"].tolist() == [r[0] for r in ROWS]
    assert math.isnan(frame["human"][2]) and frame["human"][0] == 0.8
    # TSV is read with quoting off: a text that begins with a quote stays as it is.
    tsv = tmp_path / "b.tsv"
    tsv.write_text('id\tPrediction\treference\n1\t"quoted start\tnull\n2\tNA\tnan\n', encoding="utf-8")
    frame = space.read_upload(str(tsv))
    assert frame["prediction"].tolist() == ['"quoted start', "NA"]
    assert frame["reference"].tolist() == ["null", "nan"]  # text, not missing values
    assert "human" not in frame.columns
    jsonl = tmp_path / "c.jsonl"
    jsonl.write_text('{"prediction": "getCount", "reference": "size", "human": 3}\n\n'
                     '{"prediction": "é", "reference": "", "human": null}\n', encoding="utf-8")
    frame = space.read_upload(str(jsonl))
    assert frame["prediction"].tolist() == ["getCount", "é"] and frame["reference"].tolist() == ["size", ""]
    assert frame["human"][0] == 3.0 and math.isnan(frame["human"][1])


def test_utf8_bom_is_accepted(tmp_path):
    path = tmp_path / "bom.csv"
    path.write_bytes("prediction,reference\nx,y\n".encode("utf-8-sig"))
    assert space.read_upload(str(path))["prediction"].tolist() == ["x"]


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
    ("trailing.csv", b"prediction,reference,human\ngetCount,get_count,0.9,\n", "row 1 has 4 fields but the header"),
    ("nohuman.csv", b"prediction,reference,human\ngetCount,get_count,\nsize,length,nan\n", "'human' column has no"),
    ("deep.jsonl", b"[" * 100000 + b"]" * 100000 + b"\n", "line 1 is nested too deeply"),
    ("digits.jsonl", b'{"prediction": "a", "reference": "b", "human": 1' + b"0" * 400 + b"}\n", "human is too large"),
    ("long.jsonl", json.dumps({"prediction": "a", "reference": "x" * 5001}).encode() + b"\n",
     "row 1: the reference has 5,001 characters"),
])
def test_bad_uploads_get_a_message(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(space.UploadError, match=message):
        space.read_upload(str(path))


def test_size_and_row_limits(tmp_path):
    path = write_csv(tmp_path / "a.csv")
    with pytest.raises(space.UploadError, match="scores at most 3"):
        space.read_upload(path, max_rows=3)
    with pytest.raises(space.UploadError, match="MB"):
        space.read_upload(path, max_bytes=50)
    with pytest.raises(space.UploadError, match="upload a .csv"):
        space.read_upload(None)
    assert space.MAX_ROWS >= 1000 and space.MAX_UPLOAD_BYTES >= 1 << 20
    assert space.row_limit(options_of()) == space.MAX_ROWS
    assert space.row_limit({**options_of(), "backend": "contextual"}) == space.MAX_ROWS_CONTEXTUAL


# --------------------------------------------------------------------------- a file
@pytest.mark.parametrize("weights", ["norm", "idf"])
def test_score_table_is_the_library_whatever_the_chunking(tmp_path, monkeypatch, weights):
    monkeypatch.setattr(space, "CHUNK_ROWS", 2)
    frame = space.read_upload(write_csv(tmp_path / "a.csv"))
    options = options_of(weights=weights)
    seen = []
    scored = space.score_table(frame, options, siblings=False, progress=lambda f, d: seen.append((f, d)))
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


def test_score_table_correlations(tmp_path):
    from scipy import stats

    frame = space.read_upload(write_csv(tmp_path / "a.csv"))
    scored = space.score_table(frame, options_of(), siblings=False)
    corr = scored.correlations.set_index("metric")
    assert corr.loc["wrdscore_f1", "n"] == 6  # one human value is missing
    keep = np.isfinite(frame["human"].to_numpy())
    expected = stats.spearmanr(scored.table["wrdscore_f1"][keep], frame["human"][keep])[0]
    assert corr.loc["wrdscore_f1", "spearman"] == round(float(expected), 4)
    assert corr.loc["wrdscore_f1", "spearman 95% CI"].startswith("[")


def test_undefined_correlation_is_empty_and_says_why():
    table = pd.DataFrame({"m": [0.5, 0.5, 0.5, 0.5], "human": [1.0, 2.0, 3.0, np.nan]})
    corr = space.correlations(table, ["m"])
    assert corr["pearson"].tolist() == [None] and corr["spearman 95% CI"].tolist() == [""]
    table = pd.DataFrame({"rouge1": [0.0] * 5, "wrdscore_f1": [0.1, 0.5, 0.3, 0.9, 0.2],
                          "human": [0.2, 0.4, 0.1, 0.8, 0.3]})
    corr = space.correlations(table, ["rouge1", "wrdscore_f1"]).set_index("metric")
    assert corr.loc["rouge1", "note"] == "undefined: rouge1 is 0 on every row"
    assert pd.isna(corr.loc["rouge1", "pearson"]) and corr.loc["wrdscore_f1", "note"] == ""
    few = space.correlations(table.head(2), ["wrdscore_f1"]).set_index("metric")
    assert few.loc["wrdscore_f1", "note"].startswith("undefined: 2 rows with both values")
    no_human = space.score_table(pd.DataFrame({"prediction": ["a"], "reference": ["b"]}), options_of(), siblings=False)
    assert no_human.correlations is None


def test_score_table_with_siblings(tmp_path):
    from wrd_score.metrics import compare

    frame = space.read_upload(write_csv(tmp_path / "a.csv"))
    options = options_of(GLOVE)
    scored = space.score_table(frame, options, siblings=True)
    assert scored.note == ""
    for column in ("rouge1", "bleu", "meteor", "bertscore-rule[static]_f1", "moverscore-rule[static]", "wms", "sms",
                   "s+wms", "sbert", "subtoken-f1_f1", "exact-match", "chrf"):
        assert column in scored.table.columns and column in set(scored.correlations["metric"])
    expected = compare(frame["prediction"].tolist(), frame["reference"].tolist(), metrics=("moverscore",), **options)
    assert scored.table["moverscore-rule[static]"].tolist() == expected["moverscore-rule[static]"]
    assert len(scored.signatures) == 1 + len(space.SIBLING_METRICS)  # WRDScore's, then one each
    means = space.means_table(scored.means, options)
    assert list(means.columns) == ["metric", "precision", "recall", "f1"]
    assert means["metric"].tolist()[:2] == ["WRDScore", "ROUGE-1"] and means["metric"].is_unique
    assert means.loc[1, "precision"] is None and means.loc[1, "f1"] == round(scored.table["rouge1"].mean(), 4)


def test_file_record_is_plain_json(tmp_path):
    frame = space.read_upload(write_csv(tmp_path / "a.csv"))
    options = options_of()
    scored = space.score_table(frame, options, siblings=False)
    record = space.file_record(scored, options)
    assert json.loads(json.dumps(record, allow_nan=False)) == record  # NaN is null, not NaN
    assert [r["wrdscore_f1"] for r in record["rows"]] == scored.table["wrdscore_f1"].tolist()
    assert record["rows"][2]["human"] is None and record["rows"][0]["prediction"] == "getCount"
    assert record["means"][0] == {"metric": "WRDScore", "precision": scored.means["wrdscore_precision"],
                                  "recall": scored.means["wrdscore_recall"], "f1": scored.means["wrdscore_f1"]}
    assert record["correlations"][0]["metric"] == "wrdscore_precision"
    assert record["signature"] == scored.signature and record["signatures"] == {"WRDScore": scored.signature}


@pytest.mark.parametrize("name", ["in.csv", "in.tsv", "in.jsonl"])
def test_write_scored_round_trips(tmp_path, name):
    frame = space.read_upload(write_csv(tmp_path / "a.csv"))
    scored = space.score_table(frame, options_of(), siblings=False)
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    path = Path(space.write_scored(scored.table, name, directory=str(out_dir)))
    assert path.parent == out_dir and path.suffix == Path(name).suffix
    back = space.read_upload(str(path))  # the library's reader reads its writer's file as the same data
    assert back["prediction"].tolist() == frame["prediction"].tolist()
    np.testing.assert_array_equal(back["human"], frame["human"])
    from wrd_score.files import read_table

    again = read_table(str(path), numeric=("wrdscore_f1",))
    assert again["wrdscore_f1"].tolist() == scored.table["wrdscore_f1"].tolist()  # floats round-trip exactly


def test_write_scored_tsv_with_tab_in_text_falls_back_to_csv(tmp_path):
    table = pd.DataFrame({"prediction": ["a\tb"], "reference": ["c"], "wrdscore_f1": [0.5]})
    path = space.write_scored(table, "in.tsv", directory=str(tmp_path))
    assert path.endswith(".csv") and pd.read_csv(path)["prediction"][0] == "a\tb"
    assert Path(space.write_scored(table, "../../etc/x y.csv", directory=str(tmp_path))).parent == tmp_path


# --------------------------------------------------------------------------- the About tab, the launch
def test_about_texts():
    summary = space.validation_markdown(str(REPO))
    text = (REPO / "docs" / "validation-summary.md").read_text(encoding="utf-8")
    assert summary == "".join(line for line in text.splitlines(keepends=True)
                              if not line.startswith(("<!-- docs:", "<!-- /docs:")))
    assert "Spearman" in summary or "ρ" in summary
    assert "could not find" in space.validation_markdown(str(REPO / "nowhere"))
    assert "| `rescale_with_baseline` |" in space.options_markdown() and "2000 rows" in space.LIMITS


def test_launch_settings():
    assert space.launch_settings({}) == {**space.launch_settings({}), "server_name": "127.0.0.1", "server_port": None}
    there = space.launch_settings({"GRADIO_SERVER_NAME": "0.0.0.0", "GRADIO_SERVER_PORT": "7860"})
    assert there["server_name"] == "0.0.0.0" and there["server_port"] == 7860
    with pytest.raises(ValueError, match="GRADIO_SERVER_PORT"):
        space.launch_settings({"GRADIO_SERVER_PORT": "http"})
    assert space.launch_settings({})["max_file_size"] > space.MAX_UPLOAD_BYTES


def test_an_oov_choice_with_the_contextual_encoder_is_refused_not_ignored():
    """Before, the API dropped ``oov="drop"`` with the contextual entry and scored as if it had not been given."""
    from wrd_score.options import option_info

    default = next(info.default for info in option_info() if info.name == "oov")
    assert "oov" not in options_of(space.CONTEXTUAL, oov=default)  # the page's default: nothing asked
    with pytest.raises(ValueError, match="oov applies to the static embeddings"):
        options_of(space.CONTEXTUAL, oov="drop")
