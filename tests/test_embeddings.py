"""The embedding store (wrd_score/embeddings/): every file format on tiny files made here, the safe npz and its
checks, the per-process cache, unknown tokens composed from n-grams or word pieces, and the vector code's bits."""
import gzip
import hashlib
import os
import sys

import numpy as np
import pytest

from wrd_score import WRDScorer
from wrd_score.backends.static import StaticBackend
from wrd_score.embeddings import StaticEmbedding, load_embedding

gensim = pytest.importorskip("gensim")
from gensim.models.fasttext import save_facebook_model  # noqa: E402


def test_word2vec_text_binary_and_glove_round_trip(kv, tmp_path):
    text, binary, glove = tmp_path / "v.txt", tmp_path / "v.bin", tmp_path / "g.txt"
    kv.save_word2vec_format(str(text))
    kv.save_word2vec_format(str(binary), binary=True)
    glove.write_text("".join(f"{w} {' '.join(repr(float(x)) for x in v)}\n"
                             for w, v in zip(kv.index_to_key, kv.vectors)))
    for path, fmt in ((text, "word2vec"), (binary, "word2vec-binary"), (glove, "glove")):
        for given in ("auto", fmt):
            emb = StaticEmbedding.load(str(path), format=given)
            assert emb.words == kv.index_to_key
            np.testing.assert_allclose(emb.vectors, kv.vectors, atol=1e-6)
            assert not emb.has_ngrams
            assert emb.checksum == hashlib.sha256(path.read_bytes()).hexdigest()


def test_gzipped_word2vec_text(kv, tmp_path):
    path = tmp_path / "v.txt.gz"
    plain = tmp_path / "plain.txt"
    kv.save_word2vec_format(str(plain))
    path.write_bytes(gzip.compress(plain.read_bytes()))
    np.testing.assert_allclose(StaticEmbedding.load(str(path)).vectors, kv.vectors, atol=1e-6)


def test_keyed_vectors_object_and_npz_round_trip(kv, tmp_path):
    emb = StaticEmbedding.from_keyed_vectors(kv, name="tiny", meta={"note": "x"})
    out = tmp_path / "tiny.npz"
    sha = emb.save(str(out), dtype="float32")
    back = StaticEmbedding.load(str(out))
    assert back.words == kv.index_to_key and back.checksum == sha and back.meta == {"note": "x"}
    np.testing.assert_array_equal(back.vectors, kv.vectors)
    # float16 (the default) rounds to ~3 significant digits.
    emb.save(str(out), dtype="float16")
    assert StaticEmbedding.load(str(out)).vectors.dtype == np.float16
    np.testing.assert_allclose(StaticEmbedding.load(str(out)).vectors, kv.vectors, atol=2e-3)


def test_npz_is_byte_reproducible(kv, tmp_path):
    emb = StaticEmbedding.from_keyed_vectors(kv)
    a, b = tmp_path / "a.npz", tmp_path / "b.npz"
    assert emb.save(str(a)) == emb.save(str(b))
    assert a.read_bytes() == b.read_bytes()
    with np.load(str(a), allow_pickle=False) as data:  # plain npz: numpy itself reads it without pickle
        assert set(data.files) == {"words", "vectors", "meta"}


def test_fasttext_bin_ngram_oov_matches_gensim(fasttext_model, tmp_path):
    path = tmp_path / "ft.bin"
    save_facebook_model(fasttext_model, str(path))
    emb = StaticEmbedding.load(str(path))  # auto: the fastText magic number, not word2vec binary
    assert emb.has_ngrams and (emb.min_n, emb.max_n) == (2, 4) and emb.ngram_vectors.shape == (500, 8)
    from gensim.models.fasttext import load_facebook_vectors

    ref = load_facebook_vectors(str(path))
    for oov in ("cnt", "idx", "cfg", "getCnt", "msg", "q"):
        assert oov not in emb
        np.testing.assert_allclose(emb.oov_vector(oov), ref.get_vector(oov), atol=1e-6, rtol=0)
    for word in ("get", "message"):
        np.testing.assert_allclose(emb.vectors[emb.index[word]], ref.get_vector(word), atol=1e-6, rtol=0)


