"""The safety checks of embedding files and arrays, and their limits (listed in SECURITY.md): each refuses,
in one line that names the file, what a reader would otherwise load wrong, silently (a short row broadcast, a
duplicated word dropped, a header's promise trusted) or at a cost (a zip bomb, a header that promises gigabytes).
"""
from __future__ import annotations

import os
from typing import Dict, Optional, Sequence, Tuple

import numpy as np

from ..files import open_input
from .vectors import dequantize_rows, quantize_rows, safe_norms

__all__ = ["MAX_NPZ_ENTRIES", "MAX_NPZ_BYTES", "MAX_DIM", "MAX_NGRAM_N", "MAX_WORD_BYTES", "FLOAT16_TOLERANCE",
           "INT8_TOLERANCE", "SCALE_ARRAYS", "overflowing_norms", "check_scales",
           "DF_ARRAYS", "Refused", "check_storable", "check_df_arrays", "check_distinct_words", "check_npz_sizes",
           "check_text_rows", "check_binary_rows", "check_word2vec_header", "check_fasttext_header"]

# Limits on an embedding file, checked against the .npz's declared sizes before anything is
# allocated (listed in SECURITY.md).  They admit a 40 MB, 384-dim default with a tokenizer JSON
# and extra arrays many times over; they refuse zip bombs and headers that promise gigabytes.
MAX_NPZ_ENTRIES = 64
MAX_NPZ_BYTES = 1 << 30  # uncompressed, all arrays together
MAX_DIM = 4096
MAX_NGRAM_N = 32  # fastText uses 3..6; each n-gram length costs one hash per character of a token


#: Largest move float16 rounding may make to a vector, relative to its norm. Rounding a value of ordinary
#: size moves it by at most 2^-11 (0.05%); a vector whose values fall below float16's normal range
#: (6.1e-5) loses digits, and its direction with them.
FLOAT16_TOLERANCE = 0.01


#: Largest move int8 storage (:func:`~wrd_score.embeddings.vectors.quantize_rows`: one byte a value and a
#: float32 scale per row) may make to a vector, relative to its norm. A dense row moves by about 1% (half a
#: step of its largest entry over 127, in every dimension); a row whose mass sits in one huge entry loses
#: its small ones, and its direction with them.
INT8_TOLERANCE = 0.05
#: The per-row scales that go with int8-stored arrays of an ``.npz``.
SCALE_ARRAYS = {"vectors": "vector_scales", "ngram_vectors": "ngram_scales"}


def overflowing_norms(matrix: np.ndarray) -> np.ndarray:
    """Which rows of a finite matrix have a norm past float64's range (only float64 and wider tables can: a float32
    row's norm is under 1e41).  Finite entries of 1e308 gave an inf norm, and the text's norm masses fell back to
    uniform."""
    if matrix.dtype.kind != "f" or matrix.dtype.itemsize <= 4:
        return np.zeros(len(matrix), dtype=bool)
    with np.errstate(over="ignore"):
        return ~np.isfinite(safe_norms(matrix.astype(np.float64, copy=False)))


def check_storable(matrix: Optional[np.ndarray], dtype: str, what: str) -> None:
    """Refuse vectors that ``dtype`` cannot store: values past float16's 65,504 (they become inf; int8 files
    are read back as float16), or vectors that rounding moves by more than :data:`FLOAT16_TOLERANCE`
    (float16) or :data:`INT8_TOLERANCE` (int8) of their norm (vectors scaled by 1e-6 lost their directions
    in float16: F1 0.9479 became 0.7225)."""
    if dtype not in ("float16", "int8") or matrix is None or not np.asarray(matrix).size:
        return
    values = np.asarray(matrix, dtype=np.float64)
    top = float(np.abs(values).max())
    limit = float(np.finfo(np.float16).max)
    if top > limit:
        raise ValueError(f"{what} exceed the float16 range (largest magnitude {top:.3g}, max {limit:g}); "
                         "use dtype='float32' (--dtype float32)")
    norms = safe_norms(values)
    stored = dequantize_rows(*quantize_rows(values)) if dtype == "int8" else values.astype(np.float16)
    tolerance = INT8_TOLERANCE if dtype == "int8" else FLOAT16_TOLERANCE
    moved = safe_norms(stored.astype(np.float64) - values) > tolerance * norms
    if moved.any():
        raise ValueError(f"{what} cannot be stored as {dtype}: rounding would move {int(moved.sum())} of them by more "
                         f"than {tolerance:.0%} of their norm (smallest norm {float(norms[moved].min()):.3g}; "
                         "float16 keeps its digits only above 6.1e-05, int8 keeps a row's entries only down to 1/127 "
                         "of its largest); use dtype='float32' (--dtype float32)")


