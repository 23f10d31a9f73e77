"""Does sentence-aware transport help WRDScore?  (issue 16; the measurement behind docs/validation.md)

SMS adds sentences to WMS's transport (Clark et al. 2019).  The same for WRDScore, on the static default:

* ``WRD``        -- the default metric (word nodes, norm masses, cost 1 - cos, variant ``wrd``);
* ``S+WRD``      -- words and sentences in one bag: a sentence node is the mean of its word vectors,
                    its mass the sum of its words' masses (so sentences hold half of each side's mass);
* ``SRD``        -- sentences alone;
* ``S+WRD-multi`` -- ``S+WRD`` only where a side has more than one sentence, ``WRD`` elsewhere.

P/R are read off the plan as the ``wrd`` variant does (recall = sum F cos, precision = mass-weighted best
cosine), so ``WRD`` computed here equals ``wrd_score.score`` (checked below).  Tuning data only by default:
IdBench small/medium/large (similarity) and STS-B dev (all pairs, and the pairs with a multi-sentence side).
``--test`` scores STS-B test instead (run once, after the decision).

    python benchmarks/sentence_transport.py [--test]      (from the repository root; ../shared/data beside it)
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Dict, List, Tuple

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from wrd_score import WRDScorer  # noqa: E402
from wrd_score.metrics.wms import split_sentences  # noqa: E402
from wrd_score.scoring import f1_score  # noqa: E402
from wrd_score.transport import prf_from_plan  # noqa: E402
from wrd_score.transport import emd_plan  # noqa: E402
from wrd_score.validation import correlation_stats, paired_bootstrap, read_judgments  # noqa: E402

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "data")
VARIANTS = ("WRD", "S+WRD", "SRD", "S+WRD-multi")


def bags(texts: List[str], scorer: WRDScorer) -> Tuple[list, List[int]]:
    """Per text: (word units, word rows, word masses, sentence units, sentence masses), its sentence count."""
    sentences = [split_sentences(t) for t in texts]
    flat = list(dict.fromkeys(s for group in sentences for s in group))
    where = {s: i for i, s in enumerate(flat)}
    enc = scorer.backend.encode(flat)
    raw = enc.units * enc.norms[:, None]
    out = []
    for group in sentences:
        spans = [enc.spans[where[s]] for s in group]
        spans = [s for s in spans if len(s)]
        if not spans:
            out.append(None)
            continue
        words = np.concatenate(spans)
        sent = np.stack([raw[s].mean(axis=0) for s in spans])
        sent_units = sent / np.maximum(np.linalg.norm(sent, axis=1, keepdims=True), 1e-300)
        out.append((enc.units[words], words, enc.norms[words], sent_units,
                    np.array([enc.norms[s].sum() for s in spans])))
    return out, [len(g) for g in sentences]


def transport_f1(units_p, ids_p, mass_p, units_r, ids_r, mass_r) -> float:
    cos = np.clip(units_p @ units_r.T, 0.0, 1.0)
    # As wrd_score.scoring.cosine_matrix: the same static row (token) matches itself exactly, with or
    # without a vector; sentence nodes have negative ids and no such twin.
    cos[(ids_p[:, None] == ids_r[None, :]) & (ids_p[:, None] >= 0)] = 1.0
    mass_p, mass_r = mass_p / mass_p.sum(), mass_r / mass_r.sum()
    flow = emd_plan(mass_p, mass_r, 1.0 - cos)
    precision, recall = prf_from_plan(cos, flow, mass_p, "wrd")
    return float(f1_score(precision, recall))


def nodes(bag, variant: str):
    units_w, rows_w, mass_w, units_s, mass_s = bag
    rows_s = -1 - np.arange(len(mass_s))
    if variant == "WRD":
        return units_w, rows_w, mass_w
    if variant == "SRD":
        return units_s, rows_s, mass_s
    return np.vstack([units_w, units_s]), np.concatenate([rows_w, rows_s]), np.concatenate([mass_w, mass_s])


def score_file(path: str, human: str) -> Tuple[Dict[str, np.ndarray], np.ndarray, np.ndarray]:
    frame = read_judgments(path, human)
    preds, refs = frame["prediction"].tolist(), frame["reference"].tolist()
    scorer = WRDScorer()
    texts = list(dict.fromkeys(preds + refs))
    index = {t: i for i, t in enumerate(texts)}
    text_bags, n_sent = bags(texts, scorer)
    reference = np.asarray(scorer.score(preds, refs)["f1"])
    scores = {v: np.empty(len(preds)) for v in VARIANTS}
    multi = np.zeros(len(preds), dtype=bool)
    for k, (p, r) in enumerate(zip(preds, refs)):
        bp, br = text_bags[index[p]], text_bags[index[r]]
        multi[k] = n_sent[index[p]] > 1 or n_sent[index[r]] > 1
        for v in VARIANTS:
            if bp is None or br is None:
                scores[v][k] = reference[k]  # a token-less side: the empty-text rule, as WRDScore
                continue
            chosen = v if v != "S+WRD-multi" else ("S+WRD" if multi[k] else "WRD")
            scores[v][k] = transport_f1(*nodes(bp, chosen), *nodes(br, chosen))
    gap = np.max(np.abs(scores["WRD"] - reference))
    assert gap < 1e-9, f"the harness's WRD differs from wrd_score.score by {gap}"
    return scores, np.asarray(frame[human], dtype=np.float64), multi


def report(name: str, scores: Dict[str, np.ndarray], human: np.ndarray, rows: np.ndarray, lo: float, hi: float):
    print(f"\n{name} (n = {int(rows.sum())})")
    print("| variant | Spearman [95% CI] | Δρ vs WRD | p(Δρ ≤ 0) |\n|---|---|---|---|")
    for v in VARIANTS:
        s = correlation_stats(scores[v][rows], human[rows], (lo, hi), n_boot=1000, seed=0)
        cells = [v, f"{s['spearman']:.3f} [{s['spearman_lo']:.2f}, {s['spearman_hi']:.2f}]", "–", "–"]
        if v != "WRD":
            diff, p = paired_bootstrap([(scores[v][rows], scores["WRD"][rows], human[rows])], n_boot=1000, seed=0)
            cells[2:] = [f"{diff:+.3f}", f"{p:.3f}"]
        print("| " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--test", action="store_true", help="score STS-B test (once, after choosing)")
    args = parser.parse_args()
    if args.test:
        files = [("stsb/stsb_test.tsv", "human", 0, 5)]
    else:
        files = [(f"idbench/idbench_{size}.tsv", "similarity", 0, 1) for size in ("small", "medium", "large")]
        files.append(("stsb/stsb_dev.tsv", "human", 0, 5))
    for rel, human, lo, hi in files:
        scores, values, multi = score_file(os.path.join(DATA, rel), human)
        rows = np.isfinite(values)
        report(rel, scores, values, rows, lo, hi)
        if multi.any():
            report(rel + ", pairs with a multi-sentence side", scores, values, rows & multi, lo, hi)


if __name__ == "__main__":
    main()