def test_fasttext_keyed_vectors_and_npz_keep_ngrams(fasttext_model, tmp_path):
    wv = fasttext_model.wv
    emb = StaticEmbedding.from_keyed_vectors(wv)
    np.testing.assert_allclose(emb.oov_vector("cnt"), wv.get_vector("cnt"), atol=1e-6, rtol=0)
    out = tmp_path / "ft.npz"
    emb.save(str(out), dtype="float32")
    back = StaticEmbedding.load(str(out))
    np.testing.assert_allclose(back.oov_vector("idx"), wv.get_vector("idx"), atol=1e-6, rtol=0)
    # The backend uses exactly that vector for an unseen token under oov="auto".
    enc = StaticBackend(back, oov="auto").encode(["getIdx"])
    row = enc.tokens.index("idx")
    expected = wv.get_vector("idx") / np.linalg.norm(wv.get_vector("idx"))
    np.testing.assert_allclose(enc.units[row], expected, atol=1e-6)
    assert not enc.exact_only[row]


def test_gensim_pickles_need_allow_pickle(fasttext_model, kv, tmp_path):
    model_path, kv_path = tmp_path / "m.model", tmp_path / "v.kv"
    fasttext_model.save(str(model_path))
    kv.save(str(kv_path))
    for path in (model_path, kv_path):
        with pytest.raises(ValueError, match="pickle"):
            StaticEmbedding.load(str(path))
        with pytest.raises(ValueError, match="pickle"):
            WRDScorer(embedding=str(path))
    with pytest.warns(UserWarning, match="unpickling"):
        emb = StaticEmbedding.load(str(model_path), allow_pickle=True)
    np.testing.assert_allclose(emb.oov_vector("cnt"), fasttext_model.wv.get_vector("cnt"), atol=1e-6, rtol=0)
    with pytest.warns(UserWarning):
        assert StaticEmbedding.load(str(kv_path), allow_pickle=True).words == kv.index_to_key


def test_missing_file_names_the_path(tmp_path):
    missing = str(tmp_path / "nope.npz")
    with pytest.raises(FileNotFoundError, match="nope.npz"):
        StaticEmbedding.load(missing)
    with pytest.raises(FileNotFoundError, match="nope.npz"):
        WRDScorer(embedding=missing)


@pytest.mark.parametrize("name, content, pattern", [
    ("nan.txt", "2 3\na 1 2 3\nb nan 2 3\n", "NaN"),
    ("inf.txt", "a 1 2 3\nb 1 inf 3\n", "NaN or inf"),
    ("wrongdim.txt", "2 3\na 1 2 3\nb 1 2\n", "wrongdim.txt"),
    ("glove_wrongdim.txt", "a 1 2 3\nb 1 2\n", "glove_wrongdim.txt"),
    ("truncated.txt", "3 3\na 1 2 3\nb 1 2 3\n", "truncated.txt"),
    ("notanumber.vec", "2 3\na 1 x 3\nb 1 2 3\n", "notanumber.vec"),
    ("garbage.npz", "not a zip archive", "not a .npz"),
])
def test_corrupt_text_files_raise_clear_value_errors(tmp_path, name, content, pattern):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(ValueError, match=pattern):
        StaticEmbedding.load(str(path))


def test_truncated_binary_and_bad_npz(kv, tmp_path):
    binary = tmp_path / "v.bin"
    kv.save_word2vec_format(str(binary), binary=True)
    binary.write_bytes(binary.read_bytes()[:-7])
    with pytest.raises(ValueError, match="v.bin"):
        StaticEmbedding.load(str(binary))
    wrong = tmp_path / "wrong.npz"
    np.savez(str(wrong), something=np.zeros(3))
    with pytest.raises(ValueError, match="missing arrays"):
        StaticEmbedding.load(str(wrong))
    mismatch = tmp_path / "mismatch.npz"
    np.savez(str(mismatch), words=np.array(["a", "b", "c"]), vectors=np.zeros((2, 3)))
    with pytest.raises(ValueError, match="truncated or corrupt"):
        StaticEmbedding.load(str(mismatch))
    nan_ngrams = tmp_path / "nan_ngrams.npz"
    np.savez(str(nan_ngrams), words=np.array(["a"]), vectors=np.ones((1, 2)),
             ngram_vectors=np.full((4, 2), np.nan), ngram_range=np.array([3, 4]))
    with pytest.raises(ValueError, match="n-gram"):
        StaticEmbedding.load(str(nan_ngrams))
    bad_dim = tmp_path / "bad_dim.npz"
    np.savez(str(bad_dim), words=np.array(["a"]), vectors=np.ones((1, 2)),
             ngram_vectors=np.ones((4, 3)), ngram_range=np.array([3, 4]))
    with pytest.raises(ValueError, match="dimension"):
        StaticEmbedding.load(str(bad_dim))
    with pytest.raises(ValueError, match="extension"):
        StaticEmbedding.load(_touch(tmp_path / "x.weird"))
    with pytest.raises(ValueError, match="embedding_format"):
        StaticEmbedding.load(str(binary), format="pickle")
    with pytest.raises(TypeError, match="name or a path"):
        StaticEmbedding.load(3)


