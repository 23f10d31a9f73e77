"""Hostile and broken files: a clear error or a documented finite result, never a NaN, never code.

Every unsafe-load test plants a payload that would create a marker file when unpickled or
imported, and checks the marker is absent afterwards: "refused" must mean "not executed".
"""
from __future__ import annotations

import gzip
import io
import json
import math
import os
import pickle
import shutil
import struct
import zipfile
from pathlib import Path

import numpy as np
import pytest

import wrd_score
from wrd_score import WRDScorer
from wrd_score.embeddings import StaticEmbedding

WORDS = ["get", "count", "size", "set", "value"]


def _vectors(n: int = len(WORDS), d: int = 4, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).normal(size=(n, d))


def _score(path: Path, **options) -> dict:
    return wrd_score.score(["get count", "size", "zzz"], ["getCount", "set value", "get"], embedding=str(path), **options)


def _assert_finite(out: dict) -> None:
    for key in ("precision", "recall", "f1"):
        assert all(math.isfinite(v) and 0.0 <= v <= 1.0 for v in out[key]), out


class Payload:
    """Unpickling this writes a marker file (it stands for arbitrary code)."""

    def __init__(self, marker: Path) -> None:
        self.marker = str(marker)

    def __reduce__(self):
        return (Path.write_text, (Path(self.marker), "pwned"))


def _write_text(path: Path, lines) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _w2v_lines(words=WORDS, vectors=None, header=True):
    vectors = _vectors(len(words)) if vectors is None else vectors
    lines = [f"{len(words)} {vectors.shape[1]}"] if header else []
    lines += [w + " " + " ".join(repr(float(x)) for x in row) for w, row in zip(words, vectors)]
    return lines


# ------------------------------------------------------------------ a good file works (control)
def test_control_good_files_score(tmp_path):
    npz = tmp_path / "good.npz"
    StaticEmbedding(WORDS, _vectors()).save(str(npz))
    txt = _write_text(tmp_path / "good.txt", _w2v_lines())
    glove = _write_text(tmp_path / "glove.txt", _w2v_lines(header=False))
    for path in (npz, txt, glove):
        out = _score(path)
        _assert_finite(out)
        assert out["f1"][0] == 1.0  # "get count" vs "getCount"


