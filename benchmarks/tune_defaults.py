"""Choose WRDScore's defaults on tuning data only: IdBench (similarity) and the STS-B *dev* split.

Every configuration scores every tuning pair once (WRDScore F1), and the table gives its Spearman
correlation with the human score per set, their mean, and the MSE/MAE of the raw (and, where a
baseline exists, the rescaled) F1 against the human score mapped to [0, 1].  The ``--finalists``
step reruns the best configurations through the validation harness to get bootstrap CIs and a
paired bootstrap test against the current default.  STS-B test is never read here.

Sections (pick with ``--sections``; each prints one markdown table):

* ``static-idbench``: the shipped default embedding on IdBench small/medium/large: variant x
  weights x OOV policy x tokenizer (identifier splitting on/off).
* ``static-stsb``: GloVe 6B 50d on STS-B dev: variant x weights x tokenizer.
* ``contextual``: MiniLM (``backend="contextual"``) on STS-B dev and IdBench: variant x weights x
  layer x pooling (selective; see CONTEXTUAL_GRID).
* ``rescale``: MSE/MAE with and without baseline rescaling for the candidate defaults.

Usage::

    python benchmarks/tune_defaults.py --sections static-idbench static-stsb
    python benchmarks/tune_defaults.py --sections contextual --markdown /tmp/contextual.md
"""
from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import numpy as np
from scipy.stats import pearsonr, spearmanr

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
sys.path.insert(0, str(REPO))

from wrd_score import WRDScorer  # noqa: E402
from wrd_score.validation import read_judgments  # noqa: E402
from report_output import add_markdown_argument, emit  # noqa: E402

IDBENCH = {f"idbench_{s}": DATA / "idbench" / f"idbench_{s}.tsv" for s in ("small", "medium", "large")}
STSB_DEV = {"stsb_dev": DATA / "stsb" / "stsb_dev.tsv"}
HUMAN_RANGE = {"idbench": (0.0, 1.0), "stsb": (0.0, 5.0)}

VARIANTS = ("paper", "wrd")
WEIGHTS = ("norm", "idf", "norm*idf", "uniform")


def _load(sets: Dict[str, Path], human: str = "human", subset: Optional[int] = None) -> Dict[str, Any]:
    out = {}
    for name, path in sets.items():
        frame = read_judgments(str(path), human)
        keep = np.isfinite(frame[human].to_numpy())
        frame = frame[keep].reset_index(drop=True)
        if subset is not None and subset < len(frame):
            # A fixed random subset (seed 0) where encoding every text per layer would take too long.
            rows = np.sort(np.random.default_rng(0).choice(len(frame), size=subset, replace=False))
            frame = frame.iloc[rows].reset_index(drop=True)
            name = f"{name}[{subset}]"
        lo, hi = HUMAN_RANGE[name.split("_")[0]]
        out[name] = (frame["prediction"].tolist(), frame["reference"].tolist(),
                     (frame[human].to_numpy() - lo) / (hi - lo))
    return out


def _evaluate(options: Dict[str, Any], name: str, data: Any, row: Dict[str, Any]) -> None:
    preds, refs, human = data
    f1 = np.asarray(WRDScorer(**options).score(preds, refs)["f1"])
    row[f"{name}:rho"] = float(spearmanr(f1, human)[0])
    row[f"{name}:r"] = float(pearsonr(f1, human)[0])
    row[f"{name}:mse"] = float(np.mean((f1 - human) ** 2))
    row[f"{name}:mae"] = float(np.mean(np.abs(f1 - human)))
    if not options.get("rescale_with_baseline"):
        try:
            resc = np.asarray(WRDScorer(**options, rescale_with_baseline=True).score(preds, refs)["f1"])
        except ValueError:
            return  # no baseline for this configuration yet
        row[f"{name}:mse_resc"] = float(np.mean((resc - human) ** 2))
        row[f"{name}:mae_resc"] = float(np.mean(np.abs(resc - human)))


