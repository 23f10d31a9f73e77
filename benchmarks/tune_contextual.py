"""Tune contextual WRDScore (MiniLM) on the STS-B *dev* split, with BERTScore on the same encoder as the bar.

Grid: variant {paper, wrd} x weights {norm, idf, norm*idf, uniform} x layer (single layers and
averages) x pooling {tokenizer, wordpiece}, all with ``model="default"`` (all-MiniLM-L6-v2) and
``tokenizer="words"`` (where it acts: ``pooling="tokenizer"``; word pieces take no tokenizer); BERTScore
(``wrd_score.metrics.bertscore``) on the same encoder at its default layer, with and without IDF, for both poolings.  Each row gives Spearman and Pearson of
F1 against the human score.  The best configuration is then compared with BERTScore and with the
current contextual default (paper, norm, last layer, tokenizer pooling) by the paired bootstrap
of :func:`wrd_score.validation.paired_bootstrap` (1000 resamples, seed 0).  STS-B test is never read.

Encoding is the expensive part, so the encoder runs **once** over the distinct dev sentences,
keeping every hidden layer (the backend's own windowing and length-grouped batching); each
layer/pooling backend then gets its states (one layer, or the mean of several, computed as the
backend computes it) through the backend's memo of its last call, and every variant and weighting
scores from it.  ``--check N`` re-encodes the first N pairs from scratch for every layer setting
and asserts that the scores are identical, so the shortcut is shown not to change a number.

Usage::

    python benchmarks/tune_contextual.py --markdown /tmp/tune_contextual.md   # about 3-5 minutes on 2 cores
    python benchmarks/tune_contextual.py --check 200                          # verify the shortcut
    python benchmarks/tune_contextual.py --probes                             # ideas outside the grid
    python benchmarks/tune_contextual.py --idbench --layers 6                 # the grid on IdBench similarity
    python benchmarks/tune_contextual.py --presets                            # the contextual bundles of preset=

``--idbench`` scores the same variant x weights x pooling grid on IdBench small/medium/large (Spearman
of F1 with ``similarity``, ``tokenizer="identifier"``, the library default) for the contextual
*identifiers* preset (docs/presets.md); the identifiers there are short, so each set is simply
encoded once per layer/pooling backend (its memo serves every variant and weighting).

``--presets`` chooses the contextual bundles of ``preset=`` (wrd_score/options.py) by the rule of
``benchmarks/choose_presets.py`` (same data, same tie rule), over the last layer, both poolings, both
variants and the masses that give a pair the same score in any call (norm, uniform), with the library's
default tokenizer (``identifier``), as a user of the preset gets them.
"""
from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
from scipy.stats import pearsonr, spearmanr

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
sys.path.insert(0, str(REPO))

from wrd_score import WRDScorer  # noqa: E402
from wrd_score.validation import paired_bootstrap, read_judgments  # noqa: E402
from report_output import add_markdown_argument, emit  # noqa: E402

STSB_DEV = DATA / "stsb" / "stsb_dev.tsv"
IDBENCH = tuple(DATA / "idbench" / f"idbench_{size}.tsv" for size in ("small", "medium", "large"))
VARIANTS = ("paper", "wrd")
WEIGHTS = ("norm", "idf", "norm*idf", "uniform")
# MiniLM-L6 has 6 blocks: 6 (= -1) is the last; 0 would be the (context-free) embedding layer.
LAYERS: Tuple[str, ...] = ("6", "5", "4", "3", "2", "1", "5,6", "4,5,6", "3,4,5,6", "1,2,3,4,5,6", "0,1,2,3,4,5,6")
POOLINGS = ("tokenizer", "wordpiece")
BASE = {"backend": "contextual", "model": "default", "tokenizer": "words"}


def grid_options(pooling: str, **options: Any) -> Dict[str, Any]:
    """BASE with this pooling and ``options``: the tokenizer only where its tokens are the units (the library
    refuses one with ``pooling="wordpiece"``, whose units are the model's word pieces)."""
    base = BASE if pooling != "wordpiece" else {k: v for k, v in BASE.items() if k != "tokenizer"}
    return dict(base, pooling=pooling, **options)