# ------------------------------------------------------------------------- broken npz files
def test_truncated_npz_is_a_clear_error(tmp_path):
    good = tmp_path / "good.npz"
    StaticEmbedding(WORDS, _vectors()).save(str(good))
    data = good.read_bytes()
    for cut in (0, 10, len(data) // 2, len(data) - 5):
        bad = tmp_path / f"cut{cut}.npz"
        bad.write_bytes(data[:cut])
        with pytest.raises(ValueError, match=str(bad.name)):
            _score(bad)


@pytest.mark.parametrize("arrays, message", [
    (dict(words=np.array(WORDS), vectors=_vectors(4)), "truncated or corrupt"),          # rows != words
    (dict(words=np.array(WORDS), vectors=np.ones(5)), "2-D"),                             # 1-D
    (dict(words=np.array(WORDS), vectors=np.ones((5, 2, 2))), "2-D"),                     # 3-D
    (dict(words=np.array(WORDS), vectors=np.ones((5, 0))), "2-D"),                        # no dimensions
    (dict(words=np.array([], dtype=str), vectors=np.ones((0, 3))), "2-D"),                # empty
    (dict(words=np.array(WORDS), vectors=np.where(np.eye(5, 4) > 0, np.nan, 1.0)), "NaN"),
    (dict(words=np.array(WORDS), vectors=np.full((5, 4), np.inf)), "NaN or inf"),
    (dict(words=np.array(WORDS), vectors=np.array([["a"] * 4] * 5)), "number"),             # strings as vectors
    (dict(words=np.array(WORDS)), "missing"),
    (dict(vectors=_vectors()), "missing"),
    (dict(weights=np.arange(3)), "missing"),                                               # some other npz
])
def test_malformed_npz_is_a_clear_error(tmp_path, arrays, message):
    path = tmp_path / "bad.npz"
    np.savez(path, **arrays)
    with pytest.raises((ValueError, TypeError), match=message):
        _score(path)


def test_float16_overflow_in_a_file_is_refused(tmp_path):
    # 1e6 does not fit float16: a file written with dtype float16 holds inf, which must not load.
    path = tmp_path / "overflow.npz"
    np.savez(path, words=np.array(WORDS), vectors=np.full((5, 4), 1e6).astype(np.float16))
    with pytest.raises(ValueError, match="NaN or inf"):
        _score(path)


def test_zero_vectors_give_finite_documented_scores(tmp_path):
    # A zero row has no direction: it is treated like an out-of-vocabulary token (matches only
    # itself, mean mass).  All-zero embeddings still score identical texts 1 and others finite.
    vectors = _vectors()
    vectors[1] = 0.0  # "count"
    path = tmp_path / "zeros.npz"
    np.savez(path, words=np.array(WORDS), vectors=vectors)
    out = _score(path)
    _assert_finite(out)
    assert out["f1"][0] == 1.0
    allzero = tmp_path / "allzero.npz"
    np.savez(allzero, words=np.array(WORDS), vectors=np.zeros((5, 4)))
    out = _score(allzero)
    _assert_finite(out)
    assert wrd_score.score(["get count"], ["get count"], embedding=str(allzero))["f1"] == [1.0]
    assert wrd_score.score(["get"], ["count"], embedding=str(allzero))["f1"] == [0.0]


def test_huge_and_tiny_norms_stay_finite(tmp_path):
    vectors = _vectors() * np.array([[1e-300], [1e300], [1.0], [1e-30], [1e30]])
    path = tmp_path / "norms.npz"
    np.savez(path, words=np.array(WORDS), vectors=vectors)
    for weights in ("norm", "idf", "norm*idf", "uniform"):
        _assert_finite(_score(path, weights=weights))


def test_odd_words_load_and_duplicates_are_refused(tmp_path):
    words = ["get", "", " ", "a\x00b", "😀", "count"]  # numpy drops a trailing NUL: "\x00" would be ""
    path = tmp_path / "odd.npz"
    np.savez(path, words=np.array(words), vectors=_vectors(len(words)))
    _assert_finite(_score(path))
    np.savez(path, words=np.array(["get"] + words), vectors=_vectors(len(words) + 1))
    with pytest.raises(ValueError, match=r"odd\.npz.*'get' appears twice"):
        _score(path)


# ------------------------------------------------------------------- broken text / binary files
def test_word2vec_text_truncated(tmp_path):
    lines = _w2v_lines()
    lines[0] = "50 4"  # header promises more rows than the file has
    out_or_error(tmp_path / "short.txt", lines)


def out_or_error(path: Path, lines) -> None:
    """Either a clear ValueError naming the file, or a finite result (gensim may trim short files)."""
    _write_text(path, lines)
    try:
        out = _score(path)
    except ValueError as exc:
        assert path.name in str(exc)
    else:
        _assert_finite(out)


@pytest.mark.parametrize("header", [True, False], ids=["word2vec", "glove"])
def test_text_rows_with_wrong_dimension(tmp_path, header):
    lines = _w2v_lines(header=header)
    lines[-1] = lines[-1].rsplit(" ", 1)[0]  # last row loses a value
    lines[-2] += " 0.5"  # another gains one
    _write_text(tmp_path / "ragged.txt", lines)
    with pytest.raises(ValueError, match="ragged.txt"):
        _score(tmp_path / "ragged.txt")


@pytest.mark.parametrize("bad", ["nan", "inf", "-inf", "NaN"])
def test_text_with_nan_or_inf(tmp_path, bad):
    lines = _w2v_lines()
    lines[2] = lines[2].rsplit(" ", 1)[0] + f" {bad}"
    _write_text(tmp_path / "nan.txt", lines)
    with pytest.raises(ValueError, match="NaN or inf|nan.txt"):
        _score(tmp_path / "nan.txt")


def test_text_with_non_numbers(tmp_path):
    lines = _w2v_lines()
    lines[3] = "size a b c d"
    _write_text(tmp_path / "words.txt", lines)
    with pytest.raises(ValueError, match="words.txt"):
        _score(tmp_path / "words.txt")


def test_header_claiming_a_billion_rows_does_not_exhaust_memory(tmp_path):
    lines = _w2v_lines()
    lines[0] = "1000000000 4"
    out_or_error(tmp_path / "bomb.txt", lines)
    lines[0] = "5 1000000000"
    out_or_error(tmp_path / "bomb2.txt", lines)


def test_word2vec_binary_truncated_and_garbage(tmp_path):
    vectors = _vectors().astype(np.float32)
    buf = io.BytesIO()
    buf.write(f"{len(WORDS)} 4\n".encode())
    for word, row in zip(WORDS, vectors):
        buf.write(word.encode() + b" " + row.tobytes())
    data = buf.getvalue()
    good = tmp_path / "good.bin"
    good.write_bytes(data)
    _assert_finite(_score(good))
    for cut in (3, len(data) // 2, len(data) - 3):
        bad = tmp_path / f"cut{cut}.bin"
        bad.write_bytes(data[:cut])
        with pytest.raises(ValueError, match=bad.name):
            _score(bad)
    junk = tmp_path / "junk.bin"
    junk.write_bytes(os.urandom(4096))
    with pytest.raises(ValueError, match="junk.bin"):
        _score(junk)


@pytest.mark.parametrize("name, content", [
    ("empty.txt", b""),
    ("empty.npz", b""),
    ("blank.txt", b"\n\n\n"),
    ("image.txt", b"\x89PNG\r\n\x1a\n" + os.urandom(256)),
    ("json.txt", json.dumps({"get": [1, 2, 3]}).encode()),
    ("csv.vec", b"word,a,b\nget,1,2\n"),
    ("latin1.txt", "2 2\ncaf\xe9 1 2\nna\xefve 3 4\n".encode("latin-1")),
    ("random.npz", os.urandom(1000)),
    ("gz.txt.gz", b"not gzip at all"),
    ("model.fasttext", os.urandom(100)),
])
def test_files_that_are_not_embeddings(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    fmt = {"model.fasttext": "fasttext-bin"}.get(name, "auto")
    try:
        out = _score(path, embedding_format=fmt)
    except ValueError as exc:
        assert name in str(exc) or "embedding" in str(exc)
    else:  # e.g. latin-1 text gensim decodes with replacement characters: fine if finite
        _assert_finite(out)


def test_missing_file_and_directory(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.npz"):
        _score(tmp_path / "nope.npz")
    with pytest.raises((FileNotFoundError, ValueError)):
        _score(tmp_path)


def test_gzipped_text_embedding_works(tmp_path):
    path = tmp_path / "vectors.txt.gz"
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write("\n".join(_w2v_lines()) + "\n")
    _assert_finite(_score(path))


# ---------------------------------------------------------------------------------- pickles
def _pickle_file(path: Path, marker: Path) -> Path:
    with open(path, "wb") as handle:
        pickle.dump(Payload(marker), handle)
    return path


@pytest.mark.parametrize("name", ["evil.model", "evil.kv", "evil.pkl", "evil.pickle"])
def test_gensim_pickles_need_the_opt_in(tmp_path, name):
    marker = tmp_path / "marker"
    path = _pickle_file(tmp_path / name, marker)
    with pytest.raises(ValueError, match="allow_pickle"):
        _score(path)
    with pytest.raises(ValueError, match="allow_pickle"):
        _score(path, embedding_format="gensim")
    assert not marker.exists(), "the pickle was executed without allow_pickle=True"


def test_allow_pickle_opt_in_warns(tmp_path):
    # With the flag the file IS unpickled (that is what the flag means); it must say so loudly.
    from gensim.models import KeyedVectors

    kv = KeyedVectors(4)
    kv.add_vectors(WORDS, _vectors().astype(np.float32))
    path = tmp_path / "trusted.kv"
    kv.save(str(path))
    with pytest.warns(UserWarning, match="unpickling"):
        out = _score(path, allow_pickle=True)
    _assert_finite(out)


@pytest.mark.parametrize("name, fmt", [("evil.npz", "auto"), ("evil.txt", "auto"), ("evil.bin", "auto"),
                                       ("evil.vec", "word2vec"), ("evil.dat", "npz"), ("evil.dat", "glove"),
                                       ("evil.dat", "word2vec-binary"), ("evil.dat", "fasttext-bin")])
def test_pickles_under_other_names_are_never_unpickled(tmp_path, name, fmt):
    marker = tmp_path / "marker"
    path = _pickle_file(tmp_path / name, marker)
    with pytest.raises(ValueError):
        _score(path, embedding_format=fmt)
    with pytest.raises(ValueError):
        _score(path, embedding_format=fmt, allow_pickle=True)  # the flag only concerns gensim files
    assert not marker.exists()


def test_npz_with_pickled_object_array_is_refused(tmp_path):
    marker = tmp_path / "marker"
    path = tmp_path / "objects.npz"
    words = np.empty(2, dtype=object)
    words[0], words[1] = Payload(marker), "get"
    np.savez(path, words=words, vectors=_vectors(2))
    with pytest.raises(ValueError, match="objects.npz"):
        _score(path)
    with pytest.raises(ValueError):
        _score(path, allow_pickle=True)
    assert not marker.exists()


def test_npz_member_that_is_a_raw_pickle(tmp_path):
    marker = tmp_path / "marker"
    path = tmp_path / "raw.npz"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("words.npy", pickle.dumps(Payload(marker)))
        zf.writestr("vectors.npy", pickle.dumps(Payload(marker)))
    with pytest.raises(ValueError, match="raw.npz"):
        _score(path)
    assert not marker.exists()


def test_default_and_recommended_formats_need_no_pickle(monkeypatch, tmp_path):
    """Loading the shipped default and an .npz must not call pickle at all."""
    calls = []
    real_loads, real_load = pickle.loads, pickle.load
    monkeypatch.setattr(pickle, "loads", lambda *a, **k: calls.append("loads") or real_loads(*a, **k))
    monkeypatch.setattr(pickle, "load", lambda *a, **k: calls.append("load") or real_load(*a, **k))
    StaticEmbedding.load("default")
    npz = tmp_path / "mine.npz"
    StaticEmbedding(WORDS, _vectors()).save(str(npz))
    StaticEmbedding.load(str(npz))
    StaticEmbedding.load(str(_write_text(tmp_path / "w.txt", _w2v_lines())))
    assert calls == []


def test_allow_pickle_must_be_a_real_bool():
    with pytest.raises(TypeError, match="allow_pickle"):
        WRDScorer(allow_pickle="yes")
    with pytest.raises(TypeError, match="allow_pickle"):
        WRDScorer(allow_pickle=1)


def test_file_changed_on_disk_is_reloaded(tmp_path):
    """A replaced embedding file must not keep serving the old vectors (stale cache)."""
    path = tmp_path / "swap.npz"
    np.savez(path, words=np.array(["get", "count"]), vectors=np.array([[1.0, 0.0], [0.0, 1.0]]))
    before = wrd_score.score(["get"], ["count"], embedding=str(path))
    np.savez(path, words=np.array(["get", "count"]), vectors=np.array([[1.0, 0.0], [1.0, 0.1]]))
    os.utime(path, ns=(os.stat(path).st_atime_ns, os.stat(path).st_mtime_ns + 10_000_000))
    after = wrd_score.score(["get"], ["count"], embedding=str(path))
    assert before["f1"] == [0.0] and after["f1"][0] > 0.9, (before, after)
    assert before["signature"] != after["signature"]


# ------------------------------------------------------------------------ transformers models
def test_remote_code_model_is_not_run_by_default(tmp_path, make_tiny_bert):
    model = make_tiny_bert(tmp_path / "remote", hidden_size=16, num_hidden_layers=1, intermediate_size=32)
    marker = tmp_path / "marker"
    (model / "evil_model.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('pwned')\n"
        "from transformers import BertModel as EvilModel, BertConfig as EvilConfig\n")
    config = json.loads((model / "config.json").read_text())
    config["auto_map"] = {"AutoModel": "evil_model.EvilModel", "AutoConfig": "evil_model.EvilConfig"}
    (model / "config.json").write_text(json.dumps(config))
    try:  # transformers either refuses or loads the built-in class; either way nothing of the folder runs
        out = WRDScorer(backend="contextual", model=str(model)).score(["get count"], ["size"])
        _assert_finite(out)
    except (ValueError, OSError):
        pass
    assert not marker.exists(), "remote code ran without trust_remote_code=True"
    # Control (a subprocess, so that transformers' module cache lands in tmp_path): with the
    # opt-in the same folder does run its code, so the payload above was live.
    import subprocess
    import sys

    env = dict(os.environ, HF_MODULES_CACHE=str(tmp_path / "modules"), HF_HUB_OFFLINE="1")
    code = ("import wrd_score; wrd_score.WRDScorer(backend='contextual', model=%r, trust_remote_code=True)"
            ".score(['a'], ['b'])" % str(model))
    subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=300)
    assert marker.exists(), "control failed: trust_remote_code=True did not run the folder's code"


def test_pickled_torch_weights_are_not_unpickled(tmp_path, make_tiny_bert):
    model = make_tiny_bert(tmp_path / "pickled", hidden_size=16, num_hidden_layers=1, intermediate_size=32)
    marker = tmp_path / "marker"
    (model / "model.safetensors").unlink()
    with open(model / "pytorch_model.bin", "wb") as handle:
        pickle.dump(Payload(marker), handle)
    try:
        WRDScorer(backend="contextual", model=str(model)).score(["a"], ["b"])
    except (ValueError, OSError, RuntimeError, pickle.UnpicklingError):
        pass
    assert not marker.exists(), "pytorch_model.bin was unpickled with code execution"


def test_fasttext_bin_truncated_or_foreign_is_an_error_not_a_hang(tmp_path):
    from gensim.models import FastText
    from gensim.models.fasttext import save_facebook_model

    sentences = [["get", "count", "size"], ["set", "value", "get"], ["count", "items"]] * 5
    model = FastText(vector_size=4, window=2, min_count=1, bucket=50, min_n=2, max_n=3, epochs=1, seed=1,
                     workers=1)
    model.build_vocab(sentences)
    model.train(sentences, total_examples=len(sentences), epochs=1)
    good = tmp_path / "good.bin"
    save_facebook_model(model, str(good))
    out = _score(good, embedding_format="fasttext-bin")
    _assert_finite(out)
    data = good.read_bytes()
    # Cut in the header, the vocabulary, and the matrix; gensim alone loops forever on some.
    for cut in (4, 60, 100, 150, len(data) // 2):
        bad = tmp_path / f"cut{cut}.bin"
        bad.write_bytes(data[:cut])
        with pytest.raises(ValueError, match=bad.name):
            _score(bad, embedding_format="fasttext-bin")
    # Cut in the output matrix, which scoring never reads: loads, and scores finitely.
    (tmp_path / "tail.bin").write_bytes(data[:-8])
    _assert_finite(_score(tmp_path / "tail.bin", embedding_format="fasttext-bin"))
    huge = bytearray(data)
    huge[8 + 4 * 8:8 + 4 * 9] = struct.pack("@i", 2_000_000_000)  # bucket
    (tmp_path / "huge.bin").write_bytes(bytes(huge))
    with pytest.raises(ValueError, match="huge.bin"):
        _score(tmp_path / "huge.bin", embedding_format="fasttext-bin")


def test_save_refuses_values_float16_cannot_hold(tmp_path):
    emb = StaticEmbedding(WORDS, _vectors() * 1e5)
    with pytest.raises(ValueError, match="float32"):
        emb.save(str(tmp_path / "big.npz"))
    assert not (tmp_path / "big.npz").exists()
    emb.save(str(tmp_path / "big.npz"), dtype="float32")
    _assert_finite(_score(tmp_path / "big.npz"))


@pytest.mark.parametrize("name", ["evil.model", "cut.npz", "bomb.txt"])
def test_cli_reports_hostile_embedding_files_without_traceback(tmp_path, capsys, name):
    from wrd_score.cli import main

    marker = tmp_path / "marker"
    path = tmp_path / name
    if name == "evil.model":
        _pickle_file(path, marker)
    elif name == "cut.npz":
        StaticEmbedding(WORDS, _vectors()).save(str(path))
        path.write_bytes(path.read_bytes()[:40])
    else:
        _write_text(path, ["999999999 300"] + _w2v_lines(header=False))
    code = main(["score", "-c", "get count", "-r", "size", "--strings", "--embedding", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and "error" in err and name in err and "Traceback" not in err, err
    assert not marker.exists()


@pytest.mark.parametrize("a, b, cost", [
    (np.zeros(1), np.zeros(0), np.zeros((1, 0))),          # an empty side: segfaults inside POT
    (np.ones(1), np.ones(2) / 2, np.zeros((2, 1))),        # cost of the wrong shape
    (np.ones(1), np.ones(1), np.full((1, 1), np.nan)),
])
def test_emd_plan_rejects_what_pot_would_crash_on(a, b, cost):
    from wrd_score.transport import emd_plan

    with pytest.raises(ValueError, match="emd_plan|cost"):
        emd_plan(a, b, cost)


# ------------------------------------------------------------------------------ app uploads
def test_app_has_no_user_embedding_or_model_input():
    """The visitor picks from a fixed list; every choice maps to a shipped or packaged embedding."""
    from wrd_score import space as space_app
    from wrd_score.embeddings import NAMED_EMBEDDINGS

    for label, options in space_app.EMBEDDINGS.items():
        assert options.get("embedding", "default") in NAMED_EMBEDDINGS, (label, options)
        assert options.get("model", "default") == "default", (label, options)
        assert not options.get("allow_pickle") and not options.get("trust_remote_code"), (label, options)
    with pytest.raises(ValueError):
        space_app.PageOptions(embedding="/tmp/evil.model").library_options()
    with pytest.raises(ValueError, match="embedding must be one of"):
        space_app.PageOptions.from_api({"embedding": "/tmp/evil.model"})


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=150, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(content=st.one_of(st.binary(max_size=300),
                         st.text(max_size=300).map(lambda t: t.encode("utf-8")),
                         st.lists(st.tuples(st.text(max_size=20), st.text(max_size=20)), max_size=8).map(
                             lambda rows: ("prediction,reference\n" + "".join(f"{a},{b}\n" for a, b in rows)).encode(
                                 "utf-8", "surrogatepass"))),
       suffix=st.sampled_from([".csv", ".tsv", ".jsonl", ".txt", ".pkl", ""]))
def test_app_upload_parser_accepts_data_or_says_why(tmp_path, content, suffix):
    from wrd_score import space as space_app

    path = tmp_path / f"upload{suffix}"
    path.write_bytes(content)
    try:
        frame = space_app.read_upload(str(path))
    except space_app.UploadError as exc:
        assert str(exc)
    else:
        assert list(frame.columns[:2]) == ["prediction", "reference"]
        assert all(isinstance(v, str) for col in ("prediction", "reference") for v in frame[col])


def test_app_refuses_oversized_uploads_and_texts(tmp_path):
    from wrd_score import space as space_app

    big = tmp_path / "big.csv"
    big.write_bytes(b"prediction,reference\n" + b"a,b\n" * (space_app.MAX_UPLOAD_BYTES // 4 + 10))
    with pytest.raises(space_app.UploadError, match="MB"):
        space_app.read_upload(str(big))
    long = tmp_path / "long.tsv"
    long.write_text("prediction\treference\n" + "get " * space_app.MAX_TEXT_CHARS + "\tsize\n", encoding="utf-8")
    with pytest.raises(space_app.UploadError, match="characters"):
        space_app.read_upload(str(long))


def test_app_writes_results_only_into_a_fresh_temporary_directory(tmp_path):
    import tempfile

    from wrd_score import space as space_app

    table = space_app.read_upload(str(_write_text(tmp_path / "in.csv", ["prediction,reference", "getCount,size"])))
    for name in ("../../etc/passwd.csv", "/abs/path/x.tsv", "..\\..\\evil.jsonl", "a b.csv"):
        out = Path(space_app.write_scored(table, name)).resolve()
        try:  # the file lies directly in a fresh wrdscore-app-* directory under the system temp dir
            assert out.parent.parent == Path(tempfile.gettempdir()).resolve(), out
            assert out.parent.name.startswith("wrdscore-app-") and "/" not in out.name, out
        finally:
            shutil.rmtree(out.parent, ignore_errors=True)


# ------------------------------------------------------------- issue 12: hostile sizes and rows
@pytest.mark.parametrize("header", [True, False])
def test_truncated_text_row_is_refused_not_broadcast(tmp_path, header):
    """gensim parses ``count 0.4`` as ``[0.4, 0.4, 0.4]``; it must be an error naming file and line."""
    lines = (["2 3"] if header else []) + ["get 0.1 0.2 0.3", "count 0.4"]
    path = tmp_path / "cut.txt"
    path.write_text("\n".join(lines), encoding="utf-8")  # no final newline: a cut-off download
    with pytest.raises(ValueError, match=r"cut\.txt.*line %d" % (3 if header else 2)):
        StaticEmbedding.load(str(path))


def test_convert_refuses_a_truncated_text_file(tmp_path):
    from wrd_score.cli import main

    src = tmp_path / "cut.vec"
    src.write_text("2 3\nget 0.1 0.2 0.3\ncount 0.4\n", encoding="utf-8")
    assert main(["convert", str(src), str(tmp_path / "out.npz")]) == 2
    assert not (tmp_path / "out.npz").exists()


def _zip_bomb(path: Path, dim: int) -> Path:
    """A valid .npz whose one vector has ``dim`` zeros: a few MB on disk, ``8 * dim`` bytes loaded."""
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, allowZip64=True) as archive:
        archive.writestr("words.npy", _npy_bytes(np.array(["get"])))
        with archive.open("vectors.npy", "w", force_zip64=True) as handle:
            header = io.BytesIO()
            np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (1, dim)})
            handle.write(header.getvalue())
            zeros = bytes(1 << 20)
            for _ in range(8 * dim // len(zeros)):
                handle.write(zeros)
    return path


def _npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def test_npz_zip_bomb_is_refused_from_its_headers(tmp_path, monkeypatch):
    from wrd_score.embeddings import checks

    path = _zip_bomb(tmp_path / "bomb.npz", 1 << 22)  # 32 MB unpacked; the limit is lowered to match
    monkeypatch.setattr(checks, "MAX_NPZ_BYTES", 1 << 24)
    monkeypatch.setattr(np, "load", lambda *a, **k: pytest.fail("np.load ran before the size check"))
    with pytest.raises(ValueError, match=r"bomb\.npz.*limit"):
        StaticEmbedding.load(str(path))


def test_npz_dimension_above_the_limit_is_refused(tmp_path):
    from wrd_score.embeddings import MAX_DIM

    path = tmp_path / "wide.npz"
    np.savez(path, words=np.array(["get"]), vectors=np.ones((1, MAX_DIM + 1)))
    with pytest.raises(ValueError, match=r"wide\.npz.*dimension"):
        StaticEmbedding.load(str(path))


def test_npz_header_declaring_more_than_its_entry_holds_is_refused(tmp_path):
    path = tmp_path / "liar.npz"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("words.npy", _npy_bytes(np.array(["get"])))
        header = io.BytesIO()
        np.lib.format.write_array_header_1_0(header, {"descr": "<f8", "fortran_order": False, "shape": (1, 1 << 29)})
        archive.writestr("vectors.npy", header.getvalue() + bytes(64))
    with pytest.raises(ValueError, match=r"liar\.npz.*declares"):
        StaticEmbedding.load(str(path))


@pytest.mark.parametrize("ngram_range, ngrams, message", [
    ([1, 10**9], np.ones((8, 4)), "max_n"),
    ([3, 6], np.ones((0, 4)), "buckets >= 1"),
])
def test_npz_ngram_fields_are_checked_on_load(tmp_path, ngram_range, ngrams, message):
    path = tmp_path / "ng.npz"
    np.savez(path, words=np.array(WORDS), vectors=_vectors(), ngram_vectors=ngrams,
             ngram_range=np.array(ngram_range, dtype=np.int64))
    with pytest.raises(ValueError, match=message):
        StaticEmbedding.load(str(path))


def test_limits_admit_a_large_default_like_file(tmp_path):
    """A 384-dim float16 file with a multi-MB tokenizer JSON string and extra arrays loads."""
    path = tmp_path / "big.npz"
    from tokenizers import Tokenizer
    from tokenizers.models import WordLevel

    words = np.array([f"w{i}" for i in range(20_000)])
    vocab = {f"piece{i}": i for i in range(100_000)}
    vocab["[UNK]"] = len(vocab)
    tokenizer = Tokenizer(WordLevel(vocab, unk_token="[UNK]")).to_str()  # a real tokenizer, about 2 MB
    assert len(tokenizer) > 1_500_000
    np.savez_compressed(path, words=words, vectors=np.random.default_rng(0).normal(size=(20_000, 384)).astype(np.float16),
                        tokenizer=np.array(tokenizer),
                        piece_vectors=np.ones((30_000, 384), dtype=np.float16))
    assert StaticEmbedding.load(str(path)).dim == 384


def test_meta_name_cannot_forge_the_signature_or_borrow_a_baseline(tmp_path):
    real = WRDScorer(weights="norm", rescale_with_baseline=True).signature()  # a user file gets norm masses
    forged_emb = real.split("emb:", 1)[1].split("|", 1)[0]  # wrd-java-default@sha256:...
    path = tmp_path / "forged.npz"
    np.savez(path, words=np.array(WORDS), vectors=_vectors(),
             meta=np.array(json.dumps({"name": forged_emb + "|tok:identifier|oov:auto|x"})))
    scorer = WRDScorer(embedding=str(path), rescale_with_baseline=True)
    sig = scorer.signature()
    assert sig.count("|") == real.count("|") and sig.count("@") == 1, sig
    with pytest.raises(ValueError, match="no baseline"):
        scorer.score(["get count"], ["size"])


def test_ordinary_names_keep_their_signature(tmp_path):
    assert "emb:wrd-minilm-cf-morph-post-d125@sha256:3b5b7bfa70e9" in WRDScorer().signature()
    assert "emb:wrd-minilm-cf-morph-post@sha256:4a345f4a7139" in WRDScorer(embedding="wrd-minilm-cf-morph-post").signature()
    assert "emb:wrd-minilm-cf-morph@sha256:b3a957aef02e" in WRDScorer(embedding="wrd-minilm-cf-morph").signature()
    assert "emb:wrd-minilm-cf@sha256:c624635d3bb0" in WRDScorer(embedding="wrd-minilm-cf").signature()
    assert "emb:wrd-minilm-code@sha256:1e09f7ef860e" in WRDScorer(embedding="wrd-minilm-code").signature()
    assert "emb:wrd-java-default@sha256:1748089c6358" in WRDScorer(embedding="wrd-java-default").signature()
    path = tmp_path / "my_vectors-v2.npz"
    np.savez(path, words=np.array(WORDS), vectors=_vectors())
    assert "emb:my_vectors-v2@sha256:" in WRDScorer(embedding=str(path)).signature()


# ------------------------------------------------------------------ output targets that are not regular files
class _Drain:
    """Reads a FIFO in a thread, as a consumer (`cat fifo`) would, so a writer's open() does not block."""

    def __init__(self, path: Path) -> None:
        import threading

        self.path, self.data, self.stop = path, bytearray(), threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        import select
        import time

        fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
        try:
            while not self.stop.is_set():
                ready, _, _ = select.select([fd], [], [], 0.05)
                chunk = os.read(fd, 1 << 16) if ready else b""
                self.data += chunk
                if not chunk:
                    time.sleep(0.02)  # no writer yet, or the writer is done: poll until stopped
        finally:
            os.close(fd)

    def finish(self) -> bytes:
        import time

        time.sleep(0.2)
        self.stop.set()
        self.thread.join(5)
        return bytes(self.data)


def _null_device(tmp_path: Path, name: str = "null") -> Path:
    """A character device like /dev/null, made in tmp (as root) so that no test can ever replace the real one."""
    import stat as stat_

    node = tmp_path / name
    try:
        os.mknod(node, stat_.S_IFCHR | 0o666, os.stat("/dev/null").st_rdev)
    except (PermissionError, OSError):
        # Not root: the real /dev/null, which a non-root process cannot replace (its folder is not writable).
        return Path("/dev/null")
    return node


def _output_commands(tmp_path: Path):
    """(name, argv with OUT for the output path) of every command that writes a file."""
    cand, ref = tmp_path / "c.txt", tmp_path / "r.txt"
    cand.write_text("getCount\nsize\n")
    ref.write_text("get_count\nlength\n")
    shard = tmp_path / "shard.json"
    from wrd_score import cli

    assert cli.main(["score", "-c", str(cand), "-r", str(ref), "--shard", "1/1", "-o", str(shard), "-q"]) == 0
    vectors = _write_text(tmp_path / "vecs.txt", _w2v_lines())
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("get count size\nset value count\nget value size\n" * 5)
    return {
        "score": ["score", "-c", "getCount", "-r", "get_count", "-o", "OUT"],
        "score --shard": ["score", "-c", str(cand), "-r", str(ref), "--shard", "1/1", "-q", "-o", "OUT"],
        "merge": ["merge", str(shard), "-o", "OUT"],
        "show": ["show", "-c", "getCount", "-r", "get_count", "-o", "OUT"],
        "convert": ["convert", str(vectors), "OUT"],
        "train": ["train", str(corpus), "--method", "svd", "--min-count", "1", "--dim", "2", "--no-progress", "-o", "OUT"],
    }


@pytest.mark.parametrize("target", ["fifo", "device", "link to fifo", "link to device"])
@pytest.mark.parametrize("command", ["score", "score --shard", "merge", "show", "convert", "train"])
def test_output_onto_a_fifo_or_device_writes_into_it_and_keeps_it(tmp_path, capsys, command, target):
    """`-o` onto a FIFO or a character device (or a symlink to one) writes into it; it is never replaced by a file."""
    import stat as stat_

    from wrd_score import cli

    argv = _output_commands(tmp_path)[command]
    # train and convert want a .npz name, show a figure format's
    suffix = ".png" if command == "show" else ".npz"
    node = tmp_path / f"fifo{suffix}" if "fifo" in target else _null_device(tmp_path, f"null{suffix}")
    if node == Path("/dev/null") and command in ("train", "convert", "show") and not target.startswith("link"):
        pytest.skip("not root: no private device node with the suffix the command needs")
    if "fifo" in target:
        os.mkfifo(node)
    out = node
    if target.startswith("link"):
        out = tmp_path / f"out{suffix}"
        out.symlink_to(node)
    drain = _Drain(node) if "fifo" in target else None
    try:
        code = cli.main([str(out) if a == "OUT" else a for a in argv])
    finally:
        data = drain.finish() if drain else b""
    err = capsys.readouterr().err
    assert code == 0, err
    kind = stat_.S_ISFIFO if "fifo" in target else stat_.S_ISCHR
    assert kind(os.stat(node).st_mode), f"{command} replaced the {target} with a regular file"
    assert stat_.S_ISCHR(os.stat("/dev/null").st_mode)
    if target.startswith("link"):
        assert out.is_symlink()
    if drain:
        assert data, f"{command} wrote nothing into the FIFO"
        if command in ("convert", "train"):
            with np.load(io.BytesIO(data), allow_pickle=False) as npz:
                assert npz["vectors"].ndim == 2
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left


@pytest.mark.parametrize("kind", ["socket", "folder"])
def test_output_onto_a_socket_or_folder_is_refused_by_name(tmp_path, capsys, kind):
    import socket

    from wrd_score import cli

    target = tmp_path / "target"
    if kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(target))
    else:
        target.mkdir()
    try:
        code = cli.main(["score", "-c", "getCount", "-r", "get_count", "-o", str(target)])
    finally:
        if kind == "socket":
            sock.close()
    err = capsys.readouterr().err
    assert code == 2 and "target" in err and len(err.strip().splitlines()) == 1, err
    assert target.is_dir() if kind == "folder" else target.is_socket()


def test_validate_output_dir_keeps_a_fifo_and_refuses_a_non_folder(tmp_path, capsys):
    import stat as stat_

    from wrd_score import cli

    table = tmp_path / "j.tsv"
    table.write_text("prediction\treference\thuman\ngetCount\tget_count\t1\nsize\tlength\t0.5\nrun\tstop\t0\n")
    folder = tmp_path / "out"
    folder.mkdir()
    node = _null_device(tmp_path)
    (folder / "j.scatter.png").symlink_to(node)
    (folder / "j.scores.csv").symlink_to(node)
    argv = ["validate", str(table), "-m", "wrdscore", "--bootstrap", "40", "--quiet"]
    assert cli.main([*argv, "--output-dir", str(folder)]) == 0, capsys.readouterr().err
    assert stat_.S_ISCHR(os.stat(node).st_mode) and (folder / "j.scatter.png").is_symlink()
    capsys.readouterr()
    assert cli.main([*argv, "--output-dir", str(table)]) == 2
    err = capsys.readouterr().err
    assert "j.tsv" in err and "not a folder" in err and len(err.strip().splitlines()) == 1, err


# ------------------------------------------------------------------ issue 22 items 5 and 16: files that load wrong
def _w2v_binary(path: Path, words, vectors, rows=None) -> Path:
    """A word2vec binary file as the C tool writes it: header, then `word ` + float32 bytes + newline per row."""
    body = b"".join(w.encode() + b" " + np.asarray(v, dtype="<f4").tobytes() + b"\n" for w, v in zip(words, vectors))
    path.write_bytes(f"{len(words) if rows is None else rows} {vectors.shape[1]}\n".encode() + body)
    return path


def test_word2vec_text_renamed_bin_is_refused(tmp_path):
    """Issue 22 item 5: `cp vecs.txt vecs.bin` loaded garbage words with values up to 7.4e31."""
    text = _write_text(tmp_path / "vecs.txt", _w2v_lines())
    renamed = tmp_path / "vecs.bin"
    shutil.copy(text, renamed)
    with pytest.raises(ValueError, match=r"vecs\.bin.*(text|header)") as info:
        StaticEmbedding.load(str(renamed))
    assert "\n" not in str(info.value)
    # The real binary of the same vectors loads, and equals the text file.
    real = _w2v_binary(tmp_path / "real.bin", WORDS, _vectors().astype(np.float32))
    assert StaticEmbedding.load(str(real)).words == StaticEmbedding.load(str(text)).words


@pytest.mark.parametrize("case", ["text-duplicate", "text-header-below-rows", "binary-duplicate",
                                  "binary-header-below-rows"])
def test_word2vec_duplicates_and_short_headers_are_refused(tmp_path, case):
    """Issue 22 item 16: a duplicated word or a header count below the real rows loaded (rows dropped)."""
    words = WORDS[:-1] + (["get"] if "duplicate" in case else [WORDS[-1]])
    rows = len(words) - 2 if "below" in case else None
    if case.startswith("text"):
        lines = _w2v_lines(words)
        if rows is not None:
            lines[0] = f"{rows} 4"
        path = _write_text(tmp_path / "v.txt", lines)
    else:
        path = _w2v_binary(tmp_path / "v.bin", words, _vectors().astype(np.float32), rows=rows)
    message = "'get'.*twice|twice.*'get'" if "duplicate" in case else "header"
    with pytest.raises(ValueError, match=message) as info:
        StaticEmbedding.load(str(path))
    assert "v." in str(info.value)


@pytest.mark.parametrize("words, message", [
    (np.array([["get", "count"], ["size", "set"]]), "1-D"),
    (np.arange(5), "strings"),
    (np.array(["get", "count", "get", "set", "value"]), "twice"),
], ids=["2-D", "integer", "duplicate"])
def test_npz_words_must_be_distinct_strings(tmp_path, words, message):
    """Issue 22 item 16: 2-D or integer `words` loaded (every token out of vocabulary)."""
    path = tmp_path / "w.npz"
    np.savez(path, words=words, vectors=_vectors(len(words)))
    with pytest.raises(ValueError, match=message) as info:
        StaticEmbedding.load(str(path))
    assert "w.npz" in str(info.value)


@pytest.mark.parametrize("content, message", [
    (b"the\xff a\n", "--moverscore-stop-words file {path}, line 1: not valid UTF-8"),
    (b"x" * 1_000_001, "--moverscore-stop-words file {path}, line 1: longer than 1,000,000 bytes"),
    (b"the\n" * 100_001, "--moverscore-stop-words file: more than 100,000 stop words"),
    ("DIR", "--moverscore-stop-words file {path} is a directory"),
    ("MISSING", "--moverscore-stop-words file {path} does not exist"),
])
def test_compare_stop_words_file_is_bounded_and_named(tmp_path, capsys, content, message):
    """Before, `--moverscore-stop-words` read the whole file at once (/dev/zero: a MemoryError traceback) and its
    errors named no flag: "'utf-8' codec can't decode byte 0xff", "[Errno 21] Is a directory: 'adir'"."""
    from wrd_score.cli import main

    path = tmp_path / "stop.txt"
    if content == "DIR":
        path.mkdir()
    elif content != "MISSING":
        path.write_bytes(content)
    assert main(["compare", "-c", "the count", "-r", "a size", "--metrics", "moverscore",
                 "--moverscore-stop-words", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("wrdscore compare: error:") and message.format(path=repr(str(path))) in err, err


def test_compare_stop_words_are_read_after_the_flag_is_checked_and_then_apply(tmp_path, capsys):
    from wrd_score.cli import main

    binary = tmp_path / "bin.txt"
    binary.write_bytes(b"\xff\xfe")
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    for path in (binary, empty):  # an empty file, read as no stop words, slipped past the refusal
        assert main(["compare", "-c", "the count", "-r", "a size", "--metrics", "wrdscore",
                     "--moverscore-stop-words", str(path)]) == 2
        assert "--moverscore-stop-words given without moverscore in --metrics" in capsys.readouterr().err
    words = tmp_path / "stop.txt"
    words.write_text("the a\n\nof\n", encoding="utf-8")
    assert main(["compare", "-c", "the count", "-r", "a count", "--metrics", "moverscore", "--json",
                 "--moverscore-stop-words", str(words)]) == 0
    table = json.loads(capsys.readouterr().out)
    assert table["moverscore-rule[static]"] == [1.0] and "stop:3" in table["signatures"]["moverscore-rule[static]"]
    assert main(["compare", "-c", "-", "-r", "size", "--metrics", "moverscore", "--moverscore-stop-words", "-"]) == 2
    assert "standard input ('-') can be given only once" in capsys.readouterr().err


def test_moverscore_stop_words_are_bounded_in_the_library():
    from itertools import repeat

    from wrd_score.metrics import MoverScore

    with pytest.raises(ValueError, match="stop_words: more than 100,000 stop words"):
        MoverScore(stop_words=repeat("the"))  # an endless iterator: refused after the limit, not read forever
    with pytest.raises(TypeError, match="stop_words must be a collection of token strings, got int"):
        MoverScore(stop_words=5)


def test_float64_vectors_whose_norm_overflows_are_refused(tmp_path):
    """Finite float64 entries of 1e308 gave an inf norm: the text's norm masses fell back to uniform without a word.
    Norms up to float64's range still load and score (test_huge_and_tiny_norms_stay_finite)."""
    from wrd_score.embeddings import StaticEmbedding

    vectors = _vectors()
    vectors[1] = 1e308  # "count": entries in range, the norm 2e308
    path = tmp_path / "huge.npz"
    np.savez(path, words=np.array(WORDS), vectors=vectors)
    with pytest.raises(ValueError, match=r"embedding 'huge' has 1 vectors whose norm overflows to inf \(e.g. \['count'\]\)"):
        _score(path)
    ngrams = np.ones((4, 4))
    ngrams[2] = 1e308
    with pytest.raises(ValueError, match="n-gram vectors whose norm overflows to inf"):
        StaticEmbedding(WORDS, _vectors(), ngram_vectors=ngrams, min_n=3, max_n=3)
    vectors[1] = 1e307  # a norm of 2e307: kept
    np.savez(path, words=np.array(WORDS), vectors=vectors)
    _assert_finite(_score(path))


@pytest.mark.parametrize("weights", ["uniform", "idf", "norm"])
def test_a_composed_vector_that_overflows_is_refused_by_token(tmp_path, weights):
    """Every n-gram row of a float64 table may be finite with a finite norm (5e307 each) while the mean of a token's
    n-grams, summed first, overflows: the composed direction was NaN and the pair scored 0.0 without a word
    (``uniform``/``idf``); with ``norm`` the mass check caught it without naming the composition."""
    ngrams = np.zeros((4, 4))
    ngrams[:, 0] = 5e307
    path = tmp_path / "huge-ngrams.npz"
    np.savez(path, words=np.array(WORDS), vectors=_vectors(), ngram_vectors=ngrams, ngram_range=np.array([3, 3]))
    with pytest.raises(ValueError, match=r"unknown token 'zzzzzz'.*huge-ngrams.*overflow"):
        wrd_score.score(["zzzzzz"], ["count"], embedding=str(path), weights=weights)
    ngrams[:, 0] = 1.0  # the same table at an ordinary scale composes and scores
    np.savez(path, words=np.array(WORDS), vectors=_vectors(), ngram_vectors=ngrams, ngram_range=np.array([3, 3]))
    _assert_finite(wrd_score.score(["zzzzzz"], ["count"], embedding=str(path), weights=weights))
