"""Throughput of the batched WRDScore scorer against its peers, on the same pairs, in one run (issue 3).

Workloads (reproducible from ``--seed``):
  1. method-name pairs from ``../shared/data/java_method_names/``: names from different files
     paired at random, plus a share of near-duplicates (case/separator changes, a subtoken dropped,
     added or swapped);
  2. sentence pairs from ``../shared/data/stsb/`` (all gold pairs of train/dev/test, topped up with
     re-paired sentences), scored with ``preset="sentences"`` (its own file since 0.3.0), as a user would.
Peers, timed end to end from raw strings: rouge_score ROUGE-1 (no stemmer), the naive loop (encode
the distinct texts once, then one ``ot.emd`` per pair: the reference path ``pair_scores``), and the
new scorer (``WRDScorer.score``) with 1 and 2 threads.  Exactness: the new scorer's P and R against
the naive loop on every pair that the naive loop scored.  Streaming: peak RSS of a child process that
scores ``--stream-pairs`` method-name pairs generated on the fly with ``wrd_score.stream.iter_scores``.

    python benchmarks/speed.py --quick     # 1-2 minutes: 20k names, 2k sentences, 100k streamed
    python benchmarks/speed.py             # full: 100k names, 10k sentences, 1M streamed

Timings on a shared machine are noisy: read the ratios (peers measured in the same run), and take
each figure as the best of ``--repeat`` runs.
"""
from __future__ import annotations

import argparse
import csv
import gc
import gzip
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Tuple

import numpy as np

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
Pairs = List[Tuple[str, str]]


# ---------------------------------------------------------------------------------- workloads
def load_names_by_file() -> Tuple[np.ndarray, List[str]]:
    """File index (int32) and name of every row of the Java method-name corpus (compact: ~60 MB)."""
    files: Dict[str, int] = {}
    file_ids = []
    names = []
    with gzip.open(SHARED / "java_method_names" / "java_method_names_by_file.tsv.gz", "rt", encoding="utf-8") as f:
        next(f)
        for line in f:
            repo, path, name, _ = line.rstrip("\n").split("\t")
            file_ids.append(files.setdefault(repo + "/" + path, len(files)))
            names.append(name)
    return np.asarray(file_ids, dtype=np.int32), names


def _near_duplicate(name: str, rng: random.Random, donors: List[str]) -> str:
    from wrd_score.tokenize import split_identifier

    parts = split_identifier(name) or ["x"]
    kind = rng.randrange(4)
    if kind == 0 and len(parts) > 1:  # one subtoken dropped
        del parts[rng.randrange(len(parts))]
    elif kind == 1:  # one subtoken added from another name
        extra = split_identifier(rng.choice(donors)) or ["get"]
        parts.insert(rng.randrange(len(parts) + 1), rng.choice(extra))
    elif kind == 2:  # one subtoken swapped for another name's
        extra = split_identifier(rng.choice(donors)) or ["get"]
        parts[rng.randrange(len(parts))] = rng.choice(extra)
    style = rng.randrange(3)  # and the spelling style changes
    if style == 0:
        return parts[0] + "".join(p.capitalize() for p in parts[1:])
    if style == 1:
        return "_".join(parts)
    return "".join(p.capitalize() for p in parts)


def iter_method_name_pairs(corpus: Tuple[np.ndarray, List[str]], count: int, seed: int,
                           near_share: float = 0.2) -> Iterator[Tuple[str, str]]:
    """``count`` pairs: a name and a name from another file, or (``near_share``) a near-duplicate."""
    file_ids, names = corpus
    rng = random.Random(seed)
    size = len(names)
    for _ in range(count):
        a = rng.randrange(size)
        if rng.random() < near_share:
            yield names[a], _near_duplicate(names[a], rng, names)
            continue
        while True:
            b = rng.randrange(size)
            if file_ids[b] != file_ids[a]:
                break
        yield names[a], names[b]


def sentence_pairs(count: int, seed: int) -> Pairs:
    pairs: Pairs = []
    for split in ("train", "dev", "test"):
        with open(SHARED / "stsb" / f"stsb_{split}.tsv", encoding="utf-8") as f:
            rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))[1:]
        pairs += [(r[1], r[2]) for r in rows]
    rng = random.Random(seed)
    rng.shuffle(pairs)
    sentences = [s for pair in pairs for s in pair]
    while len(pairs) < count:  # top up with re-paired sentences
        pairs.append((rng.choice(sentences), rng.choice(sentences)))
    return pairs[:count]


