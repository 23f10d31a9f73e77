"""Validation against human judgments: ``wrdscore validate FILE.tsv [...]`` and :func:`validate`.

Input files follow the ``shared/data`` format: UTF-8, tab-separated, one header line, quoting off,
first columns ``id prediction reference human``, missing numbers ``nan``.

For every metric the harness reports Pearson, Spearman and Kendall correlations with the human
column, each with a 95% percentile-bootstrap confidence interval (rows resampled with
``numpy.random.default_rng(seed)``), MSE and MAE against the human score mapped to [0, 1], and a
paired bootstrap test of the reference WRDScore metric against every other metric: the share of
joint resamples of rows in which ``spearman(reference) - spearman(other) <= 0`` (a one-sided
p-value for "WRDScore correlates better").  Rows whose human value is missing are dropped (and
counted); so are rows where a metric's own value is missing (a numeric column with ``nan``).

Metrics are given as specs ``NAME[:key=value,...]``:

* ``wrdscore[:option=value,...]`` -- any :class:`wrd_score.Options` field (defaults: the command's
  metric flags), plus ``field=f1|precision|recall`` and ``label=TEXT``;
* ``bertscore[:...]``, ``moverscore[:...]`` -- the sibling metrics of :mod:`wrd_score.siblings`
  (keyword arguments passed through), ``field=`` as above;
* ``rouge1``, ``rouge2``, ``rougeL`` -- ROUGE F-measure, via :mod:`wrd_score.siblings`;
* ``column:NAME`` -- a numeric column of the file, shell-style patterns allowed
  (``column:baseline_*`` expands to every IdBench baseline column).

With ``--group-by COLUMN`` every statistic is computed per group and a ``mean`` row averages them
over groups (its paired test resamples within each group).
"""
from __future__ import annotations

import csv
import fnmatch
import math
import os
import sys
from dataclasses import dataclass, field, fields
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

__all__ = ["MetricSpec", "parse_metric", "read_judgments", "correlation_stats", "paired_bootstrap",
           "ValidationResult", "validate", "DEFAULT_METRICS"]

DEFAULT_METRICS = ("wrdscore", "column:baseline_*")
_KINDS = ("wrdscore", "bertscore", "moverscore", "rouge1", "rouge2", "rougeL", "column")
_CORRELATIONS = ("pearson", "spearman", "kendall")
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


def _convert(value: str) -> Any:
    lower = value.lower()
    if lower in ("true", "yes", "on"):
        return True
    if lower in ("false", "no", "off"):
        return False
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            pass
    return value


