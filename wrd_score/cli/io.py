"""Input and output of the commands that read pairs: what only the command line needs.

``-c``/``-r`` name files or are literal strings (:func:`resolve_inputs` decides, and checks every file
in a first, cheap pass: it exists, is readable UTF-8, is not empty, all have the same number of lines,
before anything is scored or printed); standard input and pipes are read once into a temporary copy;
:func:`iter_file_pairs` then pairs the lines lazily, so memory is bounded by the chunk size.
``--idf-file`` is read by :func:`read_idf_file`.  The readers and writers the library uses as well
(``iter_lines``, ``atomic_write``, ``check_output``, ``read_json``) stay in :mod:`wrd_score.files`.
"""
from __future__ import annotations

import os
import shutil
import stat
import tempfile
import weakref
from typing import Any, Dict, Iterator, List, NamedTuple, Optional, Sequence

from ..files import DECIMAL, STDIN, Pair, _shown, count_lines, iter_lines, read_json

__all__ = ["Inputs", "resolve_inputs", "iter_file_pairs", "read_idf_file"]

# Values that look like a file name: a typo'd path must not be silently scored as text.
_PATH_SUFFIXES = (".txt", ".gz", ".tsv", ".csv", ".json", ".jsonl", ".lst", ".src", ".tgt",
                  ".ref", ".refs", ".hyp", ".pred", ".cand", ".out")



def _looks_like_path(value: str) -> bool:
    return (not any(ch.isspace() for ch in value) and
            ("/" in value or os.sep in value or value.lower().endswith(_PATH_SUFFIXES)))


class Inputs(NamedTuple):
    """What :func:`resolve_inputs` found: files or strings, the number of pairs, and the paths to read."""

    are_files: bool
    n: int
    candidates: str
    references: List[str]
    spool: Any = None  # keeps the copies of streamed inputs alive (a TemporaryDirectory)


def _is_stream(path: str) -> bool:
    """Standard input, a pipe, a FIFO or a device: readable once, so it cannot be read twice."""
    if path == STDIN:
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _spool(path: str, name: str, folder: str, most: Optional[int] = None, than: str = "") -> str:
    # The checking pass and the scoring pass each read every input; a stream would be empty the
    # second time. Its lines (checked as they go) are copied once to a file that can be re-read, at most
    # ``most`` of them (the line count of an input already counted, ``than``): `yes | wrdscore score -r refs`
    # filled the disk before the counts could disagree.
    fd, copy = tempfile.mkstemp(dir=folder, suffix=".txt")
    with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
        for number, line in enumerate(iter_lines(path, name), 1):
            if most is not None and number > most:
                raise ValueError(f"{_label(name)} {_shown(path)} has more lines than {than} ({most:,}); they must have "
                                 "one line per candidate (reading stopped there)")
            out.write(line + "\n")
    return copy


_SPOOL_PREFIX = "wrdscore-stdin-"
# Held (flock) by the command that made the folder, for as long as it runs: the kernel drops it when the process
# ends, SIGKILL included, which a pid probe cannot tell across PID namespaces sharing one TMPDIR (containers).
_SPOOL_LOCK = ".owner"


def _hold_spool(spool: tempfile.TemporaryDirectory) -> None:
    """Lock ``spool``'s owner file for as long as the folder lives (nothing where flock is missing: Windows)."""
    try:
        import fcntl
    except ImportError:
        return
    fd, name = tempfile.mkstemp(dir=spool.name, prefix=_SPOOL_LOCK + "-")
    handle = os.fdopen(fd, "wb")
    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)  # a new file: nobody else holds it
    # Named only once locked, so a sweep never finds the owner file free while its command runs.
    os.rename(name, os.path.join(spool.name, _SPOOL_LOCK))
    weakref.finalize(spool, handle.close)


