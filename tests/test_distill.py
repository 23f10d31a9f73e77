"""`wrdscore distill`: parity with a plain transformers forward pass, piece composition, no torch at scoring."""
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from wrd_score import WRDScorer
from wrd_score.embeddings import StaticEmbedding

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from wrd_score.distill import build_vocabulary, count_tokens, distill, encode_tokens  # noqa: E402


@pytest.fixture(scope="module")
def tiny(tmp_path_factory, tiny_bert):
    root = tmp_path_factory.mktemp("distill")
    model = Path(tiny_bert)
    corpus = root / "corpus.txt"
    corpus.write_text("get count\nget size\nset color\nget count value\nreceive message\n" * 3)
    out = root / "tiny.npz"
    distill(str(out), model=str(model), corpora=[(str(corpus), "tokens")], min_count=2, layer=1,
            progress=False, name="tiny-distilled")
    return model, corpus, out


def _manual(model_path, token, layer, pooling):
    tok = transformers.AutoTokenizer.from_pretrained(model_path)
    model = transformers.AutoModel.from_pretrained(model_path).eval()
    enc = tok(token, return_tensors="pt")
    with torch.inference_mode():
        h = model(**enc, output_hidden_states=True).hidden_states[layer][0]
    return {"pieces": h[1:-1].mean(0), "all": h.mean(0), "first": h[0]}[pooling].numpy()


@pytest.mark.parametrize("pooling", ["pieces", "all", "first"])
def test_encode_tokens_matches_a_plain_forward_pass(tiny, pooling):
    model_path, _, _ = tiny
    tok = transformers.AutoTokenizer.from_pretrained(model_path)
    model = transformers.AutoModel.from_pretrained(model_path)
    words = ["get", "getcount", "receivemessage", "##ing", "x"]
    out = encode_tokens(model, tok, words, [0, 2], pooling, progress=False)
    for i, word in enumerate(words):
        if word == "##ing":  # a word piece is fed as itself, not re-tokenised
            continue
        for layer in (0, 2):
            np.testing.assert_allclose(out[layer][i], _manual(model_path, word, layer, pooling), atol=1e-5)


def test_results_are_the_same_run_after_run(tiny):
    model_path, _, _ = tiny
    tok = transformers.AutoTokenizer.from_pretrained(model_path)
    model = transformers.AutoModel.from_pretrained(model_path)
    words = ["get", "getcount", "set", "colour", "receivemessage", "a", "zz"]
    one = encode_tokens(model, tok, words, [1], "pieces", progress=False)[1]
    again = encode_tokens(model, tok, words, [1], "pieces", progress=False)[1]
    np.testing.assert_array_equal(one, again)


def test_vocabulary_is_corpus_tokens_then_pieces(tiny):
    model_path, corpus, _ = tiny
    tok = transformers.AutoTokenizer.from_pretrained(model_path)
    counts = count_tokens([(str(corpus), "tokens")])
    vocab = build_vocabulary(counts, tok, min_count=4)
    assert vocab[:2] == ["get", "count"]  # most frequent first
    assert "[CLS]" not in vocab and "[unused0]" not in vocab
    assert "##ing" in vocab and len(vocab) == len(set(vocab))


def test_unknown_token_is_the_mean_of_its_pieces(tiny):
    _, _, out = tiny
    emb = StaticEmbedding.load(str(out))
    assert emb.has_pieces and emb.meta["pooling"] == "pieces" and emb.meta["layer"] == 1
    word = "getcountx"
    assert word not in emb
    pieces = transformers.AutoTokenizer.from_pretrained(tiny[0]).tokenize(word)
    assert len(pieces) > 1
    expected = np.mean([emb.vectors[emb.index[p]].astype(np.float64) for p in pieces], axis=0)
    np.testing.assert_allclose(emb.oov_vector(word), expected)


def test_no_token_without_a_vector(tiny):
    _, _, out = tiny
    scorer = WRDScorer(embedding=str(out))
    enc = scorer.backend.encode(["qwertzuiop xyzzy getCountOfFoo"])
    assert not enc.exact_only.any()


