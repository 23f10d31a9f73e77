"""``wrdscore train`` / ``convert`` and :func:`wrd_score.train.train` on small corpora made here."""
import gzip
import hashlib
import json
import os
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("gensim")

from wrd_score import WRDScorer  # noqa: E402
from wrd_score.embeddings import StaticEmbedding  # noqa: E402
from wrd_score.cli import main  # noqa: E402
from wrd_score.train import Corpus, convert, train  # noqa: E402

VERBS = ["get", "set", "add", "remove", "find", "update", "load", "save", "count", "compute"]
NOUNS = ["user", "item", "count", "index", "config", "message", "size", "value", "name", "file"]


def _lines(n=400, seed=3):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        k = int(rng.integers(1, 4))
        out.append(VERBS[rng.integers(len(VERBS))] + "".join(NOUNS[i].capitalize() for i in rng.integers(0, 10, k)))
    return out


@pytest.fixture(scope="module")
def names(tmp_path_factory):
    """A few hundred camelCase method names (the `identifiers` corpus format)."""
    path = tmp_path_factory.mktemp("corpus") / "names.txt"
    path.write_text("\n".join(_lines()) + "\n")
    return path


@pytest.fixture(scope="module")
def tokens_gz(tmp_path_factory):
    """The same documents pre-split into tokens and gzipped (the `tokens` format)."""
    from wrd_score import split_identifier

    path = tmp_path_factory.mktemp("corpus") / "tokens.txt.gz"
    path.write_bytes(gzip.compress(("\n".join(" ".join(split_identifier(x)) for x in _lines()) + "\n").encode()))
    return path


def test_corpus_formats_gzip_and_fraction(names, tokens_gz):
    by_ids = list(Corpus(names, "identifiers"))
    assert by_ids == list(Corpus(tokens_gz, "tokens"))
    assert all(t.islower() for doc in by_ids for t in doc)
    half = list(Corpus(names, "identifiers", fraction=0.5))
    assert len(half) == len(by_ids) // 2 and half == by_ids[1::2]
    assert list(Corpus([names, names], "identifiers")) == by_ids + by_ids


@pytest.mark.parametrize("method", ["word2vec", "fasttext", "svd"])
def test_each_method_trains_saves_and_records_provenance(method, names, tmp_path):
    out = tmp_path / f"{method}.npz"
    settings = {"word2vec": dict(epochs=3), "fasttext": dict(epochs=3, bucket=2000), "svd": {}}[method]
    emb = train(names, out, method=method, corpus_format="identifiers", min_count=2, **settings)
    assert out.exists() and emb.checksum == hashlib.sha256(out.read_bytes()).hexdigest()
    back = StaticEmbedding.load(str(out))
    assert back.words == emb.words and back.vectors.dtype == np.float16
    np.testing.assert_array_equal(back.vectors, emb.vectors)
    assert set(emb.words) <= set(VERBS + NOUNS) and "get" in emb
    assert emb.dim == (50 if method == "svd" else 100)
    meta = back.meta
    assert meta["method"] == method and meta["vocab_size"] == len(emb) and meta["name"] == method
    assert meta["corpus"][0]["sha256"] == hashlib.sha256(names.read_bytes()).hexdigest()
    assert meta["corpus"][0]["format"] == "identifiers"
    assert meta["parameters"]["min_count"] == 2
    assert back.has_ngrams == (method == "fasttext")
    # The trained file works as a metric embedding.
    out_scores = WRDScorer(embedding=str(out)).score(["getUserName", "getUserName"], ["get_user_name", "saveFile"])
    assert out_scores["f1"][0] == 1.0 and 0.0 <= out_scores["f1"][1] < 1.0