def _sweep_spools(root: str) -> None:
    # SIGKILL (the OOM killer, `kill -9`) runs no cleanup, so a killed command's copy of standard input stays behind;
    # the next command removes the copies whose owner lock is free. A folder without one (another program's, or a
    # release before 0.7.0), a symlink, and another user's folder are left.
    try:
        import fcntl
    except ImportError:
        return
    try:
        entries = list(os.scandir(root))
    except OSError:
        return
    for entry in entries:
        if not entry.name.startswith(_SPOOL_PREFIX):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
                continue
            # Not blocking on a FIFO put in its place, nor following a link.
            fd = os.open(os.path.join(entry.path, _SPOOL_LOCK), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # held: its command is running
        finally:
            os.close(fd)
        shutil.rmtree(entry.path, ignore_errors=True)


def _label(name: str) -> str:
    """``candidates`` or ``references`` for an input's name (``references[1]``)."""
    return name.split("[", 1)[0]


def resolve_inputs(candidates: str, references: Sequence[str], mode: str = "auto") -> Inputs:
    """Decide whether the arguments are files or literal strings and validate them.

    Returns :class:`Inputs` ``(are_files, n, candidates, references, spool)``: read the pairs from
    the returned paths.  ``mode`` is ``"auto"`` (files if any argument names an existing file or is
    ``-``, then all must), ``"files"`` or ``"strings"``.  ``-`` is standard input; it, pipes and
    other inputs that can be read only once (``<(cmd)``, ``/dev/stdin``) are read once into a
    temporary copy.  File inputs are read here to check they decode, are not empty and have equal
    line counts.
    """
    if mode not in ("auto", "files", "strings"):
        raise ValueError(f"mode must be 'auto', 'files' or 'strings', got {mode!r}")
    if isinstance(candidates, (str, os.PathLike)):
        candidates = os.fspath(candidates)
    else:
        raise TypeError(f"candidates must be one string or file path, got {type(candidates).__name__}")
    if isinstance(references, (str, os.PathLike)) or not references:
        raise ValueError("references must be a non-empty list of strings or file paths")
    references = [os.fspath(r) if isinstance(r, os.PathLike) else r for r in references]
    values = [candidates, *references]
    if mode == "auto":
        if any(v == STDIN or os.path.exists(v) for v in values):
            mode = "files"
        else:
            for v in values:
                if _looks_like_path(v):
                    raise FileNotFoundError(f"{v!r} looks like a file name but does not exist; "
                                            "pass --strings to score it as text")
            mode = "strings"
    if mode == "strings":
        return Inputs(False, 1, candidates, references)
    if values.count(STDIN) > 1:
        raise ValueError("standard input ('-') can be given only once among -c and -r")
    names = ["candidates"] + [f"references[{i}]" for i in range(len(references))]
    shown = [candidates, *references]

    def counted(i: int, path: str) -> int:
        m = count_lines(path, names[i])
        if m == 0:
            raise ValueError(f"{_label(names[i])} file {_shown(shown[i])} is empty")
        return m

    # Files first: a stream is then copied only as far as the line count of one of them (never an empty one).
    counts = {i: counted(i, v) for i, v in enumerate(values) if not _is_stream(v)}
    spool = None
    if len(counts) < len(values):
        _sweep_spools(tempfile.gettempdir())
        spool = tempfile.TemporaryDirectory(prefix=f"{_SPOOL_PREFIX}{os.getpid()}-")
        _hold_spool(spool)
        for i, v in enumerate(values):
            if i not in counts:
                bound = next(iter(counts), None)  # the first input counted so far (a file, or a stream copied)
                values[i] = _spool(v, names[i], spool.name, *(() if bound is None else (
                    counts[bound], f"{_label(names[bound])} file {_shown(shown[bound])}")))
                counts[i] = counted(i, values[i])
    n = counts[0]
    for i in range(1, len(values)):
        m = counts[i]
        if m != n:
            raise ValueError(f"references file {_shown(shown[i])} has {m} lines but candidates file "
                             f"{_shown(shown[0])} has {n}; they must have one line per candidate")
    return Inputs(True, n, values[0], values[1:], spool)


def iter_file_pairs(candidates: str, references: Sequence[str]) -> Iterator[Pair]:
    """Lazily pair line i of ``candidates`` with line i of every file in ``references``."""
    streams = [iter_lines(candidates, "candidates")]
    streams += [iter_lines(ref, f"references[{i}]") for i, ref in enumerate(references)]
    try:
        for row in zip(*streams, strict=True):
            yield row[0], list(row[1:])
    except ValueError as exc:
        if "zip()" in str(exc):  # a file changed between the checking pass and this one
            raise ValueError(f"candidates and references files changed length while being read: {exc}") from None
        raise





def read_idf_file(path: str) -> Dict[str, float]:
    """A ``{token: weight}`` table from JSON (an object) or TSV (``token<TAB>weight`` lines)."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"idf file {path!r} does not exist or is not a file")
    if path.endswith(".json"):
        data = read_json(path, "idf")
        if not isinstance(data, dict):
            raise ValueError(f"idf file {path!r} must hold a JSON object of token -> weight")
        return data
    table: Dict[str, float] = {}
    lines: Dict[str, int] = {}
    for number, line in enumerate(iter_lines(path, "idf"), 1):
        if not line.strip():
            continue
        token, sep, value = line.rpartition("\t")
        if not sep or not DECIMAL.fullmatch(value.strip()):
            raise ValueError(f"idf file {path!r}, line {number}: expected 'token<TAB>weight', got {line!r}")
        if token in lines:  # the last weight won without a word (as json keeps a repeated key's last value)
            raise ValueError(f"idf file {path!r}, line {number}: token {token!r} is given twice (first on line "
                             f"{lines[token]})")
        lines[token] = number
        table[token] = float(value)
    return table
