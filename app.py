"""The WRDScore Hugging Face Space: score a pair, score a file, read how the metric works.

A thin Gradio layer over the ``wrd_score`` library: every number shown comes from
:class:`wrd_score.WRDScorer` (``explain`` for one pair, ``score`` for a file), from
``wrd_score.metrics`` (ROUGE-1, BERTScore, MoverScore) or, for the correlations with a human column,
from ``scipy.stats``.  This module holds the layout, the event wiring and the Space's limits; reading
uploads, chunked scoring, the options table and the statistics are the library's.

Run it locally with ``python app.py`` (http://127.0.0.1:7860; ``GRADIO_SERVER_NAME`` /
``GRADIO_SERVER_PORT`` override the address, e.g. ``0.0.0.0`` on a Space).  Nothing is downloaded
at run time: the models are the ones installed with the requirements.
"""
from __future__ import annotations

import os

# Before gradio is imported: no telemetry and no version check, no Hub access, no GUI backend.
os.environ.setdefault("GRADIO_ANALYTICS_ENABLED", "False")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
os.environ.setdefault("MPLBACKEND", "Agg")

import csv
import json
import math
import re
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parent


import gradio as gr
import numpy as np
import pandas as pd

import wrd_score
from wrd_score.files import TABLE_FORMATS, TableError, read_table
from wrd_score.scorer import WRDScorer
from wrd_score.metrics import column_name, compare
from wrd_score.options import BACKENDS, DEFAULT_PRESET, Options, markdown_table, option_info
from wrd_score.plot import alignment_figure, histogram_figure
from wrd_score.rescale import lookup_baseline
from wrd_score.stream import score_chunked
from wrd_score.stats import correlation_stats, undefined_reason

__all__ = [
    "MAX_UPLOAD_BYTES", "MAX_ROWS", "MAX_ROWS_CONTEXTUAL", "row_limit", "PAPER_EXAMPLES", "EMBEDDINGS", "UploadError",
    "metric_options", "score_pair", "read_upload", "score_table", "correlations",
    "write_scored", "launch_settings", "on_score_pair", "on_score_file", "api_score_pair", "warm_up", "build_demo",
    "main",
]

#: Uploads larger than this are refused with a message (the Space shares 2 CPU cores).
MAX_UPLOAD_BYTES = 2 * 1024 * 1024
#: At most this many rows per uploaded file; bigger files belong to the ``wrdscore`` command.
MAX_ROWS = 2000
#: The contextual backend runs MiniLM over every text once per metric: 2,000 STS-B rows with the three
#: other metrics took 611 s on the shared 2-core machine (static embeddings: 18-20 s), so it gets fewer.
MAX_ROWS_CONTEXTUAL = 250
#: Longest text the pair boxes accept.
MAX_TEXT_CHARS = 5000
#: Rows per WRDScore call while scoring a file, so that the progress bar moves.
CHUNK_ROWS = 200

