"""The static backend: OOV policies, the shipped default embedding and how it scores (the store itself, its
formats and vector code: tests/test_embeddings.py)."""
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from wrd_score import WRDScorer
from wrd_score.backends.static import NoVectorWarning, StaticBackend
from wrd_score.embeddings import StaticEmbedding, file_sha256, load_embedding, shipped_path

gensim = pytest.importorskip("gensim")



def test_oov_policies_never_crash_nor_drop_silently(kv):
    emb = StaticEmbedding.from_keyed_vectors(kv)
    texts = ["getFrobnicator", "frobnicator", "get", "blorp"]
    auto = StaticBackend(emb, oov="auto").encode(texts)   # no n-grams: auto == exact
    exact = StaticBackend(emb, oov="exact").encode(texts)
    drop = StaticBackend(emb, oov="drop").encode(texts)
    for enc in (auto, exact):
        row = enc.tokens.index("frobnicator")
        assert enc.exact_only[row] and not enc.units[row].any()
        assert enc.norms[row] == pytest.approx(emb.mean_norm)  # a typical mass, not 0 and not huge
        assert [len(s) for s in enc.spans] == [2, 1, 1, 1]
    assert "frobnicator" not in drop.tokens and [len(s) for s in drop.spans] == [1, 0, 1, 0]
    scorer = _scorer_with(emb, "exact")
    out = scorer.score(["frobnicator", "frobnicator", "get frobnicator"], ["frobnicator", "blorp", "get"])
    assert out["f1"][0] == 1.0          # an unknown token matches itself
    assert out["f1"][1] == 0.0          # and nothing else
    assert 0.0 < out["f1"][2] < 1.0     # it keeps its mass: the extra token costs something
    assert all(np.isfinite(out["f1"]))


def _scorer_with(emb, oov):
    # The public scoring pipeline over an in-memory embedding (WRDScorer itself takes a path).
    from wrd_score.scorer import Options

    scorer = WRDScorer.__new__(WRDScorer)
    scorer.options = Options(oov=oov, weights="norm").validate()
    scorer.backend = StaticBackend(emb, oov=oov)
    return scorer


def test_oov_auto_uses_ngrams_and_exact_ignores_them(fasttext_model):
    emb = StaticEmbedding.from_keyed_vectors(fasttext_model.wv)
    auto = StaticBackend(emb, oov="auto").encode(["getCnt"])
    exact = StaticBackend(emb, oov="exact").encode(["getCnt"])
    row = auto.tokens.index("cnt")
    assert not auto.exact_only[row] and exact.exact_only[row]
    assert StaticBackend(emb, oov="drop").encode(["getCnt"]).tokens == ["get"]
    with pytest.raises(ValueError, match="oov"):
        StaticBackend(emb, oov="ignore")


def test_default_file_is_small_safe_and_documented(default, repo):
    path = shipped_path()
    assert os.path.getsize(path) <= 20 * 1024 * 1024
    # the wheel carries every shipped file (each earlier default stays loadable by name): together they stay under
    # 150 MiB (130.9 with the 0.5.0 default, 144.6 with the 0.7.0 one)
    assert sum(p.stat().st_size for p in (repo / "embeddings").glob("*.npz")) <= 150 * 1024 * 1024
    with np.load(path, allow_pickle=False) as data:
        assert data["vectors"].dtype == np.int8 and data["vector_scales"].shape == (len(default),)
        assert "tokenizer" in data.files  # unknown words are composed from word pieces
        meta = json.loads(str(data["meta"]))
    for key in ("method", "model", "layer", "pooling", "sif", "min_count", "corpora", "vocabulary", "command"):
        assert key in meta, key
    assert meta["vocabulary"] == len(default)
    assert meta["command"].startswith("wrdscore distill")  # the input's command; then the specialize step's:
    assert meta["specialize"]["command"].startswith("wrdscore specialize wrd-minilm-distilled")
    assert meta["specialize"]["input"]["sha256"] == load_embedding("wrd-minilm-distilled").checksum
    card = (repo / "embeddings" / "README.md").read_text()
    assert default.checksum in card, "the model card must state the shipped file's sha256"


def test_previous_default_stays_available_by_name():
    from wrd_score.embeddings import load_embedding

    old = load_embedding("wrd-java-default")
    assert old.checksum.startswith("1748089c6358") and old.has_ngrams
    sig = WRDScorer(embedding="wrd-java-default", variant="paper").signature()
    assert "emb:wrd-java-default@sha256:1748089c6358" in sig  # published signatures still resolve


def test_default_loads_with_no_argument(default):
    scorer = WRDScorer()
    assert scorer.backend.embedding is default
    assert f"sha256:{default.checksum[:12]}" in scorer.signature()


def test_default_passes_the_papers_sanity_checks():
    scorer = WRDScorer()
    f1 = scorer.score(["get count", "receive message"], ["size", "size"])["f1"]
    assert f1[0] > f1[1]
    pairs = [("update image", "set artwork entry"), ("advance", "next char"), ("size", "get count"),
             ("receive message", "log"), ("perform validation", "validate url"), ("do until result", "execute"),
             ("detect capital use", "is all capitalized"), ("longest consecutive", "max path"),
             ("schedule course", "get number of days"), ("process username", "verify")]
    out = scorer.score([p for _, p in pairs], [r for r, _ in pairs])["f1"]
    assert min(out) > 0, dict(zip(pairs, out))


@pytest.mark.parametrize("abbr, full, other", [
    ("cnt", "count", "message"), ("idx", "index", "config"), ("cfg", "config", "count"),
    ("msg", "message", "index"), ("len", "length", "message"),
])
def test_default_puts_abbreviations_near_their_expansions(abbr, full, other):
    f1 = WRDScorer().score([abbr, abbr], [full, other])["f1"]
    assert f1[0] > f1[1], (abbr, full, other, f1)