def parse_metric(spec: str) -> MetricSpec:
    """Parse ``NAME[:key=value,...]`` (``column:NAME`` takes a column name or pattern).

    >>> parse_metric("wrdscore:variant=wrd,embedding=glove-6b-50d")
    MetricSpec(kind='wrdscore', settings=(('embedding', 'glove-6b-50d'), ('variant', 'wrd')), label='wrdscore[embedding=glove-6b-50d,variant=wrd]', score_field='f1')
    >>> parse_metric("column:baseline_FT-cbow").label
    'baseline_FT-cbow'
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"metric spec must be a non-empty string like 'wrdscore:variant=wrd', got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    if name not in _KINDS:
        head = name.split(",", 1)[0]
        hint = f" (settings follow a colon: {head}:{name[len(head) + 1:]})" if head in _KINDS else ""
        raise ValueError(f"metric {name!r} in spec {spec!r} is unknown{hint}; known: {list(_KINDS)}")
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
            settings[key] = _convert(value.strip())
    if name == "wrdscore":
        from .metric import Options

        known = {f.name: f for f in fields(Options)}
        for key, value in settings.items():
            if key not in known:
                raise ValueError(f"metric spec {spec!r}: unknown WRDScore option {key!r}; known: {sorted(known)}")
            if known[key].type == "str" and not isinstance(value, str):
                settings[key] = str(value)  # e.g. embedding=50 would otherwise become an int
    items = tuple(sorted(settings.items()))
    if label is None:
        inner = ",".join(f"{k}={v}" for k, v in items)
        suffix = "" if score_field == "f1" else f".{score_field}"
        label = (f"{name}[{inner}]" if inner else name) + suffix
    return MetricSpec(name, items, label, score_field)


# ------------------------------------------------------------------------------------------ input
def read_judgments(path: str, human: str = "human"):
    """Read one judgment file (tab-separated, quoting off) into a pandas DataFrame.

    Text columns stay strings (an empty cell is an empty text, not NaN); ``nan`` in numeric columns
    is missing.
    """
    import pandas as pd

    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"file must be a path, got {type(path).__name__}")
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"judgment file {path!r} does not exist")
    try:
        frame = pd.read_csv(path, sep="\t", quoting=csv.QUOTE_NONE, dtype=str, keep_default_na=False,
                            na_filter=False, encoding="utf8")
    except Exception as exc:  # pandas raises ParserError, UnicodeDecodeError, EmptyDataError...
        raise ValueError(f"could not read {path!r} as a tab-separated file with a header: {exc}") from exc
    missing = [c for c in ("prediction", "reference", human) if c not in frame.columns]
    if missing:
        raise ValueError(f"{path!r} lacks column(s) {missing}; its columns are {list(frame.columns)}")
    if "id" not in frame.columns:
        frame.insert(0, "id", [str(i) for i in range(len(frame))])
    frame[human] = _numeric(frame[human], f"{path}: column {human!r}")
    return frame


def _numeric(series, what: str) -> np.ndarray:
    import pandas as pd

    values = pd.to_numeric(series.replace({"": "nan"}), errors="coerce").to_numpy(dtype=np.float64)
    bad = np.isnan(values) & ~series.str.strip().str.lower().isin(["nan", "", "na", "none"]).to_numpy()
    if bad.any():
        first = series[bad].iloc[0]
        raise ValueError(f"{what} is not numeric (row {int(np.flatnonzero(bad)[0])}: {first!r})")
    return values


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


def expand_metrics(specs: Sequence[str], frame, human: str, strict: bool = True) -> List[MetricSpec]:
    """Parse specs and expand ``column:`` patterns against the file's numeric columns."""
    out: List[MetricSpec] = []
    numeric = None
    for text in specs:
        spec = parse_metric(text)
        if spec.kind != "column":
            out.append(spec)
            continue
        if numeric is None:
            numeric = _numeric_columns(frame, exclude=(human,))
        pattern = spec.kwargs["column"]
        matches = [c for c in numeric if fnmatch.fnmatchcase(c, pattern)]
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
        return _wrdscore(preds, refs, {**options, **kw}, spec, progress)
    from . import siblings

    if spec.kind in ("rouge1", "rouge2", "rougeL"):
        return np.asarray(siblings.rouge(preds, refs, rouge_types=(spec.kind,), **kw)[spec.kind], dtype=np.float64)
    # BERTScore and MoverScore run on the same backend as WRDScore: the command's metric flags
    # (backend, embedding, tokenizer, ...) apply to them too, a spec's own keys win.
    from .metric import Options

    shared = {k: v for k, v in options.items() if k in {f.name for f in fields(Options)}
              and k not in ("variant", "weights", "clip_negative", "rescale_with_baseline")}
    result = getattr(siblings, spec.kind)(preds, refs, **{**shared, **kw})
    if spec.kind == "moverscore":
        if spec.score_field != "f1":
            raise ValueError(f"moverscore has one score; field={spec.score_field!r} does not apply")
        return np.asarray(result["score"], dtype=np.float64)
    return np.asarray(result[spec.score_field], dtype=np.float64)


def _wrdscore(preds: List[str], refs: List[str], options: Dict[str, Any], spec: MetricSpec,
              progress: bool) -> np.ndarray:
    from tqdm.auto import tqdm

    from .metric import WRDScorer

    scorer = WRDScorer(**options)
    if scorer.options.weights in ("idf", "norm*idf") or scorer.options.backend != "static":
        # IDF is fit on the references of one call: chunking would change it, so score in one go.
        # A contextual backend shows its own encoding bar and memoises one call's encoding, which
        # the next metric on the same backend (BERTScore, another variant) then reuses.
        chunk = max(len(preds), 1)
    else:
        chunk = _WRDSCORE_CHUNK
    values: List[float] = []
    with tqdm(total=len(preds), desc=spec.label, unit="pair", disable=not progress, file=sys.stderr,
              leave=False) as bar:
        for start in range(0, len(preds), chunk):
            out = scorer.score(preds[start:start + chunk], refs[start:start + chunk])
            values.extend(out[spec.score_field])
            bar.update(len(out["f1"]))
    return np.asarray(values, dtype=np.float64)


