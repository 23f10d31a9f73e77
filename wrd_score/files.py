"""Reading and writing files: the readers and writers the library uses (every command uses them too).

Lines come from plain or gzip'ed UTF-8 files (:func:`open_input`, :func:`iter_lines`: ``\\n`` line ends,
a length limit per line, errors naming the file and line); tables from CSV, TSV or JSONL
(:func:`read_table`); JSON data from :func:`read_json`.  Outputs are written whole or not at all
(:func:`atomic_write`: a temporary file in the same folder, renamed over the target only once it is
complete), and :func:`check_output` refuses an output that cannot be written before a long run.
What only the command line needs (deciding whether ``-c``/``-r`` are files or strings, pairing their
lines, ``--idf-file``) is in :mod:`wrd_score.cli.io`.
"""
from __future__ import annotations

import contextlib
import gzip
import json
import math
import os
import re
import stat
import sys
import tempfile
from array import array
from typing import IO, Any, Dict, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from .deps import require

__all__ = [
    "count_lines",
    "open_input",
    "read_table",
    "write_table",
    "table_format",
    "TABLE_FORMATS",
    "numeric_column",
    "DECIMAL",
    "TableError",
    "MissingColumnsError",
    "iter_lines",
    "MAX_LINE_BYTES",
    "atomic_write",
    "check_output",
    "check_distinct_outputs",
    "output_kind",
    "read_json",
    "write_json",
    "user_cache_dir",
]

Pair = Tuple[str, List[str]]

#: Longest input line, in bytes, without its line ending (after gzip decompression). A longer line is refused with its file
#: and line number instead of being read whole: ``-c /dev/zero`` would otherwise fill memory with
#: one endless line. A megabyte is some 100,000 identifier subtokens, far past any text the metric
#: scores in useful time (transport is quadratic in the distinct tokens of a pair).
MAX_LINE_BYTES = 1_000_000

#: The input name that means standard input, as in sacreBLEU.
STDIN = "-"


def user_cache_dir() -> str:
    """The user's WRDScore folder for what the library makes and keeps (``runtime="onnx"``'s exports, baselines
    computed by ``wrdscore baseline``): ``$WRDSCORE_CACHE``, else ``$XDG_CACHE_HOME/wrd_score``, else
    ``~/.cache/wrd_score`` (where bert_score and sacreBLEU users look for such files: their own cache folders)."""
    return os.environ.get("WRDSCORE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "wrd_score")


# ---------------------------------------------------------------------------------- reading
def open_input(path: str, text: bool = False, errors: str = "strict") -> IO:
    """The one opener of input files: a ``.gz`` file (any case) is decompressed as it is read.

    Binary by default; ``text=True`` decodes UTF-8 with ``errors``.
    """
    path = os.fspath(path)
    if path.lower().endswith(".gz"):
        return gzip.open(path, "rt" if text else "rb", **({"encoding": "utf-8", "errors": errors} if text else {}))
    return open(path, "r" if text else "rb", **({"encoding": "utf-8", "errors": errors} if text else {}))


def _open_binary(path: str, name: str) -> IO[bytes]:
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"{name} must be a file path (str), got {type(path).__name__}")
    path = os.fspath(path)
    if path == STDIN:
        # Not closed with the handle: standard input belongs to the process.
        return os.fdopen(os.dup(sys.stdin.fileno()), "rb")
    if not os.path.exists(path):
        raise FileNotFoundError(f"{name} file {path!r} does not exist")
    if os.path.isdir(path):
        raise IsADirectoryError(f"{name} file {path!r} is a directory, not a file")
    try:
        return open_input(path)
    except OSError as exc:
        raise OSError(f"{name} file {path!r} cannot be read: {exc.strerror or exc}") from None


