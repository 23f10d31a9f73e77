"""Docs that cannot go stale: every number and figure of README.md and docs/ lives in a block this tool checks.

    python tools/docs.py                  # = --check: list every stale block and the command that regenerates it
    python tools/docs.py --update         # regenerate every stale cheap block and figure; list what is left
    python tools/docs.py --update ID ...  # only these blocks (shell patterns); named figures are redrawn anyway
    python tools/docs.py --update --expensive [ID ...]   # also run the expensive commands (../shared/data, minutes)
    python tools/docs.py --reviewed ID [ID ...]          # prose re-read, or a hand-measured record re-measured
    python tools/docs.py --list           # every block: id, kind, page, command

A block is a region of a page between ``<!-- docs:ID -->`` and ``<!-- /docs:ID -->``; its kind and the command
behind it are declared in ``tools/doc_blocks.py``, and what the check must remember (signatures, checksums) is in
``docs/records.json``.  The kinds (docs/development.md, *Docs that cannot go stale*, says when to use which):

* ``run``: a cheap command (a ``wrdscore score`` line, an ``explain``, a small table): the check runs it and the
  block must equal what it prints; ``--update`` rewrites it.
* ``record``: an expensive command (a validation table, a tuning grid, a timing) whose output cannot be re-made
  on every check.  Its record holds the signature of every configuration in it (so the library version, the
  options a default resolves to and the checksum of every embedding file), the checksums of its data files and,
  when the tool pastes the output itself, of the block's text.  The block is stale when the current library
  signs one of its configurations differently (a moved default, a new version, a changed file), when a data file
  changed, or when its text was edited by hand.  ``--update --expensive ID`` re-runs what it can paste; a timing
  or a hand-written measurement is re-measured by hand and re-signed with ``--reviewed ID``.
* ``history``: what a past release measured (a tuning round, an old default's grid), kept as the record of a
  decision.  It opens with a stamp naming the release, so nobody reads it as today's; the check holds its text
  to the recorded checksum and its stamp to its version.
* ``prose``: hand-written sentences that quote numbers of other blocks (``cites``): stale when a cited block
  changes, until someone re-reads them and says so with ``--reviewed ID``.
* ``quote``: numbers quoted from outside (the paper, a benchmark's authors): the source is named, nothing runs.
* ``figure``: an image whose metadata carries the signature(s) of what it shows (``wrdscore show`` writes a PNG
  ``tEXt`` chunk ``Signature``); stale when the library would sign them differently; cheap ones are re-drawn.

Every decimal number of a page must lie inside a block (:func:`loose_numbers`): a number added without one
fails the check, so a number cannot enter the docs without a command behind it.
"""
from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parents[1]
RECORDS = ROOT / "docs" / "records.json"
DATA = ROOT.parent / "shared" / "data"
BEGIN = re.compile(r"^<!-- docs:([\w.+-]+) -->$", re.M)
END = re.compile(r"^<!-- /docs:([\w.+-]+) -->$", re.M)


