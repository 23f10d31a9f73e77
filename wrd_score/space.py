"""The Space's logic, without Gradio: what the page of ``app.py`` shows, computed by the library.

* :class:`PageOptions`: the page's controls as one named structure, generated from the options description
  (:func:`wrd_score.options.option_info`): their fields, defaults, the choices each control offers, the check of a
  value (the app's API takes raw JSON) and the library options they stand for.
* :func:`score_pair`: one pair, WRDScore (``WRDScorer.score`` and ``explain``) beside the literature's metrics
  (:func:`wrd_score.metrics.compare`), a row per metric, a signature per metric.
* :func:`read_upload`, :func:`score_table`, :func:`correlations`, :func:`write_scored`: an uploaded table within the
  Space's limits, scored in chunks with a progress callback, its means, the correlations with a ``human`` column
  (:mod:`wrd_score.stats`), written back in its own format by the library's one table writer
  (:func:`wrd_score.files.write_table`).
* :func:`pair_record`, :func:`file_record`: the same results as plain JSON for the app's API.

One scorer per configuration per call: the WRDScore scorer, and one shared by the metrics that run on a backend
(:func:`wrd_score.metrics.backend_idf.shared_backends`).  Gradio, pandas and matplotlib are imported where used.
"""
from __future__ import annotations

import math
import os
import re
import tempfile
from collections import namedtuple
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

import numpy as np

from .backends import BACKENDS
from .checks import check_bool, check_choice, check_names, check_text
from .deps import require
from .files import TABLE_FORMATS, TableError, read_table, write_table
from .metrics import column_name, compare
from .metrics.backend_idf import shared_backends
from .metrics.base import options_read
from .options import Options, markdown_table, option_info
from .rescale import lookup_baseline
from .scorer import WRDScorer, mean as mean_of_scores
from .stats import correlation_stats, undefined_reason
from .stream import score_chunked

__all__ = ["MAX_UPLOAD_BYTES", "MAX_ROWS", "MAX_ROWS_CONTEXTUAL", "MAX_TEXT_CHARS", "CHUNK_ROWS", "N_BOOT",
           "PAPER_EXAMPLES", "EMBEDDINGS", "DEFAULT_EMBEDDING", "FROM_PRESET", "TOKENIZER_AUTO", "SIBLING_METRICS",
           "UploadError", "PageOptions", "rescale_unavailable", "metric_label", "PairResult", "score_pair",
           "check_text_length", "row_limit", "read_upload", "ScoredFile", "score_table", "means_table",
           "correlations", "write_scored", "pair_record", "file_record", "FORMULAS", "LIMITS", "options_markdown",
           "validation_markdown", "launch_settings"]

# --------------------------------------------------------------------------- limits (SECURITY.md)
#: Uploads larger than this are refused with a message (the Space shares 2 CPU cores).
MAX_UPLOAD_BYTES = 2 * 1024 * 1024
#: At most this many rows per uploaded file; bigger files belong to the ``wrdscore`` command.
MAX_ROWS = 2000
#: The contextual backend runs MiniLM over every text once per metric: 2,000 STS-B rows with the three
#: other metrics took 611 s on the shared 2-core machine (static embeddings: 18-20 s), so it gets fewer.
MAX_ROWS_CONTEXTUAL = 250
#: Longest text the Space scores, on every endpoint (a textbox's ``max_length`` binds only the browser).
MAX_TEXT_CHARS = 5000
#: Rows per WRDScore call while scoring a file, so that the progress bar moves.
CHUNK_ROWS = 200
#: Bootstrap resamples for the confidence intervals of the correlations (fixed seed: same file, same table).
N_BOOT = 200

#: Section 4 of the paper (Mussabayev 2024): (prediction, reference) pairs whose ROUGE-1 is 0.
#: Example 5 repeats example 2 in the paper and is left out.
PAPER_EXAMPLES = [
    ("set artwork entry", "update image"),
    ("next char", "advance"),
    ("get count", "size"),
    ("log", "receive message"),
    ("validate url", "perform validation"),
    ("execute", "do until result"),
    ("is all capitalized", "detect capital use"),
    ("max path", "longest consecutive"),
    ("get number of days", "schedule course"),
    ("verify", "process username"),
]