def iter_lines(path: str, name: str = "input") -> Iterator[str]:
    """The lines of a UTF-8 (optionally ``.gz``) file, without their line endings.

    Lines are split on ``\\n`` only, as sacreBLEU reads them (``newline="\\n"``) and ``wc -l`` counts
    them; a trailing ``\\r`` (Windows endings) and a leading byte-order mark are dropped.  A carriage
    return anywhere else is refused with the file and line: a file with old-Mac (``\\r``-only) line
    ends would otherwise be read as one long example.  Empty lines are kept: an empty candidate is a
    valid input.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "c.txt")
    ...     _ = open(p, "wb").write(b"getCount\\r\\n\\nsize")
    ...     list(iter_lines(p))
    ['getCount', '', 'size']
    """
    with _open_binary(path, name) as handle:
        try:
            number = 0
            # readline with a limit: iterating the handle would read an endless line whole.
            for raw in iter(lambda: handle.readline(MAX_LINE_BYTES + 1), b""):
                number += 1
                if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                    raise ValueError(f"{name} file {_shown(path)}, line {number}: longer than {MAX_LINE_BYTES:,} "
                                     "bytes; split the text (the limit bounds memory)")
                if raw.endswith(b"\n"):
                    raw = raw[:-1]
                if raw.endswith(b"\r"):
                    raw = raw[:-1]
                if b"\r" in raw:
                    raise ValueError(f"{name} file {_shown(path)}, line {number}: a carriage return (\\r) inside "
                                     "the line; lines end with \\n or \\r\\n (old Mac \\r-only line ends? "
                                     "convert them: tr '\\r' '\\n')")
                try:
                    yield raw.decode("utf-8-sig" if number == 1 else "utf-8")
                except UnicodeDecodeError as exc:
                    raise ValueError(f"{name} file {_shown(path)}, line {number}: not valid UTF-8 "
                                     f"(byte {exc.start}: {raw[exc.start:exc.start + 1]!r})") from None
        except (OSError, EOFError) as exc:  # e.g. a truncated or corrupt .gz
            raise OSError(f"{name} file {_shown(path)} cannot be read: {exc}") from None


def _shown(path: str) -> str:
    return "'-' (standard input)" if path == STDIN else repr(os.fspath(path))


def count_lines(path: str, name: str = "input") -> int:
    """Number of lines of a file, checking every line decodes (the cheap first pass)."""
    n = 0
    for n, _ in enumerate(iter_lines(path, name), 1):
        pass
    return n


# ---------------------------------------------------------------------------------- tables
class TableError(ValueError):
    """A table file that cannot be read as data; the message says what is wrong, for the user."""


class MissingColumnsError(TableError):
    """A table without a column it must have: callers that name those columns with a flag say which."""


#: Table formats by extension (before an optional ``.gz``).
TABLE_FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl"}
#: Values of a numeric column that mean "missing".
MISSING = ("", "nan", "na", "none", "null")
#: A number written in a text file (a human score, an IDF weight): a plain decimal, as every table writer spells one.
#: float() also reads "1_0" (10) and the digits of other scripts ("\u0663", Arabic-Indic 3), which are refused.
DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?:inf|nan)", re.I)


def table_format(path: str) -> str:
    """``csv``, ``tsv`` or ``jsonl``, from the file name (``.gz`` allowed); else a :class:`TableError`."""
    stem = os.fspath(path)
    if stem.lower().endswith(".gz"):
        stem = stem[:-3]
    kind = TABLE_FORMATS.get(os.path.splitext(stem)[1].lower())
    if kind is None:
        raise TableError(f"unsupported file type {os.path.splitext(stem)[1] or '(none)'!r}: "
                         "give a .csv, .tsv or .jsonl file")
    return kind


