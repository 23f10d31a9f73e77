"""Plain sharding for any scheduler: score contiguous slices of one input, merge them into one run.

``wrdscore score --shard K/N`` scores the K-th of N contiguous slices of the input lines (K counts
from 1) and writes a *shard record*: the ``--json`` document of that slice (per-example precision,
recall, F1 and best reference) headed by what a merge must check: the shard spec, the slice, the
number of input lines and a digest of the whole input.  ``wrdscore merge`` reads the records of
all N shards, refuses anything that would not add up to one run (different signatures, inputs or
shard counts, a missing or repeated shard, a slice that is not the one its spec names), and writes
exactly what ``wrdscore score --json`` writes for the whole input: the same per-example values, the
means summed in example order, the same signature.

Scores of a pair never depend on the other pairs of a call beyond float32 rounding (contextual:
:data:`~wrd_score.backends.contextual.SCORE_TOLERANCE`; static: not at all); the one thing that does, an
IDF table fitted on the references, is fitted by every shard on the whole input (the table one run fits),
so the shards' scores are the one run's scores (static: bit for bit).

>>> Shard.parse("2/3").bounds(10)
(3, 6)
>>> [Shard(k, 3).bounds(10) for k in (1, 2, 3)]
[(0, 3), (3, 6), (6, 10)]
"""
from __future__ import annotations

import contextlib
import hashlib
import math
import os
import sys
from array import array
from itertools import islice
from typing import IO, Any, Callable, Dict, Iterable, Iterator, List, NamedTuple, Optional, Sequence, Tuple

from .files import Pair, atomic_write, read_json, write_json
from .signature import Signature
from .stream import iter_scores

__all__ = ["Shard", "SHARD_FORMAT", "input_digest", "write_shard", "read_shard", "merge_shards", "Merged"]

#: The ``format`` field of a shard record; a record of another format is refused by name.
SHARD_FORMAT = "wrdscore-shard/1"
#: The per-example columns, in the order ``wrdscore score --json`` writes them.
COLUMNS = ("precision", "recall", "f1", "best_reference")
#: Largest shard file ``wrdscore merge`` reads (about 11 million lines of scores): JSON is parsed
#: whole, at several times its size in memory; a bigger input wants more shards.
MAX_SHARD_BYTES = 1 << 30
#: Most references a candidate of a shard record may have: a best reference is kept as a C long (``array("l")``);
#: a run with more reference files than this could not be started.
MAX_REFERENCES = 2**31 - 1


