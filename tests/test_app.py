"""The Space's handlers (app.py) without a browser: what each returns to the page and to the API, errors,
hostile API calls, the warm-up. The logic they call is tested without Gradio in tests/test_space.py."""
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wrd_score import WRDScorer
from wrd_score.scorer import BACKENDS

REPO = Path(__file__).resolve().parents[1]
gr = pytest.importorskip("gradio")


@pytest.fixture(scope="module")
def app(space_app):
    return space_app


DEFAULT = "Static, the preset's file (default)"
GLOVE = "GloVe 6B 50d"
ROWS = pd.DataFrame({"prediction": ["getCount", "set artwork entry", "next char", "removeItem", "", "validate url",
                                    "is all capitalized"],
                     "reference": ["size", "update image", "advance", "deleteItem", "size", "perform validation",
                                   "detect capital use"],
                     "human": [0.8, 0.3, None, 0.9, 0.0, 0.6, 0.5]})


def write_csv(path, rows=ROWS):
    rows.to_csv(path, index=False)
    return str(path)


def page(app, **fields):
    """The page's control values, in the order the handlers take them."""
    return tuple(app.PageOptions(**fields))


def no_progress(*args, **kwargs):
    return None


# --------------------------------------------------------------------------- the pair tab
def test_on_score_pair_returns_what_the_page_shows(app):
    cards, comparison, signature, figure, note = app.on_score_pair("get count", "size", *page(app))
    assert len([ax for ax in figure.axes if ax.images]) == 2  # cosines and flow, side by side
    expected = WRDScorer().score(["get count"], ["size"])
    assert f'id="wrd-f1">{expected["f1"][0]:.4f}<' in cards
    lines = signature.splitlines()  # one signature per metric, WRDScore's first
    assert lines[0] == expected["signature"] and len(lines) == 1 + len(app.SIBLING_METRICS)
    assert comparison.iloc[0]["metric"] == "WRDScore" and note.startswith("2 prediction tokens × 1 reference")


def test_the_preset_and_selectors_reach_the_library(app):
    expected = WRDScorer(preset="sentences", variant="paper").score(["get count"], ["size"])
    cards, _, signature, _, _ = app.on_score_pair("get count", "size", *page(app, preset="sentences", variant="paper",
                                                                             siblings=False))
    assert signature == expected["signature"] and f'id="wrd-f1">{expected["f1"][0]:.4f}<' in cards


def test_the_contextual_entry_with_word_pieces_scores_with_the_default_controls(app):
    # preset='sentences' makes the encoder's units word pieces, which take no tokenizer: the page's default tokenizer
    # control ("auto") sends none, so it scores; a tokenizer chosen there would be ignored, and is refused.
    if "contextual" not in BACKENDS:
        pytest.skip("the contextual backend is not installed")
    from wrd_score import space

    controls = dict(embedding=space.CONTEXTUAL, preset="sentences", siblings=False)
    assert app.PageOptions(**controls).tokenizer == space.TOKENIZER_AUTO
    expected = WRDScorer(backend="contextual", preset="sentences").score(["get count"], ["size"])
    got = app.api_score_pair("get count", "size", *page(app, **controls))
    assert got["signature"] == expected["signature"] and "pool:wordpiece" in got["signature"]
    assert got["f1"] == expected["f1"][0]
    with pytest.raises(gr.Error, match="tokenizer='words' has no effect with pooling='wordpiece'"):
        app.on_score_pair("get count", "size", *page(app, **controls, tokenizer="words"))