CONTEXTUAL = "Contextual MiniLM-L6 (all-MiniLM-L6-v2)"
#: Page label -> the library options it stands for (the tokenizer is the one that suits the embedding).
#: The default entry names no file: each preset's own file applies, as in the library (naming one would override
#: the preset's: the two presets use different files since 0.3.0); every preset's file has an entry of its own.
EMBEDDINGS: Dict[str, Dict[str, str]] = {
    "Static, the preset's file (default)": {"backend": "static", "tokenizer": "identifier"},
    "MiniLM counter-fitted, static (identifiers)": {"backend": "static", "embedding": "wrd-minilm-cf-morph-post-d125",
                                                    "tokenizer": "identifier"},
    "MiniLM counter-fitted, static (the 0.5.0 default)": {"backend": "static", "embedding": "wrd-minilm-cf-morph-post",
                                                          "tokenizer": "identifier"},
    "MiniLM counter-fitted, static (the 0.4.0 default)": {"backend": "static", "embedding": "wrd-minilm-cf-morph",
                                                          "tokenizer": "identifier"},
    "MiniLM counter-fitted, static (the 0.3.0 default)": {"backend": "static", "embedding": "wrd-minilm-cf",
                                                          "tokenizer": "identifier"},
    "MiniLM fitted to sentences, static (sentences)": {"backend": "static", "embedding": "wrd-minilm-sentences",
                                                       "tokenizer": "identifier"},
    "MiniLM + code, static (the 0.2.0 default)": {"backend": "static", "embedding": "wrd-minilm-code",
                                                  "tokenizer": "identifier"},
    "Distilled MiniLM, static (the 0.1.x default)": {"backend": "static", "embedding": "wrd-minilm-distilled",
                                                     "tokenizer": "identifier"},
    "fastText Java (the first default)": {"backend": "static", "embedding": "wrd-java-default",
                                          "tokenizer": "identifier"},
    "GloVe 6B 50d": {"backend": "static", "embedding": "glove-6b-50d", "tokenizer": "words"},
    CONTEXTUAL: {"backend": "contextual"},
}
DEFAULT_EMBEDDING = next(iter(EMBEDDINGS))
#: The tokenizer selector's "not given": the one that suits the embedding.
TOKENIZER_AUTO = "auto"
#: The variant and weights selectors' "not given": the value comes from the preset (wrd_score.options.PRESETS).
FROM_PRESET = "from preset"
#: The metrics shown beside WRDScore (registry names; wrd_score.metrics), the literature's comparison set.
SIBLING_METRICS = ("rouge1", "bleu", "meteor", "bertscore", "moverscore", "wms", "sms", "s+wms", "sbert",
                   "subtoken-f1", "exact-match", "chrf")


class UploadError(TableError):
    """An uploaded file (or a text) the Space cannot score; the message is shown to the visitor as is."""


# --------------------------------------------------------------------------- the page's options
#: The page's controls in the order of the API's parameters: the embedding (a page label), library options
#: (described by wrd_score.options), whether to compute the literature's metrics too. The preset came last.
_CONTROLS = ("embedding", "variant", "weights", "tokenizer", "oov", "clip_negative", "rescale_with_baseline", "siblings",
             "preset")
_INFO = {info.name: info for info in option_info()}
_LIBRARY_CONTROLS = tuple(name for name in _CONTROLS if name in _INFO and name != "embedding")


def _not_given(name: str) -> Optional[str]:
    """What a control shows for "the library decides": the preset's value, or the embedding's tokenizer."""
    return FROM_PRESET if _INFO[name].preset else TOKENIZER_AUTO if name == "tokenizer" else None


#: The values of a true-or-false option that a preset sets: "from preset" besides them needs a third state, so the
#: control is a choice of words (the signature's ``clip:yes``/``clip:no``), not a checkbox.
FLAG_WORDS = {"yes": True, "no": False}


def _checkbox(name: str) -> bool:
    return name == "siblings" or (_INFO[name].flag and not _INFO[name].preset)


def _preset_flag(name: str) -> bool:
    return name in _INFO and _INFO[name].flag and _INFO[name].preset