class Shard(NamedTuple):
    """The K-th (from 1) of N contiguous slices of the input lines."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> "Shard":
        """``"K/N"`` with ``1 <= K <= N``; anything else is a ``ValueError`` saying what is expected.

        >>> Shard.parse("1/4"), str(Shard.parse("4/4"))
        (Shard(index=1, count=4), '4/4')
        >>> Shard.parse("0/4")
        Traceback (most recent call last):
        ...
        ValueError: a shard must be K/N with 1 <= K <= N (K counts from 1), got '0/4'
        """
        index, sep, count = str(text).strip().partition("/")
        try:
            shard = cls(int(index), int(count))
        except ValueError:
            shard = None
        if not sep or shard is None or not 1 <= shard.index <= shard.count:
            raise ValueError(f"a shard must be K/N with 1 <= K <= N (K counts from 1), got {text!r}")
        return shard

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def check(self, lines: int) -> None:
        """Refuse more shards than lines: every shard must score at least one line (and a merge of
        ``1/100000000`` would otherwise wait for a hundred million empty records)."""
        if self.count > lines:
            raise ValueError(f"shard {self}: the input has {lines:,} lines, so it splits into at most {lines:,} "
                             f"shards, not {self.count:,}; give N <= {lines:,}")

    def bounds(self, lines: int) -> Tuple[int, int]:
        """``(start, stop)``: the slice of ``lines`` input lines this shard scores (sizes differ by one at most)."""
        return lines * (self.index - 1) // self.count, lines * self.index // self.count


def input_digest(pairs: Iterable[Pair]) -> Tuple[str, int]:
    """``("sha256:...", number of pairs)`` of the whole input: shards of different inputs do not merge.

    >>> input_digest([("getCount", ["get_count"])])[1]
    1
    """
    digest = hashlib.sha256()
    n = 0
    for n, pair in enumerate(pairs, 1):
        # repr of (str, [str, ...]) is unambiguous (quoted, escaped), unlike any separator.
        digest.update(repr(pair).encode("utf-8", "surrogatepass") + b"\n")
    return f"sha256:{digest.hexdigest()}", n


def write_shard(shard: Shard, scorer: Any, pairs: Callable[[], Iterator[Pair]], lines: int, idf: Any = None, *,
                output: Optional[str] = None, chunk_size: int = 10_000) -> str:
    """Score ``shard``'s slice of ``pairs()`` and write its record to ``output`` (atomically) or stdout.

    ``pairs`` is called twice (the digest of the whole input, then the slice), so it must give the
    same pairs each time, as re-reading files does; ``lines`` is their number; ``idf`` is the table
    fitted on the whole input (``scorer.idf_table``), never one of the slice.  Returns a line that
    says what was written.
    """
    shard.check(lines)
    digest, counted = input_digest(pairs())
    if counted != lines:
        raise ValueError(f"the input changed while being read: {counted} pairs, expected {lines}")
    start, stop = shard.bounds(lines)
    columns = {"precision": array("d"), "recall": array("d"), "f1": array("d"), "best_reference": array("l")}
    most = [1]  # the most references of a candidate in the slice: the bound merge checks best_reference by

    def counted(slice_: Iterable[Pair]) -> Iterator[Pair]:
        for pair in slice_:
            most[0] = max(most[0], len(pair[1]))
            yield pair

    for scores in iter_scores(scorer, counted(islice(pairs(), start, stop)), chunk_size=chunk_size, idf=idf):
        for column, value in zip(columns.values(), scores):
            column.append(value)
    signature = str(scorer.signature(idf))
    header = {"format": SHARD_FORMAT, "shard": str(shard), "lines": lines, "start": start, "stop": stop,
              "references": most[0], "inputs": digest}
    with contextlib.ExitStack() as stack:
        out: IO[str] = stack.enter_context(atomic_write(output)) if output else sys.stdout
        write_json(out, columns, {}, signature, header=header)
    return f"shard {shard}: lines {start + 1}-{stop} of {lines} {signature}"


# ------------------------------------------------------------------------------------- merging
def read_shard(path: str) -> Dict[str, Any]:
    """A shard record, checked field by field; every problem is a ``ValueError`` naming the file."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"shard file {path!r} does not exist")
    if not os.path.isfile(path):
        # A pipe or <(cmd) cannot be sized before it is read: the 1 GiB bound needs a regular file.
        raise ValueError(f"shard file {path!r} is not a regular file (a pipe or a folder?); merge reads shard "
                         "records from files, as `wrdscore score --shard K/N -o FILE` writes them")
    size = os.path.getsize(path)
    if size > MAX_SHARD_BYTES:
        raise ValueError(f"shard file {path!r} is {size / 2**20:,.0f} MiB; the limit is {MAX_SHARD_BYTES / 2**20:,.0f} "
                         "MiB: split the input into more shards")
    try:
        record = read_json(path, "shard")
    except ValueError as exc:
        raise ValueError(f"{exc}: it is not a shard record") from None
    if not isinstance(record, dict) or record.get("format") != SHARD_FORMAT:
        raise ValueError(f"shard file {path!r} is not a shard record (format {SHARD_FORMAT!r}); write one with "
                         "`wrdscore score --shard K/N -o FILE`")
    try:
        shard = Shard.parse(record["shard"])
        lines, start, stop, references = (record[key] for key in ("lines", "start", "stop", "references"))
        signature, inputs = record["signature"], record["inputs"]
        columns = {key: record[key] for key in COLUMNS}
    except KeyError as exc:
        raise ValueError(f"shard file {path!r} has no {exc.args[0]!r} field") from None
    if isinstance(lines, int) and lines >= 1:
        try:
            shard.check(lines)
        except ValueError as exc:
            raise ValueError(f"shard file {path!r}: {exc}") from None
    if not isinstance(lines, int) or lines < 1 or (start, stop) != shard.bounds(lines):
        raise ValueError(f"shard file {path!r}: shard {shard} of {lines!r} lines must cover lines "
                         f"{shard.bounds(lines) if isinstance(lines, int) and lines > 0 else '?'}, the record says {(start, stop)}")
    if not isinstance(signature, str) or not isinstance(inputs, str):
        raise ValueError(f"shard file {path!r}: signature and inputs must be strings")
    if type(references) is not int or not 1 <= references <= MAX_REFERENCES:
        shown = (f"a {len(str(references))}-digit integer" if type(references) is int and references > MAX_REFERENCES
                 else repr(references))
        raise ValueError(f"shard file {path!r}: references must be an integer from 1 to {MAX_REFERENCES:,}, got {shown}")
    # Scores are finite, at most 1, and at least 0 with clipped cosines, -1 without, unbounded below
    # when rescaled (a slack of 1e-9 covers float sums of masses).
    try:
        fields = Signature.parse(signature)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"shard file {path!r}: {exc}") from None
    low = -math.inf if "rescale" in fields else (-1e-9 if fields.get("clip") == "yes" else -1 - 1e-9)
    high = 1 + 1e-9
    for key, values in columns.items():
        kind = int if key == "best_reference" else float
        if not isinstance(values, list) or len(values) != stop - start or not all(
                type(v) is kind for v in values):
            raise ValueError(f"shard file {path!r}: {key} must be a list of {stop - start} {kind.__name__}s")
        bad = next((v for v in values if not 0 <= v < references), None) if kind is int else next(
            (v for v in values if not (math.isfinite(v) and low <= v <= high)), None)
        if bad is not None:
            raise ValueError(f"shard file {path!r}: {key} holds {bad!r}, which no run writes ("
                             + (f"an index of one of at most {references} references" if kind is int
                                else "a finite score within the range") + ")")
    return {"path": path, "shard": shard, "lines": lines, "signature": signature, "inputs": inputs,
            "columns": columns}


