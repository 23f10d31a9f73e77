"""How far each variant's documented symmetry holds on real pairs (the numbers SECURITY.md quotes).

    python benchmarks/symmetry.py          # 20,000 method-name pairs, 2,000 STS-B sentence pairs (seed 0)

For every pair it scores both orders and prints, per variant and workload, the largest
``|R(p, r) - R(r, p)|`` (``wrd``: the transport value, symmetric), ``|P(p, r) - R(r, p)|`` (``paper``:
symmetric; ``wrd``: not, P is greedy) and the largest ``R - P`` (``wrd``: never above 0 but rounding).
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import speed  # noqa: E402  (the speed benchmark's workloads, same seed)

from wrd_score import WRDScorer  # noqa: E402


def main() -> int:
    names = list(speed.iter_method_name_pairs(speed.load_names_by_file(), 20_000, 0))
    workloads = {"method names (20,000)": (names, "identifier"),
                 "STS-B sentences (2,000)": (speed.sentence_pairs(2_000, 0), "words")}
    print("| variant | workload | max abs(R(p,r) - R(r,p)) | max abs(P(p,r) - R(r,p)) | max R - P |")
    print("|---|---|---:|---:|---:|")
    for variant in ("wrd", "paper"):
        for label, (pairs, tokenizer) in workloads.items():
            scorer = WRDScorer(variant=variant, tokenizer=tokenizer)
            preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
            fwd, bwd = scorer.score(preds, refs), scorer.score(refs, preds)
            p, r = np.asarray(fwd["precision"]), np.asarray(fwd["recall"])
            r_back = np.asarray(bwd["recall"])
            print(f"| {variant} | {label} | {np.abs(r - r_back).max():.3g} | {np.abs(p - r_back).max():.3g} | "
                  f"{(r - p).max():.3g} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