def test_handlers_turn_bad_input_into_visible_errors(app):
    with pytest.raises(gr.Error, match="weights must be one of"):
        app.on_score_pair("a", "b", *page(app, weights="bogus"))
    with pytest.raises(gr.Error, match="preset must be one of"):
        app.on_score_pair("a", "b", *page(app, preset="code"))
    long = "getCount " * (app.MAX_TEXT_CHARS // 9 + 1)
    with pytest.raises(gr.Error, match="5,000"):
        app.on_score_pair(long, "size", *page(app))


def test_rescale_is_disabled_where_no_baseline_is_stored(app):
    """Issue 12 item 17: a configuration without a stored baseline (GloVe with unclipped cosines: only the default's
    file ships unclipped baselines) says so in the box instead of failing at scoring time."""
    unclipped = app.on_options_change(*page(app, embedding=GLOVE, clip_negative=False, rescale_with_baseline=True))
    assert unclipped.interactive is False and unclipped.value is False and "no rescaling baseline" in unclipped.info
    default = app.on_options_change(*page(app, rescale_with_baseline=True))
    assert default.interactive is True and default.value is True


# --------------------------------------------------------------------------- the file tab
def _shown(update):
    return update.get("visible") if isinstance(update, dict) else True


def test_on_score_file_returns_what_the_page_shows(app, tmp_path):
    summary, means, rows, hist, download, sig, corr = app.on_score_file(write_csv(tmp_path / "a.csv"), *page(app),
                                                                        progress=no_progress)
    assert "Scored **7** rows" in summary and all(map(_shown, (means, rows, hist, download, sig, corr)))
    rows, means = rows["value"], means["value"]
    assert len(rows) == 7 and means.loc[0, "metric"] == "WRDScore"
    assert means.loc[0, "f1"] == round(rows["wrdscore_f1"].mean(), 4)
    assert Path(download["value"]).is_file() and download["value"].endswith(".scored.csv")
    assert sig["value"].splitlines()[0] == WRDScorer().score(ROWS["prediction"].tolist(),
                                                             ROWS["reference"].tolist())["signature"]


def test_no_file_and_a_bad_file_get_one_message_and_nothing_else(app, tmp_path):
    """Issue 32: Score without a file showed "Error" in all seven outputs; before an upload the tab showed empty
    tables headed "1 2 3" and a blank plot. Now one message, every other output hidden."""
    outputs = app.on_score_file(None, *page(app), progress=no_progress)
    assert outputs[0].startswith("Upload a `.csv`") and not any(map(_shown, outputs[1:]))
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"pred,ref\na,b\n")
    outputs = app.on_score_file(str(bad), *page(app), progress=no_progress)
    assert "needs columns 'prediction' and 'reference'" in outputs[0] and not any(map(_shown, outputs[1:]))
    cleared = app.on_upload(str(bad))  # a new upload hides the last file's results
    assert cleared[0] == "" and not any(map(_shown, cleared[1:]))
    demo = app.build_demo()  # and before any upload, the page holds them hidden
    hidden = {c.elem_id for c in demo.blocks.values() if getattr(c, "visible", True) is False}
    assert {"file-means", "rows", "histogram", "download", "file-signature", "correlations"} <= hidden


def test_contextual_row_limit_is_enforced_by_the_handler(app, tmp_path, monkeypatch):
    if "contextual" not in BACKENDS:
        pytest.skip("the contextual backend is not installed")
    from wrd_score import space

    monkeypatch.setattr(space, "MAX_ROWS_CONTEXTUAL", 3)
    summary, *_ = app.on_score_file(write_csv(tmp_path / "a.csv"), *page(app, embedding=space.CONTEXTUAL),
                                    progress=no_progress)
    assert "at most 3 with these options" in summary


# --------------------------------------------------------------------------- the API
def test_build_demo_has_two_public_endpoints_with_generated_signatures(app):
    demo = app.build_demo()
    public = {d.api_name for d in demo.fns.values() if d.api_visibility == "public"}
    # Issue 23 item 10: Gradio 6 took api_name=False as the name "false" (/false, /false_1, ...).
    assert public == {"score_pair", "score_file"}
    fields = list(app.PageOptions._fields)
    assert list(inspect.signature(app.api_score_pair).parameters) == ["prediction", "reference", *fields]
    assert list(inspect.signature(app.api_score_file).parameters) == ["file", *fields]
    info = demo.get_api_info()["named_endpoints"]
    assert [p["parameter_name"] for p in info["/score_file"]["parameters"]] == ["file", *fields]