def test_training_is_deterministic_across_processes(names, tmp_path):
    # workers=1 and a seed: the same vectors in another process with another string-hash seed.
    a = train(names, tmp_path / "a.npz", method="fasttext", corpus_format="identifiers", min_count=2,
              bucket=1000, epochs=2, seed=7)
    script = ("import sys; from wrd_score.train import train; "
              "train(sys.argv[1], sys.argv[2], method='fasttext', corpus_format='identifiers', min_count=2, "
              "bucket=1000, epochs=2, seed=7)")
    env = dict(os.environ, PYTHONHASHSEED="12345")
    subprocess.run([sys.executable, "-c", script, str(names), str(tmp_path / "b.npz")], check=True, env=env,
                   timeout=120)
    b = StaticEmbedding.load(str(tmp_path / "b.npz"))
    np.testing.assert_array_equal(a.vectors, b.vectors)
    np.testing.assert_array_equal(a.ngram_vectors, b.ngram_vectors)
    c = train(names, None, method="fasttext", corpus_format="identifiers", min_count=2, bucket=1000, epochs=2, seed=8)
    assert not np.array_equal(a.vectors, c.vectors)  # the seed matters, so the check above can fail
    s1 = train(names, None, method="svd", corpus_format="identifiers", min_count=2, dim=4)
    s2 = train(names, None, method="svd", corpus_format="identifiers", min_count=2, dim=4)
    np.testing.assert_array_equal(s1.vectors, s2.vectors)


def test_svd_matches_the_papers_definition(tmp_path):
    # Co-occurrence within one document, C = U S V, E = U S / 2 (checked against a dense SVD by hand).
    corpus = tmp_path / "c.txt"
    corpus.write_text("a b\na b c\nc d\na a d\nb c\n")
    emb = train(corpus, None, method="svd", min_count=1, dim=2, dtype="float32")
    vocab = emb.words
    assert sorted(vocab) == ["a", "b", "c", "d"]
    c = np.zeros((4, 4))
    for doc in ["a b", "a b c", "c d", "a a d", "b c"]:
        toks = doc.split()
        for i, s in enumerate(toks):
            for j, t in enumerate(toks):
                if i != j:
                    c[vocab.index(s), vocab.index(t)] += 1
    assert c[vocab.index("a"), vocab.index("a")] == 2  # "a a d": the two a's co-occur (both orders)
    u, s, _ = np.linalg.svd(c)
    expected = u[:, :2] * s[:2] / 2
    for k in range(2):  # singular vectors are defined up to sign
        col, ref = emb.vectors[:, k], expected[:, k]
        assert np.allclose(col, ref, atol=1e-5) or np.allclose(col, -ref, atol=1e-5)


def test_fasttext_covers_unseen_abbreviations_word2vec_does_not(names):
    ft = train(names, None, method="fasttext", corpus_format="identifiers", min_count=2, bucket=2000, epochs=3)
    w2v = train(names, None, method="word2vec", corpus_format="identifiers", min_count=2, epochs=3)
    for abbr in ("cnt", "idx", "cfg"):
        assert abbr not in ft and abbr not in w2v
        assert np.linalg.norm(ft.oov_vector(abbr)) > 0
    assert not w2v.has_ngrams


def test_progress_bar_goes_to_stderr(names, capsys):
    train(names, None, method="word2vec", corpus_format="identifiers", min_count=2, epochs=2, progress=True)
    err = capsys.readouterr().err
    assert "training word2vec" in err and "2/2" in err


@pytest.mark.parametrize("kwargs, error, pattern", [
    (dict(method="glove"), ValueError, "method must be one of"),
    (dict(corpus_format="csv"), ValueError, "corpus_format"),
    (dict(fraction=0.0), ValueError, "fraction"),
    (dict(dim=0), ValueError, "dim"),
    (dict(window=-1), ValueError, "window"),
    (dict(min_count=10**9), ValueError, "min_count"),
    (dict(svd_weighting="tfidf"), ValueError, "svd_weighting"),
    (dict(dtype="int4"), ValueError, "dtype"),
    (dict(architecture="transformer"), ValueError, "architecture"),
])
def test_bad_arguments_are_named(names, kwargs, error, pattern):
    with pytest.raises(error, match=pattern):
        train(names, None, **{"corpus_format": "identifiers", "epochs": 1, **kwargs})