def test_default_composes_unseen_tokens_from_word_pieces(default):
    assert "elts" not in default and default.has_pieces and not default.has_ngrams
    pieces = default._pieces.encode("elts", add_special_tokens=False).tokens
    assert pieces == ["el", "##ts"]
    expected = np.mean([default.vectors[default.index[p]].astype(np.float64) for p in pieces], axis=0)
    np.testing.assert_allclose(default.oov_vector("elts"), expected)
    auto = WRDScorer().score(["numElts"], ["numElements"])["f1"]
    exact = WRDScorer(oov="exact").score(["numElts"], ["numElements"])["f1"]
    assert auto[0] > exact[0]  # the pieces share meaning that exact matching cannot see


def test_the_default_scores_without_torch_transformers_or_gradio():
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        import sys
        for name in ("torch", "transformers", "gradio", "model2vec"):
            sys.modules[name] = None  # importing any of them now raises ImportError
        import wrd_score
        out = wrd_score.score(["getCountOfQwertzElts", "A man plays a guitar."], ["size", "A man is playing music."])
        assert all(0 < f <= 1 for f in out["f1"]), out
        print(out["signature"])
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "emb:wrd-minilm-cf-morph-post-d125@sha256:" in done.stdout


def test_the_code_embedding_file_carries_its_df_table_and_is_documented(repo):
    path = repo / "embeddings" / "wrd-minilm-code.npz"
    assert os.path.getsize(path) <= 40 * 1024 * 1024
    emb = StaticEmbedding.load(str(path))
    assert emb.meta["command"].startswith("wrdscore distill") and emb.meta["code"]["method"] == "concat"
    # the document-frequency contract: documents = distinct method names + STS-B train sentences, df >= 2
    assert emb.df_documents == emb.meta["df"]["documents"] > 250_000
    assert len(emb.df_table) == emb.meta["df"]["tokens"] and min(emb.df_table.values()) >= 2
    assert emb.df_table["get"] > emb.df_table["count"] > 0
    card = (repo / "embeddings" / "README.md").read_text()
    assert emb.checksum in card, "the model card must state the file's sha256"
    assert f"emb:wrd-minilm-code@sha256:{emb.checksum[:12]}" in (repo / "embeddings" / "baselines.json").read_text()


from hypothesis import given as _given, settings as _settings, strategies as _st  # noqa: E402

from wrd_score.backends.base import first_appearance_rows  # noqa: E402


@_settings(max_examples=200, deadline=None, derandomize=True, database=None)
@_given(items=_st.lists(_st.sampled_from(["a", "b", "getCount", "", "\x00"]) | _st.text(max_size=3), max_size=40))
def test_first_appearance_rows_number_values_in_order_of_first_appearance(items):
    values, rows = first_appearance_rows(iter(items), len(items))
    assert values == list(dict.fromkeys(items))
    assert rows.tolist() == [values.index(item) for item in items]


def test_no_vector_warning_shortens_a_huge_token(default):
    """A 100,000-character token (a line of one word, under the 1 MB line cap) has no vector; the
    warning names it, but must not print it whole."""
    backend = StaticBackend(default)
    with pytest.warns(NoVectorWarning) as caught:
        backend.encode(["z" * 100_000, "getCount"])
    message = str(caught[0].message)
    assert len(message) < 500 and "zzzz" in message and "…" in message


# --------------------------------------------------------------------------- the sentences file (issue 31)
SENTENCES_FILE = shipped_path("wrd-minilm-sentences.npz")



def test_the_file_loads_by_name_with_its_tokenizer_and_provenance():
    emb = StaticEmbedding.load("wrd-minilm-sentences")
    assert emb.name == "wrd-minilm-sentences" and emb.checksum == file_sha256(SENTENCES_FILE)
    assert emb.dim == 256 and emb.vectors.dtype == np.float16 and emb.has_pieces and emb.df_table is None
    assert np.isfinite(emb.vectors.astype(np.float32)).all()
    assert emb.meta["command"].startswith("wrdscore distill") and "--fit" in emb.meta["command"]
    fit = emb.meta["fit"]
    assert fit["loss"] == "both" and fit["sentences"]["held-out"] > 0
    assert {"stsb_dev.tsv", "stsb_test.tsv", "sick_train_trial.tsv"} <= set(fit["held_out"])
    assert os.path.getsize(SENTENCES_FILE) <= 20 * 1024 * 1024  # the wheel's embeddings: see the default's test


def test_unknown_words_compose_from_word_pieces():
    scorer = WRDScorer(preset="sentences")
    enc = scorer.backend.encode(["the zorblified quuxes", "unbelievably"])
    assert not enc.exact_only.any()  # every token has a vector, known or composed


def test_it_scores_sentences_without_torch():
    code = textwrap.dedent("""
        import sys
        for name in ("torch", "transformers", "model2vec"):
            sys.modules[name] = None  # any import of them now raises ImportError
        from wrd_score import WRDScorer
        r = WRDScorer(preset="sentences").score(["A man plays a guitar."], ["Someone is playing the guitar."])
        assert 0.5 < r["f1"][0] <= 1, r
        print("ok", r["signature"])
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok") and "emb:wrd-minilm-sentences@sha256:" in done.stdout


def test_paraphrases_score_above_unrelated_sentences():
    got = WRDScorer(preset="sentences").score(
        ["A woman is slicing an onion.", "A woman is slicing an onion."],
        ["Someone is cutting an onion.", "The stock market fell sharply on Monday."])["f1"]
    assert got[0] > got[1] + 0.2
