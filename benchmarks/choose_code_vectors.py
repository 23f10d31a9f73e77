"""Code semantics and corpus aggregation in the distilled static embedding, chosen on tuning data only.

Candidates, all built with the functions ``wrdscore distill`` runs (``wrd_score.distill``), so the chosen
row is what one ``wrdscore distill`` command writes:

* ``base``: today's recipe (layer 6, ``pieces``, SIF 1e-4): the isolated-token vectors;
* ``agg-bX``: isolated vectors turned ``X`` of the way toward their corpus-aggregated contextual vectors
  (Bommasani et al. 2020; distinct method names + STS-B train, at most ``--cap`` occurrences per unit);
* ``...+retro-kK-wW``: retrofitted (Faruqui et al. 2015) toward their ``K`` nearest neighbours in the fastText
  Java space (``wrd-java-default``) with weight ``W``;
* ``...+concat-wW``: the fastText Java vector appended with cosine share ``W``.

Each is scored as a user would (``WRDScorer(embedding=path)``) with variants ``wrd``/``paper`` and masses
``norm`` and ``norm*idf`` with the IDF of the file's own fixed document-frequency table (the idf of
``wrd_score.weights.fit_idf``, ``ln((1+N)/(1+df))+1``, unseen tokens ``ln(1+N)+1``). Columns: Spearman of F1
with IdBench small/medium/large *similarity*, and STS-B dev. STS-B test and the showcase pairs are never
read here.

    python benchmarks/choose_code_vectors.py --workdir /tmp/codevec --markdown /tmp/codevec/grid.md
"""
from __future__ import annotations

import argparse
import json
import math
import os
import pickle
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DATA = REPO.parent / "shared" / "data"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

from choose_distilled import evaluate, load_sets  # noqa: E402

from wrd_score import WRDScorer  # noqa: E402
from wrd_score.embeddings import StaticEmbedding  # noqa: E402
from wrd_score.distill import (aggregate_units, blend_aggregated, build_vocabulary, concatenate_code,  # noqa: E402
                               count_tokens, default_corpora, document_frequency_table, encode_tokens,
                               load_encoder, postprocess, retrofit, save_distilled)
from wrd_score.weights import IDFTable  # noqa: E402

COLUMNS = ["idbench_small:sim", "idbench_medium:sim", "idbench_large:sim", "idbench_sim_mean", "stsb_dev"]
DOC_CORPORA = [(str(DATA / "java_method_names" / "java_method_names.txt.gz"), "identifiers"),
               (str(DATA / "stsb" / "stsb_train.tsv"), "stsb")]


def cached(path, build):
    if os.path.exists(path):
        with open(path, "rb") as handle:
            return pickle.load(handle)
    value = build()
    with open(path, "wb") as handle:
        pickle.dump(value, handle)
    return value


def fixed_idf(tokens, counts, n):
    """The table ``fit_idf`` would give over the file's documents, from the stored frequencies."""
    weights = {t: math.log((1 + n) / (1 + c)) + 1.0 for t, c in zip(tokens.tolist(), counts.tolist())}
    return IDFTable(weights, math.log(1 + n) + 1.0, n, "user")


def score_file(sets, path, variant, weights, idf):
    def fn(name, p, r):
        tok = "words" if name.startswith("stsb") else "identifier"
        scorer = WRDScorer(embedding=path, variant=variant, weights=weights, tokenizer=tok)
        return scorer.score(p, r, idf=idf if weights != "norm" else None)["f1"]
    keep = {k: v for k, v in sets.items() if k.endswith(":sim") or k == "stsb_dev"}
    return evaluate(keep, fn)


def markdown(rows):
    lines = ["| candidate | variant | weights | " + " | ".join(COLUMNS) + " |", "|" + "---|" * (3 + len(COLUMNS))]
    for r in rows:
        lines.append(f"| {r['candidate']} | {r['variant']} | {r['weights']} | "
                     + " | ".join(f"{r[c]:.3f}" for c in COLUMNS) + " |")
    return "\n".join(lines)


_LOAD = ("import sys, time; from wrd_score.embeddings import StaticEmbedding; t = time.perf_counter(); "
         "StaticEmbedding.load(sys.argv[1]); print(time.perf_counter() - t)")


