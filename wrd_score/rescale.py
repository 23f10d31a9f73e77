"""Baseline rescaling (as ``bert_score`` offers): make 0 mean "as similar as two unrelated texts".

With most embeddings two unrelated texts already score far above 0 (their tokens are never exactly
orthogonal), so a raw 0.45 is hard to read and every score is biased upwards against a human scale.
``rescale_with_baseline=True`` maps each of precision, recall and F1 through

    x -> (x - b) / (1 - b)

where ``b`` is the mean score of random *unrelated* pairs for exactly that configuration
(embedding checksum or model/layer/pooling, tokenizer, OOV policy, variant, weights, clipping).
Identical texts still score 1; scores of unrelated texts centre on 0 and can go below 0
(bert_score's rescaled scores do the same).  The transform is monotone, so it never changes a
rank correlation; it only changes the level (and so MSE/MAE against a human scale).

Precision and recall keep their own baselines ``b_P`` and ``b_R`` (each the mean of that score over
random ordered pairs).  For the paper variant both estimate the same expectation, so they differ only
by sampling noise (0.299011 vs 0.299095 for the default, within their standard errors); keeping both
as measured keeps published rescaled numbers reproducible, at the price that rescaled
``precision(p, r)`` and ``recall(r, p)`` differ by at most ``|b_P - b_R| * (1 - x) / (1 - b)**2``
(checked by ``tests/test_rescale.py``).

Baselines live in JSON files keyed by the metric's signature without its version field
(:func:`baseline_key`), each entry with its provenance (corpus, its sha256, pairs, seed, command,
date).  Lookup order: ``baselines.json`` shipped beside the default embedding (one entry for every
preset, backend, tokenizer and variant of the shipped configurations), then the user's own
``baselines.json`` in :func:`~wrd_score.files.user_cache_dir` (where ``wrdscore baseline`` writes by
default), then ``<embedding file>.baselines.json`` beside a user's own embedding file (where it writes
for such a file).  A shipped entry wins, so published rescaled numbers stay reproducible.  A
configuration without a baseline raises a ``ValueError`` that gives the one command computing it
(:func:`baseline_command`), never a silent wrong ``b``.

Compute one with ``wrdscore baseline --corpus FILE [metric flags]``.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import shlex
import threading
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import __version__
from .checks import check_int, check_number
from .files import (MissingColumnsError, TableError, atomic_write, iter_lines, read_json, read_table, table_format,
                    user_cache_dir)
from .embeddings import file_sha256, shipped_path
from .options import Options, option_info
from .signature import Signature

__all__ = [
    "BASELINE_FILE",
    "baseline_key",
    "baseline_files",
    "load_baselines",
    "lookup_baseline",
    "rescale",
    "compute_baseline",
    "read_corpus",
    "random_pairs",
    "save_baseline",
    "check_pairs",
    "MAX_BASELINE_PAIRS",
    "user_baseline_path",
    "baseline_field",
    "default_output",
    "baseline_command",
]

BASELINE_FILE = "baselines.json"
FIELDS = ("precision", "recall", "f1")
_FORMAT = 1
#: Most random pairs a baseline scores (``--pairs``): they are drawn and scored in one call, held in memory.
#: The shipped baselines use 2,000 (a standard error near 0.002); a million gives one near 0.0001.
MAX_BASELINE_PAIRS = 1_000_000


def baseline_key(signature: Union[str, Signature]) -> str:
    """The part of a metric signature that determines raw scores (its version and rescale flag dropped).

    >>> baseline_key("wrdscore:v0.1.0|variant:paper|backend:static|weights:norm|rescale:baseline")
    'variant:paper|backend:static|weights:norm'
    """
    return Signature.parse(signature).key()


def rescale(values: Any, b: float) -> np.ndarray:
    """``(x - b) / (1 - b)`` elementwise; ``b`` must be finite and below 1.

    >>> rescale([1.0, 0.6, 0.2], 0.6).round(6).tolist()
    [1.0, 0.0, -1.0]
    """
    b = float(b)
    if not np.isfinite(b) or b >= 1.0:
        raise ValueError(f"baseline must be finite and below 1, got {b}")
    return (np.asarray(values, dtype=np.float64) - b) / (1.0 - b)


# ---------------------------------------------------------------------------- files
def shipped_baseline_path() -> str:
    """Path of the baselines file shipped beside the default embedding."""
    return shipped_path(BASELINE_FILE)


def user_baseline_path() -> str:
    """The user's baselines file: ``baselines.json`` in :func:`~wrd_score.files.user_cache_dir`."""
    return os.path.join(user_cache_dir(), BASELINE_FILE)