def pages() -> List[Path]:
    """Every page the check covers: the README and docs/*.md."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def sha(text) -> str:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()[:16]


# ------------------------------------------------------------------------------------------------ regions
@dataclass
class Region:
    id: str
    page: Path
    start: int  # offset of the content's first character (after the begin marker's line)
    end: int  # offset of the end marker
    line: int  # line number of the begin marker

    @property
    def content(self) -> str:
        return self.page.read_text(encoding="utf-8")[self.start:self.end].strip("\n")


def regions(page: Path, text: Optional[str] = None) -> List[Region]:
    """The blocks of a page, in order; a marker without its pair, or blocks that overlap, raise."""
    text = page.read_text(encoding="utf-8") if text is None else text
    out: List[Region] = []
    ends = {m.group(1): m for m in END.finditer(text)}
    last_end = 0
    for begin in BEGIN.finditer(text):
        name = begin.group(1)
        end = ends.pop(name, None)
        if end is None or end.start() < begin.end():
            raise ValueError(f"{page.relative_to(ROOT)}:{text.count(chr(10), 0, begin.start()) + 1}: "
                             f"<!-- docs:{name} --> has no <!-- /docs:{name} --> after it")
        if begin.start() < last_end:
            raise ValueError(f"{page.relative_to(ROOT)}: block {name} begins inside another block")
        out.append(Region(name, page, begin.end() + 1, end.start(), text.count("\n", 0, begin.start()) + 1))
        last_end = end.end()
    if ends:
        raise ValueError(f"{page.relative_to(ROOT)}: <!-- /docs:ID --> without a beginning: {sorted(ends)}")
    return out


def write_region(region: Region, content: str) -> None:
    text = region.page.read_text(encoding="utf-8")
    region.page.write_text(text[:region.start] + content.strip("\n") + "\n" + text[region.end:], encoding="utf-8")


def all_regions(page_list: Optional[Sequence[Path]] = None) -> Dict[str, Region]:
    out: Dict[str, Region] = {}
    for page in pages() if page_list is None else page_list:
        for region in regions(page):
            if region.id in out:
                raise ValueError(f"block {region.id} appears twice: {out[region.id].page.name} and {page.name}")
            out[region.id] = region
    return out


# ------------------------------------------------------------------------------------------------ numbers
#: A decimal number as prose and tables show measurements: 0.535, 1.98x, 35.7 MB, 17.01%.
NUMBER = re.compile(r"(?<![\w.@/-])\d+\.\d+(?![\w.]*\d)")
#: What looks like a number and is not a measurement: versions (0.2.0, v0.1.1, 0.1.x, Python 3.11, sacreBLEU 2.6),
#: arXiv ids and DOIs, file names, a keyword's value in code (``level=0.95``), and the exact 0 and 1 the rules
#: define ("identical texts score exactly 1.0").
NOT_MEASURED = re.compile(r"\bv?\d+\.\d+\.(?:\d+|x)\b|arXiv:\d+\.\d+|eprint = \{[\d.]+\}|arxiv\.org/\S+|doi\.org/\S+|"
                          r"\d+\.\d+\.\w+|\w=\d+\.\d+|(?<![\d.])[01]\.0(?!\.?\d)|"
                          r"[Pp]ython \d\.\d+|\b(?:sacreBLEU|NLTK|Ray|torch|transformers|Gradio|MKL|WordNet|GloVe 6B"
                          r"|numpy|POT|version|BERTScore|bert_score|rouge-score|sacrebleu|python_version)[ =:]+"
                          r"\"?\d+\.\d+(?:\.\d+)?")


#: A signature of this library's scores (it names a version, so it goes stale as a number does).
SIGNATURE = re.compile(r"wrdscore:v\d+\.\d+\.\d+\|\S*")


def loose_numbers(page: Path, text: Optional[str] = None) -> List[Tuple[int, str]]:
    """``(line, number)`` for every decimal number and every signature of ``page`` outside a block (versions and
    ids aside)."""
    text = page.read_text(encoding="utf-8") if text is None else text
    inside = [(r.start, r.end) for r in regions(page, text)]
    out = []
    offset = 0
    for number, line in enumerate(text.split("\n"), 1):
        start = offset
        offset += len(line) + 1
        if any(a <= start < b for a, b in inside) or line.startswith(("<!-- docs:", "<!-- /docs:")):
            continue
        out.extend((number, match.group(0)[:60]) for match in SIGNATURE.finditer(line))
        cleaned = NOT_MEASURED.sub(" ", SIGNATURE.sub(" ", line))
        for match in NUMBER.finditer(cleaned):
            out.append((number, match.group(0)))
    return out


# ------------------------------------------------------------------------------------------------ running
class Runner:
    """Runs the commands of ``run`` blocks as a reader would: ``bash`` in a fresh folder, with ``wrdscore`` the
    checkout's command line (``python -m wrd_score.cli`` of this interpreter) and the environment of CI."""

    def __init__(self) -> None:
        self._bin = Path(tempfile.mkdtemp(prefix="wrdscore-docs-bin-"))
        shim = self._bin / "wrdscore"
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m wrd_score.cli "$@"\n', encoding="utf-8")
        shim.chmod(0o755)
        for name in ("python", "python3"):  # a script, not a link: a link outside the venv loses its site-packages
            (self._bin / name).write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
            (self._bin / name).chmod(0o755)
        self.env = dict(os.environ, PATH=f"{self._bin}{os.pathsep}{os.environ.get('PATH', '')}",
                        PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", TRANSFORMERS_OFFLINE="1",
                        GRADIO_ANALYTICS_ENABLED="False", PYTHONHASHSEED="0", COLUMNS="200", LC_ALL="C.UTF-8",
                        TQDM_DISABLE="1", PYTHONWARNINGS="ignore")

    #: What each (command, setup) printed in this process: a check and the update before it run a command once.
    _printed: Dict[Tuple[str, str, bool], str] = {}

    def sh(self, command: str, setup: str = "", cwd: Optional[Path] = None, timeout: int = 600,
           stderr: bool = False) -> str:
        """What ``command`` prints (stdout; with ``stderr=True`` both, stderr last), run after ``setup`` in a fresh
        temporary folder (or ``cwd``); a failing command raises with its stderr."""
        key = (command, setup, stderr)
        if cwd is None and key in self._printed:
            return self._printed[key]
        out = self._sh(command, setup, cwd, timeout, stderr)
        if cwd is None:
            self._printed[key] = out
        return out

    def _sh(self, command: str, setup: str, cwd: Optional[Path], timeout: int, stderr: bool) -> str:
        folder = Path(tempfile.mkdtemp(prefix="wrdscore-docs-")) if cwd is None else cwd
        try:
            if setup:
                self._run(setup, folder, timeout)
            proc = self._run(command, folder, timeout)
            out = proc.stdout + (proc.stderr if stderr else "")
        finally:
            if cwd is None:
                shutil.rmtree(folder, ignore_errors=True)
        return "\n".join(line.rstrip() for line in out.strip("\n").split("\n"))

    def _run(self, command: str, cwd: Path, timeout: int) -> subprocess.CompletedProcess:
        proc = subprocess.run(["bash", "-c", "set -eo pipefail\n" + command], cwd=cwd, env=self.env, text=True,
                              capture_output=True, timeout=timeout)
        if proc.returncode != 0:
            raise RuntimeError(f"`{command}` exited {proc.returncode}: {proc.stderr.strip()[-2000:]}")
        return proc

    def close(self) -> None:
        shutil.rmtree(self._bin, ignore_errors=True)