def _table(title: str, rows: List[Dict[str, Any]], keys: Sequence[str], sets: Sequence[str]) -> str:
    cols = list(keys) + [f"ρ {s}" for s in sets] + ["mean ρ"] + [f"MSE {s}" for s in sets]
    resc = any(f"{s}:mse_resc" in r for r in rows for s in sets)
    if resc:
        cols += [f"MSE resc. {s}" for s in sets]
    lines = [f"### {title}", "", "| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in sorted(rows, key=lambda r: -r["mean_rho"]):
        cells = [str(row.get(k, "")) for k in keys] + [f"{row[s + ':rho']:.3f}" for s in sets]
        cells.append(f"**{row['mean_rho']:.3f}**")
        cells += [f"{row[s + ':mse']:.3f}" for s in sets]
        if resc:
            cells += [f"{row[s + ':mse_resc']:.3f}" if s + ":mse_resc" in row else "–" for s in sets]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _grid(base: Dict[str, Any], **axes: Sequence[Any]) -> List[Dict[str, Any]]:
    keys = list(axes)
    return [dict(base, **dict(zip(keys, values))) for values in itertools.product(*axes.values())]


def _run(title: str, grid: List[Dict[str, Any]], sets: Dict[str, Any], keys: Sequence[str]) -> str:
    # Sets outermost: a contextual backend memoises the encoding of its last call, so the
    # configurations that share a backend (same layer/pooling) reuse one forward pass per set.
    rows: List[Optional[Dict[str, Any]]] = [dict(options, seconds=0.0) for options in grid]
    for name, data in sets.items():
        for i, options in enumerate(grid):
            row = rows[i]
            if row is None:
                continue
            start = time.perf_counter()
            try:
                _evaluate(options, name, data, row)
            except (ValueError, TypeError) as exc:  # e.g. an option the backend does not have
                print(f"  skipped {options}: {exc}", file=sys.stderr)
                rows[i] = None
                continue
            row["seconds"] += time.perf_counter() - start
            print(f"  {name} [{i + 1}/{len(grid)}] {options} rho {row[name + ':rho']:.3f} "
                  f"({time.perf_counter() - start:.1f}s)", file=sys.stderr)
    done = [r for r in rows if r is not None]
    for row in done:
        row["mean_rho"] = float(np.mean([row[f"{name}:rho"] for name in sets]))
    return _table(title, done, keys, list(sets))


# Contextual grid: the MiniLM layer and pooling options of the contextual backend (6 layers).
CONTEXTUAL_GRID: Dict[str, Sequence[Any]] = {}


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sections", nargs="+", default=["static-idbench", "static-stsb"],
                        choices=["static-idbench", "static-stsb", "contextual", "rescale"])
    parser.add_argument("--layers", nargs="+", type=int, default=None, help="contextual: layers to try")
    parser.add_argument("--poolings", nargs="+", default=None, help="contextual: pooling options to try")
    parser.add_argument("--stsb-subset", type=int, default=None,
                        help="contextual: score only this many STS-B dev pairs (fixed seed-0 subset)")
    parser.add_argument("--weights", nargs="+", default=None, help="contextual: weights to try")
    parser.add_argument("--variants", nargs="+", default=None, help="contextual: variants to try")
    parser.add_argument("--embedding", default="default", help="static-idbench: the static embedding (default: shipped)")
    add_markdown_argument(parser)
    args = parser.parse_args(argv)
    if not DATA.is_dir():
        print(f"shared data not found at {DATA}", file=sys.stderr)
        return 2
    tables = []
    idbench = _load(IDBENCH)
    stsb = None
    if "static-idbench" in args.sections:
        grid = _grid({"embedding": args.embedding}, variant=VARIANTS, weights=WEIGHTS, oov=("auto", "exact", "drop"),
                     tokenizer=("identifier", "words"))
        tables.append(_run("Shipped static embedding on IdBench (similarity), Spearman of F1", grid, idbench,
                           ("variant", "weights", "oov", "tokenizer")))
    if "static-stsb" in args.sections:
        stsb = _load(STSB_DEV)
        grid = _grid({"embedding": "glove-6b-50d"}, variant=VARIANTS, weights=WEIGHTS,
                     tokenizer=("identifier", "words"))
        tables.append(_run("GloVe 6B 50d on STS-B dev, Spearman of F1", grid, stsb,
                           ("variant", "weights", "tokenizer")))
    if "contextual" in args.sections:
        stsb = _load(STSB_DEV, subset=args.stsb_subset)
        axes: Dict[str, Sequence[Any]] = {"variant": args.variants or VARIANTS,
                                          "weights": args.weights or ("norm", "idf", "uniform")}
        if args.layers:
            axes["layer"] = args.layers
        if args.poolings:
            axes["pooling"] = args.poolings
        # Backend options vary slowest: one backend memoises its last encoding, so variants and
        # weights of one layer/pooling reuse it.
        axes = dict(sorted(axes.items(), key=lambda kv: kv[0] not in ("layer", "pooling")))
        grid = _grid({"backend": "contextual"}, **axes)
        both = dict(stsb, **idbench)
        tables.append(_run("MiniLM (contextual) on STS-B dev and IdBench, Spearman of F1", grid, both, list(axes)))
    if "rescale" in args.sections:
        stsb = stsb or _load(STSB_DEV)
        both = dict(stsb, **idbench)
        grid = [{"embedding": "default", "variant": v} for v in VARIANTS]
        grid += [{"embedding": "glove-6b-50d", "variant": v} for v in VARIANTS]
        grid += [{"backend": "contextual", "variant": v} for v in VARIANTS]
        tables.append(_run("Raw vs rescaled F1: MSE against the human score in [0, 1]", grid, both,
                           ("backend", "embedding", "variant")))
    text = "\n\n".join(tables)
    return emit(text, args.markdown)


if __name__ == "__main__":
    sys.exit(main())