def speed(files, repeat=3, n_pairs=5000):
    """Load time (fresh process, imports done) and scoring rate of each file, peers interleaved in one run:
    read the ratios against the first file, the machine may be shared."""
    import gzip
    import subprocess

    names = sorted({line.strip() for line in gzip.open(DATA / "java_method_names" / "java_method_names.txt.gz", "rt")})
    rng = np.random.RandomState(0)
    pairs = [(names[i], names[j]) for i, j in rng.randint(0, len(names), size=(n_pairs, 2))]
    sets = load_sets()
    sent_p, sent_r, _ = sets["stsb_dev"]
    best = {f: {"load": np.inf, "names": np.inf, "sentences": np.inf} for f in files}
    scorers = {f: (WRDScorer(embedding=f), WRDScorer(embedding=f, tokenizer="words")) for f in files}
    for f in files:  # warm-up: numba, OOV caches filled the same way for all
        scorers[f][0].score([p for p, _ in pairs[:100]], [r for _, r in pairs[:100]])
    for _ in range(repeat):
        for f in files:
            out = subprocess.run([sys.executable, "-c", _LOAD, f], capture_output=True, text=True, check=True,
                                 env=dict(os.environ, PYTHONPATH=str(REPO)))
            best[f]["load"] = min(best[f]["load"], float(out.stdout.strip().splitlines()[-1]))
            t = time.perf_counter()
            scorers[f][0].score([p for p, _ in pairs], [r for _, r in pairs])
            best[f]["names"] = min(best[f]["names"], time.perf_counter() - t)
            t = time.perf_counter()
            scorers[f][1].score(sent_p, sent_r)
            best[f]["sentences"] = min(best[f]["sentences"], time.perf_counter() - t)
    first = files[0]
    print(f"| file | MB | load s | {n_pairs} name pairs s (ratio) | {len(sent_p)} STS-B dev pairs s (ratio) |")
    print("|---|---|---|---|---|")
    for f in files:
        size = os.path.getsize(_path(f)) / 1e6
        b = best[f]
        print(f"| {f} | {size:.1f} | {b['load']:.3f} | {b['names']:.2f} ({b['names'] / best[first]['names']:.2f}) | "
              f"{b['sentences']:.2f} ({b['sentences'] / best[first]['sentences']:.2f}) |")


def showcase(embedding, variant="wrd", weights="norm"):
    """The paper's section-4 pairs (benchmarks/paper_examples.py), raw and rescaled F1, against the file's
    random-pair mean (its baseline): run once, on the chosen file."""
    from paper_examples import EXAMPLES

    from wrd_score.rescale import baseline_key, load_baselines, rescale

    pairs = list(dict.fromkeys(EXAMPLES))  # the list repeats one pair
    preds, refs = [p for _, p in pairs], [r for r, _ in pairs]
    raw = WRDScorer(embedding=embedding, variant=variant, weights=weights).score(preds, refs)
    # This checkout's baselines file, read directly: an installed package may map its shipped folder to another
    # checkout; rescale() is the metric's own mapping.
    mean = load_baselines(str(REPO / "embeddings" / "baselines.json"))[baseline_key(raw["signature"])]["f1"]
    scaled = {"f1": rescale(raw["f1"], mean)}
    print(f"random-pair mean F1 (baseline) {mean:.4f}; signature `{raw['signature']}`")
    print("| reference | prediction | F1 | rescaled F1 | above the random-pair mean |")
    print("|---|---|---:|---:|---|")
    for (ref, pred), f, g in zip(pairs, raw["f1"], scaled["f1"]):
        print(f"| {ref} | {pred} | {f:.4f} | {g:.4f} | {'yes' if f > mean else 'no'} |")
    print(f"| mean | | {np.mean(raw['f1']):.4f} | {np.mean(scaled['f1']):.4f} | "
          f"{sum(f > mean for f in raw['f1'])}/{len(pairs)} |")


def stsb_test(bundles):
    """Spearman on STS-B **test** of ``EMBEDDING,VARIANT,WEIGHTS`` bundles (``norm*idf``: the file's fixed table):
    run once, after the choice."""
    from scipy.stats import spearmanr

    from wrd_score.validation import read_judgments

    frame = read_judgments(str(DATA / "stsb" / "stsb_test.tsv"), "human")
    p, r, h = frame["prediction"].tolist(), frame["reference"].tolist(), frame["human"].to_numpy(float)
    print("| embedding | variant | weights | STS-B test Spearman |\n|---|---|---|---|")
    for bundle in bundles:
        embedding, variant, weights = bundle.split(",")
        idf = None
        if weights == "norm*idf":
            emb = StaticEmbedding.load(embedding)
            idf = fixed_idf(np.array(list(emb.df_table)), np.array(list(emb.df_table.values())), emb.df_documents)
        f1 = WRDScorer(embedding=embedding, variant=variant, weights=weights, tokenizer="words").score(p, r, idf=idf)["f1"]
        label = "norm*fixed-idf" if idf is not None else weights
        print(f"| {embedding} | {variant} | {label} | {spearmanr(f1, h)[0]:.3f} |")