def fence(text: str, info: str = "") -> str:
    return f"```{info}\n{text}\n```"


def shown(command: str, output: str, info: str = "sh") -> str:
    """A command and what it printed, as the docs show them: two fences."""
    return fence(command, info) + "\n" + fence(output)


# ------------------------------------------------------------------------------------------------ signatures
def signature_of(spec: str, options: Optional[Mapping] = None) -> str:
    """The signature the current library gives the configuration a ``wrdscore validate`` spec names
    (``wrdscore:variant=paper``, ``bertscore:backend=contextual``, ``rouge1``), with the command's metric
    options (``--backend contextual`` ...) as ``options``."""
    sys.path.insert(0, str(ROOT))
    from wrd_score.validation import parse_metric, spec_signature

    return spec_signature(parse_metric(spec, options), dict(options or {}))


def validate_configs(argv: Sequence[str]) -> List[Tuple[str, Dict]]:
    """``(spec, options)`` of every metric a ``wrdscore validate`` argument list names (``column:`` specs aside)."""
    sys.path.insert(0, str(ROOT))
    from wrd_score.cli import build_parser
    from wrd_score.cli.common import options_from_args
    from wrd_score.validation import DEFAULT_METRICS, all_metrics

    args = build_parser().parse_args(list(argv))
    specs = list(args.metrics or ())
    if args.all_metrics:
        specs = list(all_metrics()) + specs
    options = {k: v for k, v in options_from_args(args).items()}
    return [(s, options) for s in (specs or DEFAULT_METRICS) if not s.startswith("column:")]