DEFAULT = {"variant": "paper", "weights": "norm", "layer": "6", "pooling": "tokenizer"}


def load_dev(limit: Optional[int] = None) -> Tuple[List[str], List[str], np.ndarray]:
    frame = read_judgments(str(STSB_DEV), "human")
    frame = frame[np.isfinite(frame["human"].to_numpy())].reset_index(drop=True)
    if limit is not None:
        frame = frame.iloc[:limit]
    return frame["prediction"].tolist(), frame["reference"].tolist(), frame["human"].to_numpy(dtype=np.float64)


def _distinct(preds: List[str], refs: List[str]) -> List[str]:
    # The text list WRDScorer.score and siblings.bertscore hand to backend.encode (predictions
    # first, then references): the key of the backend's memo.
    return list(dict.fromkeys(preds + refs))


def encode_all_layers(backend, texts: List[str]):
    """The backend's per-text states with every hidden layer side by side: vectors (n, (n_layers+1) * d)."""
    import torch

    loaded = backend.loaded

    def all_layers(batch, layers, runtime="torch"):
        with loaded.lock:
            states = loaded._forward_all(batch, None, runtime=runtime)
        stacked = torch.stack(states, dim=2).float().cpu().numpy()  # (batch, seq, layers, d)
        # Flat feature axis: the backend's window stitching expects (batch, seq, features).
        return stacked.reshape(stacked.shape[0], stacked.shape[1], -1)

    loaded.hidden = all_layers  # instance attribute shadows the method for this call only
    try:
        return backend._compute_states(texts)
    finally:
        del loaded.hidden


def states_for(all_states, layers: Tuple[int, ...], dim: int):
    """One layer, or the mean of several, the way ``_LoadedModel.hidden`` computes it (float32 torch mean)."""
    import dataclasses

    import torch

    out = []
    for st in all_states:
        per_layer = st.vectors.reshape(len(st.vectors), -1, dim)
        if len(layers) == 1:
            vectors = np.ascontiguousarray(per_layer[:, layers[0]])
        else:
            vectors = torch.stack([torch.from_numpy(np.ascontiguousarray(per_layer[:, i])) for i in layers]).mean(0)
            vectors = vectors.numpy()
        out.append(dataclasses.replace(st, vectors=vectors))
    return out


def prime(options: Dict[str, Any], texts: List[str], all_states) -> Any:
    """The cached backend for these options, with its memo set to the states of ``texts``."""
    backend = WRDScorer(**options).backend
    states = states_for(all_states, backend.layers, backend.loaded.config.hidden_size)
    with backend._memo_lock:
        backend._memo_key, backend._memo = tuple(texts), states
    return backend


def wrd_f1(options: Dict[str, Any], preds: List[str], refs: List[str]) -> np.ndarray:
    return np.asarray(WRDScorer(**options).score(preds, refs)["f1"], dtype=np.float64)


def bert_f1(options: Dict[str, Any], preds: List[str], refs: List[str], idf: bool) -> np.ndarray:
    from wrd_score.metrics import bertscore

    return np.asarray(bertscore(preds, refs, idf=idf, **options)["f1"], dtype=np.float64)


def check(texts_limit: int) -> None:
    """Scores from the shared encoding equal scores from a fresh encoding (first N pairs)."""
    preds, refs, _ = load_dev(texts_limit)
    texts = _distinct(preds, refs)
    first = WRDScorer(**BASE, layer=-1).backend
    all_states = encode_all_layers(first, texts)
    worst = 0.0
    for layer, pooling in itertools.product(LAYERS, POOLINGS):
        opts = grid_options(pooling, layer=layer, variant="wrd", weights="norm*idf")
        backend = WRDScorer(**opts).backend
        with backend._memo_lock:
            backend._memo_key, backend._memo = None, None
        fresh = wrd_f1(opts, preds, refs)
        prime(opts, texts, all_states)
        shared = wrd_f1(opts, preds, refs)
        diff = float(np.max(np.abs(fresh - shared)))
        worst = max(worst, diff)
        print(f"  check layer={layer} pooling={pooling}: max |diff| {diff:.3g}", file=sys.stderr)
    print(f"check: {len(LAYERS) * len(POOLINGS)} layer/pooling settings on {len(preds)} pairs, "
          f"max |F1 shared - F1 fresh| = {worst:.3g}")
    if worst != 0.0:
        raise SystemExit("the shared encoding changed a score")