def test_static_scoring_works_without_torch(tiny):
    _, _, out = tiny
    code = textwrap.dedent(f"""
        import sys
        for name in ("torch", "transformers"):
            sys.modules[name] = None  # any import of them now raises ImportError
        from wrd_score import WRDScorer
        r = WRDScorer(embedding={str(out)!r}).score(["getCountOfQwertz"], ["size"])
        assert 0 <= r["f1"][0] <= 1, r
        print("ok", r["f1"][0])
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok")


def test_distill_is_deterministic(tiny, tmp_path):
    model_path, corpus, out = tiny
    again = tmp_path / "again.npz"
    distill(str(again), model=str(model_path), corpora=[(str(corpus), "tokens")], min_count=2, layer=1,
            progress=False, name="tiny-distilled")
    a, b = StaticEmbedding.load(str(out)), StaticEmbedding.load(str(again))
    assert a.words == b.words
    np.testing.assert_array_equal(a.vectors, b.vectors)


@pytest.mark.parametrize("kwargs, message", [
    (dict(pooling="max"), "pooling must be one of"),
    (dict(min_count=0), "min_count must be a positive integer"),
    (dict(pca_dims=0), "pca_dims must be"),
    (dict(sif=2.0), "sif must be"),
    (dict(layer=9), "layer must be in"),
    (dict(blend=1.5), "blend must be a number in"),
    (dict(code_weight=-0.1), "code_weight must be a number in"),
    (dict(code_method="average"), "code_method must be one of"),
    (dict(aggregate_cap=0), "aggregate_cap must be a positive integer"),
    (dict(aggregate_min_count=0), "aggregate_min_count must be a positive integer"),
    (dict(code_neighbours=0), "code_neighbours must be a positive integer"),
    (dict(df_min_count=0), "df_min_count must be a positive integer"),
    (dict(aggregate=[("x.txt", "tokens")]), "aggregate corpora must have format identifiers or stsb"),
    (dict(df_corpora=[("x.txt", "tokens")]), "df_corpora corpora must have format"),
])
def test_bad_options_name_the_argument(tiny, tmp_path, kwargs, message):
    model_path, corpus, _ = tiny
    with pytest.raises(ValueError, match=message):
        distill(str(tmp_path / "x.npz"), model=str(model_path), corpora=[(str(corpus), "tokens")], progress=False,
                **kwargs)


@pytest.mark.parametrize("kwargs, message", [
    (dict(blend=0.3), "blend given without aggregate"),            # wrote a file as if no blend were asked for
    (dict(aggregate_cap=3, aggregate_min_count=2), "aggregate_min_count, aggregate_cap given without aggregate"),
    (dict(code_method="concat"), "code_method given without code_space"),
    (dict(code_weight=0.2, code_neighbours=3), "code_weight, code_neighbours given without code_space"),
    (dict(df_min_count=3, df_corpora=None), "df_min_count given without df_corpora"),
    (dict(fit_options={"epochs": 2}), "fit_options given without fit"),
    (dict(fit_exclude=[("x.tsv", "stsb")]), "fit_exclude given without fit"),
    (dict(teacher_cache="cache"), "teacher_cache given without fit"),
])
def test_a_step_option_without_its_step_is_refused_not_ignored(tiny, tmp_path, kwargs, message):
    model_path, corpus, _ = tiny
    with pytest.raises(ValueError, match=message):
        distill(str(tmp_path / "x.npz"), model=str(model_path), corpora=[(str(corpus), "tokens")], progress=False,
                **kwargs)
    assert not (tmp_path / "x.npz").exists()


@pytest.mark.parametrize("argv, message", [
    (["--blend", "0.3"], "--blend given without --aggregate"),
    (["--code-method", "concat", "--code-neighbours", "4"], "--code-method, --code-neighbours given without --code-space"),
    (["--df-min-count", "3", "--no-df"], "--df-min-count given without --df-corpus"),
    (["--fit-epochs", "2"], "--fit-epochs given without --fit"),
    (["--teacher-cache", "tc"], "--teacher-cache given without --fit"),
    (["--fit-exclude", "x.tsv:stsb"], "--fit-exclude given without --fit"),
    (["--sif", "nan"], "--sif"),
])
def test_cli_distill_refuses_ignored_and_bad_options(tiny, tmp_path, capsys, argv, message):
    from wrd_score.cli import main

    model_path, corpus, _ = tiny
    out = tmp_path / "x.npz"
    assert main(["distill", "--model", str(model_path), "--corpus", f"{corpus}:tokens", "-o", str(out),
                 "--no-progress", *argv]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_cli_distill(tiny, tmp_path, capsys):
    from wrd_score.cli import main

    model_path, corpus, _ = tiny
    out = tmp_path / "cli.npz"
    assert main(["distill", "-o", str(out), "--model", str(model_path), "--corpus", f"{corpus}:tokens",
                 "--min-count", "2", "--layer", "1", "--no-progress"]) == 0
    assert "sha256" in capsys.readouterr().out
    assert main(["distill", "-o", str(out), "--model", str(model_path), "--corpus", f"{corpus}:bogus"]) == 2
    assert "--corpus takes PATH:FORMAT" in capsys.readouterr().err


def test_pca_goes_through_model2vec(tiny, tmp_path):
    pytest.importorskip("model2vec")
    model_path, corpus, _ = tiny
    out = tmp_path / "pca.npz"
    distill(str(out), model=str(model_path), corpora=[(str(corpus), "tokens")], min_count=2, layer=1,
            pca_dims=8, progress=False)
    emb = StaticEmbedding.load(str(out))
    assert emb.dim == 8 and emb.meta["pca_dims"] == 8



# ------------------------------------------- aggregation, code space, document frequencies (issue 21)
from wrd_score.distill import concatenate_code, document_frequency_table, retrofit  # noqa: E402


@pytest.fixture(scope="module")
def documents(tmp_path_factory):
    root = tmp_path_factory.mktemp("documents")
    names = root / "names.txt"
    names.write_text("getCount\nget_count\nsetColor\ngetSize\nreceiveMessage\ngetCount\n")
    stsb = root / "stsb.tsv"
    stsb.write_text("id\tprediction\treference\thuman\n1\tA man gets the count.\tThe size is set.\t3.0\n")
    return str(names), str(stsb)


def test_df_table_counts_distinct_documents(documents):
    names, stsb = documents
    tokens, counts, n = document_frequency_table([(names, "identifiers"), (stsb, "stsb")], min_df=2)
    # documents: "get count" (getCount and get_count split alike), "set color", "get size", "receive message",
    # and the two sentences
    assert n == 6
    assert dict(zip(tokens.tolist(), counts.tolist())) == {"count": 2, "get": 2, "set": 2, "size": 2, "the": 2}
    assert tokens.dtype.kind == "U" and counts.dtype == np.int64


def test_distill_stores_the_df_table_of_its_document_corpora(tiny, documents, tmp_path):
    model_path, corpus, out = tiny
    names, stsb = documents
    path = tmp_path / "df.npz"
    distill(str(path), model=str(model_path), corpora=[(str(corpus), "tokens"), (names, "identifiers")],
            min_count=2, layer=1, progress=False)
    emb = StaticEmbedding.load(str(path))
    assert emb.df_documents == 4 and emb.df_table == {"get": 2}
    assert emb.meta["df"]["documents"] == 4
    # a vocabulary of code-token lines alone has no documents: no table
    assert StaticEmbedding.load(str(out)).df_table is None


def _contextual_mean(model_path, unit, texts, tokenizer, layer):
    from wrd_score.backends.contextual import ContextualBackend

    enc = ContextualBackend(str(model_path), layer=layer, tokenizer=tokenizer, device="cpu", progress=False).encode(texts)
    rows = [i for i, t in enumerate(enc.tokens) if t == unit]
    return (enc.units[rows] * enc.norms[rows, None]).mean(axis=0), len(rows)


def test_aggregate_turns_a_token_toward_its_mean_contextual_vector(tiny, documents, tmp_path):
    model_path, corpus, out = tiny
    names, _ = documents
    full = tmp_path / "agg.npz"
    distill(str(full), model=str(model_path), corpora=[(str(corpus), "tokens")], min_count=2, layer=1,
            aggregate=[(names, "identifiers")], blend=1.0, sif=None, progress=False, df_corpora=None)
    emb, iso = StaticEmbedding.load(str(full)), StaticEmbedding.load(str(out))
    # distinct split names: get count, set color, get size, receive message
    mean, n = _contextual_mean(model_path, "get", ["get count", "set color", "get size", "receive message"],
                               "identifier", 1)
    assert n == 2 and emb.meta["aggregate"]["documents_encoded"] == 4
    got = emb.vectors[emb.index["get"]].astype(np.float64)
    cos = got @ mean / np.linalg.norm(got) / np.linalg.norm(mean)
    assert cos > 0.999
    # the length stays the isolated token's (the SIF mass acts on it as before)
    plain = tmp_path / "plain.npz"
    distill(str(plain), model=str(model_path), corpora=[(str(corpus), "tokens")], min_count=2, layer=1, sif=None,
            progress=False, df_corpora=None)
    np.testing.assert_allclose(np.linalg.norm(got), np.linalg.norm(
        StaticEmbedding.load(str(plain)).vectors[emb.index["get"]].astype(np.float64)), rtol=1e-3)
    # a token absent from the aggregated documents keeps its isolated vector
    assert "value" not in [w for d in ["get count", "set color", "get size", "receive message"] for w in d.split()]
    np.testing.assert_array_equal(emb.vectors[emb.index["value"]],
                                  StaticEmbedding.load(str(plain)).vectors[emb.index["value"]])
    del iso


def test_aggregate_cap_bounds_the_documents_encoded(tiny, documents, tmp_path):
    model_path, corpus, _ = tiny
    names, _ = documents
    path = tmp_path / "cap.npz"
    distill(str(path), model=str(model_path), corpora=[(str(corpus), "tokens")], min_count=2, layer=1,
            aggregate=[(names, "identifiers")], aggregate_cap=1, progress=False, df_corpora=None)
    meta = StaticEmbedding.load(str(path)).meta["aggregate"]
    # "get" and "count" once each: the second get* name is encoded only if it brings a new unit
    assert meta["cap"] == 1 and meta["documents_encoded"] <= 4


def test_distill_with_every_option_is_byte_reproducible(tiny, documents, tmp_path):
    from wrd_score.embeddings import file_sha256

    model_path, corpus, _ = tiny
    names, stsb = documents
    code = StaticEmbedding(["get", "count", "size", "set", "color", "value"], np.random.RandomState(1).randn(6, 4))
    code.save(str(tmp_path / "code.npz"))
    kwargs = dict(model=str(model_path), corpora=[(str(corpus), "tokens"), (names, "identifiers")], min_count=2,
                  layer=1, aggregate=[(names, "identifiers"), (stsb, "stsb")], code_space=str(tmp_path / "code.npz"),
                  code_neighbours=2, progress=False)
    one = distill(str(tmp_path / "one.npz"), **kwargs)
    two = distill(str(tmp_path / "two.npz"), **kwargs)
    assert one == two == file_sha256(str(tmp_path / "two.npz"))
    meta = StaticEmbedding.load(str(tmp_path / "one.npz")).meta
    assert meta["code"]["method"] == "retrofit" and meta["code"]["tokens"] == 6


def _space(words, vectors):
    return StaticEmbedding(words, np.asarray(vectors, dtype=np.float64))


def test_retrofit_pulls_toward_code_neighbours_and_keeps_norms():
    words = ["size", "count", "colour", "piece"]
    vectors = np.array([[3.0, 0, 0], [0, 2.0, 0], [0, 0, 1.0], [1.0, 1.0, 1.0]])
    # in code, size and count are used alike; colour is far from both; "piece" is unknown to code
    code = _space(["size", "count", "colour"], [[1, 0.1], [1, 0.0], [0, 1]])
    out, touched = retrofit(words, vectors, code, neighbours=1, weight=0.5)
    assert touched == 3
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), np.linalg.norm(vectors, axis=1))
    cos = lambda a, b: a @ b / np.linalg.norm(a) / np.linalg.norm(b)  # noqa: E731
    assert cos(vectors[0], vectors[1]) == 0 and cos(out[0], out[1]) > 0.7
    np.testing.assert_array_equal(out[3], vectors[3])
    same, _ = retrofit(words, vectors, code, neighbours=1, weight=0.0)
    np.testing.assert_allclose(same, vectors)


def test_concatenation_blends_cosines_and_keeps_norms():
    words = ["size", "count", "##ing"]
    vectors = np.array([[3.0, 0], [0, 2.0], [1.0, 1.0]])
    code = _space(["size", "count", "ing"], [[1, 0], [0.6, 0.8], [0, 1]])
    out = concatenate_code(words, vectors, code, weight=0.25)
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), np.linalg.norm(vectors, axis=1))
    cos = out[0] @ out[1] / np.linalg.norm(out[0]) / np.linalg.norm(out[1])
    np.testing.assert_allclose(cos, 0.75 * 0.0 + 0.25 * 0.6)
    # a word piece "##ing" takes the code vector of "ing"
    np.testing.assert_allclose(out[2, 2:] / np.linalg.norm(out[2]), np.sqrt(0.25) * np.array([0, 1.0]))


def test_missing_aggregate_corpus_or_code_space_fail_before_encoding(tiny, tmp_path, monkeypatch):
    import wrd_score.distill as module

    model_path, corpus, _ = tiny
    monkeypatch.setattr(module, "encode_tokens", lambda *a, **k: pytest.fail("encoded before checking the options"))
    with pytest.raises(FileNotFoundError, match="aggregate corpus .*nope.txt"):
        distill(str(tmp_path / "x.npz"), model=str(model_path), corpora=[(str(corpus), "tokens")], progress=False,
                aggregate=[(str(tmp_path / "nope.txt"), "identifiers")])
    with pytest.raises(FileNotFoundError, match="nope.npz"):
        distill(str(tmp_path / "x.npz"), model=str(model_path), corpora=[(str(corpus), "tokens")], progress=False,
                code_space=str(tmp_path / "nope.npz"))


def test_cli_distill_new_options(tiny, documents, tmp_path, capsys):
    from wrd_score.cli import main

    model_path, corpus, _ = tiny
    names, stsb = documents
    out = tmp_path / "cli.npz"
    assert main(["distill", "-o", str(out), "--model", str(model_path), "--corpus", f"{corpus}:tokens",
                 "--min-count", "2", "--layer", "1", "--aggregate", f"{names}:identifiers", "--blend", "0.3",
                 "--code-space", "wrd-java-default", "--code-method", "concat", "--code-weight", "0.2",
                 "--df-corpus", f"{names}:identifiers", "--df-corpus", f"{stsb}:stsb", "--no-progress"]) == 0
    emb = StaticEmbedding.load(str(out))
    assert emb.meta["aggregate"]["blend"] == 0.3 and emb.meta["code"]["space"] == "wrd-java-default"
    assert emb.dim == 32 + 100 and emb.df_documents == 6
    assert main(["distill", "-o", str(out), "--model", str(model_path), "--aggregate", f"{corpus}:tokens"]) == 2
    assert "--aggregate takes PATH:FORMAT with FORMAT identifiers, stsb" in capsys.readouterr().err
    assert main(["distill", "-o", str(out), "--model", str(model_path), "--corpus", f"{corpus}:tokens",
                 "--min-count", "2", "--layer", "1", "--no-df", "--no-progress"]) == 0
    assert StaticEmbedding.load(str(out)).df_table is None