def file_sha(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()[:16]


def png_text(path: Path) -> Dict[str, str]:
    """The ``tEXt``/``iTXt``/``zTXt`` chunks of a PNG (keyword -> text)."""
    data = path.read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG")
    out, pos = {}, 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"tEXt":
            key, _, value = body.partition(b"\0")
            out[key.decode("latin-1")] = value.decode("latin-1")
        elif kind == b"zTXt":
            key, _, rest = body.partition(b"\0")
            out[key.decode("latin-1")] = zlib.decompress(rest[1:]).decode("latin-1")
        elif kind == b"iTXt":
            key, _, rest = body.partition(b"\0")
            compressed, rest = rest[0], rest[2:]
            _, _, rest = rest.partition(b"\0")  # language tag
            _, _, text = rest.partition(b"\0")  # translated keyword
            out[key.decode("latin-1")] = (zlib.decompress(text) if compressed else text).decode("utf-8")
        pos += 12 + length
    return out


def set_png_text(path: Path, key: str, value: str) -> None:
    """Write (or replace) one ``iTXt`` chunk of a PNG, keeping every other chunk and the pixels as they are."""
    data = path.read_bytes()
    chunks, pos = [], 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos:pos + 12 + length]
        body = data[pos + 8:pos + 8 + length]
        if not (kind in (b"tEXt", b"iTXt", b"zTXt") and body.partition(b"\0")[0] == key.encode("latin-1")):
            chunks.append((kind, chunk))
        pos += 12 + length
    body = key.encode("latin-1") + b"\0\0\0\0\0" + value.encode("utf-8")
    new = struct.pack(">I", len(body)) + b"iTXt" + body + struct.pack(">I", zlib.crc32(b"iTXt" + body) & 0xFFFFFFFF)
    out = [data[:8]]
    for kind, chunk in chunks:
        if kind == b"IEND":
            out.append(new)
        out.append(chunk)
    path.write_bytes(b"".join(out))


# ------------------------------------------------------------------------------------------------ blocks
class Context:
    """What one check or update shares: the records, the regions, the runner, memoised signatures."""

    def __init__(self, page_list: Optional[Sequence[Path]] = None, records: Optional[Path] = None) -> None:
        self.page_list = pages() if page_list is None else list(page_list)
        self.records_path = RECORDS if records is None else records
        self.records: Dict[str, dict] = (json.loads(self.records_path.read_text(encoding="utf-8"))
                                         if self.records_path.exists() else {})
        self.regions = all_regions(self.page_list)
        self.runner = Runner()
        self._signatures: Dict[Tuple[str, str], str] = {}
        self.force = False  # --update with block ids: redraw the named figures even when current
        self.ran: set = set()  # expensive commands run by this update

    def signature(self, spec: str, options: Mapping) -> str:
        key = (spec, json.dumps(options, sort_keys=True, default=str))
        if key not in self._signatures:
            self._signatures[key] = signature_of(spec, options)
        return self._signatures[key]

    def content(self, block_id: str) -> str:
        return self.regions[block_id].content

    def refresh(self) -> None:
        """Re-read the regions after a page was rewritten."""
        self.regions = all_regions(self.page_list)

    def save(self) -> None:
        self.records_path.write_text(json.dumps(dict(sorted(self.records.items())), indent=1, ensure_ascii=False) + "\n",
                           encoding="utf-8")


@dataclass
class Block:
    id: str
    page: str
    #: What regenerates it, as a reader would type it.
    command: str = ""

    kind = "block"
    expensive = False

    def stale(self, ctx: Context) -> List[str]:
        """Why the block is stale (empty: current)."""
        return []

    def update(self, ctx: Context, expensive: bool) -> bool:
        """Regenerate what can be regenerated; True if the block changed."""
        return False

    def review(self, ctx: Context) -> None:
        raise ValueError(f"block {self.id} ({self.kind}) is not re-signed by hand: "
                         + ("run python tools/docs.py --update" if self.kind in ("run", "figure") else "nothing to review"))