def baseline_files(embedding: Optional[str] = None) -> List[str]:
    """Files searched for a baseline, in order: the shipped one, the user's (:func:`user_baseline_path`), then
    one beside a user's embedding file."""
    paths = [shipped_baseline_path(), user_baseline_path()]
    if embedding and os.path.isfile(embedding):
        paths.append(os.fspath(embedding) + "." + BASELINE_FILE)
    return paths


def default_output(embedding: Optional[str] = None) -> str:
    """Where ``wrdscore baseline`` writes without ``--output``: beside a user's embedding file (the baselines
    travel with it), else the user's baselines file; never into the installed package."""
    if embedding and os.path.isfile(embedding):
        return os.fspath(embedding) + "." + BASELINE_FILE
    return user_baseline_path()


def baseline_command(options: Options) -> str:
    """The one ``wrdscore baseline`` command that computes the baseline of resolved ``options``: the flags of
    every score-changing option whose value differs from its preset's default (so the command's scorer has
    the same signature), and ``--corpus FILE``, a file of texts of the kind being scored.

    >>> baseline_command(Options(backend="contextual", preset="sentences").validate())
    'wrdscore baseline --corpus FILE --preset sentences --backend contextual'
    >>> baseline_command(Options(tokenizer="words", clip_negative=True).validate())
    'wrdscore baseline --corpus FILE --tokenizer words --clip-negative'
    """
    base = Options(preset=options.preset, backend=options.backend).validate()
    defaults = Options()
    flags = ["--corpus", "FILE"]
    for info in option_info():
        value = getattr(options, info.name)
        if info.name == "rescale_with_baseline" or value is None:
            continue
        if info.name in ("preset", "backend"):
            wanted = value != getattr(defaults, info.name)
        else:
            wanted = (info.signature and value != getattr(base, info.name)) or (info.name == "allow_pickle" and value)
        if not wanted:
            continue
        flag = "--" + info.name.replace("_", "-")
        if info.flag:
            flags.append(flag if value else "--no-" + info.name.replace("_", "-"))
        else:
            text = ",".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
            flags += [flag, text]
    return "wrdscore baseline " + " ".join(_quoted(f) for f in flags)


def _quoted(text: str) -> str:
    return shlex.quote(text) if text != "FILE" else text


_CACHE: Dict[Tuple[str, int, int], Dict[str, Any]] = {}
_LOCK = threading.Lock()


def load_baselines(path: str) -> Dict[str, Dict[str, Any]]:
    """``{key: entry}`` of one baselines file (empty when the file does not exist); checked on load."""
    if not os.path.isfile(path):
        return {}
    stat = os.stat(path)
    stamp = (path, stat.st_mtime_ns, stat.st_size)
    with _LOCK:
        if stamp in _CACHE:
            return _CACHE[stamp]
    try:
        data = read_json(path, "baselines")  # a file that is not JSON: a ValueError naming it
    except OSError as exc:
        raise ValueError(f"could not read baselines file {path!r}: {exc.strerror or exc}") from None
    entries = data.get("baselines") if isinstance(data, dict) else None
    if not isinstance(entries, dict):
        raise ValueError(f"baselines file {path!r} has no 'baselines' object")
    for key, entry in entries.items():
        for name in FIELDS:
            value = entry.get(name) if isinstance(entry, dict) else None
            try:  # a finite number below 1 (a huge JSON integer is a Python int but no float)
                check_number(name, value, maximum=1.0, exclusive=True)
            except ValueError:
                raise ValueError(f"baselines file {path!r}: entry {key!r} has an invalid {name} baseline "
                                 f"{value!r}") from None
    with _LOCK:
        _CACHE[stamp] = entries
    return entries