def test_bad_paths(names, tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.txt"):
        train(tmp_path / "nope.txt", None)
    with pytest.raises(ValueError, match=".npz"):
        train(names, tmp_path / "out.bin")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        train(names, tmp_path / "no" / "dir" / "out.npz")
    broken = tmp_path / "broken.txt.gz"
    broken.write_bytes(gzip.compress(b"a b c\n" * 100)[:-20])
    with pytest.raises(ValueError, match="broken.txt.gz"):
        train(broken, None, min_count=1)


def test_cli_train_and_convert(names, tmp_path, capsys):
    out = tmp_path / "cli.npz"
    rc = main(["train", str(names), "-o", str(out), "--method", "svd", "--corpus-format", "identifiers",
               "--min-count", "2", "--dim", "8", "--no-progress"])
    assert rc == 0 and out.exists()
    assert "wrote" in capsys.readouterr().out
    meta = StaticEmbedding.load(str(out)).meta
    assert meta["command"].startswith("wrdscore train") and meta["parameters"]["dim"] == 8
    # convert: word2vec text -> npz, the same vectors
    from gensim.models import KeyedVectors

    kv = KeyedVectors(vector_size=3)
    kv.add_vectors(["alpha", "beta"], np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32))
    text = tmp_path / "v.txt"
    kv.save_word2vec_format(str(text))
    converted = tmp_path / "v.npz"
    assert main(["convert", str(text), str(converted)]) == 0
    back = StaticEmbedding.load(str(converted))
    assert back.words == ["alpha", "beta"] and np.array_equal(back.vectors, kv.vectors)
    assert back.meta["converted_from"]["sha256"] == hashlib.sha256(text.read_bytes()).hexdigest()
    # gensim pickles: refused without --allow-pickle (exit 2, one-line error), converted with it
    pickled = tmp_path / "v.kv"
    kv.save(str(pickled))
    capsys.readouterr()
    assert main(["convert", str(pickled), str(tmp_path / "p.npz")]) == 2
    assert "pickle" in capsys.readouterr().err
    with pytest.warns(UserWarning):
        assert main(["convert", str(pickled), str(tmp_path / "p.npz"), "--allow-pickle"]) == 0
    assert StaticEmbedding.load(str(tmp_path / "p.npz")).words == ["alpha", "beta"]
    assert main(["train", str(tmp_path / "missing.txt"), "-o", str(tmp_path / "m.npz")]) == 2
    assert "missing.txt" in capsys.readouterr().err


def test_convert_keeps_fasttext_ngrams_and_refuses_float16_overflow(tmp_path):
    from gensim.models import FastText
    from gensim.models.fasttext import save_facebook_model

    model = FastText([["get", "count"], ["set", "index"]] * 10, vector_size=4, min_count=1, bucket=100,
                     epochs=1, workers=1, seed=1)
    binary = tmp_path / "ft.bin"
    save_facebook_model(model, str(binary))
    out = convert(binary, tmp_path / "ft.npz", dtype="float32")
    np.testing.assert_allclose(out.oov_vector("cnt"), model.wv.get_vector("cnt"), atol=1e-6)
    big = tmp_path / "big.txt"
    big.write_text("1 2\nhuge 1e6 1\n")
    with pytest.raises(ValueError, match="float16"):
        convert(big, tmp_path / "big.npz")
    assert convert(big, tmp_path / "big.npz", dtype="float32").vectors[0, 0] == 1e6


def test_train_command_is_listed():
    from wrd_score.cli import COMMANDS

    import importlib

    for name in ("train", "convert"):
        module = importlib.import_module(f"wrd_score.cli.{name}")
        assert callable(module.add_arguments) and callable(module.run)
    assert "train" in json.dumps(COMMANDS)  # the help strings are plain text


def test_float16_overflow_is_refused_not_stored_as_inf(tmp_path):
    # Raw-count SVD vectors grow with the corpus: 2,000 copies of one line give entries beyond 65504.
    corpus = tmp_path / "big.txt"
    corpus.write_text("a b a b a b a b a b a b a b a b c\n" * 2000)
    with pytest.raises(ValueError, match="float16"):
        train(corpus, None, method="svd", min_count=1, dim=2)
    emb = train(corpus, None, method="svd", min_count=1, dim=2, dtype="float32")
    assert np.isfinite(emb.vectors).all() and np.abs(emb.vectors).max() > 65504


