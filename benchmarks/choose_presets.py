"""Choose the static bundles of ``preset=`` (wrd_score/options.py, ``PRESETS``) on tuning data only.

For each embedding given (a name such as ``default`` or a file path), scores the grid
variant {wrd, paper} x weights {norm, idf, norm*idf, corpus-idf, norm*corpus-idf, uniform} on

* IdBench small / medium / large (Wainakh et al., ICSE 2021): Spearman of F1 with the developers'
  ``similarity`` rating (rows with one);
* STS-B **dev**: Spearman of F1 with the human score (STS-B test is never read).

``idf`` and ``norm*idf`` are fit on the references of each data set (one call per set, as a user's
call would); ``corpus-idf`` and ``norm*corpus-idf`` read the embedding file's fixed
document-frequency table and are shown as ``–`` for a file without one.  Every other option is the
library default (identifier tokenizer, ``oov="auto"``, negative cosines clipped).

The rule the script applies (docs/presets.md): a preset's masses must give a pair the same score
whatever else is in the call, so the refs-fitted ``idf``/``norm*idf`` are shown for reference but
never chosen.  Among the rest, over every embedding given, each preset looks at its own data
(*identifiers*: the three IdBench sets, their mean Spearman; *sentences*: STS-B dev) and takes the
best configuration there, unless a configuration it does not beat reliably there (paired bootstrap
of the Spearman difference, 1000 resamples, seed 0, averaged over the sets: p(Δρ ≤ 0) >= 0.05) is
reliably better on the *other* preset's data (p < 0.05 the other way); then the best of those on
the other data.  A default as good as the best on its own kind of text and reliably better on the
other is the one that does least harm to mixed use; a difference within noise never moves it.
Before all this, a configuration must beat ROUGE-1 by at least ``ROUGE_MARGIN`` Spearman on the mean
of the other preset's data (ROUGE-1 scored here on the same sets, identifiers split on IdBench): a
default that ties ROUGE-1 on the other kind of text is not a default (a method-name prediction is
often a short phrase, and the *identifiers* preset is the metric's default for every text).

Usage::

    python benchmarks/choose_presets.py default                       # the shipped default file
    python benchmarks/choose_presets.py default embeddings/new.npz --markdown /tmp/presets.md
"""
from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np
from scipy.stats import spearmanr

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
sys.path.insert(0, str(REPO))

from wrd_score import WRDScorer  # noqa: E402
from wrd_score.embeddings import load_embedding  # noqa: E402
from wrd_score.metrics import get_metric  # noqa: E402
from wrd_score.stats import paired_bootstrap  # noqa: E402
from wrd_score.validation import read_judgments  # noqa: E402
from wrd_score.weights import uses_idf  # noqa: E402
from report_output import add_markdown_argument, emit  # noqa: E402

VARIANTS = ("wrd", "paper")
#: How far above ROUGE-1 a preset's choice must be on the other preset's data (mean Spearman).
ROUGE_MARGIN = 0.03
WEIGHTS = ("norm", "idf", "norm*idf", "corpus-idf", "norm*corpus-idf", "uniform")
SETS: Tuple[Tuple[str, Path, str], ...] = (
    ("IdBench small", DATA / "idbench" / "idbench_small.tsv", "similarity"),
    ("IdBench medium", DATA / "idbench" / "idbench_medium.tsv", "similarity"),
    ("IdBench large", DATA / "idbench" / "idbench_large.tsv", "similarity"),
    ("STS-B dev", DATA / "stsb" / "stsb_dev.tsv", "human"),
)


def load_set(path: Path, human: str) -> Tuple[List[str], List[str], np.ndarray]:
    frame = read_judgments(str(path), human)
    frame = frame[np.isfinite(frame[human].to_numpy(dtype=np.float64))].reset_index(drop=True)
    return frame["prediction"].tolist(), frame["reference"].tolist(), frame[human].to_numpy(dtype=np.float64)


def grid(embedding: str, sets: Dict[str, Tuple[List[str], List[str], np.ndarray]]) -> List[Dict]:
    has_table = load_embedding(embedding).df_table is not None
    rows = []
    for variant, weights in itertools.product(VARIANTS, WEIGHTS):
        row: Dict = {"embedding": embedding, "variant": variant, "weights": weights, "fixed": not uses_idf(weights)}
        if weights.endswith("corpus-idf") and not has_table:
            row.update({name: None for name in sets})
            rows.append(row)
            continue
        scorer = WRDScorer(embedding=embedding, variant=variant, weights=weights)
        for name, (preds, refs, human) in sets.items():
            f1 = np.asarray(scorer.score(preds, refs)["f1"], dtype=np.float64)
            row[name] = float(spearmanr(f1, human)[0])
            row["f1:" + name] = f1
        rows.append(row)
    return rows


def rouge_row(sets: Dict[str, Tuple[List[str], List[str], np.ndarray]]) -> Dict:
    """ROUGE-1 F1's Spearman on every set (identifiers split on IdBench, as validate does)."""
    row: Dict = {"embedding": "ROUGE-1", "variant": "–", "weights": "–", "fixed": True}
    for name, (preds, refs, human) in sets.items():
        metric = get_metric("rouge1", split_identifiers=name.startswith("IdBench"))
        f1 = np.asarray(metric.score(preds, refs).score, dtype=np.float64)
        row[name], row["f1:" + name] = float(spearmanr(f1, human)[0]), f1
    return row