def run(layers: Sequence[str], poolings: Sequence[str], limit: Optional[int]) -> Dict[str, Any]:
    preds, refs, human = load_dev(limit)
    texts = _distinct(preds, refs)
    start = time.perf_counter()
    all_states = encode_all_layers(WRDScorer(**BASE, layer=-1).backend, texts)
    print(f"encoded {len(texts)} distinct sentences, all layers, in {time.perf_counter() - start:.1f}s",
          file=sys.stderr)
    rows: List[Dict[str, Any]] = []
    scores: Dict[str, np.ndarray] = {}

    def add(kind: str, config: Dict[str, Any], f1: np.ndarray) -> None:
        key = kind + ":" + ",".join(f"{k}={v}" for k, v in config.items())
        scores[key] = f1
        rows.append(dict(config, metric=kind, key=key, rho=float(spearmanr(f1, human)[0]),
                         r=float(pearsonr(f1, human)[0])))

    for layer, pooling in itertools.product(layers, poolings):
        opts = grid_options(pooling, layer=layer)
        prime(opts, texts, all_states)
        t0 = time.perf_counter()
        for variant, weights in itertools.product(VARIANTS, WEIGHTS):
            add("WRDScore", {"layer": layer, "pooling": pooling, "variant": variant, "weights": weights},
                wrd_f1(dict(opts, variant=variant, weights=weights), preds, refs))
        for idf in (False, True):
            add("BERTScore", {"layer": layer, "pooling": pooling, "idf": idf}, bert_f1(opts, preds, refs, idf))
        print(f"  layer={layer} pooling={pooling}: {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    return {"rows": rows, "scores": scores, "human": human, "n": len(preds)}


def probes(limit: Optional[int]) -> str:
    """Ideas outside the option grid, at the last layer: none of them is an option of the library.

    * ``clip off``: ``clip_negative=False`` (this one is an option; not in the main grid);
    * ``idf both sides``: IDF fit on predictions and references (STS pairs are symmetric), passed as ``idf=``;
    * ``idf bert_score``: bert_score's IDF ``ln((N+1)/(df+1))`` (no +1 floor), passed as ``idf=``;
    * ``centred``: every vector minus the mean content-token vector of the dev sentences (anisotropy);
    * ``unbalanced OT``: POT's ``mm_unbalanced`` (KL marginal penalty ``tau``) in place of exact transport,
      P/R as the ``paper`` means of the plan weighted by the token masses (between greedy and exact OT).
    """
    import dataclasses
    import math

    import ot

    from wrd_score.metrics import bertscore
    from wrd_score.weights import IDFTable, document_frequencies, fit_idf

    preds, refs, human = load_dev(limit)
    texts = _distinct(preds, refs)
    all_states = encode_all_layers(WRDScorer(**BASE, layer=-1).backend, texts)
    lines = ["### Probes outside the grid (layer 6, STS-B dev)", "",
             "| pooling | metric | variant | weights | probe | Spearman | Pearson |", "|---|---|---|---|---|---:|---:|"]

    def add(pooling, metric, variant, weights, probe, f1):
        f1 = np.asarray(f1, dtype=np.float64)
        lines.append(f"| {pooling} | {metric} | {variant} | {weights} | {probe} | {spearmanr(f1, human)[0]:.4f} "
                     f"| {pearsonr(f1, human)[0]:.4f} |")
        print(lines[-1], file=sys.stderr)

    for pooling in POOLINGS:
        opts = grid_options(pooling, layer="6")
        backend = prime(opts, texts, all_states)
        both = fit_idf(backend.tokenize(t) for t in preds + refs)
        df, n = document_frequencies(backend.tokenize(t) for t in refs)
        bs_idf = IDFTable({k: math.log((n + 1) / (c + 1)) for k, c in df.items()}, math.log(n + 1), n, "user")
        for variant, weights in itertools.product(VARIANTS, WEIGHTS):
            o = dict(opts, variant=variant, weights=weights)
            add(pooling, "WRDScore", variant, weights, "clip off", WRDScorer(**o, clip_negative=False).score(preds, refs)["f1"])
            if "idf" in weights:
                add(pooling, "WRDScore", variant, weights, "idf both sides",
                    WRDScorer(**o).score(preds, refs, idf=both)["f1"])
                add(pooling, "WRDScore", variant, weights, "idf bert_score",
                    WRDScorer(**o).score(preds, refs, idf=bs_idf)["f1"])
        states = states_for(all_states, backend.layers, backend.loaded.config.hidden_size)
        mean = np.concatenate([st.vectors[~st.special] for st in states]).mean(0)
        with backend._memo_lock:
            backend._memo_key = tuple(texts)
            backend._memo = [dataclasses.replace(st, vectors=(st.vectors - mean).astype(np.float32)) for st in states]
        for variant, weights in itertools.product(VARIANTS, WEIGHTS):
            add(pooling, "WRDScore", variant, weights, "centred",
                WRDScorer(**opts, variant=variant, weights=weights).score(preds, refs)["f1"])
        for idf in (False, True):
            add(pooling, "BERTScore", "greedy", "idf" if idf else "no idf", "centred",
                bertscore(preds, refs, idf=idf, **opts)["f1"])
        if pooling != "wordpiece":
            continue
        prime(opts, texts, all_states)
        enc = backend.encode(texts)
        row = {t: i for i, t in enumerate(texts)}
        for weights, tau in itertools.product(("uniform", "norm"), (0.05, 0.2, 1.0)):
            f1 = []
            for p, r in zip(preds, refs):
                sp, sr = enc.spans[row[p]], enc.spans[row[r]]
                cos = np.clip(enc.units[sp] @ enc.units[sr].T, 0.0, 1.0)
                a = np.ones(len(sp)) if weights == "uniform" else enc.norms[sp].copy()
                b = np.ones(len(sr)) if weights == "uniform" else enc.norms[sr].copy()
                a, b = a / a.sum(), b / b.sum()
                plan = ot.unbalanced.mm_unbalanced(a, b, 1.0 - cos, reg_m=tau, div="kl", numItermax=500)
                moved = plan * cos
                rows, cols = plan.sum(1), plan.sum(0)
                prec = float(np.dot(a, np.divide(moved.sum(1), rows, out=np.zeros_like(rows), where=rows > 1e-12)))
                rec = float(np.dot(b, np.divide(moved.sum(0), cols, out=np.zeros_like(cols), where=cols > 1e-12)))
                f1.append(2 * prec * rec / (prec + rec) if prec + rec > 0 else 0.0)
            add(pooling, "WRDScore", "unbalanced OT", weights, f"tau={tau}", f1)
    return "\n".join(lines)


def idbench(layers: Sequence[str], poolings: Sequence[str]) -> str:
    """The grid on IdBench similarity (see the module docstring): a markdown table, best mean first."""
    sets = []
    for path in IDBENCH:
        frame = read_judgments(str(path), "similarity")
        frame = frame[np.isfinite(frame["similarity"].to_numpy())].reset_index(drop=True)
        sets.append((frame["prediction"].tolist(), frame["reference"].tolist(), frame["similarity"].to_numpy()))
    rows = []
    for layer, pooling in itertools.product(layers, poolings):
        for variant, weights in itertools.product(VARIANTS, WEIGHTS):
            opts = {"backend": "contextual", "model": "default", "layer": layer, "pooling": pooling,
                    "variant": variant, "weights": weights}
            rhos = [float(spearmanr(wrd_f1(opts, preds, refs), human)[0]) for preds, refs, human in sets]
            rows.append((layer, pooling, variant, weights, rhos))
    rows.sort(key=lambda r: -float(np.mean(r[4])))
    lines = ["### Contextual MiniLM on IdBench (Spearman of F1 with similarity, tokenizer identifier)", "",
             "| layer | pooling | variant | weights | small | medium | large | mean |", "|---|---|---|---|---:|---:|---:|---:|"]
    for layer, pooling, variant, weights, rhos in rows:
        lines.append(f"| {layer} | {pooling} | {variant} | {weights} | " + " | ".join(f"{r:.4f}" for r in rhos)
                     + f" | {np.mean(rhos):.4f} |")
    return "\n".join(lines)


def preset_bundles() -> str:
    """The contextual bundles by choose_presets.py's rule (see the module docstring)."""
    import choose_presets as cp  # the sibling script: one rule for static and contextual bundles

    sets = {name: cp.load_set(path, human) for name, path, human in cp.SETS}
    f1s: Dict[Tuple[str, str, str, str], np.ndarray] = {}
    for pooling, (name, (preds, refs, _)) in itertools.product(POOLINGS, sets.items()):
        for variant, weights in itertools.product(VARIANTS, ("norm", "uniform")):
            # Set by set: the backend's memo of the last call serves the four settings of one set.
            opts = {"backend": "contextual", "model": "default", "layer": -1, "pooling": pooling,
                    "variant": variant, "weights": weights}
            f1s[pooling, variant, weights, name] = wrd_f1(opts, preds, refs)
    rows = []
    for pooling, variant, weights in itertools.product(POOLINGS, VARIANTS, ("norm", "uniform")):
        row: Dict[str, Any] = {"embedding": f"contextual {pooling}", "variant": variant, "weights": weights,
                               "fixed": True}
        for name, (_, _, human) in sets.items():
            f1 = f1s[pooling, variant, weights, name]
            row[name], row["f1:" + name] = float(spearmanr(f1, human)[0]), f1
            row["pearson:" + name] = float(pearsonr(f1, human)[0])
        rows.append(row)
    text = cp.report(rows, sets).replace("| embedding |", "| pooling (layer -1) |")
    pearson = ["", "STS-B dev Pearson (the held-out MT report was a Pearson):", ""]
    pearson += [f"* {r['embedding']}, {r['variant']}, {r['weights']}: {r['pearson:STS-B dev']:.4f}" for r in rows]
    return text + "\n" + "\n".join(pearson)


def _fmt_config(row: Dict[str, Any]) -> str:
    if row["metric"] == "BERTScore":
        return f"BERTScore, layer {row['layer']}, {row['pooling']}, idf={'yes' if row['idf'] else 'no'}"
    return f"WRDScore, layer {row['layer']}, {row['pooling']}, {row['variant']}, {row['weights']}"


def report(result: Dict[str, Any], top: Optional[int], n_boot: int) -> str:
    rows, scores, human = result["rows"], result["scores"], result["human"]
    ranked = sorted(rows, key=lambda r: (-r["rho"], -r["r"]))
    wrd = [r for r in ranked if r["metric"] == "WRDScore"]
    bert_bar = [r for r in ranked if r["metric"] == "BERTScore" and r["layer"] == "6"]
    default = next((r for r in rows if r["metric"] == "WRDScore" and all(r[k] == v for k, v in DEFAULT.items())), None)
    lines = [f"### Contextual MiniLM on STS-B dev ({result['n']} pairs), F1 against the human score", "",
             "| rank | metric | layer | pooling | variant | weights / idf | Spearman | Pearson |",
             "|---:|---|---|---|---|---|---:|---:|"]
    shown = ranked if top is None else ranked[:top]
    extra = [r for r in (bert_bar + ([default] if default else [])) if r not in shown]
    for row in shown + extra:
        rank = ranked.index(row) + 1
        what = row["weights"] if row["metric"] == "WRDScore" else ("idf" if row["idf"] else "no idf")
        lines.append(f"| {rank} | {row['metric']} | {row['layer']} | {row['pooling']} | {row.get('variant', 'greedy')} "
                     f"| {what} | {row['rho']:.4f} | {row['r']:.4f} |")
    lines += ["", "Best per layer setting (either pooling):", "",
              "| layer | best WRDScore (pooling, variant, weights) | Spearman | Pearson | best BERTScore (pooling, idf) "
              "| Spearman |", "|---|---|---:|---:|---|---:|"]
    for layer in dict.fromkeys(r["layer"] for r in rows):
        w = next(r for r in wrd if r["layer"] == layer)
        b = next(r for r in ranked if r["metric"] == "BERTScore" and r["layer"] == layer)
        lines.append(f"| {layer} | {w['pooling']}, {w['variant']}, {w['weights']} | {w['rho']:.4f} | {w['r']:.4f} "
                     f"| {b['pooling']}, {'idf' if b['idf'] else 'no idf'} | {b['rho']:.4f} |")
    best = wrd[0]
    lines += ["", f"Best WRDScore configuration: **{_fmt_config(best)}** (Spearman {best['rho']:.4f}, "
              f"Pearson {best['r']:.4f}).", "",
              f"Paired bootstrap ({n_boot} resamples, seed 0): Δρ = ρ(best) − ρ(other), p = the chance of a |Δρ| "
              "this large if the two did not differ (wrd_score.stats.paired_p_value).", "",
              "| other | its Spearman | Δρ | p |", "|---|---:|---:|---:|"]
    others = bert_bar + ([default] if default is not None and default is not best else [])
    for other in others:
        diff, p = paired_bootstrap([(scores[best["key"]], scores[other["key"]], human)], n_boot=n_boot, seed=0)
        lines.append(f"| {_fmt_config(other)} | {other['rho']:.4f} | {diff:+.4f} | {p:.3f} |")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--layers", nargs="+", default=list(LAYERS), help="layer settings (e.g. 6 '4,5,6')")
    parser.add_argument("--poolings", nargs="+", default=list(POOLINGS), choices=POOLINGS)
    parser.add_argument("--limit", type=int, default=None, help="only the first N dev pairs (smoke test)")
    parser.add_argument("--top", type=int, default=None, help="rows of the table to print (default: all)")
    parser.add_argument("--bootstrap", type=int, default=1000, help="paired bootstrap resamples (default 1000)")
    parser.add_argument("--check", type=int, default=None, metavar="N",
                        help="verify on the first N pairs that the shared encoding gives the fresh scores, then exit")
    parser.add_argument("--probes", action="store_true",
                        help="instead of the grid, run the probes outside it (clip, IDF fits, centring, unbalanced OT)")
    parser.add_argument("--idbench", action="store_true",
                        help="instead of STS-B dev, score the grid on IdBench similarity (small, medium, large)")
    parser.add_argument("--presets", action="store_true",
                        help="instead of the grid, choose the contextual bundles of preset= (choose_presets.py's rule)")
    add_markdown_argument(parser, "report")
    args = parser.parse_args(argv)
    if not STSB_DEV.is_file():
        print(f"STS-B dev not found at {STSB_DEV}", file=sys.stderr)
        return 2
    if args.check:
        check(args.check)
        return 0
    start = time.perf_counter()
    if args.presets:
        text = preset_bundles()
    elif args.idbench:
        text = idbench(args.layers, args.poolings)
    elif args.probes:
        text = probes(args.limit)
    else:
        result = run(args.layers, args.poolings, args.limit)
        text = report(result, args.top, args.bootstrap) + f"\n\n({len(result['rows'])} configurations"
        text += f", {time.perf_counter() - start:.0f}s in all)"
    return emit(text, args.markdown)

if __name__ == "__main__":
    sys.exit(main())