@dataclass
class Run(Block):
    """A cheap command's output, re-made on every check (``render`` gets the :class:`Runner`)."""

    render: Callable[[Runner], str] = None  # type: ignore[assignment]
    kind = "run"

    def stale(self, ctx: Context) -> List[str]:
        try:
            want = self.render(ctx.runner).strip("\n")
        except Exception as exc:  # noqa: BLE001 - the check reports every failing command, not the first
            return [f"its command failed: {exc}"]
        have = ctx.content(self.id)
        if want == have:
            return []
        for n, (a, b) in enumerate(zip(have.split("\n") + [""] * 999, want.split("\n") + [""] * 999), 1):
            if a != b:
                return [f"line {n} of the block reads {a[:100]!r}; the command now prints {b[:100]!r}"]
        return ["the output differs"]

    def update(self, ctx: Context, expensive: bool) -> bool:
        want = self.render(ctx.runner).strip("\n")
        if want == ctx.content(self.id):
            return False
        write_region(ctx.regions[self.id], want)
        ctx.refresh()
        return True


@dataclass
class Record(Block):
    """An expensive command's output, held to the signatures of the configurations in it.

    ``configs``: the ``wrdscore validate`` specs of its configurations (each with the command's metric options),
    or, for a ``wrdscore validate`` command, None: read from the command itself.  ``data``: the data files it
    reads (checked where ``../shared/data`` exists).  ``produce``: how ``--update --expensive`` re-makes the
    block's text (it is then pasted, and the text's checksum recorded); None for timings and measurements made
    by hand, which are re-measured by hand and re-signed with ``--reviewed``.
    """

    configs: Optional[object] = None  # a list of (spec, options), a callable giving one, or None
    data: Sequence[str] = ()
    produce: Optional[Callable[[Runner], str]] = None
    kind = "record"
    expensive = True

    def current(self, ctx: Context) -> Dict[str, str]:
        if callable(self.configs):
            configs = self.configs()
        else:
            configs = self.configs if self.configs is not None else validate_configs(shlex.split(self.command)[1:])
        out = {}
        for spec, options in configs:
            label = spec + "".join(f" --{k}={v}" for k, v in sorted(options.items()))
            out[label] = ctx.signature(spec, options)
        return out

    def data_files(self) -> Dict[str, Optional[str]]:
        return {name: (file_sha(DATA / name) if (DATA / name).is_file() else None) for name in self.data}

    def stale(self, ctx: Context) -> List[str]:
        record = ctx.records.get(self.id)
        if record is None:
            return ["never recorded"]
        reasons = []
        try:
            now = self.current(ctx)
        except Exception as exc:  # noqa: BLE001
            return [f"its configurations cannot be built: {exc}"]
        old = record.get("signatures", {})
        for label in sorted(set(now) | set(old)):
            if now.get(label) != old.get(label):
                reasons.append(f"{label}: recorded {old.get(label)!r}, now {now.get(label)!r}")
        for name, digest in self.data_files().items():
            if digest is not None and record.get("data", {}).get(name) != digest:
                reasons.append(f"data file {name} changed (sha256 {record.get('data', {}).get(name)} -> {digest})")
        if record.get("content") != sha(ctx.content(self.id)):
            reasons.append("its text changed since it was recorded (edited by hand?)")
        return reasons

    def record(self, ctx: Context) -> None:
        ctx.records[self.id] = {"kind": "record", "command": self.command, "signatures": self.current(ctx),
                                "data": {k: v for k, v in self.data_files().items() if v is not None},
                                "content": sha(ctx.content(self.id))}

    def update(self, ctx: Context, expensive: bool) -> bool:
        if not expensive or self.produce is None or not self.stale(ctx):
            return False
        missing = [name for name, digest in self.data_files().items() if digest is None]
        if missing:
            raise RuntimeError(f"{self.id}: needs {', '.join(missing)} under {DATA}")
        print(f"running {self.id}: {self.command}", file=sys.stderr, flush=True)
        write_region(ctx.regions[self.id], self.produce(ctx.runner))
        ctx.refresh()
        self.record(ctx)
        return True

    def review(self, ctx: Context) -> None:
        self.record(ctx)