# ------------------------------------------------------------------------------------------ statistics
def _rowwise_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of each row pair (one per bootstrap resample); NaN for a constant row."""
    import warnings

    from scipy import stats

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant resamples: scipy warns and returns NaN, as wanted
        return np.asarray(stats.pearsonr(x, y, axis=-1).statistic, dtype=np.float64)


def _rowwise_spearman(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    from scipy.stats import rankdata

    return _rowwise_pearson(rankdata(x, axis=-1), rankdata(y, axis=-1))


def _statistic(name: str, x: np.ndarray, y: np.ndarray) -> float:
    import warnings

    from scipy import stats

    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")  # undefined for constant input; scipy would warn and say the same
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if name == "pearson":
            return float(stats.pearsonr(x, y)[0])
        if name == "spearman":
            return float(stats.spearmanr(x, y)[0])
        return float(stats.kendalltau(x, y)[0])


def _bootstrap_indices(n: int, n_boot: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, n, size=(n_boot, n))


def _boot_values(name: str, x: np.ndarray, y: np.ndarray, idx: np.ndarray) -> np.ndarray:
    if name == "pearson":
        return _rowwise_pearson(x[idx], y[idx])
    if name == "spearman":
        return _rowwise_spearman(x[idx], y[idx])
    return np.array([_statistic("kendall", x[i], y[i]) for i in idx])


def correlation_stats(scores: Sequence[float], human: Sequence[float], human_range: Tuple[float, float],
                      n_boot: int = 1000, seed: int = 0) -> Dict[str, Any]:
    """Correlations with 95% bootstrap CIs, MSE and MAE of one metric (rows with a NaN dropped).

    >>> h = np.arange(20.0)
    >>> s = correlation_stats(h / 19, h, (0, 19), n_boot=50)
    >>> s["n"], round(s["spearman"], 6), round(s["mse"], 6)
    (20, 1.0, 0.0)
    """
    x = np.asarray(scores, dtype=np.float64)
    y = np.asarray(human, dtype=np.float64)
    if x.shape != y.shape:
        raise ValueError(f"scores and human must have the same length, got {x.shape} and {y.shape}")
    lo, hi = map(float, human_range)
    if not (math.isfinite(lo) and math.isfinite(hi) and hi > lo):
        raise ValueError(f"human_range must be two finite numbers LO < HI, got {human_range!r}")
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    out: Dict[str, Any] = {"n": int(keep.sum()), "n_dropped": int((~keep).sum())}
    idx = _bootstrap_indices(len(x), n_boot, seed) if len(x) and n_boot > 0 else None
    for name in _CORRELATIONS:
        out[name] = _statistic(name, x, y)
        lo_ci = hi_ci = float("nan")
        if idx is not None and math.isfinite(out[name]):
            values = _boot_values(name, x, y, idx)
            values = values[np.isfinite(values)]
            if values.size:
                lo_ci, hi_ci = (float(v) for v in np.percentile(values, [2.5, 97.5]))
        out[name + "_lo"], out[name + "_hi"] = lo_ci, hi_ci
    target = (y - lo) / (hi - lo)
    out["mse"] = float(np.mean((x - target) ** 2)) if len(x) else float("nan")
    out["mae"] = float(np.mean(np.abs(x - target))) if len(x) else float("nan")
    return out


def paired_bootstrap(groups: Sequence[Tuple[np.ndarray, np.ndarray, np.ndarray]], n_boot: int = 1000,
                     seed: int = 0) -> Tuple[float, float]:
    """Paired bootstrap of the Spearman difference between two metrics.

    ``groups`` holds ``(a, b, human)`` arrays per group (one group without ``--group-by``); rows
    are resampled jointly within each group and the per-group differences averaged.  Returns the
    observed mean difference and the share of resamples in which it is <= 0.

    >>> h = np.arange(30.0); good = h + 0.1 * np.sin(h); bad = np.cos(h)
    >>> diff, p = paired_bootstrap([(good, bad, h)], n_boot=200)
    >>> diff > 0.5, p
    (True, 0.0)
    """
    observed = []
    boots = []
    for g, (a, b, h) in enumerate(groups):
        a, b, h = (np.asarray(v, dtype=np.float64) for v in (a, b, h))
        keep = np.isfinite(a) & np.isfinite(b) & np.isfinite(h)
        a, b, h = a[keep], b[keep], h[keep]
        if len(h) < 3:
            continue
        observed.append(_statistic("spearman", a, h) - _statistic("spearman", b, h))
        idx = _bootstrap_indices(len(h), n_boot, seed + g)
        boots.append(_rowwise_spearman(a[idx], h[idx]) - _rowwise_spearman(b[idx], h[idx]))
    if not boots:
        return float("nan"), float("nan")
    diff = np.nanmean(np.vstack(boots), axis=0) if len(boots) > 1 else boots[0]
    diff = diff[np.isfinite(diff)]
    if not diff.size:
        return float(np.nanmean(observed)), float("nan")
    return float(np.nanmean(observed)), float(np.mean(diff <= 0))


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
        if len(given) != 2:
            raise ValueError(f"human_range must be two numbers LO HI, got {given!r}")
        lo, hi = float(given[0]), float(given[1])
        if not (math.isfinite(lo) and math.isfinite(hi) and hi > lo):
            raise ValueError(f"human_range must be two finite numbers with LO < HI, got {given!r}")
        return lo, hi
    finite = values[np.isfinite(values)]
    if finite.size == 0 or np.ptp(finite) == 0:
        raise ConstantHumanError("the human column has fewer than two distinct values; give human_range=(LO, HI)")
    return float(finite.min()), float(finite.max())


def validate_frame(frame, metrics: Sequence[str] = DEFAULT_METRICS, *, path: str = "<frame>",
                   human: str = "human", group_by: Optional[str] = None,
                   human_range: Optional[Sequence[float]] = None, n_boot: int = 1000, seed: int = 0,
                   options: Optional[Mapping[str, Any]] = None, reference: Optional[str] = None,
                   progress: bool = True) -> ValidationResult:
    """Validate metrics on one already-read judgment frame (see :func:`validate`)."""
    import pandas as pd
    from tqdm.auto import tqdm

    if not isinstance(n_boot, int) or n_boot < 0:
        raise ValueError(f"n_boot must be a non-negative integer, got {n_boot!r}")
    if group_by is not None and group_by not in frame.columns:
        raise ValueError(f"group_by column {group_by!r} is not in {path!r}; its columns are {list(frame.columns)}")
    specs = expand_metrics(list(metrics), frame, human, strict=tuple(metrics) != DEFAULT_METRICS)
    if not specs:
        raise ValueError("no metrics to validate")
    humans = np.asarray(frame[human], dtype=np.float64)
    rng = _human_range(humans, human_range)
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
    for spec in tqdm(specs, desc=os.path.basename(path), unit="metric", disable=not progress, file=sys.stderr):
        table[spec.label] = compute_metric(spec, frame, options, progress)

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
                if key in _CORRELATIONS:
                    mean[key + "_lo"] = mean[key + "_hi"] = float("nan")
            per_group.append(mean)
        result.rows.extend(per_group)
    if reference is not None:
        ref_values = table[reference].to_numpy()
        for row in result.rows:
            if row["metric"] == reference:
                row["delta_spearman"], row["p_le0"] = float("nan"), float("nan")
                continue
            other = table[row["metric"]].to_numpy()
            chosen = groups if row["group"] in (None, "mean") else [(g, r) for g, r in groups if g == row["group"]]
            row["delta_spearman"], row["p_le0"] = paired_bootstrap(
                [(ref_values[r], other[r], humans[r]) for _, r in chosen], n_boot, seed)
    return result


def validate(paths: Sequence[str], metrics: Sequence[str] = DEFAULT_METRICS, *, human: str = "human",
             group_by: Optional[str] = None, human_range: Optional[Sequence[float]] = None,
             n_boot: int = 1000, seed: int = 0, options: Optional[Mapping[str, Any]] = None,
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
        n_boot: bootstrap resamples (0 turns CIs and the paired test off); seed: their seed.
        options: WRDScore options shared by every ``wrdscore`` spec (a spec's own keys win).
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
    results = []
    for path in paths:
        frame = read_judgments(path, human)
        result = validate_frame(frame, metrics, path=os.fspath(path), human=human, group_by=group_by,
                                human_range=human_range, n_boot=n_boot, seed=seed, options=options,
                                reference=reference, progress=progress)
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
        head += f"; p = P(Δρ ≤ 0) vs `{result.reference_metric}`, paired bootstrap"
    head += ")"
    cols = (["group"] if result.group_by else []) + ["metric", "n", "Pearson", "Spearman", "Kendall", "MSE", "MAE"]
    if result.reference_metric:
        cols += ["Δρ", "p(Δρ≤0)"]
    lines = [head, "", "| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in result.rows:
        n = str(row["n"]) + (f" (-{row['n_dropped']})" if row["n_dropped"] else "")
        cells = ([str(row["group"])] if result.group_by else []) + [
            f"`{row['metric']}`", n, _fmt_ci(row, "pearson"), _fmt_ci(row, "spearman"), _fmt_ci(row, "kendall"),
            _fmt(row["mse"]), _fmt(row["mae"])]
        if result.reference_metric:
            cells += [_fmt(row.get("delta_spearman")), _fmt(row.get("p_le0"))]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _stem(path: str) -> str:
    name = os.path.basename(path)
    for ext in (".tsv.gz", ".tsv", ".txt"):
        if name.endswith(ext):
            return name[: -len(ext)]
    return name


def write_outputs(result: ValidationResult, output_dir: str) -> Tuple[str, str]:
    """Write the per-pair CSV and the scatter grid PNG of one result; return their paths."""
    os.makedirs(output_dir, exist_ok=True)
    stem = _stem(result.path)
    csv_path = os.path.join(output_dir, f"{stem}.scores.csv")
    png_path = os.path.join(output_dir, f"{stem}.scatter.png")
    result.scores.to_csv(csv_path, index=False)
    plot_scatter(result, png_path)
    return csv_path, png_path


def plot_scatter(result: ValidationResult, path: str) -> str:
    """One panel per metric: metric score against the human score, titled with Spearman's rho
    (drawn by :func:`wrd_score.plot.plot_scatter`)."""
    from .plot import plot_scatter as draw

    metrics = [c for c in result.scores.columns if c not in ("id", "prediction", "reference", "human", result.group_by)]
    rho = {r["metric"]: r["spearman"] for r in result.rows if r["group"] in (None, "mean")}
    return draw(result.scores["human"].to_numpy(), {m: result.scores[m].to_numpy() for m in metrics}, path,
                human_label=result.human, title=os.path.basename(result.path), rho=rho)


# ------------------------------------------------------------------------------------------ CLI
def cli_add_arguments(parser) -> None:
    from .cli import add_metric_arguments

    parser.add_argument("files", nargs="+", metavar="FILE.tsv", help="judgment files (shared/data format)")
    parser.add_argument("--metric", "-m", dest="metrics", action="append", default=None, metavar="SPEC",
                        help="metric to validate, repeatable: wrdscore[:opt=val,...], bertscore[:...], "
                             "moverscore[:...], rouge1, rouge2, rougeL, column:NAME (patterns allowed). "
                             f"Default: {' '.join(DEFAULT_METRICS)}")
    parser.add_argument("--human", default="human", help="column with the human score (default: human)")
    parser.add_argument("--group-by", default=None, metavar="COLUMN", help="report each group and their mean")
    parser.add_argument("--human-range", nargs=2, type=float, default=None, metavar=("LO", "HI"),
                        help="human scale, mapped to [0, 1] for MSE/MAE (default: observed min and max)")
    parser.add_argument("--bootstrap", type=int, default=1000, help="bootstrap resamples (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed (default 0)")
    parser.add_argument("--reference-metric", default=None, metavar="LABEL",
                        help="metric the paired test compares the others against (default: first wrdscore)")
    parser.add_argument("--output-dir", default="wrdscore-validate", metavar="DIR",
                        help="where the per-pair CSV and scatter PNG go (default: ./wrdscore-validate)")
    parser.add_argument("--no-files", action="store_true", help="print the table only; write no CSV/PNG")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    add_metric_arguments(parser)


def cli_run(args) -> int:
    from .cli import options_from_args

    output_dir = None if args.no_files else args.output_dir
    try:
        results = validate(args.files, args.metrics or DEFAULT_METRICS, human=args.human, group_by=args.group_by,
                           human_range=args.human_range, n_boot=args.bootstrap, seed=args.seed,
                           options=options_from_args(args), reference=args.reference_metric,
                           output_dir=output_dir, progress=not args.quiet)
    except ConstantHumanError as exc:  # the same advice in this command's own syntax
        raise ValueError(str(exc).replace("human_range=(LO, HI)", "--human-range LO HI")) from None
    for i, result in enumerate(results):
        if i:
            print()
        print(result.markdown())
        if output_dir is not None:
            stem = _stem(result.path)
            print(f"wrote {os.path.join(output_dir, stem + '.scores.csv')} and "
                  f"{os.path.join(output_dir, stem + '.scatter.png')}", file=sys.stderr)
    return 0