def test_api_score_pair_returns_data(app):
    """The API gave an HTML string and ten signatures joined by newlines; now numbers and one signature per metric."""
    got = app.api_score_pair("getCount", "size", *page(app))
    want = WRDScorer().score(["getCount"], ["size"])
    assert (got["precision"], got["recall"], got["f1"]) == (want["precision"][0], want["recall"][0], want["f1"][0])
    assert got["signature"] == want["signature"] == got["signatures"]["WRDScore"]
    assert len(got["signatures"]) == 1 + len(app.SIBLING_METRICS)
    rouge = next(r for r in got["metrics"] if r["metric"] == "ROUGE-1")
    assert rouge["precision"] is None and isinstance(rouge["f1"], float)
    json.dumps(got)  # plain JSON for any client


def test_api_functions_take_their_options_as_their_signatures_say(app):
    # Red-team review 4: the signatures (what gr.api and help() show) name every option with its default, but a
    # call by keyword was Python's "unexpected keyword argument 'siblings'", and values past the last option were
    # dropped by zip() without a word.
    by_position = app.api_score_pair("getCount", "size", *page(app, variant="paper", siblings=False))
    by_name = app.api_score_pair("getCount", "size", variant="paper", siblings=False)
    assert by_name == by_position and "variant:paper" in by_name["signature"]
    inspect.signature(app.api_score_pair).bind("getCount", "size", variant="paper")  # what the signature promises
    with pytest.raises(gr.Error, match="too many positional arguments"):
        app.api_score_pair("getCount", "size", *page(app), "one more")
    with pytest.raises(gr.Error, match="multiple values for argument 'variant'"):
        app.api_score_pair("getCount", "size", DEFAULT, "wrd", variant="paper")
    with pytest.raises(gr.Error, match="unexpected keyword argument 'varaint'"):
        app.api_score_pair("getCount", "size", varaint="paper")


def test_api_score_file_returns_data_and_a_file(app, tmp_path):
    """/score_file returned the page's update dicts and a server path; now records and the file as a file."""
    upload = tmp_path / "a.jsonl"
    ROWS.to_json(upload, orient="records", lines=True)
    record, path = app.api_score_file(str(upload), *page(app, siblings=False))
    assert json.loads(json.dumps(record, allow_nan=False)) == record
    assert [r["prediction"] for r in record["rows"]] == ROWS["prediction"].tolist() and record["rows"][2]["human"] is None
    assert record["means"][0]["metric"] == "WRDScore" and set(record["signatures"]) == {"WRDScore"}
    assert record["correlations"][0]["metric"] == "wrdscore_precision"
    assert path.endswith(".scored.jsonl")  # the upload's format, written by the library's table writer
    back = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]
    assert [r["wrdscore_f1"] for r in back] == [r["wrdscore_f1"] for r in record["rows"]]


def test_api_score_file_means_have_the_library_bits(app, tmp_path):
    """Red-team finding: the file's means were np.mean (a pairwise sum), the library's the running sum in order:
    0.16744084193581565 against 0.1674408419358157 over 997 rows."""
    rng = np.random.default_rng(1)
    words = "get set count size value name list item add remove is has to string index find load save".split()
    rows = [(" ".join(rng.choice(words, rng.integers(1, 4))), " ".join(rng.choice(words, rng.integers(1, 4))))
            for _ in range(997)]
    upload = tmp_path / "u.csv"
    pd.DataFrame(rows, columns=["prediction", "reference"]).to_csv(upload, index=False)
    record, _ = app.api_score_file(str(upload), *page(app, siblings=False))
    want = WRDScorer().score([p for p, _ in rows], [r for _, r in rows])
    got = record["means"][0]
    assert (got["precision"], got["recall"], got["f1"]) == (want["mean_precision"], want["mean_recall"],
                                                            want["mean_f1"])