def _find_baseline(signature: Union[str, Signature], embedding: Optional[str]) -> Optional[Tuple[str, Dict]]:
    """The first file of :func:`baseline_files` holding an entry for ``signature``, and that entry."""
    key = baseline_key(signature)
    for path in baseline_files(embedding):
        entry = load_baselines(path).get(key)
        if entry is not None:
            return path, entry
    return None


def baseline_field(signature: Union[str, Signature], embedding: Optional[str] = None) -> str:
    """The signature's ``rescale`` field: ``baseline`` for a shipped entry (the version and the embedding's checksum
    pin it), ``baseline@`` and 12 hex digits of the entry's three numbers for any other, since a user's baseline
    of another corpus or seed rescales the same raw scores to other numbers.

    A configuration without a baseline also gives ``baseline``: scoring it raises, naming the command."""
    found = _find_baseline(signature, embedding)
    if found is None or found[0] == shipped_baseline_path():
        return "baseline"
    numbers = json.dumps([float(found[1][part]) for part in ("precision", "recall", "f1")])
    return "baseline@" + hashlib.sha256(numbers.encode("ascii")).hexdigest()[:12]


def lookup_baseline(signature: Union[str, Signature], embedding: Optional[str] = None,
                    options: Optional[Options] = None) -> Dict[str, Any]:
    """The baseline entry (``precision``/``recall``/``f1`` and provenance) for a metric signature.

    ``options``: the scorer's resolved options, so that a missing baseline's error gives the exact command
    (:func:`baseline_command`) that computes it."""
    found = _find_baseline(signature, embedding)
    if found is not None:
        return found[1]
    key, paths = baseline_key(signature), baseline_files(embedding)
    command = (baseline_command(options) if options is not None
               else "wrdscore baseline --corpus FILE [the same metric flags]")
    raise ValueError(
        f"no baseline for {key}; compute it with one command, `{command}` (FILE: texts like yours, one per line, "
        f"or a .tsv with prediction and reference columns; 2,000 random pairs of them are scored), which writes it "
        f"to {default_output(embedding)!r}, where it is found (searched {paths})"
    )


def save_baseline(path: str, key: str, entry: Mapping[str, Any]) -> None:
    """Add or replace one entry in a baselines file (written atomically, keys sorted for clean diffs)."""
    data: Dict[str, Any] = {"format": _FORMAT, "baselines": {}}
    if os.path.isfile(path):
        load_baselines(path)  # validates
        data = read_json(path, "baselines")
    data["format"] = _FORMAT
    data.setdefault("about", "WRDScore baseline rescaling: mean precision/recall/F1 of random unrelated "
                             "pairs per configuration; see wrd_score/rescale.py")
    data["baselines"][key] = dict(entry)
    data["baselines"] = dict(sorted(data["baselines"].items()))
    with atomic_write(path) as handle:
        json.dump(data, handle, indent=1, sort_keys=False)
        handle.write("\n")