@dataclass
class History(Block):
    """What a past release measured, stamped with that release and held to its text."""

    version: str = ""
    commit: str = ""
    kind = "history"

    def stamp(self) -> str:
        how = f" by `{self.command}`" if self.command else ""
        return (f"> *History: measured{how} with wrdscore {self.version} (commit {self.commit}); kept as the record "
                "of a decision, not re-run for later releases.*")

    def stale(self, ctx: Context) -> List[str]:
        content = ctx.content(self.id)
        reasons = []
        if content.split("\n", 1)[0] != self.stamp():
            reasons.append(f"its first line must be the stamp: {self.stamp()}")
        if ctx.records.get(self.id, {}).get("content") != sha(content):
            reasons.append("its text changed since it was recorded: history is not edited; if this is a "
                           f"correction, re-sign it with python tools/docs.py --reviewed {self.id}")
        return reasons

    def update(self, ctx: Context, expensive: bool) -> bool:
        content = ctx.content(self.id)
        if content.split("\n", 1)[0] == self.stamp():
            return False
        first = content.split("\n", 1)[0]
        body = content.split("\n", 1)[1] if first.startswith("> *History:") else content
        write_region(ctx.regions[self.id], self.stamp() + "\n\n" + body.lstrip("\n"))
        ctx.refresh()
        return True

    def review(self, ctx: Context) -> None:
        ctx.records[self.id] = {"kind": "history", "version": self.version, "commit": self.commit,
                                "content": sha(ctx.content(self.id))}


@dataclass
class Prose(Block):
    """Hand-written sentences quoting numbers of the blocks in ``cites``, or facts of the configurations in
    ``configs`` (a file's size, a vocabulary's count: pinned by the signatures, which carry the files' checksums)."""

    cites: Sequence[str] = ()
    configs: Sequence[Tuple[str, Mapping]] = ()
    kind = "prose"

    def cited(self, ctx: Context) -> Dict[str, str]:
        out = {}
        for name in self.cites:
            block = BLOCKS.get(name)
            if isinstance(block, Figure):
                out[name] = sha("\n".join(block.current(ctx)))
            else:
                out[name] = sha(ctx.content(name))
        for spec, options in self.configs:
            label = spec + "".join(f" --{k}={v}" for k, v in sorted(options.items()))
            out[label] = ctx.signature(spec, options)
        return out

    def stale(self, ctx: Context) -> List[str]:
        record = ctx.records.get(self.id)
        if record is None:
            return ["never reviewed"]
        try:
            now = self.cited(ctx)
        except Exception as exc:  # noqa: BLE001 - a configuration that cannot be built is reported, not raised
            return [f"what it quotes cannot be read: {exc}"]
        changed = [name for name in now if record.get("cites", {}).get(name) != now[name]]
        changed += [name for name in record.get("cites", {}) if name not in now]
        if changed:
            return [f"it quotes {', '.join(changed)}, which changed: re-read it against them, then "
                    f"python tools/docs.py --reviewed {self.id}"]
        return []

    def review(self, ctx: Context) -> None:
        ctx.records[self.id] = {"kind": "prose", "cites": self.cited(ctx)}


@dataclass
class Quote(Block):
    """Numbers quoted from outside: ``source`` names where."""

    source: str = ""
    kind = "quote"


