"""Choose the static *sentences* bundle (``PRESETS["sentences"]["static"]``) on dev data only (issue 31).

For each embedding given (names or ``.npz`` paths, **simplest first**: the order breaks ties), scores
variant {wrd, paper} x masses {norm, uniform, and norm*corpus-idf / corpus-idf where the file has a table} on

* STS-B **dev** (1,500 pairs) and SICK **trial** (the 495 TRIAL rows of ``sick_train_trial.tsv``): Spearman
  (and Pearson, shown) of F1 with the human score;
* IdBench small / medium / large similarity, for the ROUGE-1 guard of docs/presets.md (a sentences default
  must beat ROUGE-1 by ``ROUGE_MARGIN`` on the mean of the other preset's data).

The rule (docs/presets.md, the defaults' rule): take the configuration with the best mean Spearman over the
two dev sets; every configuration that it does not beat reliably (paired bootstrap of the Spearman
difference over both sets, 1000 resamples, seed 0, two-sided p >= 0.05) ties with it, and a tie goes to
the simpler configuration: the first embedding given, then ``wrd`` before ``paper``, then the masses in the
order above. The choice is repeated with each dev set left out. STS-B test, SICK test and IdBench never
choose (``--test`` scores STS-B test for the chosen row, once, after choosing).

    python benchmarks/choose_sentences.py wrd-minilm-distilled wrd-minilm-code embeddings/wrd-minilm-sentences.npz
"""
from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import numpy as np
from scipy.stats import pearsonr, spearmanr

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
sys.path.insert(0, str(REPO))

from wrd_score import WRDScorer  # noqa: E402
from wrd_score.embeddings import load_embedding  # noqa: E402
from wrd_score.metrics import get_metric  # noqa: E402
from wrd_score.stats import paired_bootstrap  # noqa: E402
from wrd_score.validation import read_judgments  # noqa: E402
from report_output import add_markdown_argument, emit  # noqa: E402

VARIANTS = ("wrd", "paper")
WEIGHTS = ("norm", "uniform", "norm*corpus-idf", "corpus-idf")
ROUGE_MARGIN = 0.03
DEV = ("STS-B dev", "SICK trial")
IDBENCH = ("IdBench small", "IdBench medium", "IdBench large")

Set = Tuple[List[str], List[str], np.ndarray]


def load_sets(test: bool = False) -> Dict[str, Set]:
    def rows(path: Path, human: str, split: Optional[str] = None) -> Set:
        frame = read_judgments(str(path), human)
        if split is not None:
            frame = frame[frame["split"] == split]
        frame = frame[np.isfinite(frame[human].to_numpy(dtype=np.float64))]
        return frame["prediction"].tolist(), frame["reference"].tolist(), frame[human].to_numpy(dtype=np.float64)

    sets = {"STS-B dev": rows(DATA / "stsb" / "stsb_dev.tsv", "human"),
            "SICK trial": rows(DATA / "sick" / "sick_train_trial.tsv", "human", "TRIAL")}
    for size, name in zip(("small", "medium", "large"), IDBENCH):
        sets[name] = rows(DATA / "idbench" / f"idbench_{size}.tsv", "similarity")
    if test:
        sets["STS-B test"] = rows(DATA / "stsb" / "stsb_test.tsv", "human")
    return sets


def grid(embedding: str, sets: Dict[str, Set], order: int) -> List[Dict]:
    has_table = load_embedding(embedding).df_table is not None
    rows = []
    for variant, weights in itertools.product(VARIANTS, WEIGHTS):
        if "corpus-idf" in weights and not has_table:
            continue
        scorer = WRDScorer(embedding=embedding, variant=variant, weights=weights)
        row: Dict = {"embedding": embedding, "variant": variant, "weights": weights, "signature": scorer.signature(),
                     "order": (order, VARIANTS.index(variant), WEIGHTS.index(weights))}
        for name, (preds, refs, human) in sets.items():
            f1 = np.asarray(scorer.score(preds, refs)["f1"], dtype=np.float64)
            row[name], row["r:" + name], row["f1:" + name] = spearmanr(f1, human)[0], pearsonr(f1, human)[0], f1
        rows.append(row)
    return rows


