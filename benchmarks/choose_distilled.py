"""Choose the distilled static default on tuning data only (IdBench, STS-B dev).

One pass through the encoder per pooling gives every layer (``wrd_score.distill.encode_tokens``);
each candidate (layer, pooling, PCA, SIF, vocabulary) is written as an ``.npz`` in ``--workdir`` and
scored through the library as a user would (``WRDScorer(embedding=path)``) under every variant x
weights.  Columns: Spearman of F1 with the human score on IdBench small/medium/large similarity and
relatedness, and Spearman/Pearson on STS-B dev.  ROUGE-1, the fastText embedding that was the
default before, and contextual WRDScore on MiniLM are scored on the same rows for reference.
STS-B test is never read here.

    python benchmarks/choose_distilled.py --workdir /tmp/distill --markdown /tmp/distill/grid.md
"""
from __future__ import annotations

import argparse
import json
import os
import pickle
import sys
import time
from pathlib import Path

import numpy as np
from scipy.stats import pearsonr, spearmanr

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
sys.path.insert(0, str(REPO))

from wrd_score import WRDScorer  # noqa: E402
from wrd_score.distill import (build_vocabulary, count_tokens, default_corpora, encode_tokens,  # noqa: E402
                               load_encoder, postprocess, save_distilled)
from wrd_score.validation import read_judgments  # noqa: E402

SETS = {f"idbench_{s}": DATA / "idbench" / f"idbench_{s}.tsv" for s in ("small", "medium", "large")}


def load_sets():
    out = {}
    for name, path in SETS.items():
        frame = read_judgments(str(path), "human")
        for col, short in (("similarity", "sim"), ("relatedness", "rel")):
            vals = frame[col].to_numpy(dtype=float)
            keep = np.isfinite(vals)
            out[f"{name}:{short}"] = (frame["prediction"][keep].tolist(), frame["reference"][keep].tolist(), vals[keep])
    frame = read_judgments(str(DATA / "stsb" / "stsb_dev.tsv"), "human")
    out["stsb_dev"] = (frame["prediction"].tolist(), frame["reference"].tolist(), frame["human"].to_numpy(float))
    return out


def evaluate(sets, score_fn):
    row = {}
    for name, (p, r, h) in sets.items():
        f1 = np.asarray(score_fn(name, p, r))
        row[name] = spearmanr(f1, h)[0]
        if name == "stsb_dev":
            row["stsb_dev:pearson"] = pearsonr(f1, h)[0]
    row["idbench_sim_mean"] = float(np.mean([row[k] for k in row if k.endswith(":sim")]))
    return row


def wrd_scorer(options):
    def fn(name, p, r):
        tok = "words" if name.startswith("stsb") else "identifier"
        return WRDScorer(**options, tokenizer=tok).score(p, r)["f1"]
    return fn


COLUMNS = ["idbench_small:sim", "idbench_medium:sim", "idbench_large:sim", "idbench_sim_mean",
           "idbench_small:rel", "idbench_medium:rel", "idbench_large:rel", "stsb_dev", "stsb_dev:pearson"]


def markdown(rows):
    head = "| candidate | variant | weights | " + " | ".join(COLUMNS) + " |"
    lines = [head, "|" + "---|" * (3 + len(COLUMNS))]
    for r in rows:
        lines.append(f"| {r['candidate']} | {r['variant']} | {r['weights']} | "
                     + " | ".join(f"{r[c]:.3f}" for c in COLUMNS) + " |")
    return "\n".join(lines)


