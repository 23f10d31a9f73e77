"""Validation against human judgments: ``wrdscore validate FILE.tsv [...]`` and :func:`validate`.

Input files follow the ``shared/data`` format: UTF-8, tab-separated, one header line, quoting off,
first columns ``id prediction reference human``, missing numbers ``nan``.

For every metric the harness reports Pearson, Spearman and Kendall correlations with the human
column, each with a 95% percentile-bootstrap confidence interval (rows resampled with
``numpy.random.default_rng(seed)``), MSE and MAE against the human score mapped to [0, 1], and a
paired bootstrap test of the reference WRDScore metric against every other metric: Δρ =
``spearman(reference) - spearman(other)`` and its p-value with sacreBLEU's meaning (the probability
that a difference this large arises by chance; two-sided, :func:`wrd_score.stats.paired_p_value`,
the rule ``wrdscore score --paired-bs`` uses).  Rows whose human value is missing are dropped (and
counted); so are rows where a metric's own value is missing (a numeric column with ``nan``).
The statistics themselves are :func:`wrd_score.stats.correlation_stats` and
:func:`wrd_score.stats.paired_bootstrap`.

Metrics are given as specs ``NAME[:key=value,...]``:

* ``wrdscore[:option=value,...]`` -- any :class:`wrd_score.Options` field (defaults: the command's
  metric flags), plus ``field=f1|precision|recall`` and ``label=TEXT``;
* any other metric registered in :mod:`wrd_score.metrics` (``bertscore``, ``moverscore``,
  ``rouge1``/``rouge2``/``rougeL``/``rougeLsum``, ``bleu``, ``wms``, ``sms``, ``s+wms``, ``sbert``,
  ``meteor``), with its keyword options (checked against what the metric takes) and ``field=``
  as above; metrics that run on a WRDScore backend share the command's backend options;
* ``column:NAME`` -- a numeric column of the file, shell-style patterns allowed
  (``column:baseline_*`` expands to every IdBench baseline column).

:func:`all_metrics` lists every registered metric once (``wrdscore validate --all-metrics``).

With ``--group-by COLUMN`` every statistic is computed per group and a ``mean`` row averages them
over groups (its paired test resamples within each group).
"""
from __future__ import annotations

import fnmatch
import math
import os
import sys
from dataclasses import dataclass, field, fields
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from .checks import check_int, check_names, check_needs, unknown_message
from .deps import require
from .files import numeric_column, read_table, write_table
from .scorer import Options, WRDScorer
from .options import parse_option
from .metrics import get_metric
from .metrics import column_name, metric_names
from .metrics.base import check_options_read, metric_options, options_read
from .plot import MAX_SCATTER_PANELS, plot_scatter as draw_scatter
from .stream import MAX_CHUNK_SIZE, score_chunked
from .stats import (CORRELATIONS, check_human_range, check_resamples, correlation_stats, format_p_value,
                    human_range_bounds, paired_bootstrap)

__all__ = ["MetricSpec", "parse_metric", "read_judgments", "correlation_stats", "paired_bootstrap",
           "ValidationResult", "validate", "DEFAULT_METRICS", "all_metrics", "spec_signature", "output_paths",
           "check_outputs", "check_options_used", "MAX_GROUPS"]

DEFAULT_METRICS = ("wrdscore", "column:baseline_*")
#: Most groups of ``group_by`` (``--group-by``): each group is bootstrapped for every metric, so a column of 1,000
#: values (groups of 3 rows) ran for over 5 minutes on 3,000 rows; the shared data's groupings have at most 19.
MAX_GROUPS = 100
_WRDSCORE_CHUNK = 256  # pairs per progress-bar step (scores do not depend on the chunking)


# ------------------------------------------------------------------------------------------ specs
@dataclass(frozen=True)
class MetricSpec:
    """One metric to validate: its kind, keyword settings and the label shown in tables."""

    kind: str
    settings: Tuple[Tuple[str, Any], ...] = ()
    label: str = ""
    score_field: str = "f1"

    @property
    def kwargs(self) -> Dict[str, Any]:
        return dict(self.settings)