def test_convert_refuses_vectors_that_underflow_in_float16(tmp_path, capsys):
    """Issue 22 item 7: vectors scaled by 1e-6 lost their directions in float16 (F1 0.9479 -> 0.7225)."""
    from wrd_score.cli import main

    rng = np.random.default_rng(0)
    words = ["get", "count", "size", "length", "value"]
    vectors = rng.normal(size=(len(words), 50))
    tiny = tmp_path / "tiny.txt"
    tiny.write_text(f"{len(words)} 50\n" + "".join(
        w + " " + " ".join(repr(float(x)) for x in row * 1e-6) + "\n" for w, row in zip(words, vectors)))
    code = main(["convert", str(tiny), str(tmp_path / "tiny.npz")])
    err = capsys.readouterr().err
    assert code == 2 and "tiny.txt" in err and "smallest norm" in err and "--dtype float32" in err, err
    assert len(err.strip().splitlines()) == 1 and not (tmp_path / "tiny.npz").exists()
    # float32 keeps them: the stored directions are those of the file.
    out = convert(tiny, tmp_path / "tiny32.npz", dtype="float32")
    np.testing.assert_allclose(out.vectors, (vectors * 1e-6).astype(np.float32), rtol=1e-6)
    # Ordinary magnitudes still convert to float16.
    normal = tmp_path / "normal.txt"
    normal.write_text(f"{len(words)} 50\n" + "".join(
        w + " " + " ".join(repr(float(x)) for x in row) + "\n" for w, row in zip(words, vectors)))
    convert(normal, tmp_path / "ok.npz")
    assert StaticEmbedding.load(str(tmp_path / "ok.npz")).vectors.dtype == np.float16


@pytest.mark.parametrize("flags, name", [
    (["--method", "word2vec", "--dim", "100000000"], "dim"),
    (["--method", "svd", "--dim", "100000000"], "dim"),
    (["--bucket", "1000000000"], "bucket"),
    (["--workers", "100000"], "workers"),
    (["--window", "3000000000"], "window"),
    (["--epochs", "3000000000"], "epochs"),
    (["--negative", "3000000000"], "negative"),
    (["--max-n", "1000"], "max_n"),
    (["--seed", str(2**40)], "seed"),
], ids=["w2v-dim", "svd-dim", "bucket", "workers", "window", "epochs", "negative", "max-n", "seed"])
def test_every_training_limit_is_checked_before_training(tmp_path, capsys, monkeypatch, flags, name):
    """Issue 22 item 11: --dim/--bucket allocated 7-373 GiB before the limit was checked, --workers 100000 was a
    thread traceback, --window 3000000000 hung forever."""
    from wrd_score import train as train_module
    from wrd_score.cli import main

    def never(*args, **kwargs):
        raise AssertionError("training started before the limits were checked")

    monkeypatch.setattr(train_module, "_train_gensim", never)
    monkeypatch.setattr(train_module, "_train_svd", never)
    corpus = tmp_path / "c.txt"
    corpus.write_text("get count\nset value\n")
    code = main(["train", str(corpus), "-o", str(tmp_path / "e.npz"), "--no-progress", *flags])
    err = capsys.readouterr().err
    flag = "--" + name.replace("_", "-")  # the message names the flag typed (wrd_score.cli.common.name_flags)
    assert code == 2 and f"{flag} must be" in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("output, message", [("out.txt", "must be a .npz file"),
                                             ("missing/d.npz", "output folder .*missing.* does not exist")])
def test_distill_checks_its_output_before_distilling(tmp_path, capsys, monkeypatch, output, message):
    """Issue 22 item 18: `distill -o out.txt` or `-o /nonexistent/d.npz` failed only after ~33 s of distilling."""
    import re

    import wrd_score.cli.distill as distill_cli
    from wrd_score.cli import main

    def never(*args, **kwargs):
        raise AssertionError("distilling started before the output was checked")

    monkeypatch.setattr(distill_cli, "distill", never)
    code = main(["distill", "-o", str(tmp_path / output)])
    err = capsys.readouterr().err
    assert code == 2 and re.search(message, err) and len(err.strip().splitlines()) == 1, err