# ---------------------------------------------------------------------------------- peers
_CPU: Dict[int, float] = {}  # id(result) -> CPU seconds of the call that made it


def best_time(func: Callable[[], object], repeat: int) -> Tuple[float, object]:
    """Best wall-clock seconds of ``repeat`` calls; the CPU seconds of that call go to ``_CPU``."""
    best, result, cpu = float("inf"), None, float("inf")
    for _ in range(repeat):
        # As timeit does: no cyclic-GC pass inside the timed call, whose cost would depend on
        # how many objects this benchmark happens to hold (the corpus), not on the peer timed.
        gc.collect()
        gc.disable()
        try:
            start, start_cpu = time.perf_counter(), time.process_time()
            result = func()
            wall = time.perf_counter() - start
        finally:
            gc.enable()
        if wall < best:
            best, cpu = wall, time.process_time() - start_cpu
    _CPU["last"] = cpu
    return best, result


def run_rouge(pairs: Pairs) -> List[float]:
    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=False)
    return [scorer.score(ref, pred)["rouge1"].fmeasure for pred, ref in pairs]


def run_naive(scorer, pairs: Pairs):
    """Encode each distinct text once, then one POT ``ot.emd`` (``pair_scores``) per pair."""
    from wrd_score.scoring import _score_pairs_reference
    from wrd_score.weights import token_masses

    texts: Dict[str, int] = {}
    for pred, ref in pairs:
        texts.setdefault(pred, len(texts))
        texts.setdefault(ref, len(texts))
    text_list = list(texts)
    enc = scorer.backend.encode(text_list)
    masses = token_masses(enc.norms, enc.tokens, scorer.options.weights, scorer.corpus_idf)  # None unless corpus-idf
    index = np.array([(texts[p], texts[r]) for p, r in pairs], dtype=np.int64).reshape(-1, 2)
    return _score_pairs_reference(enc, text_list, index, masses, scorer.options.variant, scorer.options.clip_negative)


def run_new(scorer, pairs: Pairs):
    out = scorer.score([p for p, _ in pairs], [r for _, r in pairs])
    return np.asarray(out["precision"]), np.asarray(out["recall"])


def encode_only(scorer, pairs: Pairs) -> None:
    scorer.backend.encode(list(dict.fromkeys(t for pair in pairs for t in pair)))