def _kinds() -> Tuple[str, ...]:
    """What a spec may name: every registered metric, and ``column``."""
    return metric_names() + ("column",)


def all_metrics() -> Tuple[str, ...]:
    """Every registered metric, once (``rouge``, which bundles ROUGE-1/2/L, is left out for them).

    >>> all_metrics()[:3], "rouge" in all_metrics()
    (('wrdscore', 'bertscore', 'moverscore'), False)
    """
    return metric_names(bundles=False)


def parse_metric(spec: str, options: Optional[Mapping[str, Any]] = None) -> MetricSpec:
    """Parse ``NAME[:key=value,...]`` (``column:NAME`` takes a column name or pattern).

    The default label starts with the metric's one column name (:func:`column_name`), which for
    BERTScore and MoverScore names the backend the spec runs on (its own ``backend=``, else the
    command's ``options``, else the default): ``bertscore-rule[static]``.

    >>> parse_metric("wrdscore:variant=wrd,embedding=glove-6b-50d")
    MetricSpec(kind='wrdscore', settings=(('embedding', 'glove-6b-50d'), ('variant', 'wrd')), label='wrdscore[embedding=glove-6b-50d,variant=wrd]', score_field='f1')
    >>> parse_metric("column:baseline_FT-cbow").label
    'baseline_FT-cbow'
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"metric spec must be a non-empty string like 'wrdscore:variant=wrd', got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    kinds = _kinds()
    if name not in kinds:
        head = name.split(",", 1)[0]
        if head in kinds:
            raise ValueError(f"metric {name!r} in spec {spec!r} is unknown (settings follow a colon: "
                             f"{head}:{name[len(head) + 1:]})")
        raise ValueError(f"metric spec {spec!r}: {unknown_message('metric', name, kinds)}")
    if name == "column":
        if not rest:
            raise ValueError(f"metric spec {spec!r} needs a column name: column:NAME")
        return MetricSpec("column", (("column", rest),), rest)
    settings: Dict[str, Any] = {}
    label = None
    score_field = "f1"
    items: List[str] = []
    for item in filter(None, rest.split(",")):
        if "=" not in item and items:
            items[-1] += "," + item  # a list value such as layer=4,5,6
        else:
            items.append(item)
    for item in items:
        key, eq, value = item.partition("=")
        key = key.strip().replace("-", "_")
        if not eq or not key:
            raise ValueError(f"metric spec {spec!r}: {item!r} is not key=value")
        if key == "label":
            label = value
        elif key == "field":
            if value not in ("f1", "precision", "recall"):
                raise ValueError(f"metric spec {spec!r}: field must be f1, precision or recall, got {value!r}")
            score_field = value
        else:
            try:
                settings[key] = parse_option(key, value.strip())
            except ValueError as exc:
                raise ValueError(f"metric spec {spec!r}: {exc}") from None
    known = [f.name for f in fields(Options)] if name == "wrdscore" else metric_options(name)
    unknown = [key for key in settings if key not in known]
    if unknown:
        raise ValueError(f"metric spec {spec!r}: {unknown_message(f'an option of {name}', unknown[0], known)}")
    items = tuple(sorted(settings.items()))
    if label is None:
        inner = ",".join(f"{k}={v}" for k, v in items)
        suffix = "" if score_field == "f1" else f".{score_field}"
        backend = settings.get("backend", (options or {}).get("backend", Options.backend))
        head = column_name(name, backend)
        label = (f"{head}[{inner}]" if inner else head) + suffix
    return MetricSpec(name, items, label, score_field)


# ------------------------------------------------------------------------------------------ input
def read_judgments(path: str, human: str = "human"):
    """Read one judgment file into a pandas DataFrame (:func:`wrd_score.files.read_table`: TSV with
    quoting off, CSV or JSONL; ``.gz`` allowed).

    Text columns stay strings (an empty cell is an empty text, not NaN); ``nan`` in numeric columns
    is missing.  An ``id`` column is added when the file has none.
    """
    frame = read_table(path, required=("prediction", "reference"), numeric=(human,))
    if human not in frame.columns:
        raise ValueError(f"{os.fspath(path)!r} lacks the human score column {human!r} (human=, --human); its columns "
                         f"are {list(frame.columns)}")
    if "id" not in frame.columns:
        frame.insert(0, "id", [str(i) for i in range(len(frame))])
    return frame


def _numeric(series, what: str) -> np.ndarray:
    if series.dtype.kind == "f":  # already parsed (the human column)
        return series.to_numpy(dtype=np.float64)
    return numeric_column(series.tolist(), what)


def _numeric_columns(frame, exclude: Sequence[str]) -> List[str]:
    out = []
    for name in frame.columns:
        if name in exclude or name in ("id", "prediction", "reference"):
            continue
        try:
            _numeric(frame[name], name)
        except ValueError:
            continue
        out.append(name)
    return out


def expand_metrics(specs: Sequence[str], frame, human: str, strict: bool = True,
                   options: Optional[Mapping[str, Any]] = None) -> List[MetricSpec]:
    """Parse specs (:func:`parse_metric`, with the command's ``options``) and expand ``column:``
    patterns against the file's numeric columns."""
    out: List[MetricSpec] = []
    numeric = None
    for text in specs:
        spec = parse_metric(text, options)
        if spec.kind != "column":
            out.append(spec)
            continue
        if numeric is None:
            numeric = _numeric_columns(frame, exclude=(human,))
        pattern = spec.kwargs["column"]
        matches = [c for c in numeric if fnmatch.fnmatchcase(c, pattern)]
        if not matches and strict and pattern in frame.columns:
            # A column named outright: say what keeps it out, not only which columns are numeric.
            if pattern == human:
                raise ValueError(f"metric {text!r}: column {pattern!r} holds the human scores (human=, --human on "
                                 "the command line); a metric is correlated with it, not with itself")
            if pattern not in ("id", "prediction", "reference"):
                try:
                    _numeric(frame[pattern], pattern)
                except ValueError as exc:
                    raise ValueError(f"metric {text!r}: {exc}") from None
        if not matches and strict:
            raise ValueError(f"metric {text!r}: no numeric column matches {pattern!r}; numeric columns: {numeric}")
        out.extend(MetricSpec("column", (("column", c),), c) for c in matches)
    labels = [s.label for s in out]
    dupes = sorted({l for l in labels if labels.count(l) > 1})
    if dupes:
        raise ValueError(f"metrics {dupes} are given twice; use label= to tell them apart")
    return out


# ------------------------------------------------------------------------------------------ scoring
def compute_metric(spec: MetricSpec, frame, options: Mapping[str, Any], progress: bool = True) -> np.ndarray:
    """Per-row scores of one metric on a judgment frame (NaN only for a column's own missing values)."""
    preds = frame["prediction"].tolist()
    refs = frame["reference"].tolist()
    kw = spec.kwargs
    if spec.kind == "column":
        return _numeric(frame[kw["column"]], f"column {kw['column']!r}")
    if spec.kind == "wrdscore":
        return _wrdscore(preds, refs, _metric_kwargs(spec, options), spec, progress)
    result = get_metric(spec.kind, **_metric_kwargs(spec, options)).score(preds, refs)
    # A spec's default field is f1; a metric with one score gives that score.
    name = "score" if spec.score_field == "f1" and result.f1 is None else spec.score_field
    return np.asarray(result.field(name), dtype=np.float64)


def _metric_kwargs(spec: MetricSpec, options: Mapping[str, Any]) -> Dict[str, Any]:
    """What a spec's metric is built with: the command options it reads (:func:`~wrd_score.metrics.base.options_read`:
    WRDScore every one; metrics on a WRDScore backend, BERTScore, MoverScore, WMS, SMS, the backend options: backend,
    embedding, tokenizer, clip_negative, ...; the others none), then the spec's own keys, which win."""
    read = options_read(spec.kind)
    return {**{k: v for k, v in options.items() if k in read}, **spec.kwargs}


def check_options_used(metrics: Sequence[str], options: Optional[Mapping[str, Any]], where: str = "metrics",
                       name: Any = str) -> None:
    """Refuse a command option that no metric spec reads (it would be ignored): ``variant`` with ``rouge1`` alone, or
    beside ``wrdscore:variant=wrd``, whose own key wins.  ``where`` and ``name`` spell the specs' argument and an
    option in the message (the command line's flags)."""
    options = dict(options or {})
    check_names(options, [f.name for f in fields(Options)])
    specs = [parse_metric(text, options) for text in metrics]
    check_options_read(options, [(s.kind, s.kwargs) for s in specs if s.kind != "column"], where, name)


def spec_signature(spec: MetricSpec, options: Optional[Mapping[str, Any]] = None) -> str:
    """The signature of the configuration ``spec`` (with the command's ``options``) names, as the metric
    would sign its scores now: what a table made by ``validate`` was made with (the docs check,
    ``tools/docs.py``, holds the docs' tables to it).  A ``column:`` spec has none ("column:NAME").

    >>> spec_signature(parse_metric("rouge1:split_identifiers=true"))
    'rouge:rouge-score|tok:identifier|stem:no'
    """
    if spec.kind == "column":
        return f"column:{spec.kwargs['column']}"
    kwargs = _metric_kwargs(spec, options or {})
    if spec.kind == "wrdscore":
        return str(WRDScorer(**kwargs).signature())
    # A metric signs what it scored (BLEU's and chrF's carry nrefs): one pair of one reference, as in the files.
    return str(get_metric(spec.kind, **kwargs).score(["get count"], ["size"]).signature)


def _wrdscore(preds: List[str], refs: List[str], options: Dict[str, Any], spec: MetricSpec,
              progress: bool) -> np.ndarray:
    from tqdm.auto import tqdm

    scorer = WRDScorer(**options)
    # A contextual backend shows its own encoding bar and memoises one call's encoding, which the
    # next metric on the same backend (BERTScore, another variant) then reuses: one chunk.
    chunk = min(max(len(preds), 1), MAX_CHUNK_SIZE) if scorer.options.backend != "static" else _WRDSCORE_CHUNK
    with tqdm(total=len(preds), desc=spec.label, unit="pair", disable=not progress, file=sys.stderr,
              leave=False) as bar:
        out = score_chunked(scorer, preds, refs, chunk_size=chunk, progress=lambda done, _: bar.update(done - bar.n))
    return np.asarray(out[spec.score_field], dtype=np.float64)


# ------------------------------------------------------------------------------------------ harness
@dataclass
class ValidationResult:
    """Everything measured on one file: per-pair scores and one stats row per (group, metric)."""

    path: str
    human: str
    human_range: Tuple[float, float]
    reference_metric: Optional[str]
    scores: Any  # pandas DataFrame: id, prediction, reference, human, [group], one column per metric
    rows: List[Dict[str, Any]] = field(default_factory=list)
    group_by: Optional[str] = None
    n_boot: int = 1000
    seed: int = 0

    def markdown(self) -> str:
        return format_markdown(self)


class ConstantHumanError(ValueError):
    """The human column cannot give the score range; the caller must name it (its syntax differs by entry point)."""


def _human_range(values: np.ndarray, given: Optional[Sequence[float]]) -> Tuple[float, float]:
    if given is not None:
        return human_range_bounds(given)
    finite = values[np.isfinite(values)]
    if finite.size == 0 or np.ptp(finite) == 0:
        raise ConstantHumanError("the human column has fewer than two distinct values; give human_range=(LO, HI)")
    return float(finite.min()), float(finite.max())


def validate_frame(frame, metrics: Sequence[str] = DEFAULT_METRICS, *, path: str = "<frame>",
                   human: str = "human", group_by: Optional[str] = None,
                   human_range: Optional[Sequence[float]] = None, n_boot: int = 1000, seed: Optional[int] = None,
                   options: Optional[Mapping[str, Any]] = None, reference: Optional[str] = None,
                   progress: bool = True, plotted: bool = False) -> ValidationResult:
    """Validate metrics on one already-read judgment frame (see :func:`validate`); ``plotted``: a scatter grid
    (one panel per metric) will be drawn, so the metrics are held to :data:`~wrd_score.plot.MAX_SCATTER_PANELS`."""
    import pandas as pd
    from tqdm.auto import tqdm

    check_resamples(n_boot, off=True)
    # Both serve the bootstrap only: without it they would be ignored.
    check_needs([name for name, value in (("seed", seed), ("reference", reference)) if value is not None],
                {"seed": "n_boot > 0", "reference": "n_boot > 0"}, {"n_boot > 0": n_boot > 0})
    seed = 0 if seed is None else check_int("seed", seed, 0)
    check_options_used(metrics, options)
    if group_by is not None:
        if group_by not in frame.columns:
            raise ValueError(f"group_by (--group-by) column {group_by!r} is not in {path!r}; its columns are "
                             f"{list(frame.columns)}")
        n_groups = frame[group_by].astype(str).nunique()
        if n_groups > MAX_GROUPS:
            raise ValueError(f"group_by (--group-by) column {group_by!r} has {n_groups:,} distinct values in {path!r}; "
                             f"at most {MAX_GROUPS} groups are validated (each is bootstrapped for every metric): "
                             "group by a coarser column")
    specs = expand_metrics(list(metrics), frame, human, strict=tuple(metrics) != DEFAULT_METRICS, options=options)
    if not specs:
        raise ValueError("no metrics to validate")
    if plotted and len(specs) > MAX_SCATTER_PANELS:  # known now (patterns expanded), before any metric is scored
        raise ValueError(f"{path!r}: {len(specs):,} metrics to validate, but the scatter grid written beside the "
                         f"scores draws at most {MAX_SCATTER_PANELS} panels: give at most {MAX_SCATTER_PANELS} "
                         "metrics, or write no files (output_dir=None, --no-files)")
    humans = np.asarray(frame[human], dtype=np.float64)
    rng = _human_range(humans, human_range)
    check_human_range(humans, rng)  # before any metric is scored
    options = dict(options or {})
    labels = [s.label for s in specs]
    if reference is None:
        reference = next((s.label for s in specs if s.kind == "wrdscore"), None)
    elif reference not in labels:
        raise ValueError(f"reference metric {reference!r} is not among the metrics {labels}")

    table = pd.DataFrame({"id": frame["id"], "prediction": frame["prediction"], "reference": frame["reference"],
                          "human": humans})
    if group_by is not None:
        table[group_by] = frame[group_by].to_numpy()
    scored = {spec.label: compute_metric(spec, frame, options, progress)
              for spec in tqdm(specs, desc=os.path.basename(path), unit="metric", disable=not progress, file=sys.stderr)}
    # Joined at once: a column inserted per metric made pandas warn of a fragmented frame past 100 of them.
    table = pd.concat([table, pd.DataFrame(scored, index=table.index)], axis=1)

    result = ValidationResult(os.fspath(path), human, rng, reference, table, group_by=group_by,
                              n_boot=n_boot, seed=seed)
    groups = [(None, np.arange(len(table)))]
    if group_by is not None:
        keys = table[group_by].astype(str)
        groups = [(g, np.flatnonzero((keys == g).to_numpy())) for g in sorted(keys.unique())]
    for label in labels:
        per_group = []
        for g, rows in groups:
            stats = correlation_stats(table[label].to_numpy()[rows], humans[rows], rng, n_boot, seed)
            stats.update(group=g, metric=label)
            per_group.append(stats)
        if group_by is not None:
            mean = {"group": "mean", "metric": label, "n": sum(s["n"] for s in per_group),
                    "n_dropped": sum(s["n_dropped"] for s in per_group)}
            for key in ("pearson", "spearman", "kendall", "mse", "mae"):
                vals = [s[key] for s in per_group if math.isfinite(s[key])]
                mean[key] = float(np.mean(vals)) if vals else float("nan")
                if key in CORRELATIONS:
                    mean[key + "_lo"] = mean[key + "_hi"] = float("nan")
            per_group.append(mean)
        result.rows.extend(per_group)
    if reference is not None:
        ref_values = table[reference].to_numpy()
        for row in result.rows:
            if row["metric"] == reference:
                row["delta_spearman"], row["p_value"] = float("nan"), float("nan")
                continue
            other = table[row["metric"]].to_numpy()
            chosen = groups if row["group"] in (None, "mean") else [(g, r) for g, r in groups if g == row["group"]]
            row["delta_spearman"], row["p_value"] = paired_bootstrap(
                [(ref_values[r], other[r], humans[r]) for _, r in chosen], n_boot, seed)
    return result


def validate(paths: Sequence[str], metrics: Sequence[str] = DEFAULT_METRICS, *, human: str = "human",
             group_by: Optional[str] = None, human_range: Optional[Sequence[float]] = None,
             n_boot: int = 1000, seed: Optional[int] = None, options: Optional[Mapping[str, Any]] = None,
             reference: Optional[str] = None, output_dir: Optional[str] = None,
             progress: bool = True) -> List[ValidationResult]:
    """Validate metrics against the human column of each judgment file.

    Args:
        paths: judgment files (``shared/data`` format); a single path string is accepted too.
        metrics: metric specs (module docstring); default: WRDScore and any ``baseline_*`` column.
        human: the column holding the human score (IdBench: ``human``/``similarity``, ``relatedness``).
        group_by: a column to group rows by; each group gets its own rows plus a ``mean`` row.
        human_range: ``(lo, hi)`` of the human scale, mapped to [0, 1] for MSE/MAE; default: the
            observed minimum and maximum.
        n_boot: bootstrap resamples (0 turns CIs and the paired test off); seed: their seed (default 0; with
            ``n_boot=0`` a seed or a ``reference`` would be ignored, and is refused).
        options: WRDScore options shared by every ``wrdscore`` spec (a spec's own keys win), their backend options
            by the metrics on a WRDScore backend; one that no spec reads is refused (it would be ignored).
        reference: label of the metric the paired test compares every other against (default:
            the first ``wrdscore`` spec).
        output_dir: where to write ``<file>.scores.csv`` and ``<file>.scatter.png`` (None: nothing).
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    if not paths:
        raise ValueError("give at least one judgment file")
    if isinstance(metrics, str):
        metrics = [metrics]
    check_options_used(metrics, options)  # before any file is read
    if output_dir is not None:
        # Before any scoring: a missing matplotlib must not surface after minutes of work and a half-written folder.
        require("matplotlib", "validate")
        _check_output_dir(output_dir)
        check_outputs(paths, output_dir)
    results = []
    for path in paths:
        frame = read_judgments(path, human)
        result = validate_frame(frame, metrics, path=os.fspath(path), human=human, group_by=group_by,
                                human_range=human_range, n_boot=n_boot, seed=seed, options=options,
                                reference=reference, progress=progress, plotted=output_dir is not None)
        if output_dir is not None:
            write_outputs(result, output_dir)
        results.append(result)
    return results


# ------------------------------------------------------------------------------------------ output
def _fmt(value: Any, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "–"
    return f"{value:.{digits}f}"


def _fmt_ci(row: Mapping[str, Any], name: str) -> str:
    text = _fmt(row[name])
    if math.isfinite(row.get(name + "_lo", float("nan"))):
        text += f" [{row[name + '_lo']:.2f}, {row[name + '_hi']:.2f}]"
    return text


def format_markdown(result: ValidationResult) -> str:
    """The stats of one file as a markdown table (with a one-line caption)."""
    lo, hi = result.human_range
    head = (f"**{os.path.basename(result.path)}** (human: `{result.human}`, range {lo:g}..{hi:g} -> [0, 1] for "
            f"MSE/MAE; 95% bootstrap CIs, {result.n_boot} resamples, seed {result.seed}")
    if result.reference_metric:
        head += (f"; Δρ = ρ(`{result.reference_metric}`) − ρ(row), p = the chance of a |Δρ| this large if the "
                 "two did not differ, paired bootstrap")
    head += ")"
    cols = (["group"] if result.group_by else []) + ["metric", "n", "Pearson", "Spearman", "Kendall", "MSE", "MAE"]
    if result.reference_metric:
        cols += ["Δρ", "p"]
    lines = [head, "", "| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in result.rows:
        n = str(row["n"]) + (f" (-{row['n_dropped']})" if row["n_dropped"] else "")
        cells = ([str(row["group"])] if result.group_by else []) + [
            f"`{row['metric']}`", n, _fmt_ci(row, "pearson"), _fmt_ci(row, "spearman"), _fmt_ci(row, "kendall"),
            _fmt(row["mse"]), _fmt(row["mae"])]
        if result.reference_metric:
            p = row.get("p_value")
            cells += [_fmt(row.get("delta_spearman")),
                      format_p_value(p, 3) if isinstance(p, float) and math.isfinite(p) else _fmt(p)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _stem(path: str) -> str:
    name = os.path.basename(path)
    for ext in (".tsv.gz", ".tsv", ".txt"):
        if name.endswith(ext):
            return name[: -len(ext)]
    return name


def output_paths(path: str, output_dir: str) -> Tuple[str, str]:
    """``(<output_dir>/<stem>.scores.csv, <output_dir>/<stem>.scatter.png)``: what :func:`write_outputs` writes
    for the judgment file ``path``."""
    stem = _stem(os.fspath(path))
    return os.path.join(output_dir, f"{stem}.scores.csv"), os.path.join(output_dir, f"{stem}.scatter.png")


def check_outputs(paths: Sequence[str], output_dir: str) -> None:
    """Refuse, before anything is scored, judgment files whose outputs would land on each other (``a/v.tsv`` and
    ``b/v.tsv`` both write ``v.scores.csv``: the first result would be lost) or on one of the inputs (an input
    inside the output folder, replaced by another input's result)."""
    def key(path: str) -> str:  # the file a path names, whether it exists yet or not
        return os.path.realpath(path)

    inputs = {key(p): os.fspath(p) for p in paths}
    owner: Dict[str, str] = {}
    for path in paths:
        for out in output_paths(path, output_dir):
            if key(out) in inputs:
                raise ValueError(f"output_dir (--output-dir) {output_dir!r}: the result of {os.fspath(path)!r} would "
                                 f"replace the input {inputs[key(out)]!r} ({out}); move that input out of the folder "
                                 "or choose another output folder")
            other = owner.setdefault(key(out), os.fspath(path))
            if other != os.fspath(path):
                raise ValueError(f"output_dir (--output-dir) {output_dir!r}: {other!r} and {os.fspath(path)!r} would "
                                 f"both write {out} (outputs are named after the file name, so the first result "
                                 "would be lost); rename one, or give each its own output folder")


def _check_output_dir(output_dir: str) -> None:
    if os.path.exists(output_dir) and not os.path.isdir(output_dir):
        raise NotADirectoryError(f"output folder {output_dir!r} is not a folder")


def write_outputs(result: ValidationResult, output_dir: str) -> Tuple[str, str]:
    """Write the per-pair CSV and the scatter grid PNG of one result; return their paths."""
    _check_output_dir(output_dir)
    os.makedirs(output_dir, exist_ok=True)
    csv_path, png_path = output_paths(result.path, output_dir)
    write_table(result.scores, csv_path)
    plot_scatter(result, png_path)
    return csv_path, png_path


def plot_scatter(result: ValidationResult, path: str) -> str:
    """One panel per metric: metric score against the human score, titled with Spearman's rho
    (drawn by :func:`wrd_score.plot.plot_scatter`)."""
    metrics = [c for c in result.scores.columns if c not in ("id", "prediction", "reference", "human", result.group_by)]
    rho = {r["metric"]: r["spearman"] for r in result.rows if r["group"] in (None, "mean")}
    return draw_scatter(result.scores["human"].to_numpy(), {m: result.scores[m].to_numpy() for m in metrics}, path,
                human_label=result.human, title=os.path.basename(result.path), rho=rho)

