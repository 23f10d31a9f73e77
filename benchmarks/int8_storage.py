"""What int8 storage does to an embedding file: size, how far it moves each row, and the scores it gives.

    python benchmarks/int8_storage.py [EMBEDDING]      # default: the shipped default file

Prints the file sizes as float16 and int8, the relative move of each row (median and largest, as a share of
its norm), the smallest cosine between a row and its stored form, and the largest F1 difference over the
IdBench and STS-B dev pairs of ../shared/data (where present) with the default bundle's masses (`norm*corpus-idf`).
"""
from __future__ import annotations

import argparse
import warnings
import os
import sys
import tempfile
from pathlib import Path

import numpy as np

from wrd_score import WRDScorer
from wrd_score.embeddings import StaticEmbedding, load_embedding, safe_norms

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("embedding", nargs="?", default="default")
    args = parser.parse_args()
    warnings.simplefilter("ignore")  # the unknown-token notes of the scored pairs are not this script's output
    emb = load_embedding(args.embedding)
    with tempfile.TemporaryDirectory() as tmp:
        half, small = os.path.join(tmp, "half.npz"), os.path.join(tmp, "small.npz")
        emb.save(half, dtype="float16")
        emb.save(small, dtype="int8")
        back = StaticEmbedding.load(small)
        print(f"{args.embedding}: float16 {os.path.getsize(half) / 1e6:.1f} MB, int8 {os.path.getsize(small) / 1e6:.1f} MB")
        a, b = emb.vectors.astype(np.float64), back.vectors.astype(np.float64)
        norms = safe_norms(a)
        live = norms > 0
        moved = safe_norms(b - a)[live] / norms[live]
        cos = (a * b).sum(1)[live] / (norms[live] * safe_norms(b)[live])
        print(f"row moved: median {np.median(moved):.2%}, largest {moved.max():.2%}; smallest cosine {cos.min():.5f}")
        pairs = []
        for name in ("idbench/idbench_large.tsv", "stsb/stsb_dev.tsv"):
            path = SHARED / name
            if path.exists():
                lines = path.read_text(encoding="utf-8").splitlines()[1:]
                pairs += [tuple(line.split("\t")[1:3]) for line in lines]
        if pairs:
            preds, refs = map(list, zip(*pairs))
            base = WRDScorer(embedding=half, weights="norm*corpus-idf").score(preds, refs)["f1"]
            quant = WRDScorer(embedding=small, weights="norm*corpus-idf").score(preds, refs)["f1"]
            print(f"F1 on {len(pairs)} IdBench large + STS-B dev pairs: largest difference "
                  f"{np.abs(np.subtract(base, quant)).max():.4f}, mean {np.abs(np.subtract(base, quant)).mean():.5f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