@dataclass
class Figure(Block):
    """An image whose metadata (PNG chunk ``Signature``) holds the signature(s) of what it shows."""

    path: str = ""
    configs: object = ()  # a list of (spec, options), or a callable giving one
    #: Re-draws the figure (cheap ones: ``wrdscore show``); None: ``command`` is run by hand (screenshots).
    produce: Optional[Callable[[Runner], None]] = None
    kind = "figure"

    def current(self, ctx: Context) -> List[str]:
        configs = self.configs() if callable(self.configs) else self.configs
        return [ctx.signature(spec, options) for spec, options in configs]

    def stale(self, ctx: Context) -> List[str]:
        path = ROOT / self.path
        if not path.is_file():
            return [f"{self.path} does not exist"]
        have = png_text(path).get("Signature", "")
        try:
            want = "\n".join(self.current(ctx))
        except Exception as exc:  # noqa: BLE001
            return [f"its configurations cannot be built: {exc}"]
        if have != want:
            return [f"{self.path} was drawn for {have!r}; the library now signs {want!r}"]
        return []

    @property
    def expensive(self) -> bool:  # type: ignore[override]
        return self.produce is None

    def update(self, ctx: Context, expensive: bool) -> bool:
        # Named on the command line, a figure is redrawn even when current: a change to the drawing code
        # (not to any signature) shows only that way.
        if not (ctx.force or self.stale(ctx)) or (self.produce is None and not expensive):
            return False
        if self.produce is not None:
            self.produce(ctx.runner)
        elif self.command not in ctx.ran:  # one command may draw several figures (tools/screenshots.py: four)
            print(f"running {self.id}: {self.command}", file=sys.stderr, flush=True)
            ctx.runner.sh(self.command, cwd=ROOT, timeout=1800)
            ctx.ran.add(self.command)
        path = ROOT / self.path
        want = "\n".join(self.current(ctx))
        if png_text(path).get("Signature", "") != want:
            set_png_text(path, "Signature", want)
        return True


def _load_blocks() -> Dict[str, Block]:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    # Run as a script this module is __main__: the registry's "from docs import ..." must get these classes.
    sys.modules.setdefault("docs", sys.modules[__name__])
    import doc_blocks  # noqa: E402  (tools/doc_blocks.py: the registry)

    out: Dict[str, Block] = {}
    for block in doc_blocks.BLOCKS:
        if block.id in out:
            raise ValueError(f"block {block.id} is declared twice in tools/doc_blocks.py")
        out[block.id] = block
    return out


BLOCKS: Dict[str, Block] = {}