def check_scales(codes: np.ndarray, scales: np.ndarray, key: str, path: str) -> None:
    """The per-row scales of an int8-stored array (``SCALE_ARRAYS[key]``): int8 codes in a 2-D array, one
    finite, non-negative float32 scale per row, and no value past float16's range once scaled."""
    if codes.dtype != np.int8 or codes.ndim != 2:
        raise Refused(f"embedding file {path!r}: {SCALE_ARRAYS[key]!r} goes with int8 {key!r}, but {key!r} is "
                      f"{codes.dtype} of shape {codes.shape}")
    if scales.dtype != np.float32 or scales.shape != (codes.shape[0],):
        raise Refused(f"embedding file {path!r}: {SCALE_ARRAYS[key]!r} must hold one float32 scale per row of "
                      f"{key!r} ({codes.shape[0]}), got {scales.dtype} of shape {scales.shape}")
    if not np.isfinite(scales).all() or (scales < 0).any():
        raise Refused(f"embedding file {path!r}: {SCALE_ARRAYS[key]!r} must be finite and >= 0")
    if len(scales) and float(scales.max()) * 127 > float(np.finfo(np.float16).max):
        raise Refused(f"embedding file {path!r}: {SCALE_ARRAYS[key]!r} scale {float(scales.max()):.3g} takes "
                      "values past float16's range")


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


class Refused(ValueError):
    """A file check's own error (it names the file), re-raised as is by the loaders' wrappers."""


def check_text_rows(path: str, header: bool) -> None:
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
                raise Refused(f"embedding file {path!r} line {line_no}: expected a word and {dim} values, "
                              f"found {fields} values (truncated or corrupt file)")
            first = seen.setdefault(parts[0], line_no)
            if first != line_no:  # gensim keeps one of them and drops a row, with only a log line
                raise Refused(f"embedding file {path!r}: the word {parts[0].decode('utf-8', 'replace')!r} appears "
                               f"twice (lines {first} and {line_no}); each word needs exactly one vector")
    if rows is not None and line_no - 1 != rows:
        # gensim reads only the rows the header promises: the rest would be dropped without a word.
        raise Refused(f"embedding file {path!r}: its header promises {rows} rows but the file has {line_no - 1} "
                       "(a wrong header count)")


#: Bytes of the printable form of numbers: a "binary" vector made only of these is a text file's.
_TEXT_NUMBER_BYTES = frozenset(b"0123456789.-+eE \t")
#: Longest word in a word2vec binary file (gensim reads a word up to the next space).
MAX_WORD_BYTES = 100_000


def check_binary_rows(path: str) -> None:
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
                    raise Refused(f"embedding file {path!r}: row {row} of the {rows} its header promises has no "
                                   f"word ending in a space within {MAX_WORD_BYTES:,} bytes (truncated or corrupt)")
                space = buffer.find(b" ", pos)
            word = bytes(buffer[pos:space]).lstrip(b"\n")
            pos = space + 1
            while len(buffer) - pos < width:
                if not more():
                    raise Refused(f"embedding file {path!r}: row {row} ends before its {dim} values "
                                   f"(truncated, or the header promises more rows than it holds)")
            vector = bytes(buffer[pos:pos + width])
            pos += width
            if row == 1 and set(vector) <= _TEXT_NUMBER_BYTES:
                raise Refused(f"embedding file {path!r} is a word2vec text file, not binary (its values are "
                               "written as digits); name it .txt or .vec, or pass embedding_format='word2vec'")
            first = seen.setdefault(word, row)
            if first != row:
                raise Refused(f"embedding file {path!r}: the word {word.decode('utf-8', 'replace')!r} appears "
                               f"twice (rows {first} and {row}); each word needs exactly one vector")
        rest = bytes(buffer[pos:]) + handle.read(4096)
        if rest.strip(b"\n"):
            raise Refused(f"embedding file {path!r} holds more bytes than the {rows} rows of {dim} values its "
                           "header promises (a header count below the real rows, or a text file read as binary)")


def check_distinct_words(words: Sequence[str], name: str) -> None:
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


def check_npz_sizes(path: str) -> None:
    """Check an .npz's entries against the limits from their zip and .npy headers, before numpy
    allocates anything (a 2 MB zip bomb can declare a 2**29-dimensional vector)."""
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
            if len(infos) > MAX_NPZ_ENTRIES:
                raise Refused(f"embedding file {path!r} has {len(infos)} entries, above the limit of {MAX_NPZ_ENTRIES}")
            total = sum(info.file_size for info in infos)
            if total > MAX_NPZ_BYTES:
                raise Refused(f"embedding file {path!r} unpacks to {total} bytes, above the limit of {MAX_NPZ_BYTES}")
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
                    raise Refused(f"embedding file {path!r}: array {info.filename!r} declares shape {shape} "
                                     f"of {dtype} ({nbytes} bytes), more than its entry holds or the limit of "
                                     f"{MAX_NPZ_BYTES} bytes")
                if info.filename in ("vectors.npy", "ngram_vectors.npy") and len(shape) == 2 and shape[1] > MAX_DIM:
                    raise Refused(f"embedding file {path!r}: {info.filename} has dimension {shape[1]}, "
                                     f"above the limit of {MAX_DIM}")
    except Refused:
        raise
    except Exception as exc:  # bad zip, bad npy header
        raise ValueError(f"could not read embedding file {path!r} as npz: {type(exc).__name__}: {exc}") from exc


def check_word2vec_header(path: str, binary: bool) -> None:
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


def check_fasttext_header(path: str) -> None:
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