def test_load_embedding_caches_and_notices_changes(kv, tmp_path):
    path = tmp_path / "c.npz"
    StaticEmbedding.from_keyed_vectors(kv).save(str(path))
    first = load_embedding(str(path))
    assert load_embedding(str(path)) is first
    StaticEmbedding(["x"], np.ones((1, 3))).save(str(path))
    os.utime(path, ns=(1, 1))  # a different mtime even on coarse-clock filesystems
    assert load_embedding(str(path)).words == ["x"]


def test_a_broken_tokenizer_in_an_embedding_file_is_a_clear_error(tmp_path):
    from wrd_score.embeddings.formats import _write_npz

    path = tmp_path / "broken.npz"
    _write_npz(str(path), {"words": np.array(["get", "count"]), "vectors": np.eye(2, dtype=np.float16),
                           "tokenizer": np.array('{"not": "a tokenizer"}')})
    with pytest.raises(ValueError, match="broken.*tokenizer that the tokenizers library cannot read"):
        StaticEmbedding.load(str(path))


# ------------------------------------------------------------- fixed document-frequency tables (issue 21)
def _df_file(path, **df):
    np.savez(str(path), words=np.array(["get", "count"]), vectors=np.ones((2, 3)), **df)
    return str(path)


def test_a_df_table_in_an_npz_is_exposed_and_survives_a_save(tmp_path):
    path = _df_file(tmp_path / "df.npz", df_tokens=np.array(["get", "count"]),
                    df_counts=np.array([7, 2], dtype=np.int64), df_documents=np.array(9, dtype=np.int64))
    emb = StaticEmbedding.load(path)
    assert emb.df_table == {"get": 7, "count": 2} and emb.df_documents == 9
    emb.save(str(tmp_path / "again.npz"))
    again = StaticEmbedding.load(str(tmp_path / "again.npz"))
    assert again.df_table == emb.df_table and again.df_documents == 9
    with np.load(str(tmp_path / "again.npz")) as data:  # the file contract the weights read
        assert data["df_tokens"].dtype.kind == "U" and data["df_counts"].dtype == np.int64
        assert data["df_documents"].shape == () and data["df_documents"].dtype == np.int64


def test_an_embedding_without_a_df_table_says_so(kv):
    emb = StaticEmbedding.from_keyed_vectors(kv)
    assert emb.df_table is None and emb.df_documents is None


GOOD_DF = dict(df_tokens=np.array(["get", "count"]), df_counts=np.array([7, 2], dtype=np.int64),
               df_documents=np.array(9, dtype=np.int64))


@pytest.mark.parametrize("change, pattern", [
    (dict(df_counts=None), r"partial document-frequency table: missing \['df_counts'\]"),
    (dict(df_documents=None), r"missing \['df_documents'\]"),
    (dict(df_counts=np.array([7.0, 2.0])), "df_counts must be a 1-D integer"),
    (dict(df_counts=np.array([7.0, np.nan])), "df_counts must be a 1-D integer"),
    (dict(df_counts=np.array([True, False])), "df_counts must be a 1-D integer"),
    (dict(df_counts=np.array([7, -1])), r"df_counts must lie in \[0, df_documents=9\]"),
    (dict(df_counts=np.array([7, 10])), r"df_counts must lie in \[0, df_documents=9\]"),
    (dict(df_counts=np.array([7, 2, 1])), "df_counts has 3 entries for 2 df_tokens"),
    (dict(df_tokens=np.array([b"get", b"count"])), "df_tokens must be a 1-D unicode array"),
    (dict(df_tokens=np.array([["get", "count"]])), "df_tokens must be a 1-D unicode array"),
    (dict(df_tokens=np.array(["get", "get"])), "1 duplicate tokens"),
    (dict(df_documents=np.array([9])), "df_documents must be a 0-D integer"),
    (dict(df_documents=np.array(9.5)), "df_documents must be a 0-D integer"),
    (dict(df_documents=np.array(0)), "df_documents must be at least 1"),
])
def test_hostile_df_arrays_are_clear_errors_naming_the_file(tmp_path, change, pattern):
    df = {k: v for k, v in dict(GOOD_DF, **change).items() if v is not None}
    path = _df_file(tmp_path / "hostile.npz", **df)
    with pytest.raises(ValueError, match=pattern) as err:
        StaticEmbedding.load(path)
    assert "hostile.npz" in str(err.value) and "\n" not in str(err.value)


