"""Where one-thread static scoring spends its CPU time, stage by stage, beside rouge_score (issue 23).

Same workloads and seed as ``benchmarks/speed.py`` (method-name pairs, STS-B sentence pairs).  Each
figure is the least CPU time (``time.process_time``) of ``--repeat`` calls with the cyclic garbage
collector paused; CPU time rather than wall-clock because the machine may be shared.  Stages:

  whole score()      ``WRDScorer(num_threads=1).score(predictions, references)``
  tokenise           ``backend.tokenize_all`` on the call's distinct texts
  encode             ``backend.encode`` on them (tokenise included: vocabulary lookup, unit rows)
    of which unit rows ``embeddings.table_unit_rows`` on the table rows that encode passes it
  masses             ``token_masses`` (norm * corpus IDF)
  score_pairs        ``scoring.score_pairs`` (flattening, compiled kernel, POT fallbacks)
    of which cosines the kernel's ``_cosines`` alone on every pair it solves
    of which simplex ``transport.simplex.simplex`` after them on every pair of 2+ tokens a side
  other              whole - encode - masses - score_pairs (input checks, dedup, result dict)
  first call         whole score() after ``clear_oov_cache()``: the composed vectors of unknown tokens
                     that the embedding keeps from one call to the next are composed again, as in a
                     fresh process (the other rows are repeated calls, which find them kept)

    python benchmarks/static_stages.py            # 20,000 names, 2,000 sentences, best of 5
"""
from __future__ import annotations

import argparse
import gc
import os
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import speed  # noqa: E402  (the workloads, so both scripts time the same pairs)


def cpu_time(func: Callable[[], object], repeat: int, setup: Callable[[], object] = lambda: None) -> float:
    best = float("inf")
    for _ in range(repeat):
        setup()
        gc.collect()
        gc.disable()
        try:
            start = time.process_time()
            func()
            best = min(best, time.process_time() - start)
        finally:
            gc.enable()
    return best


_HARNESS = None


def _kernel_harness():
    """A compiled loop over the pairs running the kernel's own steps up to ``stage`` (1: cosines,
    2: and the simplex), so that their CPU time can be read apart from the rest of the kernel."""
    global _HARNESS
    if _HARNESS is None:
        from numba import njit

        from wrd_score import transport
        from wrd_score.transport import batch, simplex as solver

        cosines, simplex, same_bag, wide = batch._cosines, solver.simplex, batch._same_bag, batch._WIDE
        tree_len = solver.tree_len

        @njit
        def harness(units, rows, mass, offsets, pairs, stage):
            size = 2
            for t in range(offsets.shape[0] - 1):
                size = max(size, offsets[t + 1] - offsets[t])
            cells = min(size * size, transport.MAX_CELLS)
            cos, C, x, keys = np.empty(cells), np.empty(cells), np.empty(cells), np.empty(cells)
            basic = np.empty(cells, dtype=np.bool_)
            acc = np.empty(cells + 14 * size + 49)
            u, v, alpha, beta = np.empty(size), np.empty(size), np.empty(size), np.empty(size)
            row_seen, col_seen = np.empty(size, dtype=np.bool_), np.empty(size, dtype=np.bool_)
            queue, parent = np.empty(2 * size, dtype=np.int64), np.empty(2 * size, dtype=np.int64)
            path_i, path_j = np.empty(2 * size, dtype=np.int64), np.empty(2 * size, dtype=np.int64)
            tree = np.empty(tree_len(cells, size), dtype=np.int64)
            for k in range(pairs.shape[0]):
                a, b = pairs[k, 0], pairs[k, 1]
                rp, rr = rows[offsets[a]:offsets[a + 1]], rows[offsets[b]:offsets[b + 1]]
                mp, mr = mass[offsets[a]:offsets[a + 1]], mass[offsets[b]:offsets[b + 1]]
                m, n = rp.shape[0], rr.shape[0]
                if m == 0 or n == 0 or m * n > cells or (m == n and same_bag(rp, rr, mp, mr, a == b, queue, parent)):
                    continue
                cm, Cm = cos[:m * n].reshape((m, n)), C[:m * n].reshape((m, n))
                cosines(units, rp, rr, 0.0, cm, Cm, acc, wide)
                if stage >= 2 and m > 1 and n > 1:
                    simplex(mp, mr, Cm, m, n, x[:m * n].reshape((m, n)), basic[:m * n].reshape((m, n)), u, v,
                            row_seen, col_seen, queue, parent, path_i, path_j, alpha, beta, tree, keys, 50 * (m + n) * (m + n))

        _HARNESS = harness
    return _HARNESS