@pytest.mark.parametrize("call, message", [
    (lambda app: app.api_score_pair(12, "size", *page(app)), "the prediction must be a string, got int"),
    (lambda app: app.api_score_pair("a", ["b"], *page(app)), "the reference must be a string, got list"),
    (lambda app: app.api_score_pair("a", "b", *page(app)[:-2], "yes", page(app)[-1]), "siblings must be True or False"),
    (lambda app: app.api_score_pair("a", "b", "word2vec"), "embedding must be one of"),
    (lambda app: app.api_score_pair("a", "b", DEFAULT, "wdr"), "variant must be one of .*; did you mean 'wrd'"),
    (lambda app: app.api_score_pair("a", "b", DEFAULT, "wrd", "norm", "auto", "auto", 1),
     "clip_negative must be one of 'from preset', 'yes', 'no', True or False, got 1"),
    (lambda app: app.api_score_pair("getCount " * 1000, "size"), "5,000"),
    (lambda app: app.api_score_file(None), "upload a .csv"),
    (lambda app: app.api_score_file("x.csv", DEFAULT, {"a": 1}), "variant must be a string, got dict"),
])
def test_api_refuses_bad_input_in_one_line(app, call, message):
    with pytest.raises(gr.Error, match=message) as info:
        call(app)
    assert "\n" not in str(info.value)


def test_api_score_file_holds_the_limits(app, tmp_path):
    """An API call bypasses the page: rows, bytes and text lengths are held on the server."""
    from wrd_score import space

    many = pd.DataFrame({"prediction": ["a"] * (space.MAX_ROWS + 1), "reference": ["b"] * (space.MAX_ROWS + 1)})
    with pytest.raises(gr.Error, match=f"limit is {space.MAX_ROWS}"):
        app.api_score_file(write_csv(tmp_path / "many.csv", many), *page(app))
    long = pd.DataFrame({"prediction": ["a"], "reference": ["x" * (space.MAX_TEXT_CHARS + 1)]})
    with pytest.raises(gr.Error, match="row 1: the reference has 5,001 characters"):
        app.api_score_file(write_csv(tmp_path / "long.csv", long), *page(app))
    big = tmp_path / "big.csv"
    big.write_bytes(b"prediction,reference\n" + b"a,b\n" * (space.MAX_UPLOAD_BYTES // 4 + 1))
    with pytest.raises(gr.Error, match="the limit is 2 MB"):
        app.api_score_file(str(big), *page(app))


# --------------------------------------------------------------------------- start
def test_main_warms_up_before_serving(app, monkeypatch):
    """The first request after a cold start took 24 s (imports, model loads, numba's compilation):
    main() scores the page-load example before the server starts answering."""
    calls = []
    monkeypatch.setattr(app, "warm_up", lambda: calls.append("warm_up") or 0.0)
    monkeypatch.setattr(gr.Blocks, "launch", lambda self, **kwargs: calls.append("launch"))
    app.main()
    assert calls == ["warm_up", "launch"]


def test_warm_up_loads_what_the_first_request_needs(app):
    from wrd_score.metrics.sentence_cosine import _MODELS

    app.warm_up()
    # What the cold request spent its time on is in memory now: POT, the SBERT model, WordNet.
    assert "ot" in sys.modules and _MODELS and "nltk.corpus" in sys.modules


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
        "print(app.api_score_pair('getCount', 'get_count', *app.PageOptions(siblings=False))['f1'])\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "1.0"


def test_app_is_layout_and_handlers(app):
    """Issue 33: app.py held scoring tables, correlations, upload reading and a CSV/TSV/JSONL writer of its own."""
    text = (REPO / "app.py").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 350
    for own in ("to_csv", "json.dumps(record", "read_table", "correlation_stats", "WRDScorer(", "compare("):
        assert own not in text, own