def test_options_object_and_keywords_train_the_same_vectors(names):
    """Issue 24 item 6: train() takes a TrainOptions (keyword settings still work and override it)."""
    from wrd_score.train import TrainOptions

    settings = dict(method="svd", corpus_format="identifiers", min_count=2, dim=4)
    by_keywords = train(names, None, **settings)
    by_options = train(names, None, options=TrainOptions(**settings))
    overridden = train(names, None, options=TrainOptions(**{**settings, "dim": 7}), dim=4)
    for emb in (by_options, overridden):
        assert emb.words == by_keywords.words and np.array_equal(emb.vectors, by_keywords.vectors)
        assert emb.meta["parameters"] == by_keywords.meta["parameters"]
    with pytest.raises(TypeError, match="'epoch'"):
        train(names, None, epoch=3)
    # Before, options={"dim": 4} raised dataclasses' "replace() should be called on dataclass instances".
    with pytest.raises(TypeError, match=r"options must be a TrainOptions or None, got dict; pass keywords instead"):
        train(names, None, options={"dim": 4})


def test_train_flags_are_generated_from_train_options():
    """Every TrainOptions setting is a `wrdscore train` flag whose help is the setting's description, and
    the flags are all the command has besides its corpus, output and progress switch."""
    import argparse

    from wrd_score.cli import train as train_cli
    from wrd_score.options import option_info
    from wrd_score.train import TrainOptions

    parser = argparse.ArgumentParser()
    train_cli.add_arguments(parser)
    actions = {a.dest: a for a in parser._actions}
    infos = option_info(of=TrainOptions)
    for info in infos:
        assert actions[info.name].help == info.describe().replace("%", "%%"), info.name
        # A closed set of values is checked by wrd_score.checks (the one message) and shown in the metavar.
        assert (actions[info.name].metavar == "{" + ",".join(info.choices) + "}") == bool(info.choices), info.name
    assert set(actions) == {info.name for info in infos} | {"help", "corpus", "output", "progress"}
    args = parser.parse_args(["c.txt", "-o", "e.npz", "--window", "3", "--sample", "0.01"])
    assert train_cli.options_from_args(args, TrainOptions) == {"window": 3, "sample": 0.01}


def test_convert_to_int8_on_the_command_line(tmp_path, capsys):
    from wrd_score.cli import main

    rng = np.random.default_rng(0)
    text = tmp_path / "v.txt"
    vectors = rng.normal(size=(4, 64))
    text.write_text("4 64\n" + "".join(f"w{i} " + " ".join(repr(float(x)) for x in row) + "\n"
                                       for i, row in enumerate(vectors)))
    assert main(["convert", str(text), str(tmp_path / "v8.npz"), "--dtype", "int8"]) == 0
    back = StaticEmbedding.load(str(tmp_path / "v8.npz"))
    cosines = (back.vectors * vectors).sum(1) / np.linalg.norm(back.vectors.astype(float), axis=1) / np.linalg.norm(
        vectors, axis=1)
    assert back.vectors.dtype == np.float16 and cosines.min() > 0.999
    capsys.readouterr()
    assert main(["convert", str(text), str(tmp_path / "v4.npz"), "--dtype", "int4"]) == 2
    assert "int8" in capsys.readouterr().err  # argparse lists the stored dtypes


@pytest.mark.parametrize("settings, message", [
    (dict(method="svd", negative=7), "negative given without method='word2vec' or 'fasttext'"),
    (dict(method="svd", epochs=3, window=4), "window, epochs given without method='word2vec' or 'fasttext'"),
    (dict(method="word2vec", bucket=10), "bucket given without method='fasttext'"),
    (dict(method="fasttext", svd_weighting="ppmi"), "svd_weighting given without method='svd'"),
])
def test_a_setting_the_method_does_not_use_is_refused_not_ignored(tmp_path, settings, message):
    """Before, ``method="svd", negative=7`` trained and wrote a file as if ``negative`` had not been given."""
    corpus = tmp_path / "c.txt"
    corpus.write_text("get count\nset count\n" * 20)
    with pytest.raises(ValueError, match=message):
        train(str(corpus), str(tmp_path / "x.npz"), min_count=1, **settings)
    assert not (tmp_path / "x.npz").exists()