# ---------------------------------------------------------------------------- computing
def read_corpus(path: str, columns: Optional[Sequence[str]] = None) -> List[str]:
    """Distinct non-empty texts of a corpus file, in first-seen order.

    A table (a name :func:`~wrd_score.files.table_format` knows: ``.tsv``, as in ``shared/data``, ``.csv``,
    ``.jsonl``, any case, ``.gz`` allowed) is read by :func:`~wrd_score.files.read_table`; ``columns`` names its text
    columns (default ``prediction`` and ``reference``).  Any other file (``.txt``, ``.txt.gz``): one text per line.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"corpus must be a file path, got {type(path).__name__}")
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"corpus file {path!r} does not exist")
    texts: Dict[str, None] = {}
    try:
        table_format(path)
        table = True
    except TableError:  # not a table's name: a text a line
        table = False
    if table:
        wanted = list(columns) if columns else ["prediction", "reference"]
        try:
            frame = read_table(path, required=wanted)
        except TableError as exc:
            hint = (" (columns=, --columns, names the text columns; default prediction reference)"
                    if isinstance(exc, MissingColumnsError) else "")
            raise TableError(f"corpus {path!r}: {exc}{hint}") from None
        # Row by row, in column order: the order of first sight fixes which random pairs a seed draws.
        for row in zip(*(frame[column].tolist() for column in wanted)):
            for text in row:
                if text.strip():
                    texts.setdefault(text, None)
    else:
        if columns:
            raise ValueError(f"columns (--columns) applies to table corpora only (.tsv, .csv, .jsonl), not {path!r}")
        for text in iter_lines(path, "corpus"):
            if text.strip():
                texts.setdefault(text, None)
    if len(texts) < 2:
        raise ValueError(f"corpus {path!r} has {len(texts)} distinct texts; random pairs need at least 2")
    return list(texts)


def check_pairs(n_pairs: Any) -> int:
    """``n_pairs`` (``--pairs``) as a checked int: from 2 (one pair has no standard error) to
    :data:`MAX_BASELINE_PAIRS`."""
    return check_int("n_pairs (--pairs)", n_pairs, minimum=2, maximum=MAX_BASELINE_PAIRS)


def random_pairs(texts: Sequence[str], n_pairs: int, seed: int) -> Tuple[List[str], List[str]]:
    """``n_pairs`` random pairs of *different* texts drawn with ``numpy.random.default_rng(seed)``.

    >>> a, b = random_pairs(["x", "y", "z"], 4, seed=0)
    >>> len(a), all(p != q for p, q in zip(a, b))
    (4, True)
    """
    n_pairs = check_int("n_pairs", n_pairs, maximum=MAX_BASELINE_PAIRS)
    if len(texts) < 2:
        raise ValueError("random pairs need at least 2 distinct texts")
    rng = np.random.default_rng(seed)
    first = rng.integers(0, len(texts), size=n_pairs)
    # Offset in [1, n): the partner is uniform over the other texts, never the same one.
    second = (first + rng.integers(1, len(texts), size=n_pairs)) % len(texts)
    return [texts[i] for i in first], [texts[j] for j in second]


def compute_baseline(scorer: Any, corpus: str, n_pairs: int = 2000, seed: int = 0,
                     columns: Optional[Sequence[str]] = None, command: Optional[str] = None) -> Tuple[str, Dict[str, Any]]:
    """Score random unrelated pairs of ``corpus`` with ``scorer`` (raw scores) and return ``(key, entry)``.

    ``scorer`` is a :class:`wrd_score.WRDScorer`; it must not itself rescale.
    """
    if getattr(scorer.options, "rescale_with_baseline", False):
        raise ValueError("compute a baseline with rescale_with_baseline=False (it is the raw score's mean)")
    n_pairs = check_pairs(n_pairs)
    texts = read_corpus(corpus, columns)
    preds, refs = random_pairs(texts, n_pairs, seed)
    result = scorer.scores(preds, refs)
    key = result.signature.key()
    entry: Dict[str, Any] = {}
    for name in FIELDS:
        values = np.asarray(getattr(result, name), dtype=np.float64)
        entry[name] = round(float(values.mean()), 6)
        entry[name + "_sem"] = round(float(values.std(ddof=1) / np.sqrt(len(values))), 6)
    entry.update({
        "n_pairs": int(n_pairs),
        "seed": int(seed),
        "corpus": os.path.basename(os.fspath(corpus)),
        "corpus_sha256": file_sha256(os.fspath(corpus)),
        "corpus_distinct_texts": len(texts),
        "columns": list(columns) if columns else None,
        "signature": str(result.signature),
        "wrdscore_version": __version__,
        "command": command,
        "date": _dt.date.today().isoformat(),
    })
    if entry["f1"] >= 1.0:
        raise ValueError(f"random pairs of {corpus!r} score {entry['f1']} on average: the corpus has too few distinct texts")
    return key, entry