class Merged(NamedTuple):
    """What :func:`merge_shards` returns: the one run's columns, means and signature."""

    columns: Dict[str, array]
    means: Dict[str, float]
    signature: str


def merge_shards(paths: Sequence[str]) -> Merged:
    """Read, check and join the records of all N shards of one input (in any order)."""
    if not paths:
        raise ValueError("give the shard files to merge")
    records: List[Dict[str, Any]] = [read_shard(path) for path in paths]
    first = records[0]
    for record in records[1:]:
        for field, what in (("signature", "signature"), ("lines", "number of input lines"),
                            ("inputs", "input digest")):
            if record[field] != first[field]:
                shown = (first[field], record[field])
                if field == "signature":  # name the settings that differ, not two long strings
                    a, b = Signature.parse(first[field]), Signature.parse(record[field])
                    differ = [k for k in dict.fromkeys([*a, *b]) if a.get(k) != b.get(k)]
                    shown = ("|".join(f"{k}:{a.get(k, '-')}" for k in differ),
                             "|".join(f"{k}:{b.get(k, '-')}" for k in differ))
                raise ValueError(f"shards {first['path']!r} and {record['path']!r} have different {what} "
                                 f"({shown[0]!r} and {shown[1]!r}): they are not slices of one run")
        if record["shard"].count != first["shard"].count:
            raise ValueError(f"shards {first['path']!r} and {record['path']!r} split the input differently "
                             f"({first['shard']} and {record['shard']})")
    by_index: Dict[int, Dict[str, Any]] = {}
    for record in records:
        seen = by_index.setdefault(record["shard"].index, record)
        if seen is not record:
            raise ValueError(f"shard {record['shard']} is given twice: {seen['path']!r} and {record['path']!r}")
    count = first["shard"].count
    if len(by_index) < count:
        # Counted, and only the first few named: N may be in the millions.
        first_missing = list(islice((k for k in range(1, count + 1) if k not in by_index), 5))
        more = ", ..." if count - len(by_index) > len(first_missing) else ""
        raise ValueError(f"{count - len(by_index):,} of {count:,} shards are missing "
                         f"({', '.join(f'{k}/{count}' for k in first_missing)}{more}): a merge needs all {count:,}")
    columns = {"precision": array("d"), "recall": array("d"), "f1": array("d"), "best_reference": array("l")}
    for k in range(1, count + 1):
        for key, values in by_index[k]["columns"].items():
            columns[key].extend(values)
    sums = [0.0, 0.0, 0.0]
    # A running sum in example order, as `wrdscore score` adds its means up.
    for p, r, f in zip(columns["precision"], columns["recall"], columns["f1"]):
        sums[0] += p
        sums[1] += r
        sums[2] += f
    n = first["lines"]
    means = {"mean_precision": sums[0] / n, "mean_recall": sums[1] / n, "mean_f1": sums[2] / n}
    return Merged(columns, means, first["signature"])