def _page_fields() -> List[tuple]:
    """``(name, type, default)`` of each control, read from the options description."""
    own = {"embedding": (str, DEFAULT_EMBEDDING), "siblings": (bool, True)}
    return [(name, *own[name]) if name in own else
            (name, bool if _checkbox(name) else str, _not_given(name) or _INFO[name].default)
            for name in _CONTROLS]


_FIELDS = _page_fields()


class PageOptions(namedtuple("PageOptions", [name for name, _, _ in _FIELDS], defaults=[d for _, _, d in _FIELDS])):
    """The page's controls, one field each (the embedding, each library option the page offers, whether to compute
    the literature's metrics too), generated from the options description; defaults are the page's.

    >>> PageOptions()._fields
    ('embedding', 'variant', 'weights', 'tokenizer', 'oov', 'clip_negative', 'rescale_with_baseline', 'siblings', 'preset')
    >>> PageOptions(embedding="GloVe 6B 50d", variant="wrd").library_options()["embedding"]
    'glove-6b-50d'
    """

    __slots__ = ()

    @staticmethod
    def kinds() -> Dict[str, type]:
        """Each field's type (``str`` or ``bool``), for the signatures of the API's functions."""
        return {name: kind for name, kind, _ in _FIELDS}

    @staticmethod
    def choices(name: str) -> tuple:
        """The values the control of field ``name`` offers (the embedding: those of the installed backends)."""
        if name == "embedding":
            return tuple(label for label, options in EMBEDDINGS.items() if options["backend"] in BACKENDS)
        if _checkbox(name):
            return (True, False)
        extra = _not_given(name)
        return ((extra,) if extra else ()) + (tuple(FLAG_WORDS) if _INFO[name].flag else _INFO[name].choices)

    @classmethod
    def from_api(cls, values: Mapping[str, Any]) -> "PageOptions":
        """The options of a raw API call (JSON: any type may come), checked: the one message for a wrong
        type or an unknown name or value (:mod:`wrd_score.checks`)."""
        check_names(values, cls._fields, what="option")
        return cls(**values).checked()

    def checked(self) -> "PageOptions":
        for name, kind, _ in _FIELDS:
            value = getattr(self, name)
            if kind is bool:
                check_bool(name, value)
            elif _preset_flag(name):
                # Before 0.6.0 clip_negative was a checkbox: a client's true/false still means what it meant.
                if not isinstance(value, bool) and value not in self.choices(name):
                    choices = ", ".join(map(repr, self.choices(name)))
                    raise (ValueError if isinstance(value, str) else TypeError)(
                        f"{name} must be one of {choices}, True or False, got {value!r}")
            else:
                check_choice(name, check_text(name, value), self.choices(name))
        return self

    def library_options(self) -> Dict[str, Any]:
        """The library options the controls stand for; one not given (the preset's, the embedding's tokenizer) is
        left out, so the library decides. Values are checked by the library, not here."""
        if self.embedding not in EMBEDDINGS:
            raise ValueError(f"embedding must be one of {list(EMBEDDINGS)}, got {self.embedding!r}")
        options: Dict[str, Any] = dict(EMBEDDINGS[self.embedding])
        if options["backend"] not in BACKENDS:
            raise ValueError(f"backend {options['backend']!r} is not available in this installation "
                             f"(available: {list(BACKENDS)})")
        for name in _LIBRARY_CONTROLS:
            value = getattr(self, name)
            if name == "oov" and options["backend"] != "static":
                if value != _INFO[name].default:  # a choice the encoder would ignore: said, not dropped
                    raise ValueError(f"oov applies to the static embeddings only (the contextual encoder has no "
                                     f"out-of-vocabulary tokens), got oov={value!r} with {self.embedding!r}")
                continue
            if name == "rescale_with_baseline" and not value:
                continue
            if value not in (None, "", _not_given(name)):
                options[name] = FLAG_WORDS.get(value, value) if _preset_flag(name) else value
        return options


def rescale_unavailable(options: Mapping[str, Any]) -> str:
    """Why these options cannot be rescaled (no stored baseline: e.g. the GloVe preset), or "" if they can."""
    try:
        scorer = WRDScorer(**{**options, "rescale_with_baseline": False})
        lookup_baseline(scorer.signature_fields(), scorer.options.embedding)
    except (ValueError, TypeError, OSError) as exc:
        return f"no rescaling baseline is stored for these options ({str(exc).split(';')[0]})"
    return ""