def stages(pairs: speed.Pairs, scorer_kwargs: dict, repeat: int) -> Dict[str, float]:
    from wrd_score import WRDScorer
    from wrd_score.embeddings import table_unit_rows
    from wrd_score.scoring import score_pairs
    from wrd_score.weights import token_masses

    scorer = WRDScorer(num_threads=1, **scorer_kwargs)
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    scorer.score(preds[:200], refs[:200])  # warm-up: embedding load, numba cache
    texts = list(dict.fromkeys(preds + refs))
    index = {t: i for i, t in enumerate(texts)}
    rows = np.array([(index[p], index[r]) for p, r in pairs], dtype=np.int64)
    enc = scorer.backend.encode(texts)
    o = scorer.options
    # As score() calls it: with the rows in the vocabulary where encode gives them (not before they existed).
    by_row = (enc.vocabulary,) if getattr(enc, "vocabulary", None) is not None else ()
    masses = token_masses(enc.norms, enc.tokens, o.weights, scorer.corpus_idf, *by_row)
    table = scorer.backend.embedding.vectors
    table_rows = np.array([max(scorer.backend.embedding.index.get(t, -1), 0) for t in enc.tokens], dtype=np.int64)
    out = {
        "rouge_score ROUGE-1": cpu_time(lambda: speed.run_rouge(pairs), repeat),
        "whole score()": cpu_time(lambda: scorer.score(preds, refs), repeat),
        "whole score(), first call": cpu_time(lambda: scorer.score(preds, refs), repeat,
                                              scorer.backend.embedding.clear_oov_cache),
        "tokenise": cpu_time(lambda: scorer.backend.tokenize_all(texts), repeat),
        "encode (tokenise included)": cpu_time(lambda: scorer.backend.encode(texts), repeat),
        "  of which unit rows": cpu_time(lambda: table_unit_rows(table, table_rows), repeat),
        "masses": cpu_time(lambda: token_masses(enc.norms, enc.tokens, o.weights, scorer.corpus_idf, *by_row), repeat),
        "score_pairs": cpu_time(lambda: score_pairs(enc, texts, rows, masses, o.variant, o.clip_negative, 1), repeat),
    }
    from wrd_score.scoring import _flatten_texts

    flat_rows, flat_mass, offsets = _flatten_texts(enc.spans, masses)
    units = np.ascontiguousarray(enc.units, dtype=np.float64)
    harness = _kernel_harness()
    harness(units, flat_rows, flat_mass, offsets, rows, 2)  # compile
    cos_only = cpu_time(lambda: harness(units, flat_rows, flat_mass, offsets, rows, 1), repeat)
    with_simplex = cpu_time(lambda: harness(units, flat_rows, flat_mass, offsets, rows, 2), repeat)
    out["  of which cosines"] = cos_only
    out["  of which simplex"] = max(with_simplex - cos_only, 0.0)
    out["other"] = out["whole score()"] - out["encode (tokenise included)"] - out["masses"] - out["score_pairs"]
    out["  first call: composing unknown tokens"] = out["whole score(), first call"] - out["whole score()"]
    return out


def main(argv: List[str] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--names", type=int, default=20_000)
    parser.add_argument("--sentences", type=int, default=2_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    names = list(speed.iter_method_name_pairs(speed.load_names_by_file(), args.names, args.seed))
    sentences = speed.sentence_pairs(args.sentences, args.seed)
    table = {"method names": stages(names, {}, args.repeat),
             "STS-B sentences": stages(sentences, {"tokenizer": "words"}, args.repeat)}
    print(f"# static scoring, one thread: CPU seconds per stage (least of {args.repeat}; seed {args.seed}); "
          f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{args.names:,} method-name pairs, {args.sentences:,} sentence pairs")
    print()
    print("| stage | " + " | ".join(table) + " |")
    print("|---|" + "---:|" * len(table))
    for stage in next(iter(table.values())):
        print(f"| {stage} | " + " | ".join(f"{t[stage]:.4f}" for t in table.values()) + " |")
    print("| whole vs ROUGE-1 (pairs per CPU second) | " + " | ".join(
        f"{t['rouge_score ROUGE-1'] / t['whole score()']:.2f}x" for t in table.values()) + " |")
    print("| first call vs ROUGE-1 | " + " | ".join(
        f"{t['rouge_score ROUGE-1'] / t['whole score(), first call']:.2f}x" for t in table.values()) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