def rouge_row(sets: Dict[str, Set]) -> Dict:
    row: Dict = {"embedding": "ROUGE-1", "variant": "–", "weights": "–", "order": (10**6, 0, 0)}
    for name, (preds, refs, human) in sets.items():
        f1 = np.asarray(get_metric("rouge1", split_identifiers=name.startswith("IdBench")).score(preds, refs).score,
                        dtype=np.float64)
        row[name], row["r:" + name], row["f1:" + name] = spearmanr(f1, human)[0], pearsonr(f1, human)[0], f1
    return row


def mean(row: Dict, names) -> float:
    return float(np.mean([row[n] for n in names]))


def choose(rows: List[Dict], sets: Dict[str, Set], names=DEV, rouge: Optional[Dict] = None,
           n_boot: int = 1000) -> Tuple[Dict, List[Tuple[Dict, float]]]:
    """The chosen row and the ties with the best (row, two-sided paired p of best vs row)."""
    candidates = [r for r in rows if rouge is None or mean(r, IDBENCH) >= mean(rouge, IDBENCH) + ROUGE_MARGIN]
    best = max(candidates, key=lambda r: mean(r, names))
    ties = [(best, 1.0)]
    for row in candidates:
        if row is best:
            continue
        _, p = paired_bootstrap([(best["f1:" + n], row["f1:" + n], sets[n][2]) for n in names], n_boot=n_boot, seed=0)
        if p >= 0.05:
            ties.append((row, p))
    return min((r for r, _ in ties), key=lambda r: r["order"]), ties


def label(row: Dict) -> str:
    return f"{Path(row['embedding']).stem if row['embedding'].endswith('.npz') else row['embedding']}/{row['variant']}/{row['weights']}"


def report(rows: List[Dict], sets: Dict[str, Set], rouge: Dict) -> str:
    shown = [n for n in sets if n not in IDBENCH]
    lines = ["| embedding | variant | weights | " + " | ".join(f"{n} ρ | {n} r" for n in shown)
             + " | dev mean ρ | IdBench mean ρ |", "|---|---|---|" + "---:|" * (2 * len(shown) + 2)]
    for row in rows + [rouge]:
        cells = " | ".join(f"{row[n]:.4f} | {row['r:' + n]:.4f}" for n in shown)
        lines.append(f"| {label(row).split('/')[0]} | {row['variant']} | {row['weights']} | {cells} | "
                     f"{mean(row, DEV):.4f} | {mean(row, IDBENCH):.4f} |")
    chosen, ties = choose(rows, sets, rouge=rouge)
    lines += ["", f"Chosen on {' + '.join(DEV)} (mean ρ; ties p >= 0.05 go to the simpler, i.e. the first given): "
              f"**{label(chosen)}** (dev mean ρ {mean(chosen, DEV):.4f}); best "
              f"{label(ties[0][0])} ({mean(ties[0][0], DEV):.4f}); ties: "
              + ("; ".join(f"{label(r)} p={p:.3f}" for r, p in ties[1:]) or "none"), ""]
    for left_out in DEV:
        kept = tuple(n for n in DEV if n != left_out)
        alone, _ = choose(rows, sets, names=kept, rouge=rouge)
        lines.append(f"* without {left_out}: {label(alone)}")
    lines.append(f"* signature: `{chosen['signature']}`")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("embeddings", nargs="+", metavar="EMBEDDING", help="names or .npz paths, simplest first")
    parser.add_argument("--test", action="store_true", help="also score STS-B test (once, after choosing)")
    add_markdown_argument(parser, "table")
    args = parser.parse_args(argv)
    sets = load_sets(args.test)
    rows = [row for k, embedding in enumerate(args.embeddings) for row in grid(embedding, sets, k)]
    text = report(rows, sets, rouge_row(sets))
    return emit(text, args.markdown)


if __name__ == "__main__":
    sys.exit(main())