def metric_label(name: str, options: Mapping[str, Any]) -> str:
    """What a row of the comparison shows.  BERTScore and MoverScore keep the library's one name
    (:func:`wrd_score.metrics.column_name`, as in ``wrdscore compare`` and ``validate``): their rule
    and the vectors they run on, which with a static embedding are not BERT models.  A column name
    of :func:`compare` (``bertscore-rule[static]``) is returned as it is.

    >>> metric_label("bertscore", {"backend": "static"}), metric_label("rouge1", {})
    ('bertscore-rule[static]', 'ROUGE-1')
    """
    base = {"wrdscore": "WRDScore", "rouge1": "ROUGE-1", "bleu": "BLEU", "meteor": "METEOR", "wms": "WMS",
            "sms": "SMS", "s+wms": "S+WMS", "sbert": "Sentence-BERT cosine (MiniLM)",
            "subtoken-f1": "Subtoken F1 (code2seq)", "exact-match": "Exact match (subtokens)", "chrf": "chrF"}
    return base.get(name) or column_name(name, options.get("backend", Options.backend))


def _sibling_scores(predictions: List[str], references: List[str], options: Mapping[str, Any],
                    metrics: Sequence[str] = SIBLING_METRICS, single_pair: bool = False):
    """The sibling metrics' columns and their signatures (label -> signature), from the library's ``compare``.

    They run on the same backend and embedding as WRDScore (the library's design), so the table differs only by
    the matching rule.  For a single pair MoverScore uses uniform masses: IDF fit on one sentence is 0 for every
    word (moverscore's own advice for single pairs is the same).
    """
    # Only what the siblings read: the library refuses an option that no metric asked for would use.
    backend_options = {k: v for k, v in options.items() if any(k in options_read(m) for m in metrics)}
    extra = {"moverscore_idf": False} if "moverscore" in metrics and single_pair else {}
    table = compare(predictions, references, metrics=tuple(metrics), **extra, **backend_options)
    columns = {key: [float(v) for v in values] for key, values in table.items()
               if key not in ("prediction", "reference", "signatures") and isinstance(values, list)}
    return columns, {metric_label(name, options): sig for name, sig in table.get("signatures", {}).items()}


def _metric_values(values: Mapping[str, float], options: Mapping[str, Any]) -> Dict[str, Dict[str, float]]:
    """Columns named ``<metric>_<part>`` or ``<metric>`` (a single score, shown as F1) grouped by metric,
    labelled as the page labels them, in column order (WRDScore first)."""
    rows: Dict[str, Dict[str, float]] = {}
    for key, value in values.items():
        name, _, part = key.rpartition("_")
        if name and part in ("precision", "recall", "f1"):
            rows.setdefault(metric_label(name, options), {})[part] = value
        else:
            rows.setdefault(metric_label(key, options), {})["f1"] = value
    return rows