def read_table(path: str, required: Sequence[str] = ("prediction", "reference"), numeric: Sequence[str] = (),
               max_bytes: Optional[int] = None, max_rows: Optional[int] = None):
    r"""Read a CSV, TSV (tab-separated, quoting off) or JSONL file (optionally ``.gz``) as data only.

    The one reader of prediction/reference/human tables (``wrdscore validate``, baseline corpora,
    the app's uploads).  Text cells stay strings exactly (no NA guessing: an empty cell is an empty
    text); ``required`` and ``numeric`` columns are matched ignoring case and renamed to the given
    spelling; ``numeric`` columns become float arrays (:data:`MISSING` values are NaN).  Every
    problem raises :class:`TableError` naming the row or column.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "t.tsv")
    ...     _ = open(p, "w").write("Prediction\treference\thuman\ngetCount\tsize\t0.5\n\tx\tnan\n")
    ...     t = read_table(p, numeric=["human"])
    >>> t["prediction"].tolist(), t["human"].tolist()[0]
    (['getCount', ''], 0.5)
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"file must be a path, got {type(path).__name__}")
    require("pandas", "validate")
    path = os.fspath(path)
    kind = table_format(path)
    if not os.path.isfile(path):
        if os.path.exists(path):  # it does exist: a folder, FIFO or device, which is sized and read as no table is
            raise TableError(f"file {path!r} is not a regular file (a folder, pipe or device); give a file")
        raise FileNotFoundError(f"file {path!r} does not exist")
    size = os.path.getsize(path)
    if max_bytes is not None and size > max_bytes:
        raise TableError(f"the file is {size / 1048576:.1f} MB; the limit is {max_bytes / 1048576:.0f} MB")
    with open_input(path) as handle:
        raw = handle.read(max_bytes + 1 if max_bytes is not None else -1)
    if max_bytes is not None and len(raw) > max_bytes:
        raise TableError(f"the file decompresses to over {max_bytes / 1048576:.0f} MB, the limit")
    if not raw.strip():
        raise TableError("the file is empty")
    if b"\x00" in raw:
        raise TableError("the file looks binary (it contains NUL bytes); give UTF-8 text")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TableError(f"the file is not UTF-8 text (invalid byte at position {exc.start})") from None
    frame = _read_jsonl(text) if kind == "jsonl" else _read_delimited(text, kind)
    # The header as written: pandas renames a repeated name ("reference" -> "reference.1"), and the first column
    # would be used while the other was dropped without a word.
    header = [str(c).strip() for c in (frame.columns if kind == "jsonl" else _header(text, kind))]
    lowered = [c.lower() for c in header]
    repeated = next((c for c in [*required, *numeric, *header] if lowered.count(c.lower()) > 1), None)
    if repeated is not None:
        raise TableError(f"the file has more than one {repeated!r} column (names are compared ignoring case)")
    frame.columns = header
    rename = {}
    for column in [*required, *numeric]:
        if column.lower() in lowered:
            rename[frame.columns[lowered.index(column.lower())]] = column
    frame = frame.rename(columns=rename)
    missing = [c for c in required if c not in frame.columns]
    if missing:
        found = ", ".join(repr(c) for c in list(frame.columns)[:10]) or "none"
        hint = " (is it really tab-separated?)" if kind == "tsv" and len(frame.columns) == 1 else ""
        names = " and ".join(repr(c) for c in required)
        raise MissingColumnsError(f"the file needs columns {names}; missing {missing}, found {found}{hint}")
    if len(frame) == 0:
        raise TableError("the file has a header but no rows")
    if max_rows is not None and len(frame) > max_rows:
        raise TableError(f"the file has {len(frame)} rows; the limit is {max_rows}")
    for column in required:
        values = frame[column].tolist()
        bad = next((i for i, v in enumerate(values) if not isinstance(v, str)), None)
        if bad is not None:
            raise TableError(f"row {bad + 1}: {column} must be text, got {values[bad]!r}")
    for column in numeric:
        if column in frame.columns:
            frame[column] = numeric_column(frame[column].tolist(), column)
    return frame.reset_index(drop=True)


def write_table(table: Any, target: Any, kind: Optional[str] = None, digits: Optional[int] = None) -> None:
    r"""Write a DataFrame as CSV, TSV (tab-separated, quoting off) or JSONL: the one writer of the tables
    :func:`read_table` reads, which reads the file back as the same data.

    ``target`` is a path (written whole or not at all, :func:`atomic_write`; its format by extension unless
    ``kind`` says it) or an open text handle (``kind`` then required).  Floats are written to round-trip
    (``repr``; ``digits``: rounded to that many decimals instead, CSV/TSV only); a missing number is empty in
    CSV, ``nan`` in TSV and ``null`` in JSONL.  TSV has no quoting, so a text holding a tab or a line break
    cannot be written as TSV: a :class:`TableError` says so (write CSV or JSONL instead).

    >>> import io, pandas as pd
    >>> out = io.StringIO()
    >>> write_table(pd.DataFrame({"prediction": ["a"], "f1": [0.1 + 0.2]}), out, "jsonl")
    >>> out.getvalue()
    '{"prediction": "a", "f1": 0.30000000000000004}\n'
    """
    if kind is None:
        if not isinstance(target, (str, os.PathLike)):
            raise TypeError("write_table needs kind= ('csv', 'tsv' or 'jsonl') to write to a handle")
        if os.fspath(target).lower().endswith(".gz"):
            raise TableError("write_table writes plain text; compress the file afterwards")
        kind = table_format(target)
    if kind not in ("csv", "tsv", "jsonl"):
        raise ValueError(f"kind must be one of ['csv', 'tsv', 'jsonl'], got {kind!r}")
    if kind == "tsv":
        from pandas.api.types import is_numeric_dtype

        texts = [c for c in table.columns if not is_numeric_dtype(table[c])]
        if any(table[c].astype(str).str.contains(r"[\t\n\r]", regex=True).any() for c in texts):
            raise TableError("a text holds a tab or a line break, which a TSV file (quoting off) cannot hold; "
                             "write CSV or JSONL")
    if isinstance(target, (str, os.PathLike)):
        with atomic_write(target) as handle:
            _write_table(table, handle, kind, digits)
    else:
        _write_table(table, target, kind, digits)


def _write_table(table: Any, handle: IO[str], kind: str, digits: Optional[int]) -> None:
    import csv

    if kind == "jsonl":
        # json, not pandas: floats written by repr round-trip exactly, and a missing number is null.
        for record in table.to_dict(orient="records"):
            clean = {key: (None if isinstance(value, float) and not math.isfinite(value) else
                           value.item() if isinstance(value, np.generic) else value) for key, value in record.items()}
            handle.write(json.dumps(clean, ensure_ascii=False) + "\n")
        return
    float_format = f"%.{digits}f" if digits is not None else None
    if kind == "tsv":
        table.to_csv(handle, sep="\t", index=False, quoting=csv.QUOTE_NONE, na_rep="nan", float_format=float_format)
    else:
        table.to_csv(handle, index=False, float_format=float_format)


def numeric_column(values: Sequence[Any], name: str):
    """Cells of a numeric column as floats: :data:`MISSING` values are NaN; anything else that is not
    a finite number raises :class:`TableError` naming the row.

    >>> numeric_column(["1", "", "nan", 2], "human").tolist()
    [1.0, nan, nan, 2.0]
    """
    out = np.empty(len(values))
    for i, value in enumerate(values):
        if value is None or (isinstance(value, str) and value.strip().lower() in MISSING):
            out[i] = np.nan
            continue
        if isinstance(value, bool):
            raise TableError(f"row {i + 1}: {name} must be a number, got {value!r}")
        try:
            if isinstance(value, str) and not DECIMAL.fullmatch(value.strip()):
                raise ValueError(value)
            number = float(value)
        except (TypeError, ValueError):
            raise TableError(f"row {i + 1}: {name} must be a number (or empty), got {str(value)[:40]!r}") from None
        except OverflowError:  # an integer too large for a float (JSON has no size limit)
            raise TableError(f"row {i + 1}: {name} is too large to be a score ({len(str(value))}-digit integer)") \
                from None
        if math.isinf(number):
            raise TableError(f"row {i + 1}: {name} must be finite, got {value!r}")
        out[i] = number
    return out


def _read_delimited(text: str, kind: str):
    import csv
    import io
    import warnings

    import pandas as pd

    sep, quoting = ("\t", csv.QUOTE_NONE) if kind == "tsv" else (",", csv.QUOTE_MINIMAL)
    try:
        with warnings.catch_warnings():
            # index_col=False: pandas would otherwise take rows with one field more than the header
            # (a trailing delimiter) as "index + columns" and shift every column left by one. The
            # extra fields would then be dropped with only a warning; they are refused instead.
            warnings.simplefilter("error", pd.errors.ParserWarning)
            return pd.read_csv(io.StringIO(text), sep=sep, dtype=str, keep_default_na=False, na_filter=False,
                               quoting=quoting, index_col=False)
    except pd.errors.ParserWarning:
        rows = csv.reader(io.StringIO(text), delimiter=sep, quoting=quoting)
        width = len(next(rows))
        number, fields_ = next(((k, len(r)) for k, r in enumerate(rows, 1) if len(r) > width), (0, 0))
        raise TableError(f"row {number} has {fields_} fields but the header names {width} columns (a "
                         f"delimiter at the end of each row?); remove the extra fields or name them in the header") \
            from None
    except (pd.errors.ParserError, pd.errors.EmptyDataError, csv.Error) as exc:
        detail = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
        raise TableError(f"could not read the file as {kind.upper()}: {detail}") from None


def _header(text: str, kind: str) -> List[str]:
    """The first row of a CSV or TSV file, read as :func:`_read_delimited` reads it."""
    import csv
    import io

    sep, quoting = ("\t", csv.QUOTE_NONE) if kind == "tsv" else (",", csv.QUOTE_MINIMAL)
    return next(csv.reader(io.StringIO(text), delimiter=sep, quoting=quoting), [])


class _RepeatedKey(ValueError):
    """A JSON object that names its key (``args[0]``) twice."""


def _unique_keys(pairs):
    """The ``object_pairs_hook`` of every JSON read: a key given twice is refused (``json`` keeps the last silently)."""
    seen: dict = {}
    for key, value in pairs:
        if key in seen:
            raise _RepeatedKey(key)
        seen[key] = value
    return seen


def _read_jsonl(text: str):
    import pandas as pd

    records = []
    # Lines end at \n (a \r before it is JSON whitespace): str.splitlines() also cut at U+2028, U+2029 and U+0085,
    # which JSON allows unescaped inside a string (json.dumps(ensure_ascii=False), write_table, write them so).
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip(" \t\r"):
            continue
        try:
            record = json.loads(line, object_pairs_hook=_unique_keys)
        except _RepeatedKey as exc:
            raise TableError(f"line {number} names {exc.args[0]!r} twice") from None
        except json.JSONDecodeError as exc:
            raise TableError(f"line {number} is not valid JSON: {exc.msg}") from None
        except RecursionError:
            raise TableError(f"line {number} is nested too deeply; each line must be a flat JSON object") from None
        except ValueError as exc:  # e.g. an integer longer than Python's int-to-string limit
            raise TableError(f"line {number} is not usable JSON: {exc}") from None
        if not isinstance(record, dict):
            raise TableError(f"line {number} must be a JSON object with named fields, got {type(record).__name__}")
        records.append(record)
    if not records:
        raise TableError("the file is empty")
    return pd.DataFrame.from_records(records)


# ---------------------------------------------------------------------------------- output
def output_kind(path: str) -> str:
    """``"file"`` (a regular file, or a name not yet taken: written atomically) or ``"stream"`` (a
    FIFO or character device such as ``/dev/null`` or ``/dev/stdout``, or a symlink to one: written in
    place); anything else is refused naming ``path``.

    A stream is never replaced: renaming a temporary file over ``/dev/null`` (as root) or a FIFO
    would destroy it and leave a regular file in its place.
    """
    try:
        mode = os.stat(path).st_mode  # through symlinks: the target decides
    except FileNotFoundError:
        return "file"
    except OSError as exc:
        raise OSError(f"cannot write output {path!r}: {exc.strerror or exc}") from None
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return "stream"
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(f"output {path!r} is a directory, not a file")
    what = "block device" if stat.S_ISBLK(mode) else "socket" if stat.S_ISSOCK(mode) else "special file"
    raise ValueError(f"output {path!r} is a {what}; give a regular file, a FIFO or a character device")


@contextlib.contextmanager
def atomic_write(path: str, mode: str = "w", encoding: Optional[str] = "utf-8") -> Iterator[IO]:
    """Write ``path`` all at once: a temporary file in the same folder, renamed over it on success.

    On any exception the temporary file is removed and ``path`` is left as it was. A symlink is
    written through: its target gets the new content and the link itself is kept. A FIFO or a
    character device (:func:`output_kind`) is opened and written in place, never replaced (what a
    reader has received cannot be taken back, so it is not atomic).

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "out.txt")
    ...     with atomic_write(p) as f:
    ...         _ = f.write("done\\n")
    ...     try:
    ...         with atomic_write(p) as f:
    ...             _ = f.write("half")
    ...             raise RuntimeError("interrupted")
    ...     except RuntimeError:
    ...         pass
    ...     open(p).read(), sorted(os.listdir(d))
    ('done\\n', ['out.txt'])
    """
    shown = path = os.fspath(path)
    # Through a symlink to its target: the rename then replaces the target, and the link stays.
    path = os.path.realpath(path)
    encoding = encoding if "b" not in mode else None
    if output_kind(shown) == "stream":
        try:
            handle = open(path, mode, encoding=encoding)
        except OSError as exc:
            raise OSError(f"cannot write output {shown!r}: {exc.strerror or exc}") from None
        with handle:
            yield handle
        return
    folder = os.path.dirname(path)
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"output folder {folder!r} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    except OSError as exc:  # e.g. /proc: the error would name the temporary file, not the output
        raise OSError(f"cannot write output {shown!r}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, mode, encoding=encoding) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        # mkstemp makes the file 0600; give it the mode an ordinary open() would have.
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def check_output(path: str, inputs: Any = ()) -> None:
    """Refuse an output path that cannot be written, or that is one of the command's inputs, before a
    long run rather than after it.

    ``inputs``: the input files, as paths or as ``(what, path)`` pairs (``("--idf-file", "idf.tsv")``), so
    that the refusal names the flag; a value that names no existing file (a literal text, an embedding
    name) is skipped.  A symlink is judged by its target: its folder must exist and be writable.

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "idf.tsv")
    ...     _ = open(p, "w").write("get 1")
    ...     check_output(p, [("--idf-file", p)])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: output '...idf.tsv' is also the --idf-file input; choose another output path
    """
    path = os.fspath(path)
    if output_kind(path) == "stream":
        if not os.access(path, os.W_OK):
            raise PermissionError(f"output {path!r} is not writable")
    else:
        target = os.path.realpath(path)
        folder = os.path.dirname(target)
        # Through a symlink the target's folder is the one written; name the link too, or the message
        # would blame a folder the user never gave.
        via = f" (the symlink {path!r} points to {target!r})" if os.path.islink(path) else ""
        if not os.path.isdir(folder):
            shown = folder if via else os.path.dirname(os.path.abspath(path))
            raise FileNotFoundError(f"output folder {shown!r} does not exist{via}")
        if not os.access(folder, os.W_OK):
            raise PermissionError(f"output folder {folder!r} is not writable{via}")
    if not os.path.exists(path):
        return
    for item in inputs:
        what, value = (f"the {item[0]} input", item[1]) if isinstance(item, tuple) else ("an input file", item)
        if isinstance(value, (str, os.PathLike)) and os.path.exists(value) and os.path.samefile(value, path):
            raise ValueError(f"output {path!r} is also {what}; choose another output path")


def check_distinct_outputs(outputs: Sequence[Tuple[str, Union[str, os.PathLike]]]) -> None:
    """Refuse two outputs of one command that name the same file (``(flag, path)`` pairs, in the order given): the
    second would silently replace the first.

    >>> check_distinct_outputs([("-o", "a.tsv"), ("--morphology", "./a.tsv")])
    Traceback (most recent call last):
    ...
    ValueError: --morphology and -o name the same file ('./a.tsv'); give each output its own path
    """
    seen: Dict[str, str] = {}
    for flag, path in outputs:
        key = os.path.realpath(os.fspath(path))
        if key in seen:
            raise ValueError(f"{flag} and {seen[key]} name the same file ({os.fspath(path)!r}); give each output its "
                             "own path")
        seen[key] = flag


def write_json(out: IO[str], columns: Mapping[str, array], means: Mapping[str, float], signature: str,
               header: Optional[Mapping[str, Any]] = None) -> None:
    """The ``--json`` document: ``header`` fields, the per-example ``columns``, the ``means``, the signature."""
    # json.dump would need every score as a Python object at once; write the arrays in slices.
    out.write("{")
    for key, value in (header or {}).items():
        out.write(f"{json.dumps(key)}: {json.dumps(value)}, ")
    for key, values in columns.items():
        out.write(f'"{key}": [')
        for start in range(0, len(values), 65536):
            if start:
                out.write(", ")
            out.write(", ".join(map(repr, values[start:start + 65536])))
        out.write("], ")
    for key, value in means.items():
        out.write(f'"{key}": {json.dumps(value)}, ')
    out.write(f'"signature": {json.dumps(signature)}}}\n')


def read_json(path: str, what: str) -> Any:
    """The one reader of JSON files (IDF tables, baselines, shard records): data only, and every way a
    file can fail to parse is a ``ValueError`` naming ``what`` file ``path``, never a traceback; an object naming a
    key twice is refused (``json`` keeps the last value without a word).

    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "deep.json")
    ...     _ = open(p, "w").write("[" * 100_000)
    ...     read_json(p, "idf")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: idf file '...deep.json' is not valid JSON: nested too deeply for the parser
    """
    try:
        with open(path, encoding="utf-8") as handle:
            return json.load(handle, object_pairs_hook=_unique_keys)
    except _RepeatedKey as exc:  # which value counts would be a guess: the last, as json.load keeps, or the first
        raise ValueError(f"{what} file {path!r} names {exc.args[0]!r} twice in one object") from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{what} file {path!r} is not UTF-8 text (byte {exc.start})") from None
    except RecursionError:  # [[[[... deeper than the parser's stack
        raise ValueError(f"{what} file {path!r} is not valid JSON: nested too deeply for the parser") from None
    except ValueError as exc:  # JSONDecodeError, or an integer past Python's digit limit
        raise ValueError(f"{what} file {path!r} is not valid JSON: {exc}") from None


