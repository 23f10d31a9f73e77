"""Issue 32, hostile round 4: outputs that are inputs, unbounded numbers, refusals that came too late.

Each test is a reproducer of one finding, written before its fix: a one-line error naming the argument
(the flag on the command line) and what was wrong, given before any work is done, and no input ever
overwritten.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path

import numpy as np
import pytest

from wrd_score.embeddings import StaticEmbedding

WORDS = ["get", "count", "size", "length", "set", "value"]


@pytest.fixture
def pair_files(tmp_path):
    cands, refs = tmp_path / "c.txt", tmp_path / "r.txt"
    cands.write_text("getCount\nsize\n")
    refs.write_text("get_count\nlength\n")
    return cands, refs


@pytest.fixture
def tiny_npz(tmp_path):
    path = tmp_path / "tiny.npz"
    StaticEmbedding(WORDS, np.random.default_rng(0).normal(size=(len(WORDS), 8)).astype(np.float32),
                    name="tiny").save(str(path))
    return path


def _unchanged(path: Path, before: bytes) -> bool:
    return path.read_bytes() == before


# ------------------------------------------------------------------ 1, 2, 3: an output that is an input
@pytest.mark.parametrize("flag", ["--idf-file", "--embedding"])
def test_score_output_onto_its_own_idf_file_or_embedding_is_refused(run_cli, pair_files, tiny_npz, tmp_path, flag):
    cands, refs = pair_files
    idf = tmp_path / "idf.tsv"
    idf.write_text("get\t1.0\ncount\t2.0\n")
    target = idf if flag == "--idf-file" else tiny_npz
    before = target.read_bytes()
    extra = ["--weights", "idf", "--idf-file", idf] if flag == "--idf-file" else ["--embedding", tiny_npz]
    code, out, err = run_cli("score", "-c", cands, "-r", refs, *extra, "-o", target)
    assert code == 2 and f"is also the {flag} input" in err and err.count("\n") == 1, err
    assert _unchanged(target, before)


def test_paired_score_output_onto_its_embedding_is_refused(run_cli, pair_files, tiny_npz):
    cands, refs = pair_files
    before = tiny_npz.read_bytes()
    code, _, err = run_cli("score", "-c", cands, "-c", refs, "-r", refs, "--paired-bs", "--embedding", tiny_npz,
                           "-o", tiny_npz)
    assert code == 2 and "is also the --embedding input" in err, err
    assert _unchanged(tiny_npz, before)


def test_baseline_output_onto_its_embedding_is_refused(run_cli, tiny_npz, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("getCount\nsetValue\nsize\nlength\n")
    before = tiny_npz.read_bytes()
    code, _, err = run_cli("baseline", "--corpus", corpus, "--embedding", tiny_npz, "--output", tiny_npz)
    assert code == 2 and "is also the --embedding input" in err, err
    assert _unchanged(tiny_npz, before)


def test_convert_output_onto_its_source_is_refused(run_cli, tiny_npz):
    before = tiny_npz.read_bytes()
    code, _, err = run_cli("convert", tiny_npz, tiny_npz)
    assert code == 2 and "is also the source input" in err, err
    assert _unchanged(tiny_npz, before)


def test_distill_output_onto_its_code_space_is_refused_before_the_encoder_loads(run_cli, tiny_npz, tmp_path,
                                                                                monkeypatch):
    import wrd_score.distill as distill_module

    monkeypatch.setattr(distill_module, "load_encoder", lambda *a, **k: pytest.fail("the encoder was loaded"))
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("get count\n" * 6)
    before = tiny_npz.read_bytes()
    code, _, err = run_cli("distill", "-o", tiny_npz, "--code-space", tiny_npz, "--corpus", f"{corpus}:tokens")
    assert code == 2 and "is also the --code-space input" in err, err
    assert _unchanged(tiny_npz, before)


def test_distill_output_onto_its_fit_corpus_is_refused_by_the_library_before_reading_it(tmp_path, monkeypatch):
    # The library's own check (a call that bypasses the CLI's) named the fit corpora only after reading them,
    # and not at all: the output could replace a fit corpus.
    pytest.importorskip("torch")
    import wrd_score.distill as distill_module
    import wrd_score.sentence_fit as sentence_fit

    monkeypatch.setattr(sentence_fit, "collect_texts", lambda *a, **k: pytest.fail("the fit corpora were read"))
    monkeypatch.setattr(distill_module, "load_encoder", lambda *a, **k: pytest.fail("the encoder was loaded"))
    target = tmp_path / "sentences.npz"
    target.write_bytes(b"a man plays\na dog runs\n")
    before = target.read_bytes()
    with pytest.raises(ValueError, match="is also the fit input"):
        distill_module.distill(str(target), fit=[(str(target), "lines", None)], progress=False)
    assert _unchanged(target, before)


def test_validate_refuses_two_inputs_that_would_write_the_same_outputs(run_cli, tmp_path):
    for folder, human in (("a", "1\n0.5\n0"), ("b", "0.2\n0.9\n0.1")):
        (tmp_path / folder).mkdir()
        rows = zip(["getCount", "size", "foo"], ["get_count", "length", "bar"], human.split("\n"))
        (tmp_path / folder / "v.tsv").write_text("prediction\treference\thuman\n"
                                                 + "".join(f"{p}\t{r}\t{h}\n" for p, r, h in rows))
    out = tmp_path / "out"
    code, _, err = run_cli("validate", tmp_path / "a" / "v.tsv", tmp_path / "b" / "v.tsv", "--output-dir", out,
                           "--bootstrap", "0", "--quiet")
    assert code == 2 and "v.scores.csv" in err and "a/v.tsv" in err and "b/v.tsv" in err, err
    assert not out.exists()  # refused before anything was scored or written


def test_validate_refuses_to_overwrite_an_input_inside_the_output_folder(run_cli, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    inside = out / "v.scores.csv"  # an input that another input's result would replace
    inside.write_text("prediction,reference,human\ngetCount,get_count,1\nsize,length,0.5\nfoo,bar,0\n")
    other = tmp_path / "v.tsv"
    other.write_text("prediction\treference\thuman\ngetCount\tsize\t0.2\nsize\tlength\t0.9\nfoo\tbaz\t0.1\n")
    before = inside.read_bytes()
    code, _, err = run_cli("validate", inside, other, "--output-dir", out, "--bootstrap", "0", "--quiet")
    assert code == 2 and "input" in err and "v.scores.csv" in err, err
    assert _unchanged(inside, before)


# ------------------------------------------------------------------ 5: merge of a hostile shard record
def test_merge_refuses_a_reference_count_no_run_writes(run_cli, pair_files, tmp_path):
    cands, refs = pair_files
    shard = tmp_path / "s.json"
    code, _, err = run_cli("score", "-c", cands, "-r", refs, "--shard", "1/1", "-o", shard)
    assert code == 0, err
    record = json.loads(shard.read_text())
    record["references"], record["best_reference"] = 10**30, [10**25, 0]
    shard.write_text(json.dumps(record))
    code, _, err = run_cli("merge", shard)
    assert code == 2 and "references must be" in err and "Traceback" not in err, err


# ------------------------------------------------------------------ 6: baseline --pairs
def test_baseline_pairs_has_an_upper_bound_checked_before_the_corpus_is_read(run_cli, tmp_path):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("getCount\nsetValue\nsize\nlength\n")
    code, _, err = run_cli("baseline", "--corpus", corpus, "--pairs", str(100_000_000_000),
                           "--output", tmp_path / "b.json")  # numpy's _ArrayMemoryError traceback, before
    from wrd_score.rescale import MAX_BASELINE_PAIRS

    assert code == 2 and "--pairs" in err and f"{MAX_BASELINE_PAIRS:,}" in err, err
    assert not (tmp_path / "b.json").exists()


# ------------------------------------------------------------------ 10: paired p-values
@pytest.mark.parametrize("flag", ["--paired-bs", "--paired-ar"])
def test_a_paired_p_below_the_printed_precision_is_not_printed_as_zero(run_cli, tmp_path, flag):
    base = tmp_path / "base.txt"
    better = tmp_path / "better.txt"
    refs = tmp_path / "refs.txt"
    names = [f"get{w.title()}{i}" for i in range(40) for w in ("count", "size")]
    refs.write_text("\n".join(names) + "\n")
    better.write_text("\n".join(names) + "\n")
    base.write_text("\n".join("value" for _ in names) + "\n")
    code, out, err = run_cli("score", "-c", base, "-c", better, "-r", refs, flag, f"{flag}-n", "100000")
    assert code == 0, err
    row = out.strip().splitlines()[-1]
    assert row.endswith("< 0.0001") and "0.0000" not in row.split()[-1], out


def test_validate_table_prints_a_tiny_p_as_below_its_precision(run_cli, tmp_path):
    rng = np.random.default_rng(0)
    human = rng.random(60)
    rows = "".join(f"a{i}\tb{i}\t{h:.4f}\t{h + rng.normal(scale=0.01):.4f}\t{rng.random():.4f}\n"
                   for i, h in enumerate(human))
    path = tmp_path / "v.tsv"
    path.write_text("prediction\treference\thuman\tgood\tnoise\n" + rows)
    code, out, err = run_cli("validate", path, "-m", "column:good", "-m", "column:noise", "--reference-metric",
                             "good", "--bootstrap", "3000", "--no-files", "--quiet")  # p >= 1/3001: "0.000"
    assert code == 0, err
    row = next(line for line in out.splitlines() if line.startswith("| `noise`"))
    assert row.rstrip(" |").endswith("< 0.001") and "0.000 |" not in row, out


def test_format_p_value():
    from wrd_score.stats import format_p_value

    assert format_p_value(0.0312, 4) == "0.0312"
    assert format_p_value(1 / 1001, 4) == "0.0010"
    assert format_p_value(1 / 100001, 4) == "< 0.0001"
    assert format_p_value(1 / 100001, 3) == "< 0.001"
    assert format_p_value(1.0, 3) == "1.000"


# ------------------------------------------------------------------ 11: a dangling symlink as output
def test_output_through_a_dangling_symlink_names_the_missing_folder(run_cli, pair_files, tmp_path):
    cands, refs = pair_files
    link = tmp_path / "out.txt"
    link.symlink_to(tmp_path / "missing" / "folder" / "x.txt")
    code, _, err = run_cli("score", "-c", cands, "-r", refs, "-o", link)
    assert code == 2 and str(tmp_path / "missing" / "folder") in err and "symlink" in err, err
    assert f"output folder {str(tmp_path)!r}" not in err


# ------------------------------------------------------------------ 4, 9: distill, refused or handled up front
@pytest.fixture
def distill_run(run_cli, tiny_bert, tmp_path, monkeypatch):
    """``run(*flags, corpus_text=...) -> (code, err, encoded tokens)``: `wrdscore distill` on the tiny BERT with a
    small corpus, recording which tokens reached the encoder."""
    import wrd_score.distill as distill_module

    encoded = []
    real = distill_module.encode_tokens

    def spy(model, tokenizer, tokens, *args, **kwargs):
        encoded.extend(tokens)
        return real(model, tokenizer, tokens, *args, **kwargs)

    monkeypatch.setattr(distill_module, "encode_tokens", spy)

    def run(*flags, corpus_text="get count\nset value\nget size\n" * 3, fmt="tokens"):
        corpus = tmp_path / "corpus.txt"
        corpus.write_text(corpus_text)
        code, _, err = run_cli("distill", "-o", tmp_path / "out.npz", "--model", tiny_bert, "--corpus",
                               f"{corpus}:{fmt}", "--min-count", "1", "--no-progress", *flags)
        return code, err, encoded

    return run


def test_distill_leaves_out_a_token_longer_than_the_model_window_before_encoding(distill_run, tmp_path):
    long_token = "x." * 300  # 600 word pieces: the tiny BERT takes 512 positions, 510 between [CLS] and [SEP]
    with pytest.warns(UserWarning, match="1 corpus token longer than the model's 510 word pieces left out"):
        code, err, encoded = distill_run("--no-df", corpus_text=f"get count {long_token}\n" * 2)
    assert code == 0, err
    assert long_token not in encoded
    emb = StaticEmbedding.load(str(tmp_path / "out.npz"))
    assert long_token not in emb and emb.meta["too_long"] == {"tokens": 1, "max_pieces": 510}


def test_encode_tokens_refuses_a_token_longer_than_the_window_up_front(tiny_bert):
    import transformers

    from wrd_score.distill import encode_tokens

    tokenizer = transformers.AutoTokenizer.from_pretrained(tiny_bert)
    model = transformers.AutoModel.from_pretrained(tiny_bert)
    with pytest.raises(ValueError, match=r"tokens\[1\] .* 600 word pieces; the model takes at most 510"):
        encode_tokens(model, tokenizer, ["get", "x." * 300], [1], progress=False)


def test_distill_code_neighbours_beyond_the_code_vocabulary_is_refused_before_encoding(distill_run, tiny_npz):
    code, err, encoded = distill_run("--no-df", "--code-space", tiny_npz, "--code-neighbours", "1000000000")
    assert code == 2 and "--code-neighbours" in err and err.count("\n") == 1, err
    assert encoded == []


@pytest.mark.parametrize("pca, message", [
    ("64", r"error: --pca-dims is 64, but the distilled vectors have 32 dimensions"),   # the tiny BERT is 32 wide
    ("1000000", r"error: --pca-dims is 1,000,000, but the distilled vectors have 32 dimensions"),
])
def test_distill_pca_dims_it_cannot_give_is_refused_before_encoding(distill_run, tmp_path, pca, message):
    """Red-team 5: model2vec's PCA, asked for more dimensions than the vectors have, kept them all (and with no fewer
    tokens than dimensions skipped PCA), with only a log line: `--pca-dims 100000` wrote a 384-dimensional MiniLM file
    whose meta said pca_dims 100000."""
    code, err, encoded = distill_run("--no-df", "--pca-dims", pca)
    assert code == 2 and re.search(message, err) and err.count("\n") == 1, err
    assert encoded == [] and not (tmp_path / "out.npz").exists()


@pytest.mark.parametrize("flags, message", [
    (["--df-min-count", "1000"], "--df-min-count"),
    (["--df-corpus", "EMPTY:identifiers"], "--df-corpus"),
])
def test_distill_empty_df_table_is_refused_before_encoding(distill_run, tmp_path, flags, message):
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    flags = [f.replace("EMPTY", str(empty)) for f in flags]
    code, err, encoded = distill_run(*flags, corpus_text="getCount\nsetValue\ngetSize\n" * 3, fmt="identifiers")
    assert code == 2 and message in err and err.count("\n") == 1, err
    assert encoded == [] and not (tmp_path / "out.npz").exists()


# ------------------------------------------------------------------ 7, 8: composing unknown tokens, bounded
def _ngram_embedding(min_n=1, max_n=32):
    rng = np.random.default_rng(1)
    return StaticEmbedding(WORDS, rng.normal(size=(len(WORDS), 8)).astype(np.float32),
                           ngram_vectors=rng.normal(size=(2000, 8)).astype(np.float32), min_n=min_n, max_n=max_n,
                           name="ngrams")


def test_one_long_token_with_an_ngram_embedding_composes_in_bounded_memory():
    # About 3 KB per character: 600,000 characters took 1.97 GB; the CLI's line cap allowed 3.3 GB, the library
    # had no bound at all.
    import tracemalloc

    emb = _ngram_embedding()
    long_token = "ab" * 100_000
    tracemalloc.start()
    try:
        vector = emb.oov_vectors([long_token])[0]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20, peak  # about 600 MB before
    assert np.all(np.isfinite(vector)) and np.linalg.norm(vector) > 0
    from wrd_score.embeddings import MAX_NGRAM_TOKEN_CHARS

    # What it is: the token's first MAX_NGRAM_TOKEN_CHARS characters (an ordinary token is unchanged).
    np.testing.assert_array_equal(vector, emb.oov_vectors([long_token[:MAX_NGRAM_TOKEN_CHARS]])[0])
    assert np.array_equal(emb.oov_vectors(["getcountx"])[0], _ngram_embedding().oov_vectors(["getcountx"])[0])


def test_many_long_tokens_are_composed_in_bounded_groups():
    import tracemalloc

    emb = _ngram_embedding()
    tokens = [f"{i:04d}" + "x" * 995 for i in range(300)]  # 300 distinct tokens just under the cap
    tracemalloc.start()
    try:
        together = emb.oov_vectors(tokens)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 128 << 20, peak  # was about 3 KB x 300,000 characters at once
    emb.clear_oov_cache()
    alone = np.array([emb.oov_vectors([t])[0] for t in tokens[:5]])
    np.testing.assert_array_equal(together[:5], alone)  # grouping changes no bit


def test_the_composed_vector_cache_counts_the_bytes_its_keys_hold():
    # 4,000 Gothic tokens: 64 MiB counted, 224 MiB held (a character outside the BMP takes 4 bytes in a str).
    import sys

    from wrd_score.embeddings import MAX_OOV_CACHE_BYTES

    emb = _ngram_embedding(1, 1)  # one-character n-grams: cheap to compose
    gothic = "\U00010330\U00010331\U00010332\U00010333"
    tokens = [gothic * 5000 + str(i) for i in range(900)]  # 20,000 characters: a key holds about 80 KB
    for start in range(0, len(tokens), 100):
        emb.oov_vectors(tokens[start:start + 100])
    held = sum(sys.getsizeof(k) + sys.getsizeof(v) for k, v in emb._oov_cache.items())
    assert held <= MAX_OOV_CACHE_BYTES, (held, MAX_OOV_CACHE_BYTES)


# ------------------------------------------------------------------ 12: the shipped file by its path
@pytest.mark.parametrize("how", ["path", "symlink", "copy"])
def test_a_path_to_a_shipped_file_behaves_like_its_name(how, tmp_path, run_cli):
    import shutil

    from wrd_score import WRDScorer
    from wrd_score.embeddings import shipped_path

    path = shipped_path()
    if how == "symlink":
        (tmp_path / "link.npz").symlink_to(path)
        path = str(tmp_path / "link.npz")
    elif how == "copy":
        shutil.copyfile(path, tmp_path / "copy.npz")
        path = str(tmp_path / "copy.npz")
    preds, refs = ["getCount", "size", "readFile"], ["get_count", "length", "writeFile"]
    by_name = WRDScorer().score(preds, refs)
    by_path = WRDScorer(embedding=path).score(preds, refs)
    assert by_path == by_name  # the same masses (norm*corpus-idf), scores and signature
    code, out, err = run_cli("score", "-c", "getCount", "-r", "size", "--embedding", path)
    assert code == 0 and out == run_cli("score", "-c", "getCount", "-r", "size")[1], err


# ------------------------------------------------------------------ red-team review 4 (0.5.0)
def test_a_dataframe_is_refused_not_read_as_its_column_names():
    # Iterating over a pandas DataFrame gives its column labels: a one-column frame of predictions and one of
    # references scored the two column names against each other, one pair, without a word.
    pd = pytest.importorskip("pandas")
    from wrd_score import score
    from wrd_score.checks import read_references

    preds, refs = pd.DataFrame({"get count": ["x", "y"]}), pd.DataFrame({"size": ["z", "w"]})
    with pytest.raises(TypeError, match=r"^predictions must be a list of strings, got DataFrame .*column"):
        score(preds, refs)
    with pytest.raises(TypeError, match=r"^references must be .*, got DataFrame .*column"):
        score(["a", "b"], refs)
    with pytest.raises(TypeError, match="got DataFrame"):
        read_references(refs)
    # A column (a Series) is a list of texts, as before.
    assert score(preds["get count"], refs["size"])["f1"] == score(["x", "y"], ["z", "w"])["f1"]


@pytest.mark.parametrize("predictions, references, error, message", [
    ("get count", "size xyz", TypeError, r"^predictions must be a list of strings, got str"),
    (["a", "b"], "ab", TypeError, r"^references must be a list of strings or of lists of strings, got str"),
    ({"a"}, {"b"}, TypeError, r"^predictions must be a list of strings, got set"),
    ((t for t in ["a"]), ["a"], None, None),  # read once, like one score() call
    (["a", None], ["a", "b"], TypeError, r"^predictions\[1\] must be a string"),
    (["a"], ["a", "b"], ValueError, "same length, got 1 and 2"),
])
def test_score_chunked_reads_its_inputs_as_one_call_does(predictions, references, error, message):
    # Two strings of one length were sliced into characters and scored pair by pair (score_chunked("abc", "abd")
    # gave three scores); a set or a generator ended in "'set' object is not subscriptable" / "has no len()".
    from wrd_score import WRDScorer
    from wrd_score.stream import score_chunked

    scorer = WRDScorer()
    if error is None:
        assert score_chunked(scorer, predictions, references, chunk_size=1) == scorer.score(["a"], ["a"])
        return
    with pytest.raises(error, match=message):
        score_chunked(scorer, predictions, references, chunk_size=1)


@pytest.mark.parametrize("content, suffix, message", [
    ("get\t1.0\ncount\t2.0\nget\t3.0\n", ".tsv", r"line 3: token 'get' is given twice \(first on line 1\)"),
    ('{"get": 1.0, "count": 2.0, "get": 3.0}', ".json", "names 'get' twice"),
])
def test_an_idf_file_giving_a_token_twice_is_refused(run_cli, pair_files, tmp_path, content, suffix, message):
    # The last weight won without a word (JSON and TSV alike), as a repeated word in an embedding file or a repeated
    # key in a JSONL row is refused.
    cands, refs = pair_files
    idf = tmp_path / f"idf{suffix}"
    idf.write_text(content)
    code, _, err = run_cli("score", "-c", cands, "-r", refs, "--weights", "idf", "--idf-file", idf)
    assert code == 2 and re.search(message, err) and str(idf) in err and err.count("\n") == 1, err


def test_a_shard_record_naming_a_key_twice_is_refused(run_cli, pair_files, tmp_path):
    # read_json (IDF tables, baselines, shard records) kept a repeated key's last value: a record could carry two
    # "f1" lists, and the merge read the second.
    cands, refs = pair_files
    shard = tmp_path / "s1.json"
    assert run_cli("score", "-c", cands, "-r", refs, "--shard", "1/1", "-o", shard, "-q")[0] == 0
    text = shard.read_text()
    forged = text.replace('"f1":', '"f1": [0.5, 0.5], "f1":', 1)
    assert forged != text
    shard.write_text(forged)
    code, _, err = run_cli("merge", shard)
    assert code == 2 and "names 'f1' twice" in err and err.count("\n") == 1, err


@pytest.mark.parametrize("prediction, reference, message", [
    ("get count", ["size", "getCount"], r"^reference must be a string, got list"),
    ("get count", ["getCount"], r"^reference must be a string, got list"),
    (["get count"], "size", r"^prediction must be a string, got list"),
    (None, "size", r"^prediction must be a string, got NoneType"),
])
def test_explain_draws_one_pair_and_refuses_a_list(prediction, reference, message):
    # explain("get count", ["size", "getCount"]) explained the first reference (F1 0.108) where score() of the same
    # input takes the best one (getCount, F1 1.0): another score for the same input, without a word. A prediction in
    # a list was named "prediction[0]".
    from wrd_score import WRDScorer

    scorer = WRDScorer()
    with pytest.raises(TypeError, match=message):
        scorer.explain(prediction, reference)
    assert scorer.explain("\ud800get count", "size").f1 == scorer.score(["\ufffdget count"], ["size"])["f1"][0]


def test_jsonl_strings_holding_unicode_line_separators_are_read_whole(tmp_path):
    # JSON allows U+2028, U+2029 and U+0085 unescaped inside a string (json.dumps(ensure_ascii=False) writes them so,
    # as files.write_table does); str.splitlines() cut the line there, and the file, the app's own scored output
    # among them, was refused as "not valid JSON".
    pd = pytest.importorskip("pandas")
    from wrd_score.files import read_table, write_table

    rows = pd.DataFrame({"prediction": ["get\u2028count", "a\u2029b", "size\x85"], "reference": ["size", "c", "d"],
                         "human": ["1", "2", "3"]})
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\r\n" for r in rows.to_dict("records")),
                    encoding="utf-8")
    assert read_table(str(path))[["prediction", "reference"]].values.tolist() == \
        rows[["prediction", "reference"]].values.tolist()
    written = tmp_path / "out.jsonl"
    write_table(rows, str(written))
    assert read_table(str(written))["prediction"].tolist() == rows["prediction"].tolist()
    # Lines still end at \n alone: two objects on one line are one line, refused.
    path.write_text('{"prediction": "a", "reference": "b"}\u2028{"prediction": "c", "reference": "d"}\n',
                    encoding="utf-8")
    with pytest.raises(ValueError, match="line 1 is not valid JSON"):
        read_table(str(path))


@pytest.mark.parametrize("cell", ["1_0", "\u0663", "\uff13", "0x10", "3,5"])
def test_a_human_score_is_a_plain_decimal_number_as_an_idf_weight_is(tmp_path, cell):
    # float() reads "1_0" as 10 and digits of other scripts ("\u0663", Arabic-Indic 3; "\uff13", fullwidth 3) as
    # numbers: a human column took them, where an IDF file (the other numbers read from text) refused them.
    pytest.importorskip("pandas")
    from wrd_score.files import read_table

    path = tmp_path / "judgments.tsv"
    path.write_text(f"prediction\treference\thuman\na\tb\t2\nc\td\t{cell}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=rf"row 2: human must be a number \(or empty\), got {re.escape(repr(cell))}"):
        read_table(str(path), numeric=("human",))
    path.write_text("prediction\treference\thuman\na\tb\t 2.5 \nc\td\t-1e-3\ne\tf\tnan\ng\th\t+4\n", encoding="utf-8")
    assert read_table(str(path), numeric=("human",))["human"].tolist()[:2] == [2.5, -0.001]


@pytest.mark.parametrize("stream_side", ["-c", "-r"])
def test_a_stream_longer_than_the_files_beside_it_is_not_copied_past_them(run_cli, pair_files, tmp_path, stream_side):
    # A pipe, FIFO or standard input is copied to a temporary file before its lines are counted: `yes | wrdscore
    # score -r refs.txt` filled the disk (25 MB in 8 s here) before the line counts could disagree. The copy now
    # stops one line past the line count of a regular file beside it.
    import threading

    cands, refs = pair_files  # two lines each
    fifo = tmp_path / "endless"
    os.mkfifo(fifo)
    written = []

    def produce():
        try:
            with open(fifo, "w") as out:
                for _ in range(200_000):  # "endless" for the reader; the old code read it all
                    out.write("getCount\n")
                    written.append(1)
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=produce, daemon=True)
    writer.start()
    args = ["-c", fifo, "-r", refs] if stream_side == "-c" else ["-c", cands, "-r", fifo]
    code, _, err = run_cli("score", *args, "-q")
    writer.join(timeout=60)
    side = "candidates" if stream_side == "-c" else "references"
    other = ("references", refs) if stream_side == "-c" else ("candidates", cands)
    assert code == 2 and err.count("\n") == 1, err
    assert f"{side} {str(fifo)!r} has more lines than {other[0]} file {str(other[1])!r} (2)" in err, err
    assert len(written) < 200_000


def test_an_empty_idf_table_is_refused_not_scored_as_uniform_masses(run_cli, pair_files, tmp_path):
    # idf={} weighed every token by the default weight (1.0): the scores of weights="uniform" under an
    # "idf:user@sha256:..." signature, as a table whose keys are never tokens did before 0.5.0 refused those.
    from wrd_score import WRDScorer, score

    preds, refs = ["get count", "set artwork entry"], ["size", "update image"]
    table = {"get": 0.5, "count": 3.0, "size": 1.0}
    assert score(preds, refs, weights="uniform")["f1"] != score(preds, refs, weights="idf", idf=table)["f1"]
    with pytest.raises(ValueError, match=r"^idf is empty: it weighs no token"):
        score(preds, refs, weights="idf", idf={})
    with pytest.raises(ValueError, match=r"^idf is empty"):
        WRDScorer(weights="norm*idf").idf_table(refs, {})
    cands, refs_file = pair_files
    empty = tmp_path / "idf.json"
    empty.write_text("{}")
    code, _, err = run_cli("score", "-c", cands, "-r", refs_file, "--weights", "idf", "--idf-file", empty)
    assert code == 2 and "is empty" in err and err.count("\n") == 1, err


def test_a_rescaled_picture_shows_the_scores_its_signature_stands_for(run_cli, tmp_path):
    # `wrdscore show --rescale-with-baseline` (plot_alignment(rescale_with_baseline=True)) signed the figure
    # "...|rescale:baseline" but showed only the raw P, R and F1 (0.1084 for get count / size, where score() with that
    # signature gives F1 0.0000): the option changed a note and the footer, never a number.
    pytest.importorskip("matplotlib")
    from wrd_score import WRDScorer, plot_alignment

    rescaled = WRDScorer(rescale_with_baseline=True).score(["get count"], ["size"])
    raw = WRDScorer().explain("get count", "size")
    fig = plot_alignment("get count", "size", rescale_with_baseline=True)
    heading = fig._suptitle.get_text()
    want = (f"P {rescaled['precision'][0]:.4f}    R {rescaled['recall'][0]:.4f}    "
            f"F1 {rescaled['f1'][0]:.4f}")
    assert want in heading, heading
    assert f"P {raw.precision:.4f}" in heading and "rescale:baseline" in fig._supxlabel.get_text().replace("\n", "")
    assert "rescaled" not in plot_alignment("get count", "size")._suptitle.get_text()


@pytest.mark.parametrize("kind", ["folder", "fifo"])
def test_a_table_that_is_not_a_regular_file_is_named_as_such(run_cli, tmp_path, kind):
    # `wrdscore validate x.tsv` on a folder or a FIFO said "file 'x.tsv' does not exist": it does.
    path = tmp_path / "judgments.tsv"
    path.mkdir() if kind == "folder" else os.mkfifo(path)
    code, _, err = run_cli("validate", path, "--no-files", "--quiet")
    assert code == 2 and "is not a regular file" in err and "does not exist" not in err, err
    code, _, err = run_cli("validate", tmp_path / "missing.tsv", "--no-files", "--quiet")
    assert code == 2 and "does not exist" in err, err