# ------------------------------------------------------------------------------------------------ the check
@dataclass
class Report:
    stale: Dict[str, List[str]] = field(default_factory=dict)
    problems: List[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.stale and not self.problems

    def text(self) -> str:
        lines = list(self.problems)
        for block_id, reasons in self.stale.items():
            block = BLOCKS[block_id]
            how = {"run": "python tools/docs.py --update", "figure": "python tools/docs.py --update"
                   + (" --expensive " + block_id if block.expensive else ""),
                   "prose": f"re-read it, then python tools/docs.py --reviewed {block_id}",
                   "history": f"python tools/docs.py --reviewed {block_id} (a correction) or restore it"}.get(block.kind)
            if block.kind == "record":
                how = (f"python tools/docs.py --update --expensive {block_id}  (runs: {block.command})"
                       if getattr(block, "produce", None) else
                       f"re-measure with `{block.command}`, edit the block, then python tools/docs.py --reviewed {block_id}")
            lines.append(f"STALE {block_id} ({block.kind}, {block.page}): " + "; ".join(reasons) + f"\n    fix: {how}")
        return "\n".join(lines)


def _readme_options_table() -> Optional[str]:
    """The README with its options table regenerated (``tools/sync_readme.py``), or None when it is current."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from sync_readme import synced

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    new = synced(text)
    return None if new == text else new


def check(only: Optional[Sequence[str]] = None) -> Report:
    """Every problem of the docs: stale blocks, markers without a declaration, numbers outside blocks."""
    global BLOCKS
    BLOCKS = _load_blocks()
    report = Report()
    try:
        ctx = Context()
    except ValueError as exc:
        report.problems.append(str(exc))
        return report
    try:
        for region in ctx.regions.values():
            if region.id not in BLOCKS:
                report.problems.append(f"{region.page.relative_to(ROOT)}:{region.line}: block {region.id} is not "
                                       "declared in tools/doc_blocks.py")
        for block in BLOCKS.values():
            if only and not any(fnmatch.fnmatchcase(block.id, p) for p in only):
                continue
            if not isinstance(block, Figure):
                region = ctx.regions.get(block.id)
                if region is None:
                    report.problems.append(f"block {block.id} is declared for {block.page} but not marked there")
                    continue
                if str(region.page.relative_to(ROOT)) != block.page:
                    report.problems.append(f"block {block.id} is declared for {block.page} but sits in "
                                           f"{region.page.relative_to(ROOT)}")
            reasons = block.stale(ctx)
            if reasons:
                report.stale[block.id] = reasons
        if not only:
            if _readme_options_table() is not None:
                report.problems.append("README.md: the options table is not what wrd_score/options.py gives "
                                       "(python tools/docs.py --update)")
            for page in pages():
                for line, number in loose_numbers(page):
                    report.problems.append(f"{page.relative_to(ROOT)}:{line}: {number!r} is in no block (put it in "
                                           "one whose command made it: tools/doc_blocks.py)")
    finally:
        ctx.runner.close()
    return report


def update(expensive: bool, only: Optional[Sequence[str]] = None) -> Report:
    global BLOCKS
    BLOCKS = _load_blocks()
    ctx = Context()
    ctx.force = bool(only)
    try:
        for block in BLOCKS.values():
            if only and not any(fnmatch.fnmatchcase(block.id, p) for p in only):
                continue
            if not isinstance(block, Figure) and block.id not in ctx.regions:
                continue  # the check reports it
            if block.update(ctx, expensive):
                print(f"updated {block.id} ({block.page})", file=sys.stderr)
        if not only and _readme_options_table() is not None:
            (ROOT / "README.md").write_text(_readme_options_table(), encoding="utf-8")
            print("updated the README's options table", file=sys.stderr)
        ctx.save()
    finally:
        ctx.runner.close()
    return check(only)


def review(ids: Sequence[str]) -> None:
    global BLOCKS
    BLOCKS = _load_blocks()
    ctx = Context()
    try:
        for pattern in ids:
            matched = [b for name, b in BLOCKS.items() if fnmatch.fnmatchcase(name, pattern)]
            if not matched:
                raise SystemExit(f"no block matches {pattern!r}")
            for block in matched:
                block.review(ctx)
                print(f"re-signed {block.id}", file=sys.stderr)
        ctx.save()
    finally:
        ctx.runner.close()


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=__doc__.split("\n\n", 1)[1])
    parser.add_argument("ids", nargs="*", help="only these blocks (shell patterns: 'validation-*')")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="list stale blocks (the default)")
    mode.add_argument("--update", action="store_true", help="regenerate stale cheap blocks and figures")
    mode.add_argument("--reviewed", action="store_true", help="re-sign the named prose, history or hand-made records")
    mode.add_argument("--list", action="store_true", help="every block with its kind, page and command")
    parser.add_argument("--expensive", action="store_true", help="with --update: also run the expensive commands")
    args = parser.parse_args(argv)
    if args.list:
        for block in _load_blocks().values():
            print(f"{block.id}\t{block.kind}{' (expensive)' if block.expensive and block.kind != 'history' else ''}\t"
                  f"{block.page or getattr(block, 'path', '')}\t{block.command}")
        return 0
    if args.reviewed:
        if not args.ids:
            parser.error("--reviewed needs the ids of the blocks re-read")
        review(args.ids)
        return 0
    report = update(args.expensive, args.ids) if args.update else check(args.ids)
    print(report.text() if not report.ok else "the docs are current: every block matches what its command gives now")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
