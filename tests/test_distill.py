"""`wrdscore distill`: parity with a plain transformers forward pass, piece composition, no torch at scoring."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from wrd_score import WRDScorer
from wrd_score.backends.static import StaticEmbedding

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from wrd_score.distill import build_vocabulary, count_tokens, distill, encode_tokens  # noqa: E402


@pytest.fixture(scope="module")
def tiny(tmp_path_factory, make_tiny_bert):
    root = tmp_path_factory.mktemp("distill")
    model = make_tiny_bert(root / "bert", num_hidden_layers=2)
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
])
def test_bad_options_name_the_argument(tiny, tmp_path, kwargs, message):
    model_path, corpus, _ = tiny
    with pytest.raises(ValueError, match=message):
        distill(str(tmp_path / "x.npz"), model=str(model_path), corpora=[(str(corpus), "tokens")], progress=False,
                **kwargs)


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