#: Section 4 of the paper (Mussabayev 2024): (prediction, reference) pairs whose ROUGE-1 is 0.
#: Example 5 repeats example 2 in the paper and is left out.
PAPER_EXAMPLES: List[Tuple[str, str]] = [
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

_CONTEXTUAL = "Contextual MiniLM-L6 (all-MiniLM-L6-v2)"
#: UI label -> the library options it stands for (the tokenizer is the one that suits the embedding).
EMBEDDINGS: Dict[str, Dict[str, str]] = {
    "MiniLM + code, static (default)": {"backend": "static", "embedding": "default",
                                                "tokenizer": "identifier"},
    "Distilled MiniLM, static (the 0.1.x default)": {"backend": "static", "embedding": "wrd-minilm-distilled",
                                                     "tokenizer": "identifier"},
    "fastText Java (the first default)": {"backend": "static", "embedding": "wrd-java-default",
                                          "tokenizer": "identifier"},
    "GloVe 6B 50d": {"backend": "static", "embedding": "glove-6b-50d", "tokenizer": "words"},
    _CONTEXTUAL: {"backend": "contextual"},
}
DEFAULT_EMBEDDING = next(iter(EMBEDDINGS))
TOKENIZER_AUTO = "auto"
#: The variant and weights selectors' "not given": the value comes from the preset (wrd_score.options.PRESETS).
FROM_PRESET = "from preset"


class UploadError(TableError):
    """An uploaded file the app cannot score; the message is shown to the visitor as is."""


# --------------------------------------------------------------------------- options
#: The description of every library option (choices, help), from wrd_score.options.
OPTION = {info.name: info for info in option_info()}


def metric_options(embedding: str, variant: Optional[str] = FROM_PRESET, weights: Optional[str] = FROM_PRESET,
                   tokenizer: str = TOKENIZER_AUTO, oov: str = "auto", clip_negative: bool = True,
                   rescale_with_baseline: bool = False, preset: str = DEFAULT_PRESET) -> Dict[str, Any]:
    """Library options for the selectors of the page (validated by the library, not here).

    A variant or weights of ``FROM_PRESET`` (or None) is left out, so the preset's value applies.

    >>> metric_options("GloVe 6B 50d", variant="wrd")["embedding"]
    'glove-6b-50d'
    >>> sorted(metric_options("GloVe 6B 50d", preset="sentences"))
    ['backend', 'clip_negative', 'embedding', 'oov', 'preset', 'tokenizer']
    """
    if embedding not in EMBEDDINGS:
        raise ValueError(f"embedding must be one of {list(EMBEDDINGS)}, got {embedding!r}")
    options: Dict[str, Any] = dict(EMBEDDINGS[embedding])
    if options["backend"] not in BACKENDS:
        raise ValueError(f"backend {options['backend']!r} is not available in this installation "
                         f"(available: {list(BACKENDS)})")
    options.update(preset=preset, clip_negative=bool(clip_negative))
    options.update({name: value for name, value in (("variant", variant), ("weights", weights))
                    if value not in (None, FROM_PRESET)})
    if tokenizer and tokenizer != TOKENIZER_AUTO:
        options["tokenizer"] = tokenizer
    if options["backend"] == "static":
        options["oov"] = oov
    if rescale_with_baseline:
        options["rescale_with_baseline"] = True
    return options


def rescale_unavailable(options: Mapping[str, Any]) -> str:
    """Why these options cannot be rescaled (no stored baseline: e.g. the GloVe preset), or "" if they can."""
    try:
        scorer = WRDScorer(**{**options, "rescale_with_baseline": False})
        lookup_baseline(scorer.signature_fields(), scorer.options.embedding)
    except (ValueError, TypeError, OSError) as exc:
        return f"no rescaling baseline is stored for these options ({str(exc).split(';')[0]})"
    return ""


#: The metrics shown beside WRDScore (registry names; wrd_score.metrics), the literature's comparison set.
SIBLING_METRICS = ("rouge1", "bleu", "meteor", "bertscore", "moverscore", "wms", "sms", "s+wms", "sbert",
                   "subtoken-f1", "exact-match", "chrf")


def _sibling_scores(predictions: List[str], references: List[str], options: Mapping[str, Any],
                    metrics: Sequence[str] = SIBLING_METRICS,
                    single_pair: bool = False) -> Tuple[Dict[str, List[float]], Dict[str, str]]:
    """ROUGE-1, BERTScore and MoverScore per pair, from the library's ``compare``.

    BERTScore and MoverScore run on the same backend and embedding as WRDScore (the library's
    design), so the table differs only by the matching rule.  ROUGE-1 is rouge-score's, tokenised
    as ``wrdscore compare`` does (one rule: rouge-score's tokenizer unless asked otherwise).  For a
    single pair MoverScore uses uniform masses: IDF fit on one sentence is 0 for every word
    (moverscore's own advice for single pairs is the same).
    """
    backend_options = {k: v for k, v in options.items() if k != "rescale_with_baseline"}
    extra: Dict[str, Any] = {}
    if "moverscore" in metrics and single_pair:
        extra["moverscore_idf"] = False
    table = compare(predictions, references, metrics=tuple(metrics), **extra, **backend_options)
    columns = {key: [float(v) for v in values] for key, values in table.items()
               if key not in ("prediction", "reference", "signatures") and isinstance(values, list)}
    return columns, dict(table.get("signatures", {}))


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


def _comparison_rows(wrd: Tuple[float, float, float], sib: Mapping[str, List[float]],
                     options: Mapping[str, Any]) -> pd.DataFrame:
    """One row per metric: WRDScore first, then each sibling's precision/recall/F1 or its single score."""
    values = {"wrdscore_precision": wrd[0], "wrdscore_recall": wrd[1], "wrdscore_f1": wrd[2],
              **{key: column[0] for key, column in sib.items()}}

    def cell(row: Mapping[str, float], part: str) -> str:
        # Text cells: a metric without precision/recall shows a dash, not NaN.
        return f"{row[part]:.4f}" if part in row else "–"

    return pd.DataFrame([{"metric": name, "precision": cell(row, "precision"), "recall": cell(row, "recall"),
                          "F1 / score": cell(row, "f1")} for name, row in _metric_values(values, options).items()])


def means_table(means: Mapping[str, float], options: Mapping[str, Any]) -> pd.DataFrame:
    """The file's means, one row per metric (a row of twenty-odd columns broke its headers and numbers
    mid-word); numbers, rounded to 4 decimals, and None where a metric has no such part."""
    records = [{"metric": name, **{part: (round(row[part], 4) if part in row else None)
                                   for part in ("precision", "recall", "f1")}}
               for name, row in _metric_values(means, options).items()]
    return pd.DataFrame(records, dtype=object)  # object: None stays None (an empty cell), not NaN


# --------------------------------------------------------------------------- one pair
@dataclass
class PairResult:
    precision: float  # WRDScorer.score: rescaled when rescale_with_baseline is on
    recall: float
    f1: float
    detail: Any  # WRDScorer.explain (wrd_score.scoring.PairDetail): tokens, raw cosines, masses, flow
    signature: str  # WRDScore's, then one line per sibling metric
    comparison: pd.DataFrame
    note: str = ""


def check_text_length(text: str, what: str) -> None:
    """The app's one text cap, enforced on the server for every endpoint (a textbox's ``max_length``
    binds only the browser: the API takes any string). One long text makes a transport problem of
    (distinct tokens)^2 cells, tying up the shared CPU and gigabytes of memory."""
    if len(text) > MAX_TEXT_CHARS:
        raise UploadError(f"{what} has {len(text):,} characters; this Space scores texts of up to "
                          f"{MAX_TEXT_CHARS:,} (use the `wrdscore` command or the library for longer ones)")


def score_pair(prediction: str, reference: str, options: Mapping[str, Any], siblings: bool = True) -> PairResult:
    """Score one pair with the library: the scores (``WRDScorer.score``), the matrices
    (``WRDScorer.explain``) and the sibling metrics."""
    if not isinstance(prediction, str) or not isinstance(reference, str):
        raise TypeError("prediction and reference must be text")
    check_text_length(prediction, "the prediction")
    check_text_length(reference, "the reference")
    scorer = WRDScorer(**options)
    scored = scorer.score([prediction], [reference])
    detail = scorer.explain(prediction, reference)
    values = (scored["precision"][0], scored["recall"][0], scored["f1"][0])
    signatures = [scored["signature"]]
    notes = []
    if getattr(scorer.options, "rescale_with_baseline", False):
        notes.append(f"Rescaled with the baseline; before rescaling P {detail.precision:.4f}, "
                     f"R {detail.recall:.4f}, F1 {detail.f1:.4f} (the heatmaps show the raw matrices).")
    sib: Dict[str, List[float]] = {}
    if siblings:
        try:
            sib, sib_signatures = _sibling_scores([prediction], [reference], options, single_pair=True)
            signatures += list(sib_signatures.values())
        except (ValueError, TypeError, OSError, ImportError) as exc:
            notes.append(f"Other metrics unavailable: {exc}")
    return PairResult(*values, detail, "\n".join(signatures), _comparison_rows(values, sib, options), " ".join(notes))


# --------------------------------------------------------------------------- files
def row_limit(options: Mapping[str, Any]) -> int:
    """Most rows the Space scores in one file with these options.

    >>> row_limit({"backend": "contextual"}) < row_limit({"backend": "static"})
    True
    """
    return MAX_ROWS_CONTEXTUAL if options.get("backend") == "contextual" else MAX_ROWS


def read_upload(path: Optional[str], max_bytes: int = MAX_UPLOAD_BYTES, max_rows: int = MAX_ROWS) -> pd.DataFrame:
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
    table: pd.DataFrame
    means: Dict[str, float]
    correlations: Optional[pd.DataFrame]
    signature: str  # WRDScore's, then one line per sibling metric
    note: str = ""


def score_table(frame: pd.DataFrame, options: Mapping[str, Any], siblings: bool = True,
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
    precision, recall, f1, signature = result["precision"], result["recall"], result["f1"], result["signature"]
    table = frame.copy()
    table["wrdscore_precision"] = precision
    table["wrdscore_recall"] = recall
    table["wrdscore_f1"] = f1
    note = ""
    if siblings:
        signatures = [signature]
        for k, metric in enumerate(SIBLING_METRICS):
            report(wrd_share + (1 - wrd_share) * k / len(SIBLING_METRICS), f"{metric_label(metric, options)}: {n} rows")
            try:
                columns, sib_signatures = _sibling_scores(predictions, references, options, metrics=(metric,))
            except (ValueError, TypeError, OSError, ImportError) as exc:
                note += f"{metric_label(metric, options)} unavailable: {exc}\n"
                continue
            for key, values in columns.items():
                table[key] = values
            signatures += list(sib_signatures.values())
        signature = "\n".join(signatures)
    report(1.0, "done")
    metric_columns = [c for c in table.columns if c not in ("prediction", "reference", "human")]
    means = {c: float(np.mean(table[c])) for c in metric_columns}
    corr = correlations(table, metric_columns) if "human" in table.columns else None
    return ScoredFile(table, means, corr, signature, note)


#: Bootstrap resamples for the confidence intervals of the correlations (fixed seed: same file, same table).
N_BOOT = 200


def correlations(table: pd.DataFrame, metric_columns: Sequence[str], human: str = "human") -> pd.DataFrame:
    """Pearson, Spearman and Kendall of each metric column with the human column, with 95% bootstrap CIs.

    The statistics are ``wrd_score.stats.correlation_stats`` (rows without a human score dropped).
    A correlation that is undefined (fewer than 3 rows, or a constant column) is left empty, never NaN,
    and the ``note`` column says why (``wrd_score.stats.undefined_reason``, the rule that left it undefined).
    """
    human_values = table[human].to_numpy(dtype=float)
    finite = human_values[np.isfinite(human_values)]
    # The range only scales MSE/MAE, which the app does not show; any valid range will do.
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


def write_scored(table: pd.DataFrame, source_name: str, directory: Optional[str] = None) -> str:
    """Write the scored table next to nothing but a fresh temporary directory, in the upload's format."""
    directory = directory or tempfile.mkdtemp(prefix="wrdscore-app-")
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", Path(source_name).stem)[:60] or "scores"
    kind = TABLE_FORMATS.get(Path(source_name).suffix.lower(), "csv")
    if kind == "jsonl":
        path = Path(directory) / f"{stem}.scored.jsonl"
        # json, not pandas: floats written by repr round-trip exactly, and a missing human score is null.
        with open(path, "w", encoding="utf-8") as handle:
            for record in table.to_dict(orient="records"):
                clean = {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in record.items()}
                handle.write(json.dumps(clean, ensure_ascii=False) + "\n")
    elif kind == "tsv":
        path = Path(directory) / f"{stem}.scored.tsv"
        # Quoting off, as it came in; a tab or newline inside a text would break the row, so refuse it.
        for column in ("prediction", "reference"):
            if table[column].str.contains(r"[\t\n\r]", regex=True).any():
                path = Path(directory) / f"{stem}.scored.csv"
                table.to_csv(path, index=False)
                return str(path)
        table.to_csv(path, sep="\t", index=False, quoting=csv.QUOTE_NONE, na_rep="nan")
    else:
        path = Path(directory) / f"{stem}.scored.csv"
        table.to_csv(path, index=False)
    return str(path)


# --------------------------------------------------------------------------- about
_FORMULAS = r"""
### How WRDScore works

A prediction $p = (\hat t_1, \dots, \hat t_m)$ and a reference $r = (t_1, \dots, t_l)$ are split into tokens
(method names into identifier subtokens: `getCount` → `get`, `count`) and each token gets a vector and a mass
$w$ (by default the norm of its embedding times the inverse document frequency of the token in the embedding's corpora, normalised to sum to 1 on each side).
The optimal flow $F$ moves the reference masses onto the prediction masses at the least total cost, the cost of
moving mass between two tokens being their cosine distance (Word Rotator's Distance):

$$\min_{F \ge 0} \sum_{i,j} F_{ij}\,\bigl(1 - \cos(t_i, \hat t_j)\bigr) \quad\text{subject to}\quad F\mathbf 1 = W,\;\; \mathbf 1^\top F = \hat W .$$

Precision and recall are then read off the flow (equations 4 and 5 of the paper, variant `paper`):

$$P = \frac{1}{|p|}\sum_{j \in p} \frac{\sum_{i} F_{ij} \cos(t_i, \hat t_j)}{\sum_{i} F_{ij}}, \qquad
R = \frac{1}{|r|}\sum_{i \in r} \frac{\sum_{j} F_{ij} \cos(\hat t_j, t_i)}{\sum_{j} F_{ij}}, \qquad
F_1 = \frac{2PR}{P + R}.$$

A token can share its mass with several tokens of the other side, so `size` can be matched to both `get` and
`count`. Variant `wrd` (the author's later release) takes recall $= \sum_{ij} F_{ij}\cos = 1 - \mathrm{WRD}$ and
a greedy precision $\sum_j \hat w_j \max_i \cos(t_i, \hat t_j)$. With negative cosines clipped to 0 (the
default) every score lies in $[0, 1]$ and identical texts score exactly 1.

In the heatmaps, rows are prediction tokens and columns reference tokens; the flow matrix shows where each
token's mass went. Paper: Mussabayev, *WRDScore: New Metric for Evaluation of Natural Language Generation
Models* (arXiv:2405.19220).
"""


def _options_markdown() -> str:
    lines = ["### Options", "", "Every option of the library (`wrd_score.Options`), generated from its description; "
             "the **Score a pair** and **Score a file** tabs expose the metric options and the embedding.", "",
             markdown_table(), "",
             f"Uploads: `.csv`, `.tsv` (tab-separated, quoting off) or `.jsonl`, with columns `prediction` and "
             f"`reference` and optionally `human`; at most {MAX_ROWS} rows ({MAX_ROWS_CONTEXTUAL} with the contextual "
             f"backend) and {MAX_UPLOAD_BYTES // 1048576} MB. Bigger files: `wrdscore` on the command line."]
    return "\n".join(lines)


def _validation_markdown(root: Path = ROOT) -> str:
    """``docs/validation-summary.md``, the validation summary the README and docs/validation.md also show."""
    path = root / "docs" / "validation-summary.md"
    if path.is_file():  # without the docs check's block markers (HTML comments)
        return re.sub(r"<!-- /?docs:[\w.+-]+ -->\n", "", path.read_text(encoding="utf-8"))
    return ("### Validation\n\nThe validation tables (correlation with human judgments on IdBench and STS-B) are in "
            "docs/validation.md; this copy of the app could not find them.")


# --------------------------------------------------------------------------- UI
CSS = """
.score-cards {display: flex; gap: 12px; flex-wrap: wrap;}
.score-card {flex: 1 1 120px; border: 1px solid var(--border-color-primary); border-radius: 10px;
             padding: 10px 14px; background: var(--block-background-fill);}
.score-card .name {font-size: 0.85em; color: var(--body-text-color-subdued);}
.score-card .value {font-size: 1.9em; font-weight: 700; font-variant-numeric: tabular-nums;}
.score-card.f1 .value {color: var(--color-accent);}
#file-means td, #file-means th, #correlations td, #correlations th {word-break: keep-all; overflow-wrap: normal;}
"""


def _cards_html(precision: float, recall: float, f1: float) -> str:
    cards = [("precision", "Precision", precision), ("recall", "Recall", recall), ("f1", "F1", f1)]
    body = "".join(f'<div class="score-card {key}"><div class="name">{label}</div>'
                   f'<div class="value" id="wrd-{key}">{value:.4f}</div></div>' for key, label, value in cards)
    return f'<div class="score-cards">{body}</div>'


def _user_message(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


def _options_from_ui(embedding, variant, weights, tokenizer, oov, clip, rescale, preset) -> Dict[str, Any]:
    try:
        return metric_options(embedding, variant, weights, tokenizer, oov, clip, rescale, preset)
    except (ValueError, TypeError) as exc:
        raise gr.Error(_user_message(exc)) from None


def on_options_change(embedding, variant, weights, tokenizer, oov, clip, rescale, preset=DEFAULT_PRESET):
    """Keep the rescale box usable only where a baseline exists, and say why when it is not."""
    try:
        reason = rescale_unavailable(metric_options(embedding, variant, weights, tokenizer, oov, clip, False, preset))
    except (ValueError, TypeError) as exc:
        reason = _user_message(exc)
    return gr.Checkbox(interactive=not reason, value=bool(rescale) and not reason,
                       info=f"Unavailable: {reason}" if reason else "unrelated pairs centre on 0")


def on_score_pair(prediction, reference, embedding, variant, weights, tokenizer, oov, clip, rescale, with_siblings,
                  preset=DEFAULT_PRESET):
    """Handler of the Score button: score cards, comparison table, signatures, two heatmaps, a note."""
    options = _options_from_ui(embedding, variant, weights, tokenizer, oov, clip, rescale, preset)
    try:
        result = score_pair(prediction or "", reference or "", options, siblings=bool(with_siblings))
    except (ValueError, TypeError, OSError) as exc:
        raise gr.Error(_user_message(exc)) from None
    figure = alignment_figure(result.detail)
    d = result.detail
    note = f"{len(d.tokens_p)} prediction tokens × {len(d.tokens_r)} reference tokens. {result.note}".strip()
    cards = _cards_html(result.precision, result.recall, result.f1)
    return cards, result.comparison, result.signature, figure, note


def on_score_file(upload, embedding, variant, weights, tokenizer, oov, clip, rescale, with_siblings,
                  preset=DEFAULT_PRESET, progress=gr.Progress()):
    """Handler of the Score file button; every problem with the upload becomes a visible ``gr.Error``."""
    options = _options_from_ui(embedding, variant, weights, tokenizer, oov, clip, rescale, preset)
    try:
        frame = read_upload(upload, max_rows=row_limit(options))
        scored = score_table(frame, options, siblings=bool(with_siblings),
                             progress=lambda fraction, desc: progress(fraction, desc=desc))
    except UploadError as exc:
        # duration=None: the message stays until the visitor closes it.
        raise gr.Error(_user_message(exc), duration=None) from None
    except (ValueError, TypeError, OSError) as exc:
        raise gr.Error(_user_message(exc)) from None
    path = write_scored(scored.table, Path(upload).name)
    summary = f"Scored **{len(scored.table)}** rows; the means of every metric are in the table below."
    if scored.note:
        summary += f"\n\n{scored.note}"
    corr = scored.correlations
    if corr is not None:
        summary += (f"\n\nCorrelations with `human` (the table under the means) use the {int(corr['n'].iloc[0])} "
                    "rows that have one.")
    display = scored.table.copy()
    for column in display.columns:
        if column not in ("prediction", "reference"):
            display[column] = display[column].astype(float).round(4)
    return (summary, means_table(scored.means, options), display, histogram_figure(scored.table["wrdscore_f1"]),
            gr.DownloadButton(value=path, visible=True), scored.signature,
            gr.Dataframe(value=corr, visible=corr is not None))


# --------------------------------------------------------------------------- API
def _api_check(texts: Mapping[str, Any], flags: Mapping[str, Any]) -> None:
    """gr.api hands the function raw JSON: a wrong type gets a one-line message naming the argument."""
    for name, value in texts.items():
        if not isinstance(value, str):
            raise gr.Error(f"{name} must be a string, got {type(value).__name__}")
    for name, value in flags.items():
        if not isinstance(value, bool):
            raise gr.Error(f"{name} must be true or false, got {type(value).__name__} {str(value)[:40]!r}")


def api_score_pair(prediction: str, reference: str, embedding: str = DEFAULT_EMBEDDING,
                   variant: str = FROM_PRESET, weights: str = FROM_PRESET, tokenizer: str = TOKENIZER_AUTO,
                   oov: str = "auto", clip_negative: bool = True, rescale_with_baseline: bool = False,
                   siblings: bool = True, preset: str = DEFAULT_PRESET) -> dict:
    """WRDScore of one pair, as numbers: ``precision``, ``recall``, ``f1`` (rescaled when asked),
    ``signature`` (one line per metric), ``metrics`` (one record per metric: ``metric``, ``precision``,
    ``recall``, ``f1``; None where a metric has no such part) and ``note``.  The options are the
    page's (``embedding``: one of the page's choices; ``variant``/``weights``: "from preset" or a value)."""
    _api_check({"prediction": prediction, "reference": reference, "embedding": embedding, "variant": variant,
                "weights": weights, "tokenizer": tokenizer, "oov": oov, "preset": preset},
               {"clip_negative": clip_negative, "rescale_with_baseline": rescale_with_baseline, "siblings": siblings})
    options = _options_from_ui(embedding, variant, weights, tokenizer, oov, clip_negative, rescale_with_baseline,
                               preset)
    try:
        result = score_pair(prediction, reference, options, siblings=siblings)
    except (ValueError, TypeError, OSError) as exc:
        raise gr.Error(_user_message(exc)) from None
    records = [{key: (None if value == "–" else float(value) if key != "metric" else value)
                for key, value in zip(("metric", "precision", "recall", "f1"), row)}
               for row in result.comparison.itertuples(index=False)]
    return {"precision": result.precision, "recall": result.recall, "f1": result.f1,
            "signature": result.signature, "metrics": records, "note": result.note}


#: What the page-load scoring asks for: the first paper example with the default options, every metric.
_PAGE_LOAD_UI = (DEFAULT_EMBEDDING, FROM_PRESET, FROM_PRESET, TOKENIZER_AUTO, "auto", Options.clip_negative,
                 False, True, DEFAULT_PRESET)


def warm_up() -> float:
    """Score what the page scores when it opens, once, before serving; returns the seconds it took.

    A cold process spent 24 s on the first request (imports of POT, sentence-transformers and NLTK's
    WordNet, loading the embedding and MiniLM, numba's first compilation, matplotlib's first
    figure) while the visitor looked at empty frames; served warm, that request takes about a second.
    """
    start = time.perf_counter()
    on_score_pair(*PAPER_EXAMPLES[0], *_PAGE_LOAD_UI)
    return time.perf_counter() - start


def build_demo() -> "gr.Blocks":
    """The Blocks app (not launched)."""
    embedding_choices = [k for k, v in EMBEDDINGS.items() if v["backend"] in BACKENDS]
    with gr.Blocks(title="WRDScore", analytics_enabled=False) as demo:
        gr.Markdown("# WRDScore\nWord Rotator's Distance Score: precision, recall and F1 from the optimal transport "
                    "between the tokens of a prediction and a reference. Made for method names (`getCount` vs "
                    "`size`), usable for any short text.")
        with gr.Accordion("Metric options", open=True):
            with gr.Row():
                preset = gr.Radio(list(OPTION["preset"].choices), value=DEFAULT_PRESET, label="Preset",
                                  info="the defaults for identifiers or for sentences", elem_id="preset")
                embedding = gr.Dropdown(embedding_choices, value=embedding_choices[0], label="Embedding / backend",
                                        elem_id="embedding")
                variant = gr.Radio([FROM_PRESET, *OPTION["variant"].choices], value=FROM_PRESET, label="Variant",
                                   info="paper = equations 4-5; wrd = recall 1-WRD, greedy precision")
                weights = gr.Dropdown([FROM_PRESET, *OPTION["weights"].choices], value=FROM_PRESET,
                                      label="Token masses (weights)")
            with gr.Row():
                tokenizer = gr.Dropdown([TOKENIZER_AUTO, *OPTION["tokenizer"].choices], value=TOKENIZER_AUTO,
                                        label="Tokenizer", info="auto: the one that suits the embedding",
                                        min_width=200)
                oov = gr.Dropdown(list(OPTION["oov"].choices), value=Options.oov, label="Out-of-vocabulary tokens (static)")
                clip = gr.Checkbox(value=Options.clip_negative, label="Clip negative cosines to 0")
                rescale = gr.Checkbox(value=False, label="Rescale with baseline")
                with_siblings = gr.Checkbox(value=True, label="Also the literature's metrics (ROUGE-1, BLEU, METEOR, "
                                                              "BERTScore, MoverScore, WMS, SMS, S+WMS, Sentence-BERT, "
                                                              "subtoken F1, exact match, chrF)")
        option_inputs = [embedding, variant, weights, tokenizer, oov, clip, rescale, with_siblings, preset]
        for control in (preset, embedding, variant, weights, tokenizer, oov, clip):
            # api_visibility, not api_name=False: Gradio 6 reads False as the name "false" (/false, /false_1, ...).
            control.change(on_options_change, inputs=option_inputs[:7] + [preset], outputs=rescale,
                           api_visibility="private",
                           show_progress="hidden")

        with gr.Tab("Score a pair"):
            with gr.Row():
                prediction = gr.Textbox(label="Prediction", value=PAPER_EXAMPLES[0][0], elem_id="prediction",
                                        max_length=MAX_TEXT_CHARS)
                reference = gr.Textbox(label="Reference", value=PAPER_EXAMPLES[0][1], elem_id="reference",
                                       max_length=MAX_TEXT_CHARS)
            gr.Examples(examples=[list(pair) for pair in PAPER_EXAMPLES], inputs=[prediction, reference],
                        label="The paper's examples (section 4; ROUGE-1 is 0 for all of them)", examples_per_page=5)
            score_button = gr.Button("Score", variant="primary", elem_id="score-pair")
            cards = gr.HTML(elem_id="pair-scores", label="Scores")
            # Full width: the sibling rows' names are long, and a half-width table cut off its last column.
            # Tall enough for every metric's row (Gradio's default of 500 px hid the last ones behind a scroll).
            comparison = gr.Dataframe(label="WRDScore beside the other metrics", elem_id="comparison",
                                      interactive=False, column_widths=["46%", "18%", "18%", "18%"], wrap=True,
                                      max_height=900)
            signature = gr.Textbox(label="Signatures (report them with the scores)", elem_id="signature", lines=4,
                                   interactive=False, buttons=["copy"])
            pair_note = gr.Markdown(elem_id="pair-note", label="Note")
            with gr.Row():
                plot_pair = gr.Plot(label="Cosine and optimal flow matrices", show_label=False, elem_id="plot-alignment",
                                    format="png")
            # One queue for the page-load scoring and the button, one job at a time, first come first served:
            # a click during the page-load scoring is answered after it, so the visitor's result is the one shown.
            # The page's own event (HTML cards, a figure): private. API clients get /score_pair (numbers).
            score_button.click(on_score_pair, inputs=[prediction, reference, *option_inputs],
                               outputs=[cards, comparison, signature, plot_pair, pair_note],
                               api_name="show_pair", api_visibility="private", concurrency_id="pair",
                               concurrency_limit=1)

        with gr.Tab("Score a file"):
            gr.Markdown(f"Upload a `.csv`, `.tsv` (tab-separated, quoting off) or `.jsonl` file with columns "
                        f"`prediction` and `reference`, and optionally `human` (a human score per row: the app then "
                        f"reports each metric's correlation with it). At most **{MAX_ROWS} rows** "
                        f"(**{MAX_ROWS_CONTEXTUAL}** with the contextual backend) and "
                        f"**{MAX_UPLOAD_BYTES // 1048576} MB**; for bigger files use `wrdscore` on the command line.")
            upload = gr.File(label="File to score", file_types=[".csv", ".tsv", ".jsonl"], elem_id="upload")
            file_button = gr.Button("Score file", variant="primary", elem_id="score-file")
            file_summary = gr.Markdown(elem_id="file-summary", label="Summary")
            # One row per metric: as one row, twenty-odd columns broke "rouge1" and "0.0000" mid-word.
            file_means = gr.Dataframe(label="Means", elem_id="file-means", interactive=False, wrap=False,
                                      datatype=["str", "number", "number", "number"], max_height=900)
            # Widths for what each column holds, and wrap: the note ("undefined: rouge1 is 0 on every row")
            # wraps at its spaces instead of running past the table's edge; evenly spread columns broke
            # "spearman" and "kendall" mid-word.
            correlation_table = gr.Dataframe(label="Correlation with the human column", visible=False,
                                             elem_id="correlations", interactive=False, wrap=True,
                                             column_widths=["24%", "5%", "7%", "12%", "7%", "12%", "7%", "12%", "14%"],
                                             max_height=1400)
            with gr.Row():
                histogram = gr.Plot(label="Histogram of WRDScore F1", show_label=False, elem_id="histogram",
                                    format="png")
                with gr.Column():
                    download = gr.DownloadButton("Download the scored file", visible=False, elem_id="download")
                    file_signature = gr.Textbox(label="Signatures", interactive=False, elem_id="file-signature",
                                                lines=4)
            rows = gr.Dataframe(label="Per-row scores", elem_id="rows", interactive=False, max_height=420)
            file_button.click(on_score_file, inputs=[upload, *option_inputs],
                              outputs=[file_summary, file_means, rows, histogram, download, file_signature,
                                       correlation_table],
                              api_name="score_file")

        with gr.Tab("About"):
            # Folded sections: open, the formulas, options and validation made a page 11,700 px tall.
            latex = [{"left": "$$", "right": "$$", "display": True}, {"left": "$", "right": "$", "display": False}]
            with gr.Accordion("How WRDScore is computed", open=True):
                gr.Markdown(_FORMULAS, latex_delimiters=latex)
            with gr.Accordion("Options", open=False):
                gr.Markdown(_options_markdown())
            with gr.Accordion("Agreement with people (validation)", open=False):
                gr.Markdown(_validation_markdown(), latex_delimiters=latex)
            gr.Markdown(f"`wrd_score` {wrd_score.__version__}")
        gr.api(api_score_pair, api_name="score_pair", concurrency_id="pair", concurrency_limit=1)
        # The first example is scored when the page opens: no empty table or blank plot frames before a click.
        demo.load(on_score_pair, inputs=[prediction, reference, *option_inputs],
                  outputs=[cards, comparison, signature, plot_pair, pair_note], api_visibility="private",
                  concurrency_id="pair", concurrency_limit=1)
    return demo


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


def main() -> None:
    print(f"warmed up in {warm_up():.1f} s (the first visitor's request is answered warm)", flush=True)
    demo = build_demo()
    # Two scoring jobs at a time: the Space has 2 CPU cores, more would only queue inside torch.
    demo.queue(default_concurrency_limit=2, max_size=32)
    demo.launch(theme=gr.themes.Soft(), css=CSS, **launch_settings())


if __name__ == "__main__":
    main()