def _path(name):
    from wrd_score.embeddings.store import _SHIPPED_FILES, shipped_path

    return shipped_path(_SHIPPED_FILES[name]) if name in _SHIPPED_FILES else name


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workdir", default="/tmp/codevec")
    ap.add_argument("--cap", type=int, default=10, help="occurrences aggregated per unit")
    ap.add_argument("--blends", type=float, nargs="*", default=[0.25, 0.5, 0.75])
    ap.add_argument("--agg-min-count", type=int, default=1)
    ap.add_argument("--retrofit", type=float, nargs="*", default=[0.25, 0.5, 0.75], help="retrofit weights")
    ap.add_argument("--concat", type=float, nargs="*", default=[0.25, 0.5], help="concatenation weights")
    ap.add_argument("--code-on", nargs="*", default=["base", "agg-b0.5"],
                    help="candidates the code methods are applied to")
    ap.add_argument("--neighbours", type=int, default=10)
    ap.add_argument("--variants", nargs="+", default=["wrd", "paper"])
    ap.add_argument("--weights", nargs="+", default=["norm", "norm*idf"])
    ap.add_argument("--prepare-only", action="store_true", help="compute the cached vectors and stop")
    ap.add_argument("--references", action="store_true", help="also the fastText Java file itself")
    ap.add_argument("--markdown")
    ap.add_argument("--speed", nargs="+", metavar="EMBEDDING",
                    help="only time these embeddings (load, scoring), ratios against the first, and stop")
    ap.add_argument("--showcase", metavar="EMBEDDING", help="only score the paper's example pairs and stop")
    ap.add_argument("--showcase-variant", default="wrd")
    ap.add_argument("--stsb-test", nargs="+", metavar="EMBEDDING,VARIANT,WEIGHTS",
                    help="only score these bundles on STS-B test and stop (once, after choosing)")
    ap.add_argument("--speed-pairs", type=int, default=20000)
    ap.add_argument("--speed-repeat", type=int, default=5)
    args = ap.parse_args(argv)
    if args.stsb_test:
        return stsb_test(args.stsb_test)
    if args.showcase:
        return showcase(args.showcase, args.showcase_variant)
    if args.speed:
        return speed(args.speed, args.speed_repeat, args.speed_pairs)
    os.makedirs(args.workdir, exist_ok=True)
    work = Path(args.workdir)

    counts = cached(work / "counts.pkl", lambda: count_tokens(default_corpora(str(DATA))))
    _, encoder, tokenizer = load_encoder("default")
    tokenizer_json = tokenizer.backend_tokenizer.to_str()
    words = build_vocabulary(counts, tokenizer, 5)
    iso = cached(work / "iso-L6-pieces.pkl", lambda: encode_tokens(encoder, tokenizer, words, [6], "pieces")[6])
    if args.blends:
        means, seen, documents = cached(work / f"agg-cap{args.cap}.pkl",
                                        lambda: aggregate_units("default", 6, DOC_CORPORA, args.cap))
        print(f"vocabulary {len(words)}; aggregated {len(means)} units from {documents} documents (cap {args.cap})",
              flush=True)
    df_tokens, df_counts, df_n = cached(work / "df.pkl", lambda: document_frequency_table(DOC_CORPORA, 2))
    df = (dict(zip(df_tokens.tolist(), df_counts.tolist())), df_n)
    idf = fixed_idf(df_tokens, df_counts, df_n)
    if args.prepare_only:
        return
    code = StaticEmbedding.load("wrd-java-default")

    raw = {"base": np.asarray(iso, dtype=np.float64)}
    for b in args.blends:
        raw[f"agg-b{b:g}"] = blend_aggregated(words, iso, means, seen, b, args.agg_min_count)[0]
    for on in args.code_on:
        for w in args.retrofit:
            raw[f"{on}+retro-k{args.neighbours}-w{w:g}"] = retrofit(words, raw[on], code, args.neighbours, w)[0]
        for w in args.concat:
            raw[f"{on}+concat-w{w:g}"] = concatenate_code(words, raw[on], code, w)
    rows = []
    if args.references:
        for variant in args.variants:
            t = time.time()
            row = score_file(load_sets(), "wrd-java-default", variant, "norm", None)
            rows.append(dict(row, candidate="fastText Java (wrd-java-default)", variant=variant, weights="norm"))
            print(rows[-1]["candidate"], variant, "norm", f"{time.time() - t:.0f}s",
                  {k: round(row[k], 3) for k in COLUMNS}, flush=True)
    sets = load_sets()
    for cand, vec in raw.items():
        file = str(work / f"{cand}.npz")
        if not os.path.exists(file):
            save_distilled(file, words, postprocess(vec, None, 1e-4), tokenizer_json, {"name": cand}, df=df)
        for variant in args.variants:
            for weights in args.weights:
                t = time.time()
                row = score_file(sets, file, variant, weights, idf)
                label = "norm*fixed-idf" if weights == "norm*idf" else weights
                rows.append(dict(row, candidate=cand, variant=variant, weights=label))
                print(cand, variant, label, f"{time.time() - t:.0f}s", {k: round(row[k], 3) for k in COLUMNS},
                      flush=True)
    text = markdown(rows)
    if args.markdown:
        Path(args.markdown).write_text(text + "\n")
    with open(work / "rows.json", "w") as handle:
        json.dump(rows, handle)
    print(text)


if __name__ == "__main__":
    main()