def _metric_records(values: Mapping[str, float], options: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """One record per metric: ``metric``, ``precision``, ``recall``, ``f1`` (None where it has no such part)."""
    return [{"metric": name, **{part: row.get(part) for part in ("precision", "recall", "f1")}}
            for name, row in _metric_values(values, options).items()]


# --------------------------------------------------------------------------- one pair
@dataclass
class PairResult:
    precision: float  # WRDScorer.score: rescaled when rescale_with_baseline is on
    recall: float
    f1: float
    detail: Any  # WRDScorer.explain (wrd_score.scoring.PairDetail): tokens, raw cosines, masses, flow
    signatures: Dict[str, str]  # label -> signature, WRDScore's first
    metrics: List[Dict[str, Any]]  # one record per metric, WRDScore's first (_metric_records)
    note: str = ""

    @property
    def signature(self) -> str:
        """WRDScore's signature."""
        return self.signatures["WRDScore"]

    def comparison(self):
        """The metrics as the page's table shows them: text cells, a dash where a metric has no such part."""
        pd = require("pandas", "app")
        return pd.DataFrame([{"metric": r["metric"], **{label: (f"{r[part]:.4f}" if r[part] is not None else "–")
                                                         for part, label in (("precision", "precision"),
                                                                             ("recall", "recall"),
                                                                             ("f1", "F1 / score"))}}
                             for r in self.metrics])


def check_text_length(text: Any, what: str) -> str:
    """The Space's one text cap, held on the server for every endpoint. One long text makes a transport
    problem of (distinct tokens)^2 cells, tying up the shared CPU and gigabytes of memory."""
    check_text(what, text)
    if len(text) > MAX_TEXT_CHARS:
        raise UploadError(f"{what} has {len(text):,} characters; this Space scores texts of up to "
                          f"{MAX_TEXT_CHARS:,} (use the `wrdscore` command or the library for longer ones)")
    return text


def score_pair(prediction: str, reference: str, options: Mapping[str, Any], siblings: bool = True) -> PairResult:
    """Score one pair with the library: the scores (``WRDScorer.score``), the matrices (``WRDScorer.explain``)
    and the sibling metrics, with one scorer for WRDScore and one for the siblings on a backend."""
    check_text_length(prediction, "the prediction")
    check_text_length(reference, "the reference")
    scorer = WRDScorer(**options)
    scored = scorer.scores([prediction], [reference])
    detail = scorer.explain(prediction, reference)
    values = {"wrdscore_precision": scored.precision[0], "wrdscore_recall": scored.recall[0],
              "wrdscore_f1": scored.f1[0]}
    signatures = {"WRDScore": str(scored.signature)}
    notes = []
    if scorer.options.rescale_with_baseline:
        notes.append(f"Rescaled with the baseline; before rescaling P {detail.precision:.4f}, "
                     f"R {detail.recall:.4f}, F1 {detail.f1:.4f} (the heatmaps show the raw matrices).")
    if siblings:
        try:
            with shared_backends():
                columns, sib_signatures = _sibling_scores([prediction], [reference], options, single_pair=True)
            values.update({key: column[0] for key, column in columns.items()})
            signatures.update(sib_signatures)
        except (ValueError, TypeError, OSError, ImportError) as exc:
            notes.append(f"Other metrics unavailable: {exc}")
    return PairResult(*list(values.values())[:3], detail, signatures, _metric_records(values, options), " ".join(notes))


def pair_record(result: PairResult) -> Dict[str, Any]:
    """A pair's result as plain JSON: ``precision``, ``recall``, ``f1`` (rescaled when asked), ``signature``
    (WRDScore's), ``signatures`` (metric label -> signature), ``metrics`` (one record per metric: ``metric``,
    ``precision``, ``recall``, ``f1``; None where a metric has no such part), ``tokens`` and ``note``."""
    return {"precision": result.precision, "recall": result.recall, "f1": result.f1, "signature": result.signature,
            "signatures": dict(result.signatures), "metrics": [dict(r) for r in result.metrics],
            "tokens": {"prediction": list(result.detail.tokens_p), "reference": list(result.detail.tokens_r)},
            "note": result.note}


# --------------------------------------------------------------------------- files
def row_limit(options: Mapping[str, Any]) -> int:
    """Most rows the Space scores in one file with these options.

    >>> row_limit({"backend": "contextual"}) < row_limit({"backend": "static"})
    True
    """
    return MAX_ROWS_CONTEXTUAL if options.get("backend") == "contextual" else MAX_ROWS


def read_upload(path: Optional[str], max_bytes: int = MAX_UPLOAD_BYTES, max_rows: int = MAX_ROWS):
    """An uploaded CSV/TSV/JSONL as data (the library's one table reader), with the Space's limits:
    columns ``prediction``, ``reference`` and optionally ``human``."""
    if not path:
        raise UploadError("upload a .csv, .tsv or .jsonl file first")
    try:
        frame = read_table(path, numeric=("human",), max_bytes=max_bytes, max_rows=max_rows)
    except TableError as exc:
        if "limit" not in str(exc):
            raise UploadError(str(exc)) from None
        raise UploadError(f"{exc}: this Space scores at most {max_rows} with these options ({MAX_ROWS} rows with a "
                          f"static embedding, {MAX_ROWS_CONTEXTUAL} with the contextual backend) and "
                          f"{max_bytes // 1048576} MB; use the `wrdscore` command or the library for bigger files") \
            from None
    out = frame[["prediction", "reference"] + (["human"] if "human" in frame.columns else [])].copy()
    for column in ("prediction", "reference"):
        for i, value in enumerate(out[column]):
            check_text_length(value, f"row {i + 1}: the {column}")
    if "human" in out.columns and not np.isfinite(out["human"]).any():
        # Correlations over 0 rows would be reported as if they meant something.
        raise UploadError("the 'human' column has no numbers (every row is empty or NaN); fill it in, "
                          "or drop the column to score without correlations")
    return out


ProgressFn = Callable[[float, str], None]


@dataclass
class ScoredFile:
    table: Any  # DataFrame: the upload's columns, then every metric's
    means: Dict[str, float]
    correlations: Any  # DataFrame, or None without a human column
    signatures: Dict[str, str]  # label -> signature, WRDScore's first
    note: str = ""

    @property
    def signature(self) -> str:
        """WRDScore's signature."""
        return self.signatures["WRDScore"]


def score_table(frame: Any, options: Mapping[str, Any], siblings: bool = True,
                progress: Optional[ProgressFn] = None) -> ScoredFile:
    """WRDScore (and the sibling metrics) for every row of a parsed upload.

    Rows are scored in chunks of :data:`CHUNK_ROWS` so the progress bar moves
    (:func:`wrd_score.stream.score_chunked`: with IDF weights the table is fit once on all references
    and shared by the chunks, so the scores equal one call's).
    """
    report = progress or (lambda fraction, desc: None)
    predictions = frame["prediction"].tolist()
    references = frame["reference"].tolist()
    n = len(predictions)
    scorer = WRDScorer(**options)
    wrd_share = 0.5 if siblings else 1.0
    result = score_chunked(scorer, predictions, references, chunk_size=CHUNK_ROWS,
                           progress=lambda done, total: report(wrd_share * done / total,
                                                               f"WRDScore: {done} of {total} rows"))
    table = frame.copy()
    table["wrdscore_precision"] = result["precision"]
    table["wrdscore_recall"] = result["recall"]
    table["wrdscore_f1"] = result["f1"]
    signatures = {"WRDScore": result["signature"]}
    note = ""
    if siblings:
        with shared_backends():  # one scorer for every metric on a backend
            for k, metric in enumerate(SIBLING_METRICS):
                label = metric_label(metric, options)
                report(wrd_share + (1 - wrd_share) * k / len(SIBLING_METRICS), f"{label}: {n} rows")
                try:
                    columns, sib_signatures = _sibling_scores(predictions, references, options, metrics=(metric,))
                except (ValueError, TypeError, OSError, ImportError) as exc:
                    note += f"{label} unavailable: {exc}\n"
                    continue
                for key, values in columns.items():
                    table[key] = values
                signatures.update(sib_signatures)
    report(1.0, "done")
    metric_columns = [c for c in table.columns if c not in ("prediction", "reference", "human")]
    means = {c: mean_of_scores(table[c].tolist()) for c in metric_columns}  # as every entry point: bit-identical
    corr = correlations(table, metric_columns) if "human" in table.columns else None
    return ScoredFile(table, means, corr, signatures, note.strip())


def means_table(means: Mapping[str, float], options: Mapping[str, Any]):
    """The file's means, one row per metric (a row of twenty-odd columns broke its headers and numbers
    mid-word); numbers, rounded to 4 decimals, and None where a metric has no such part."""
    pd = require("pandas", "app")
    records = [{"metric": r["metric"], **{part: (round(r[part], 4) if r[part] is not None else None)
                                          for part in ("precision", "recall", "f1")}}
               for r in _metric_records(means, options)]
    return pd.DataFrame(records, dtype=object)  # object: None stays None (an empty cell), not NaN


def correlations(table: Any, metric_columns: Sequence[str], human: str = "human"):
    """Pearson, Spearman and Kendall of each metric column with the human column, with 95% bootstrap CIs.

    The statistics are ``wrd_score.stats.correlation_stats`` (rows without a human score dropped).
    A correlation that is undefined (fewer than 3 rows, or a constant column) is left empty, never NaN,
    and the ``note`` column says why (``wrd_score.stats.undefined_reason``, the rule that left it undefined).
    """
    pd = require("pandas", "app")
    human_values = table[human].to_numpy(dtype=float)
    finite = human_values[np.isfinite(human_values)]
    # The range only scales MSE/MAE, which the Space does not show; any valid range will do.
    lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if not hi > lo:
        hi = lo + 1.0
    rows = []
    for column in metric_columns:
        stats = correlation_stats(table[column].to_numpy(dtype=float), human_values, (lo, hi),
                                  n_boot=N_BOOT, seed=0)
        row: Dict[str, Any] = {"metric": column, "n": stats["n"]}
        for name in ("pearson", "spearman", "kendall"):
            value, low, high = stats[name], stats[name + "_lo"], stats[name + "_hi"]
            row[name] = round(value, 4) if math.isfinite(value) else None
            row[name + " 95% CI"] = (f"[{low:.3f}, {high:.3f}]" if math.isfinite(low) and math.isfinite(high)
                                     else "")
        metric_values = table[column].to_numpy(dtype=float)
        both = np.isfinite(metric_values) & np.isfinite(human_values)
        reason = undefined_reason(metric_values[both], human_values[both], column, human)
        row["note"] = f"undefined: {reason}" if reason else ""
        rows.append(row)
    return pd.DataFrame(rows)


def write_scored(table: Any, source_name: str, directory: Optional[str] = None) -> str:
    """Write the scored table into a fresh temporary folder (or ``directory``), in the upload's format, by the
    library's table writer; a TSV whose texts hold a tab or a line break is written as CSV."""
    directory = directory or tempfile.mkdtemp(prefix="wrdscore-app-")
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", os.path.splitext(os.path.basename(source_name))[0])[:60] or "scores"
    kind = TABLE_FORMATS.get(os.path.splitext(source_name)[1].lower(), "csv")
    path = os.path.join(directory, f"{stem}.scored.{kind}")
    try:
        write_table(table, path, kind)
    except TableError:  # quoting off: such a text cannot be written as TSV
        path = os.path.join(directory, f"{stem}.scored.csv")
        write_table(table, path, "csv")
    return path


def _json_value(value: Any) -> Any:
    if isinstance(value, np.generic):
        value = value.item()
    return None if isinstance(value, float) and not math.isfinite(value) else value


def file_record(scored: ScoredFile, options: Mapping[str, Any]) -> Dict[str, Any]:
    """A scored file as plain JSON: ``rows`` (one record per row: the upload's columns and every metric's),
    ``means`` (one record per metric, as :func:`pair_record`'s ``metrics``), ``correlations`` (one record per
    metric column, or None without a human column), ``signature`` (WRDScore's), ``signatures`` (metric label ->
    signature) and ``note``; NaN is null."""
    def records(frame: Any) -> List[Dict[str, Any]]:
        return [{key: _json_value(value) for key, value in row.items()} for row in frame.to_dict(orient="records")]

    return {"rows": records(scored.table), "means": _metric_records(scored.means, options),
            "correlations": records(scored.correlations) if scored.correlations is not None else None,
            "signature": scored.signature, "signatures": dict(scored.signatures), "note": scored.note}


# --------------------------------------------------------------------------- the About tab, the launch
#: How the metric is computed, in markdown with LaTeX (the About tab).
FORMULAS = r"""
### How WRDScore works

A prediction $p = (\hat t_1, \dots, \hat t_m)$ and a reference $r = (t_1, \dots, t_l)$ are split into tokens
(method names into identifier subtokens: `getCount` → `get`, `count`) and each token gets a vector and a mass
$w$ (with the static presets, the norm of its embedding, as in the paper; the *Token masses* option gives IDF, the embedding's corpus IDF or uniform masses instead), normalised to sum to 1 on each side.
The optimal flow $F$ moves the reference masses onto the prediction masses at the least total cost, the cost of
moving mass between two tokens being their cosine distance (Word Rotator's Distance):

$$\min_{F \ge 0} \sum_{i,j} F_{ij}\,\bigl(1 - \cos(t_i, \hat t_j)\bigr) \quad\text{subject to}\quad F\mathbf 1 = W,\;\; \mathbf 1^\top F = \hat W .$$

Precision and recall are then read off the flow (equations 4 and 5 of the paper, variant `paper`):

$$P = \frac{1}{|p|}\sum_{j \in p} \frac{\sum_{i} F_{ij} \cos(t_i, \hat t_j)}{\sum_{i} F_{ij}}, \qquad
R = \frac{1}{|r|}\sum_{i \in r} \frac{\sum_{j} F_{ij} \cos(\hat t_j, t_i)}{\sum_{j} F_{ij}}, \qquad
F_1 = \frac{2PR}{P + R}.$$

A token can share its mass with several tokens of the other side, so `size` can be matched to both `get` and
`count`. Variant `wrd` (the author's later release) takes recall $= \sum_{ij} F_{ij}\cos = 1 - \mathrm{WRD}$ and
a greedy precision $\sum_j \hat w_j \max_i \cos(t_i, \hat t_j)$. The default keeps negative cosines (since 0.6.0:
an opposite counts against a pair; since 0.7.0 its file puts the antonyms it was fitted to at cosine -0.25), so a score lies in $[-1, 1]$; clipped to 0 (*Clip negative cosines*: yes, the
other presets' and embeddings' default) it lies in $[0, 1]$. Where $P$ or $R$ is not positive, $F_1$ is the smaller of
the two. Identical texts score exactly 1.

In the heatmaps, rows are prediction tokens and columns reference tokens; the flow matrix shows where each
token's mass went. Paper: Mussabayev, *WRDScore: New Metric for Evaluation of Natural Language Generation
Models* (arXiv:2405.19220).
"""

#: The limits, as the page states them.
LIMITS = (f"At most **{MAX_ROWS} rows** (**{MAX_ROWS_CONTEXTUAL}** with the contextual backend), "
           f"**{MAX_UPLOAD_BYTES // 1048576} MB** and {MAX_TEXT_CHARS:,} characters a text; for bigger files use "
           "`wrdscore` on the command line.")


def options_markdown() -> str:
    """The About tab's options section: the library's options table (generated) and the upload limits."""
    return "\n".join(["### Options", "", "Every option of the library (`wrd_score.Options`), generated from its "
                      "description; the **Score a pair** and **Score a file** tabs expose the metric options and the "
                      "embedding.", "", markdown_table(), "", "Uploads: `.csv`, `.tsv` (tab-separated, quoting off) "
                      "or `.jsonl`, with columns `prediction` and `reference` and optionally `human`. " + LIMITS])


def validation_markdown(root: str) -> str:
    """``docs/validation-summary.md``, the validation summary the README and docs/validation.md also show."""
    path = os.path.join(root, "docs", "validation-summary.md")
    if os.path.isfile(path):  # without the docs check's block markers (HTML comments)
        with open(path, encoding="utf-8") as handle:
            return re.sub(r"<!-- /?docs:[\w.+-]+ -->\n", "", handle.read())
    return ("### Validation\n\nThe validation tables (correlation with human judgments on IdBench and STS-B) are in "
            "docs/validation.md; this copy of the app could not find them.")


def launch_settings(environ: Mapping[str, str] = os.environ) -> Dict[str, Any]:
    """Address to serve on: Gradio's own ``GRADIO_SERVER_NAME``/``GRADIO_SERVER_PORT``, else 127.0.0.1:7860.

    >>> launch_settings({})["server_name"]
    '127.0.0.1'
    >>> launch_settings({"GRADIO_SERVER_NAME": "0.0.0.0", "GRADIO_SERVER_PORT": "7861"})["server_port"]
    7861
    """
    port_text = environ.get("GRADIO_SERVER_PORT", "").strip()
    port = None
    if port_text:
        if not port_text.isdigit() or not 0 < int(port_text) < 65536:
            raise ValueError(f"GRADIO_SERVER_PORT must be a port number (1-65535), got {port_text!r}")
        port = int(port_text)
    return {
        "server_name": environ.get("GRADIO_SERVER_NAME", "").strip() or "127.0.0.1",
        "server_port": port,
        # Gradio refuses bigger uploads itself; smaller ones over MAX_UPLOAD_BYTES get the app's message.
        "max_file_size": 4 * MAX_UPLOAD_BYTES,
        "ssr_mode": False,
        "footer_links": ["gradio"],
    }