def _mean_idbench(row: Dict) -> Optional[float]:
    values = [row[name] for name, _, _ in SETS[:3]]
    return None if any(v is None for v in values) else float(np.mean(values))


def _cell(value: Optional[float]) -> str:
    return "–" if value is None else f"{value:.4f}"


#: preset -> (its own data, the other preset's data)
DOMAINS = {"identifiers": (tuple(name for name, _, _ in SETS[:3]), ("STS-B dev",)),
           "sentences": (("STS-B dev",), tuple(name for name, _, _ in SETS[:3]))}


def choose(rows: List[Dict], sets: Dict[str, Tuple[List[str], List[str], np.ndarray]], preset: str,
           n_boot: int = 1000, rouge: Optional[Dict] = None) -> Tuple[Dict, List[Tuple[Dict, float, float]]]:
    """The rule of the module docstring: the chosen row, and the tie with the best on the preset's own
    data (each row with p(best beats it) there and p(it beats best) on the other data)."""
    own, other = DOMAINS[preset]

    def mean(row: Dict, names: Tuple[str, ...]) -> float:
        return float(np.mean([row[n] for n in names]))

    def p_not_better(a: Dict, b: Dict, names: Tuple[str, ...]) -> float:
        # One-sided from the two-sided paired p (wrd_score.stats.paired_p_value): small only when a is
        # ahead of b on the sets named and the difference is unlikely to be chance; 1 when a is not ahead.
        diff, p = paired_bootstrap([(a["f1:" + n], b["f1:" + n], sets[n][2]) for n in names], n_boot=n_boot, seed=0)
        return p if diff > 0 else 1.0

    fixed = [r for r in rows if r["fixed"] and r["STS-B dev"] is not None]
    if rouge is not None:
        fixed = [r for r in fixed if mean(r, other) >= mean(rouge, other) + ROUGE_MARGIN]
    best = max(fixed, key=lambda r: mean(r, own))
    tie = [(row, p_not_better(best, row, own), p_not_better(row, best, other)) for row in fixed if row is not best]
    tie = [(best, 1.0, 1.0)] + [t for t in tie if t[1] >= 0.05]
    better = [row for row, _, p_other in tie if p_other < 0.05]
    return (max(better, key=lambda r: mean(r, other)) if better else best), tie


def report(rows: List[Dict], sets: Dict[str, Tuple[List[str], List[str], np.ndarray]],
           rouge: Optional[Dict] = None) -> str:
    names = [name for name, _, _ in SETS]
    lines = ["| embedding | variant | weights | same score in any call | " + " | ".join(names[:3])
             + " | IdBench mean | STS-B dev |", "|---|---|---|---|" + "---:|" * 5]
    for row in rows + ([rouge] if rouge else []):
        lines.append(f"| {row['embedding']} | {row['variant']} | {row['weights']} | {'yes' if row['fixed'] else 'no'} | "
                     + " | ".join(_cell(row[n]) for n in names[:3]) + f" | {_cell(_mean_idbench(row))} | "
                     + f"{_cell(row['STS-B dev'])} |")
    lines += ["", "Chosen (masses that give a pair the same score in any call only): the best on the preset's own "
              "data unless one it does not beat reliably there (p >= 0.05) is reliably better on the other data "
              "(p_other < 0.05), among those at least ROUGE_MARGIN = %.2f above ROUGE-1 on the other data:" % ROUGE_MARGIN, ""]
    for preset in DOMAINS:
        chosen, tie = choose(rows, sets, preset, rouge=rouge)
        bundle = {"embedding": chosen["embedding"], "variant": chosen["variant"], "weights": chosen["weights"]}
        tied = "; ".join(f"{r['embedding']}/{r['variant']}/{r['weights']} p={p:.3f} p_other={q:.3f}"
                         for r, p, q in tie[1:]) or "none"
        lines.append(f"* {preset}: `{bundle}` (IdBench mean {_mean_idbench(chosen):.4f}, STS-B dev "
                     f"{chosen['STS-B dev']:.4f}; tie: {tied})")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("embeddings", nargs="+", metavar="EMBEDDING", help="embedding names or .npz paths")
    add_markdown_argument(parser, "table")
    args = parser.parse_args(argv)
    missing = [str(path) for _, path, _ in SETS if not path.is_file()]
    if missing:
        print(f"tuning data not found: {missing}", file=sys.stderr)
        return 2
    start = time.perf_counter()
    sets = {name: load_set(path, human) for name, path, human in SETS}
    rows: List[Dict] = []
    for embedding in args.embeddings:
        rows += grid(embedding, sets)
        print(f"{embedding}: {time.perf_counter() - start:.0f}s", file=sys.stderr)
    text = report(rows, sets, rouge_row(sets))
    return emit(text, args.markdown)


if __name__ == "__main__":
    sys.exit(main())