def corpus_sif(vectors, words, counts, sif):
    """SIF with each token's share of the corpus as p(w): the hand-written alternative to model2vec's
    rank-based Zipf weights, kept here to reproduce the grids that compared them."""
    total = sum(counts.values()) or 1
    p = np.array([counts.get(w, 0) / total for w in words])
    return np.asarray(vectors, dtype=np.float64) * (sif / (sif + p))[:, None]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", default="/tmp/distill")
    ap.add_argument("--layers", type=int, nargs="+", default=[0, 1, 2, 3, 4, 5, 6])
    ap.add_argument("--poolings", nargs="+", default=["pieces", "all"])
    ap.add_argument("--min-count", type=int, nargs="+", default=[5])
    ap.add_argument("--pca", type=int, nargs="+", default=[0])
    ap.add_argument("--sif", type=float, nargs="+", default=[0.0])
    ap.add_argument("--sif-kind", choices=["zipf", "corpus"], default="zipf",
                    help="zipf: model2vec's rank-based weights (what wrdscore distill does); corpus: corpus shares")
    ap.add_argument("--variants", nargs="+", default=["paper", "wrd"])
    ap.add_argument("--weights", nargs="+", default=["norm", "idf", "norm*idf", "uniform"])
    ap.add_argument("--references", action="store_true", help="also ROUGE-1, the fastText embedding, contextual")
    ap.add_argument("--markdown")
    args = ap.parse_args(argv)
    os.makedirs(args.workdir, exist_ok=True)
    sets = load_sets()
    rows = []
    if args.references:
        from wrd_score.metrics import rouge

        from wrd_score.tokenize import split_identifier

        def rouge_fn(name, p, r):
            # Identifiers are split first (getCount -> get count): the stronger ROUGE-1 bar.
            if not name.startswith("stsb"):
                p, r = [" ".join(split_identifier(t)) for t in p], [" ".join(split_identifier(t)) for t in r]
            return rouge(p, r)["rouge1"]

        row = evaluate(sets, rouge_fn)
        rows.append(dict(row, candidate="ROUGE-1", variant="-", weights="-"))
        print("ROUGE-1", {k: round(row[k], 3) for k in COLUMNS}, flush=True)
        refs = {"fasttext (wrd-java-default)": dict(embedding="wrd-java-default"),
                "contextual MiniLM": dict(backend="contextual")}
        for cand, opts in refs.items():
            for variant in args.variants:
                for weights in args.weights:
                    t = time.time()
                    row = evaluate(sets, wrd_scorer(dict(opts, variant=variant, weights=weights)))
                    rows.append(dict(row, candidate=cand, variant=variant, weights=weights))
                    print(cand, variant, weights, f"{time.time() - t:.1f}s", {k: round(row[k], 3) for k in COLUMNS},
                          flush=True)
    counts_path = os.path.join(args.workdir, "counts.pkl")
    if os.path.exists(counts_path):
        counts = pickle.load(open(counts_path, "rb"))
    else:
        counts = count_tokens(default_corpora(str(DATA)))
        pickle.dump(counts, open(counts_path, "wb"))
    path, encoder, tokenizer = load_encoder("default")
    tokenizer_json = tokenizer.backend_tokenizer.to_str()
    base_vocab = build_vocabulary(counts, tokenizer, min(args.min_count))
    for pooling in args.poolings:
        cache = os.path.join(args.workdir, f"enc-{pooling}-min{min(args.min_count)}.npz")
        if os.path.exists(cache):
            with np.load(cache) as data:
                encoded = {int(k[1:]): data[k] for k in data.files}
        else:
            t = time.time()
            encoded = encode_tokens(encoder, tokenizer, base_vocab, list(range(7)), pooling)
            np.savez(cache, **{f"l{k}": v for k, v in encoded.items()})
            print(f"encoded {len(base_vocab)} tokens ({pooling}) in {time.time() - t:.0f}s", flush=True)
        for layer in args.layers:
            for min_count in args.min_count:
                vocab = build_vocabulary(counts, tokenizer, min_count)
                pos = {w: i for i, w in enumerate(base_vocab)}
                base = encoded[layer][[pos[w] for w in vocab]]
                for pca in args.pca:
                    for sif in args.sif:
                        kind = "" if args.sif_kind == "zipf" or not sif else "c"
                        cand = f"{pooling}-L{layer}-min{min_count}-pca{pca}-sif{kind}{sif:g}"
                        file = os.path.join(args.workdir, cand + ".npz")
                        if not os.path.exists(file):
                            if args.sif_kind == "corpus" and sif:
                                vec = corpus_sif(postprocess(base, pca or None, None), vocab, counts, sif)
                            else:
                                vec = postprocess(base, pca or None, sif or None)
                            save_distilled(file, vocab, vec, tokenizer_json, {"name": cand})
                        for variant in args.variants:
                            for weights in args.weights:
                                row = evaluate(sets, wrd_scorer(dict(embedding=file, variant=variant, weights=weights)))
                                rows.append(dict(row, candidate=cand, variant=variant, weights=weights))
                                print(cand, variant, weights, {k: round(row[k], 3) for k in COLUMNS}, flush=True)
    rows.sort(key=lambda r: -r["idbench_sim_mean"])
    text = markdown(rows)
    if args.markdown:
        Path(args.markdown).write_text(text + "\n")
    json.dump(rows, open(os.path.join(args.workdir, "rows.json"), "w"))
    print(text)


if __name__ == "__main__":
    main()