def peak_rss_mb() -> float:
    """This process's peak resident set (VmHWM).  Not getrusage's ru_maxrss: on Linux a child
    started with fork+exec inherits the parent's maxrss, which would hide the child's own peak."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0
    except OSError:  # pragma: no cover - not Linux
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


# ---------------------------------------------------------------------------------- children
def stream_child(count: int, seed: int, chunk_size: int) -> None:
    """Score ``count`` generated pairs with iter_scores; print throughput and peak RSS as JSON."""
    from wrd_score import WRDScorer
    from wrd_score.stream import iter_scores

    rows = load_names_by_file()
    scorer = WRDScorer(num_threads=1)
    scorer.score(["warmUp"], ["warm_up"])
    rss_before = peak_rss_mb()
    start = time.perf_counter()
    total, n = 0.0, 0
    for result in iter_scores(scorer, iter_method_name_pairs(rows, count, seed + 1), chunk_size=chunk_size):
        total += result.f1
        n += 1
    seconds = time.perf_counter() - start
    print(json.dumps({"pairs": n, "seconds": seconds, "mean_f1": total / max(n, 1),
                      "rss_before_mb": rss_before, "peak_rss_mb": peak_rss_mb()}))


def compile_child() -> None:
    from wrd_score import transport

    print(json.dumps({"seconds": transport.compile_kernels()}))


def load_child() -> None:
    """Time StaticEmbedding.load("default") in a fresh process, after the imports it needs."""
    from wrd_score.embeddings import StaticEmbedding

    start = time.perf_counter()
    StaticEmbedding.load("default")
    print(json.dumps({"seconds": time.perf_counter() - start}))


def run_child(args: List[str], env: Dict[str, str] = None) -> dict:
    out = subprocess.run([sys.executable, __file__] + args, capture_output=True, text=True,
                         env=dict(os.environ, **(env or {})))
    if out.returncode != 0:
        raise RuntimeError(f"child {args} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------------- main
def workload_rows(label: str, pairs: Pairs, scorer_kwargs: dict, repeat: int, naive_max: int) -> List[dict]:
    from wrd_score import WRDScorer

    one = WRDScorer(num_threads=1, **scorer_kwargs)
    two = WRDScorer(num_threads=2, **scorer_kwargs)
    run_new(one, pairs[:200])  # warm-up: embedding load, numba cache
    n = len(pairs)
    naive_pairs = pairs[:naive_max] if naive_max else pairs
    t_naive, (ref_p, ref_r) = best_time(lambda: run_naive(one, naive_pairs), 1)
    cpu = {"naive": _CPU["last"]}
    t_rouge = t_one = t_cold = t_two = t_enc = float("inf")
    embedding = one.backend.embedding  # both workloads are static
    for _ in range(repeat):  # peers interleaved, so a burst of load from elsewhere hits all of them
        t, _ = best_time(lambda: run_rouge(pairs), 1)
        t_rouge, cpu["rouge"] = min(t_rouge, t), min(cpu.get("rouge", np.inf), _CPU["last"])
        # A first call: the composed vectors of unknown tokens that the embedding keeps from call to
        # call are forgotten (untimed) before it, so it composes them as a fresh process would.
        embedding.clear_oov_cache()
        t, (p0, r0) = best_time(lambda: run_new(one, pairs), 1)
        t_cold, cpu["cold"] = min(t_cold, t), min(cpu.get("cold", np.inf), _CPU["last"])
        t, (p1, r1) = best_time(lambda: run_new(one, pairs), 1)
        t_one, cpu["one"] = min(t_one, t), min(cpu.get("one", np.inf), _CPU["last"])
        t, (p2, r2) = best_time(lambda: run_new(two, pairs), 1)
        t_two, cpu["two"] = min(t_two, t), min(cpu.get("two", np.inf), _CPU["last"])
        t, _ = best_time(lambda: encode_only(one, pairs), 1)
        t_enc, cpu["enc"] = min(t_enc, t), min(cpu.get("enc", np.inf), _CPU["last"])
    k = len(naive_pairs)
    diff = max(np.abs(p1[:k] - ref_p).max(), np.abs(r1[:k] - ref_r).max())
    same_threads = bool(np.array_equal(p1, p2) and np.array_equal(r1, r2))
    same_first = bool(np.array_equal(p0, p1) and np.array_equal(r0, r1))
    rouge_rate = n / t_rouge
    naive_rate = k / t_naive
    rouge_cpu_rate = n / cpu["rouge"]
    rows = []
    for method, pairs_n, seconds, cpu_s in (("rouge_score ROUGE-1", n, t_rouge, cpu["rouge"]),
                                            ("naive ot.emd loop", k, t_naive, cpu["naive"]),
                                            ("new scorer, 1 thread", n, t_one, cpu["one"]),
                                            ("new scorer, 1 thread, first call", n, t_cold, cpu["cold"]),
                                            ("new scorer, 2 threads", n, t_two, cpu["two"]),
                                            ("  of which tokenise+embed", n, t_enc, cpu["enc"])):
        rate = pairs_n / seconds
        rows.append({"workload": label, "method": method, "pairs": pairs_n, "seconds": seconds, "rate": rate,
                     "vs_rouge": rate / rouge_rate, "vs_naive": rate / naive_rate, "cpu": cpu_s,
                     "cpu_vs_rouge": pairs_n / cpu_s / rouge_cpu_rate})
    rows[2]["note"] = f"max |diff| vs ot.emd on {k:,} pairs: {diff:.1e}"
    rows[3]["note"] = ("composed vectors of unknown tokens not kept from the call before; "
                       + ("scores identical" if same_first else "scores DIFFER"))
    rows[4]["note"] = "identical to 1 thread" if same_threads else "DIFFERS from 1 thread"
    rows[5]["note"] = "WRDScorer's encode of the distinct texts, included in the rows above"
    return rows


def evaluate_rows(pairs: Pairs, repeat: int) -> List[dict]:
    """The evaluate path (``evaluate.load("wrdscore.py").compute``, the design card's main use) against
    ``WRDScorer.score`` on the same pairs in this process, and the input checks alone (what both run first:
    ``check_texts`` on the predictions, ``check_references`` on the references)."""
    import evaluate
    from wrd_score import WRDScorer
    from wrd_score.checks import check_references, check_texts

    predictions, references = [p for p, _ in pairs], [r for _, r in pairs]
    scorer = WRDScorer()  # what compute() builds: the default options
    module = evaluate.load(str(REPO / "wrdscore.py"))
    module.compute(predictions=predictions[:200], references=references[:200])  # warm-up
    run_new(scorer, pairs[:200])
    n = len(pairs)
    t_lib = t_eval = t_check = t_check_lists = float("inf")
    lists = [[r] for r in references]
    for _ in range(repeat):  # interleaved, so a burst of load from elsewhere hits all of them
        t, lib = best_time(lambda: scorer.score(predictions, references), 1)
        t_lib = min(t_lib, t)
        t, out = best_time(lambda: module.compute(predictions=predictions, references=references), 1)
        t_eval = min(t_eval, t)
        t, _ = best_time(lambda: (check_texts("predictions", predictions), check_references(references, n)), 1)
        t_check = min(t_check, t)
        t, _ = best_time(lambda: (check_texts("predictions", predictions), check_references(lists, n)), 1)
        t_check_lists = min(t_check_lists, t)
    same = out == lib
    rows = [{"method": "WRDScorer.score", "seconds": t_lib, "vs_score": 1.0, "note": "the library, default options"},
            {"method": "evaluate compute()", "seconds": t_eval, "vs_score": t_lib / t_eval,
             "note": "evaluate.load('wrdscore.py'); " + ("same result as WRDScorer.score" if same else "result DIFFERS")},
            {"method": "input checks, one reference each", "seconds": t_check, "vs_score": t_lib / t_check,
             "note": "check_texts + check_references: strings"},
            {"method": "input checks, lists of one", "seconds": t_check_lists, "vs_score": t_lib / t_check_lists,
             "note": "the same with each reference in a list"}]
    for row in rows:
        row["pairs"], row["rate"] = n, n / row["seconds"]
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller workloads (about a minute)")
    parser.add_argument("--names", type=int, help="method-name pairs (default 100,000; quick 20,000)")
    parser.add_argument("--sentences", type=int, help="sentence pairs (default 10,000; quick 2,000)")
    parser.add_argument("--stream-pairs", type=int, help="streamed pairs (default 1,000,000; quick 100,000; 0 = skip)")
    parser.add_argument("--naive-max", type=int, help="pairs for the naive loop (default all; quick 5,000)")
    parser.add_argument("--repeat", type=int, help="best of N interleaved timings (default 3; quick 2)")
    parser.add_argument("--evaluate-pairs", type=int,
                        help="method-name pairs for the evaluate path (default 50,000; 0 = skip)")
    parser.add_argument("--chunk-size", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stream-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--compile-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--load-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.stream_child is not None:
        stream_child(args.stream_child, args.seed, args.chunk_size)
        return 0
    if args.compile_child:
        compile_child()
        return 0
    if args.load_child:
        load_child()
        return 0
    if not SHARED.is_dir():
        print(f"shared data not found at {SHARED}", file=sys.stderr)
        return 2
    quick = args.quick
    n_names = args.names or (20_000 if quick else 100_000)
    n_sent = args.sentences or (2_000 if quick else 10_000)
    n_stream = args.stream_pairs if args.stream_pairs is not None else (100_000 if quick else 1_000_000)
    naive_max = args.naive_max if args.naive_max is not None else (5_000 if quick else 0)
    repeat = args.repeat or (2 if quick else 3)

    from wrd_score import transport

    with tempfile.TemporaryDirectory() as cache:
        fresh = run_child(["--compile-child"], {"NUMBA_CACHE_DIR": cache})["seconds"]
        cached = run_child(["--compile-child"], {"NUMBA_CACHE_DIR": cache})["seconds"]
    load_s = min(run_child(["--load-child"])["seconds"] for _ in range(repeat))
    rows_by_file = load_names_by_file()
    names = list(iter_method_name_pairs(rows_by_file, n_names, args.seed))
    sentences = sentence_pairs(n_sent, args.seed)
    table = workload_rows("method names", names, {}, repeat, naive_max)
    table += workload_rows("STS-B sentences", sentences, {"preset": "sentences"}, repeat, naive_max)
    n_eval = args.evaluate_pairs if args.evaluate_pairs is not None else 50_000
    evaluate_table = evaluate_rows(list(iter_method_name_pairs(rows_by_file, n_eval, args.seed)), repeat) \
        if n_eval else []
    main_rss = peak_rss_mb()
    stream = run_child(["--stream-child", str(n_stream), "--seed", str(args.seed), "--chunk-size",
                        str(args.chunk_size)]) if n_stream else None

    from wrd_score.tokenize import split_identifier, split_words

    tok_names = np.mean([len(split_identifier(t)) for pair in names[:5000] for t in pair])
    tok_sent = np.mean([len(split_words(t)) for pair in sentences[:5000] for t in pair])
    print(f"# WRDScore speed benchmark ({'quick' if quick else 'full'}; seed {args.seed}; best of {repeat})")
    print(f"cpu cores available: {len(os.sched_getaffinity(0))}; load average at end: "
          f"{', '.join(f'{x:.2f}' for x in os.getloadavg())}; numba: {transport.HAVE_NUMBA}")
    print(f"numba kernels: first compile {fresh:.1f} s, later processes load the cache in {cached:.2f} s")
    print(f"load default embedding (fresh process, best of {repeat}): {load_s:.2f} s; target < 0.5 s: "
          f"{'met' if load_s < 0.5 else 'NOT met'}")
    print(f"method names: {n_names:,} pairs, {tok_names:.1f} subtokens per name; "
          f"sentences: {n_sent:,} pairs, {tok_sent:.1f} words per sentence")
    print()
    print("Wall-clock pairs/s and ratios; CPU s is the process's CPU time (all threads) for the same call, less")
    print("sensitive to other load on a shared machine, and 'CPU vs ROUGE-1' compares pairs per CPU second.")
    print("Every timed call runs with the cyclic garbage collector paused, as timeit does.")
    print()
    print("| workload | method | pairs | seconds | pairs/s | vs ROUGE-1 | vs naive ot.emd | CPU s | CPU vs ROUGE-1 | note |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in table:
        print(f"| {r['workload']} | {r['method']} | {r['pairs']:,} | {r['seconds']:.2f} | {r['rate']:,.0f} | "
              f"{r['vs_rouge']:.2f} | {r['vs_naive']:.1f} | {r['cpu']:.2f} | {r['cpu_vs_rouge']:.2f} | "
              f"{r.get('note', '')} |")
    print()
    print(f"peak RSS of this process (both workloads, all peers): {main_rss:.0f} MB")
    if stream:
        print(f"streaming {stream['pairs']:,} method-name pairs with iter_scores(chunk_size={args.chunk_size:,}), "
              f"1 thread: {stream['seconds']:.1f} s ({stream['pairs'] / stream['seconds']:,.0f} pairs/s), "
              f"peak RSS {stream['peak_rss_mb']:.0f} MB (after loading: {stream['rss_before_mb']:.0f} MB); "
              f"target < 1024 MB: {'met' if stream['peak_rss_mb'] < 1024 else 'NOT met'}")
    if evaluate_table:
        print()
        print(f"The evaluate path on {evaluate_table[0]['pairs']:,} method-name pairs (default options, every core), "
              "against WRDScorer.score on the same pairs in this process:")
        print()
        print("| method | pairs | seconds | pairs/s | throughput vs WRDScorer.score | note |")
        print("|---|---:|---:|---:|---:|---|")
        for r in evaluate_table:
            print(f"| {r['method']} | {r['pairs']:,} | {r['seconds']:.3f} | {r['rate']:,.0f} | {r['vs_score']:.2f} | "
                  f"{r['note']} |")
        ev, checks = evaluate_table[1], evaluate_table[2]
        print()
        print(f"aims (issue 33): evaluate >= 0.45x WRDScorer.score: {ev['vs_score']:.2f} "
              f"({'met' if ev['vs_score'] >= 0.45 else 'NOT met'}); checks of {checks['pairs']:,} pairs < 0.03 s: "
              f"{checks['seconds']:.3f} s ({'met' if checks['seconds'] < 0.03 else 'NOT met'})")
    names_rows = {r["method"]: r for r in table if r["workload"] == "method names"}
    sent_rows = {r["method"]: r for r in table if r["workload"] == "STS-B sentences"}
    one_name, one_sent = names_rows["new scorer, 1 thread"], sent_rows["new scorer, 1 thread"]
    first = "new scorer, 1 thread, first call"

    def verdict(row, aim):
        return (f"{row['vs_rouge']:.2f} wall, {row['cpu_vs_rouge']:.2f} CPU "
                f"({'met' if min(row['vs_rouge'], row['cpu_vs_rouge']) >= aim else 'NOT met'})")

    # Issue 23: one thread against rouge_score timed in this run (same pairs, interleaved repeats).
    print(f"aims, 1 thread vs ROUGE-1: names >= 1.5: {verdict(one_name, 1.5)}, first call "
          f"{verdict(names_rows[first], 1.5)}; sentences >= 1.0: {verdict(one_sent, 1.0)}, first call "
          f"{verdict(sent_rows[first], 1.0)}; names vs naive >= 10: {one_name['vs_naive']:.1f}; "
          f"2 threads on names: {names_rows['new scorer, 2 threads']['vs_rouge']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