def test_a_df_table_given_in_python_is_checked_too():
    with pytest.raises(ValueError, match="df_table and df_documents go together"):
        StaticEmbedding(["a"], np.ones((1, 2)), df_table={"a": 1})
    with pytest.raises(ValueError, match=r"embedding 'x': df_counts must lie in"):
        StaticEmbedding(["a"], np.ones((1, 2)), name="x", df_table={"a": 3}, df_documents=2)


def test_table_unit_rows_are_the_bits_of_unit_rows_over_the_widened_rows():
    """encode() widens, norms and divides float16 rows in one compiled pass (numpy's pairwise
    sum for the norm): the bits of unit_rows(table[rows].astype(float64)), on every row of the
    default embedding and on random tables of 0-4096 dimensions with zero, tiny and NaN rows."""
    from wrd_score.embeddings import table_unit_rows, unit_rows

    def bits(pair):
        return [np.asarray(a).view(np.int64).tolist() for a in pair]

    table = WRDScorer().backend.embedding.vectors
    rows = np.arange(len(table))
    assert bits(table_unit_rows(table, rows)) == bits(unit_rows(table.astype(np.float64)))
    rng = np.random.default_rng(3)
    for d in [0, 1, 7, 8, 9, 127, 128, 129, 250, 300, 384, 484, 1000, 4096]:
        table = (rng.standard_normal((6, d)) * rng.choice([1e-4, 1.0, 300.0])).astype(np.float16)
        table[0] = 0.0
        table[1] = np.float16(6e-8)  # float16's smallest subnormal
        if d:
            table[2, 0] = np.nan
        rows = rng.integers(0, 6, size=15)
        got, want = table_unit_rows(table, rows), unit_rows(table[rows].astype(np.float64))
        assert bits(got) == bits(want), d
    # The norm's sum alone (a square root can hide a last-bit difference of its argument).
    from wrd_score.embeddings.vectors import _pairwise_sum

    for n in list(range(0, 300)) + [484, 1000, 4097]:
        values = rng.random(n) * rng.choice([1e-3, 1.0, 1e3], size=n)
        assert _pairwise_sum(values, n, np.empty((3, 64), dtype=np.int64), np.empty(64)) == np.add.reduce(values), n
    # Every float16 bit pattern (subnormals, infinities, quiet and signalling NaNs), in rows whose
    # lengths leave every remainder of the 8-wide widening and the eight running sums.
    patterns = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    for d in [3, 8, 13, 16, 136, 484]:
        table = np.resize(patterns, (-(-(1 << 16) // d), d))
        rows = np.concatenate([rng.permutation(len(table)), rng.integers(0, len(table), size=50)])
        with np.errstate(invalid="ignore", over="ignore"):  # the inf and NaN rows
            got, want = table_unit_rows(table, rows), unit_rows(table[rows].astype(np.float64))
        assert bits(got) == bits(want), d
    table32 = rng.standard_normal((4, 5)).astype(np.float32)  # other dtypes take unit_rows itself
    assert bits(table_unit_rows(table32, [3, 0])) == bits(unit_rows(table32[[3, 0]].astype(np.float64)))


def _bits(a):
    return np.ascontiguousarray(a, dtype=np.float64).view(np.int64)


def test_composed_vectors_of_many_tokens_are_each_tokens_mean_to_the_bit(default):
    """oov_vectors composes the tokens together; each row must be the per-token mean(axis=0), bit for
    bit: in float64 n-grams of widely spread magnitudes (where the order of the adds shows), signed
    zeros, tokens of 0 to 100+ n-grams, cached and fresh tokens mixed, repeats, and word pieces."""
    from gensim.models.fasttext import ft_ngram_hashes

    rng = np.random.default_rng(0)
    grams = rng.standard_normal((700, 12)) * np.exp(rng.standard_normal((700, 1)) * 8)
    grams[rng.random(grams.shape) < 0.2] = -0.0
    grams[:, 5] = -0.0  # a column of -0.0: mean's sum starts from +0.0
    emb = StaticEmbedding(["a"], np.ones((1, 12)), ngram_vectors=grams, min_n=2, max_n=5)
    letters = list("abcdefghij") + ["é"]
    tokens = ["".join(rng.choice(letters, size=n)) for n in rng.integers(0, 30, size=300)] + ["", "q", "q"]

    def one(token):
        rows = ft_ngram_hashes(token, 2, 5, 700)
        return grams[rows].astype(np.float64).mean(axis=0) if len(rows) else np.zeros(12)

    expected = np.array([one(t) for t in tokens])
    assert np.array_equal(_bits(emb.oov_vectors(tokens[::2])), _bits(expected[::2]))  # fresh
    assert np.array_equal(_bits(emb.oov_vectors(tokens)), _bits(expected))  # half cached
    assert np.array_equal(_bits(emb.oov_vector(tokens[1])), _bits(expected[1]))
    assert emb.oov_vectors([]).shape == (0, 12)
    words = ["elts", "numelts", "xyzzyq", "cnt", "getcnt", "qqqqqqqqqqqqqqqqqqqqqqqqq"]
    pieces = [default._piece_rows(w) for w in words]
    expected = [default.vectors[p].astype(np.float64).mean(axis=0) for p in pieces]
    assert np.array_equal(_bits(default.oov_vectors(words)), _bits(expected))


def test_composed_vector_cache_is_bounded_in_bytes_and_can_be_emptied(monkeypatch):
    """The composed vectors kept from call to call must stay under MAX_OOV_CACHE_BYTES however many
    distinct unknown tokens arrive (by entries, 200,000 of 484 dimensions were 775 MB), evict the
    oldest, and give the same vectors after eviction or clear_oov_cache()."""
    from wrd_score.embeddings import store

    rng = np.random.default_rng(1)
    grams = rng.standard_normal((50, 64))
    emb = StaticEmbedding(["a"], np.ones((1, 64)), ngram_vectors=grams, min_n=2, max_n=4)
    budget = 40 * (sys.getsizeof(np.zeros(64)) + sys.getsizeof("tok00000") + store._OOV_ENTRY_OVERHEAD)
    monkeypatch.setattr(store, "MAX_OOV_CACHE_BYTES", budget)
    tokens = [f"tok{i:05d}" for i in range(300)]
    first = emb.oov_vectors(tokens)
    assert 0 < emb._oov_cache_bytes <= budget
    assert len(emb._oov_cache) <= 40 and tokens[-1] in emb._oov_cache and tokens[0] not in emb._oov_cache
    assert emb._oov_cache_bytes == sum(store._oov_entry_bytes(t, v) for t, v in emb._oov_cache.items())
    assert np.array_equal(_bits(emb.oov_vectors(tokens[:5])), _bits(first[:5]))  # evicted, composed again
    emb.oov_vectors(tokens[-3:] + tokens[-3:])  # cached and repeated: no double count
    assert emb._oov_cache_bytes == sum(store._oov_entry_bytes(t, v) for t, v in emb._oov_cache.items())
    emb.clear_oov_cache()
    assert emb._oov_cache_bytes == 0 and not emb._oov_cache
    assert np.array_equal(_bits(emb.oov_vectors(tokens)), _bits(first))


def test_row_means_of_a_float16_table_are_numpys_means_to_the_bit():
    """The compiled pass over a float16 table must give mean(axis=0) of the widened rows, bit for bit,
    as the numpy path does for any other table: wide magnitudes, subnormals, signed zeros, tokens of
    0 to 12 rows, a row repeated."""
    from wrd_score.embeddings import row_means

    rng = np.random.default_rng(3)
    table = (rng.standard_normal((300, 37)) * np.exp(rng.standard_normal((300, 1)) * 4)).astype(np.float16)
    table[rng.random(table.shape) < 0.1] = -0.0
    table[:5] = np.float16(6e-8)  # subnormal
    counts = rng.integers(0, 13, size=200)
    rows = rng.integers(0, 300, size=int(counts.sum()))
    rows[:3] = 7
    expected, at = [], 0
    for c in counts:
        picked = table[rows[at:at + c]].astype(np.float64)
        expected.append(picked.mean(axis=0) if c else np.zeros(37))
        at += c
    assert np.array_equal(_bits(row_means(table, rows, counts)), _bits(np.array(expected)))
    assert np.array_equal(_bits(row_means(table.astype(np.float32), rows, counts)), _bits(np.array(expected)))
    assert row_means(table, rows[:0], counts[:0]).shape == (0, 37)


def test_word_pieces_of_plain_words_skip_encode_only_where_that_gives_encodes_pieces(default):
    """Plain words ([a-z0-9]+) go to the WordPiece model directly, skipping encode's normaliser and
    pre-tokeniser; their rows must be encode's (long words, digits, [UNK] words), and a tokenizer
    whose added tokens or normaliser could change a plain word must keep encode."""
    import random
    import string

    from tokenizers import Tokenizer, normalizers

    from wrd_score.embeddings.store import _direct_word_pieces

    tokenizer = default._pieces

    def by_encode(word):
        return [default.index[p] for p in tokenizer.encode(word, add_special_tokens=False).tokens if p in default.index]

    rng = random.Random(0)
    words = ["".join(rng.choice(string.ascii_lowercase + string.digits) for _ in range(rng.randint(1, 30)))
             for _ in range(3000)] + ["a" * 100, "a" * 101, "numelts", "getcnt", "0x1f"]
    assert [default._piece_rows(w) for w in words] == [by_encode(w) for w in words]
    assert default._direct[1]  # the shipped tokenizer takes the direct path
    added = Tokenizer.from_str(tokenizer.to_str())
    added.add_tokens(["count"])
    assert _direct_word_pieces(added, default.index)[1] == []
    other = Tokenizer.from_str(tokenizer.to_str())
    other.normalizer = normalizers.Lowercase()
    assert _direct_word_pieces(other, default.index)[1] == []


def _touch(path):
    path.write_text("x")
    return str(path)


def test_int8_files_store_one_byte_a_value_and_read_back_as_float16_tables(fasttext_model, tmp_path):
    """dtype="int8": codes and one float32 scale per row (vectors and fastText n-grams alike); loaded, the
    table is the float16 the fast paths read, within INT8_TOLERANCE of the vectors, and scores follow."""
    from gensim.models.fasttext import save_facebook_model
    from wrd_score.embeddings import INT8_TOLERANCE, dequantize_rows, quantize_rows, safe_norms

    source = tmp_path / "ft.bin"
    save_facebook_model(fasttext_model, str(source))
    emb = StaticEmbedding.load(str(source))
    half, small = tmp_path / "half.npz", tmp_path / "small.npz"
    emb.save(str(half), dtype="float16")
    sha = emb.save(str(small), dtype="int8")
    assert small.stat().st_size < half.stat().st_size
    with np.load(str(small), allow_pickle=False) as data:
        assert data["vectors"].dtype == np.int8 and data["ngram_vectors"].dtype == np.int8
        assert data["vector_scales"].shape == (len(emb.words),) and data["vector_scales"].dtype == np.float32
        assert data["ngram_scales"].shape == (len(emb.ngram_vectors),)
        codes, scales = data["vectors"], data["vector_scales"]
    back = StaticEmbedding.load(str(small))
    assert back.checksum == sha and back.words == emb.words and back.vectors.dtype == np.float16
    assert back.ngram_vectors.dtype == np.float16 and (back.min_n, back.max_n) == (emb.min_n, emb.max_n)
    np.testing.assert_array_equal(back.vectors, dequantize_rows(codes, scales))
    np.testing.assert_array_equal(back.vectors, (codes.astype(np.float32) * scales[:, None]).astype(np.float16))
    for original, stored in ((emb.vectors, back.vectors), (emb.ngram_vectors, back.ngram_vectors)):
        original = original.astype(np.float64)
        assert (safe_norms(stored.astype(np.float64) - original) <= INT8_TOLERANCE * safe_norms(original)).all()
    pairs = (["get count", "set size", "qzxvwk"], ["count", "size value", "qzxvw"])
    np.testing.assert_allclose(WRDScorer(embedding=str(small)).score(*pairs)["f1"],
                               WRDScorer(embedding=str(half)).score(*pairs)["f1"], atol=0.02)
    again = tmp_path / "again.npz"
    assert emb.save(str(again), dtype="int8") == sha  # byte-reproducible, as every .npz
    codes, scales = quantize_rows(np.array([[0.0, 0.0], [3.0, -1.5]]))  # a zero row stays zero
    assert codes.tolist() == [[0, 0], [127, -64]] and scales[0] == 0


def test_int8_storage_refuses_what_it_cannot_keep(tmp_path):
    # A row whose size sits in one entry loses the small ones (each below 1/254 of the largest): refused,
    # naming int8 and the way out, before anything is written.
    emb = StaticEmbedding(["a", "b"], np.array([[1.0, 0.5, 0.25], [0.5, 1.0, 0.0]]))
    spiky = StaticEmbedding(["a", "b"], np.hstack([np.full((2, 1), 100.0), np.full((2, 3000), 0.3)]))
    out = tmp_path / "x.npz"
    with pytest.raises(ValueError, match="cannot be stored as int8.*float32"):
        spiky.save(str(out), dtype="int8")
    assert not out.exists()
    with pytest.raises(ValueError, match="dtype must be one of"):
        emb.save(str(out), dtype="int4")
    huge = StaticEmbedding(["a"], np.array([[1e6, 1.0]]))
    with pytest.raises(ValueError, match="float16 range"):
        huge.save(str(out), dtype="int8")


@pytest.mark.parametrize("change, pattern", [
    (dict(vector_scales=np.ones(3, dtype=np.float32)), "one float32 scale per row"),
    (dict(vector_scales=np.ones(2, dtype=np.float64)), "one float32 scale per row"),
    (dict(vector_scales=np.array([1.0, np.nan], dtype=np.float32)), "finite and >= 0"),
    (dict(vector_scales=np.array([1.0, -1.0], dtype=np.float32)), "finite and >= 0"),
    (dict(vector_scales=np.array([1.0, 1e4], dtype=np.float32)), "float16's range"),
    (dict(vectors=np.ones((2, 2), dtype=np.float16)), "goes with int8"),
])
def test_hostile_int8_scales_are_one_line_errors_naming_the_file(tmp_path, change, pattern):
    from wrd_score.embeddings.formats import _write_npz

    arrays = dict(words=np.array(["a", "b"]), vectors=np.array([[127, -3], [5, 0]], dtype=np.int8),
                  vector_scales=np.array([0.01, 0.5], dtype=np.float32))
    arrays.update(change)
    path = tmp_path / "bad.npz"
    with open(path, "wb") as handle:
        _write_npz(handle, arrays)
    with pytest.raises(ValueError, match=pattern) as info:
        StaticEmbedding.load(str(path))
    assert "bad.npz" in str(info.value) and "\n" not in str(info.value)


def test_int8_vectors_without_scales_are_plain_integers_as_before(tmp_path):
    path = tmp_path / "ints.npz"
    np.savez(str(path), words=np.array(["a", "b"]), vectors=np.array([[3, 4], [0, 1]], dtype=np.int8))
    np.testing.assert_array_equal(StaticEmbedding.load(str(path)).vectors, [[3, 4], [0, 1]])


@pytest.mark.parametrize("kwargs, message", [
    (dict(path="default", format="glove"), "embedding_format='glove' applies to an embedding file"),
    (dict(path="wrd-minilm-distilled", allow_pickle=True), "allow_pickle=True applies to an embedding file"),
    (dict(path="glove-6b-50d", format="word2vec"), "embedding_format='word2vec' applies to an embedding file"),
])
def test_a_file_option_with_a_named_embedding_is_refused_not_ignored(kwargs, message):
    """Before, ``embedding_format="glove"`` with the default embedding scored with the shipped file as if not given."""
    with pytest.raises(ValueError, match=message):
        StaticEmbedding.load(kwargs.pop("path"), **kwargs)


def test_allow_pickle_with_a_file_that_is_no_pickle_is_refused(kv, tmp_path):
    path = tmp_path / "w.txt"
    kv.save_word2vec_format(str(path))
    with pytest.raises(ValueError, match="allow_pickle=True applies to gensim pickles only"):
        StaticEmbedding.load(str(path), format="word2vec", allow_pickle=True)
    assert StaticEmbedding.load(str(path), format="word2vec").words == kv.index_to_key
