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
from typing import Callable, Dict, Iterator, List, Optional, Tuple

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


def evaluate_profile(pairs: Pairs) -> Dict[str, object]:
    """Where one evaluate ``compute()`` on ``pairs`` spends its time (cProfile, own time of each function, summed by
    the package the function lives in): evaluate's own and datasets'/pyarrow's storing and reading back, against
    the library's scoring."""
    import cProfile
    import pstats

    import evaluate

    predictions, references = [p for p, _ in pairs], [r for _, r in pairs]
    module = evaluate.load(str(REPO / "wrdscore.py"))
    module.compute(predictions=predictions[:200], references=references[:200])
    profiler = cProfile.Profile()
    profiler.enable()
    module.compute(predictions=predictions, references=references)
    profiler.disable()
    stats = pstats.Stats(profiler).stats
    known = ("wrd_score", "evaluate", "datasets", "pyarrow", "numpy", "numba")

    def package(func, depth=0):
        """The package a function's time belongs to: its file's; for a built-in or the standard library (a lock
        waited on, a regex run, numpy.fromiter), the package of its heaviest caller, up to four calls up."""
        where = func[0].replace("\\", "/")
        own = next((p for p in known if f"/{p}/" in where), None)
        if own is None and where.endswith("wrdscore.py"):
            own = "wrdscore.py (the module)"
        if own is not None or depth == 4:
            return own or "Python and its standard library"
        callers = stats.get(func, (0, 0, 0, 0, {}))[4]
        if not callers:
            return "Python and its standard library"
        return package(max(callers, key=lambda c: callers[c][3]), depth + 1)

    groups: Dict[str, float] = {}
    total = 0.0
    top = []
    for func, (_, _, own, _, _) in stats.items():
        total += own
        name = package(func)
        groups[name] = groups.get(name, 0.0) + own
        top.append((own, f"{name}: {func[2]} ({Path(func[0]).name}:{func[1]})"))
    return {"total": total, "groups": sorted(groups.items(), key=lambda kv: -kv[1]), "top": sorted(top)[::-1][:10]}


def print_profile(profile: Dict[str, object]) -> None:
    total = profile["total"]
    print()
    print(f"One evaluate compute() under cProfile ({total:.2f} s of own time in all; the profiler's overhead "
          "inflates per-call costs, so read the shares):")
    print()
    print("| package | own time s | share |")
    print("|---|---:|---:|")
    for package, own in profile["groups"]:
        print(f"| {package} | {own:.3f} | {own / total:.0%} |")
    print()
    print("| function (package) | own time s |")
    print("|---|---:|")
    for own, name in profile["top"]:
        print(f"| {name} | {own:.3f} |")


def _random_word_pairs(n_tokens: int, count: int, seed: int) -> Pairs:
    """``count`` pairs of ``n_tokens`` words a side, drawn at random from the words of STS-B dev."""
    with open(SHARED / "stsb" / "stsb_dev.tsv", encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))[1:]
    words = sorted({w for r in rows for s in r[1:3] for w in s.split() if w.isalpha()})
    rng = random.Random(seed * 100_003 + n_tokens)
    return [(" ".join(rng.choice(words) for _ in range(n_tokens)), " ".join(rng.choice(words) for _ in range(n_tokens)))
            for _ in range(count)]


def cliff_rows(sizes: List[int], repeat: int, seed: int) -> Tuple[List[dict], Dict[str, object]]:
    """Cost per pair against text length (issue 33: the cliff at 64 tokens a side).  Static default, ``words``
    tokenizer, one thread, random STS-B words; the peer is the least any exact scorer must do on the same transport
    problem (the pair's distinct tokens and their masses): a float32 cosine matrix (numpy's BLAS product) plus
    ``ot.emd``.  BLAS is held to one thread where threadpoolctl is installed, so both sides run on one core; the
    two are timed in turn, best of ``repeat`` each."""
    import ot
    from wrd_score import WRDScorer, scoring
    from wrd_score.weights import normalise, token_masses

    try:
        from threadpoolctl import threadpool_limits
        limits, note = threadpool_limits(limits=1, user_api="blas"), "BLAS held to 1 thread"
    except ImportError:  # pragma: no cover - the benchmark still runs, with the machine's BLAS threads
        limits, note = None, "BLAS threads as the machine sets them (threadpoolctl is not installed)"
    from wrd_score._kernels import HAVE_WIDE

    note += "; cosine tiles: " + ("8-lane where cheaper (AVX-512)" if HAVE_WIDE else "4-lane only (no AVX-512)")
    scorer = WRDScorer(num_threads=1, tokenizer="words")
    rows = []
    try:
        for n in sizes:
            count = max(2, 4096 // n) if n < 1024 else 2
            pairs = _random_word_pairs(n, count, seed)
            predictions, references = [p for p, _ in pairs], [r for _, r in pairs]
            scorer.score(predictions, references)  # warm: compile, compose unknown words
            enc = scorer.backend.encode(predictions + references)
            masses = token_masses(enc.norms, enc.tokens, scorer.options.weights, scorer.corpus_idf, enc.vocabulary)
            problems = []
            for k in range(count):
                sp, sr = enc.spans[k], enc.spans[count + k]
                rows_p, _, mass_p, _ = scoring._merge_nodes(sp, sr, enc.exact_only, normalise(masses[sp]))
                rows_r, _, mass_r, _ = scoring._merge_nodes(sr, sp, enc.exact_only, normalise(masses[sr]))
                problems.append((rows_p, rows_r, mass_p, mass_r))
            units32 = enc.units.astype(np.float32)

            def peer():
                for rows_p, rows_r, mass_p, mass_r in problems:
                    cost = (1.0 - units32[rows_p] @ units32[rows_r].T).astype(np.float64)
                    ot.emd(mass_p, mass_r, cost, numItermax=10**8)

            # Interleaved, so that both sides see the same load on a shared machine.
            ours = theirs = float("inf")
            for _ in range(repeat):
                ours = min(ours, best_time(lambda: scorer.score(predictions, references), 1)[0])
                theirs = min(theirs, best_time(peer, 1)[0])
            nodes = float(np.mean([len(p[0]) for p in problems])), float(np.mean([len(p[1]) for p in problems]))
            path = "kernel" if nodes[0] * nodes[1] <= 4096 else "POT"
            rows.append({"tokens": n, "pairs": count, "nodes": nodes, "path": path, "ours_ms": ours / count * 1e3,
                         "peer_ms": theirs / count * 1e3, "ratio": ours / theirs})
    finally:
        if limits is not None:
            limits.unregister()
    return rows, {"note": note}


def pot_cosine_bits(seed: int) -> Dict[str, object]:
    """How the POT path's scores move with the kernel's cosines against numpy's BLAS product (0.2.0's), and how
    the BLAS product's own scores move between 1 thread and the machine's threads: 150 pairs of 8 STS-B dev
    sentences a side (every one of them takes the POT path)."""
    from wrd_score import WRDScorer, scoring

    with open(SHARED / "stsb" / "stsb_dev.tsv", encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))[1:]
    sentences = [r[1] for r in rows] + [r[2] for r in rows]
    rng = random.Random(seed)
    pairs = [(" ".join(rng.choice(sentences) for _ in range(8)), " ".join(rng.choice(sentences) for _ in range(8)))
             for _ in range(150)]
    predictions, references = [p for p, _ in pairs], [r for _, r in pairs]
    scorer = WRDScorer(tokenizer="words", num_threads=1)
    kernel = scorer.score(predictions, references)
    original = scoring.cosine_matrix
    scoring.cosine_matrix = lambda *args, **kwargs: original(*args, **{**kwargs, "blas": True})
    try:
        blas = scorer.score(predictions, references)
        try:
            from threadpoolctl import threadpool_limits

            with threadpool_limits(limits=1, user_api="blas"):
                blas_one = scorer.score(predictions, references)
        except ImportError:  # pragma: no cover
            blas_one = None
    finally:
        scoring.cosine_matrix = original

    def moved(a, b):
        both = np.array(a["precision"] + a["recall"]), np.array(b["precision"] + b["recall"])
        return int((both[0] != both[1]).sum()), float(np.abs(both[0] - both[1]).max()), len(both[0])

    return {"kernel_vs_blas": moved(kernel, blas), "blas_threads": moved(blas, blas_one) if blas_one else None}


def print_evaluate(evaluate_table: List[dict]) -> None:
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

def print_cliff(rows: List[dict], extra: Dict[str, object], bits: Optional[Dict[str, object]]) -> None:
    if not rows:
        return
    print()
    print(f"Cost per pair against text length (static default, words tokenizer, one thread, random STS-B words; "
          f"{extra['note']}): WRDScorer.score against the peer, a float32 cosine matrix plus ot.emd on the same "
          f"transport problem, measured in this run:")
    print()
    print("| tokens a side | pairs | transport nodes | path | ours ms/pair | peer ms/pair | ours / peer |")
    print("|---:|---:|---|---|---:|---:|---:|")
    for r in rows:
        print(f"| {r['tokens']:,} | {r['pairs']} | {r['nodes'][0]:.0f} x {r['nodes'][1]:.0f} | {r['path']} | "
              f"{r['ours_ms']:.2f} | {r['peer_ms']:.2f} | {r['ratio']:.2f} |")
    in_range = [r for r in rows if 64 <= r["tokens"] <= 2048]
    worst = max(in_range, key=lambda r: r["ratio"]) if in_range else None
    if worst:
        print()
        print(f"aim (issue 33): within 1.5x of the peer at 64-2,048 tokens a side: worst {worst['ratio']:.2f} at "
              f"{worst['tokens']:,} tokens ({'met' if worst['ratio'] <= 1.5 else 'NOT met'})")
    if bits:
        changed, most, total = bits["kernel_vs_blas"]
        print(f"POT path, the kernel's cosines against numpy's BLAS product (0.2.0's), 150 pairs of 8 STS-B dev "
              f"sentences a side: {changed} of {total} P/R values differ, by at most {most:.1e}")
        if bits["blas_threads"]:
            changed, most, total = bits["blas_threads"]
            print(f"  the BLAS product itself, 1 thread against the machine's: {changed} of {total} differ, by at "
                  f"most {most:.1e}")


def without_avx512(argv: List[str]) -> int:
    """This script again, as a processor without AVX-512 would run it: numba compiles for Haswell with the host's
    features less every AVX-512 one (so ``_kernels.HAVE_WIDE`` is false), in a numba cache of its own, and OpenBLAS
    (``OPENBLAS_CORETYPE``) and MKL (``MKL_ENABLE_INSTRUCTIONS``) use their AVX2 kernels, so the peer's float32
    product is an AVX2 one too.  The processor's other traits (caches, clock, the width of its adders) stay."""
    import llvmlite.binding as llvm

    features = ",".join(("+" if on and not name.startswith("avx512") else "-") + name
                        for name, on in sorted(llvm.get_host_cpu_features().items()))
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, WRDSCORE_SPEED_AS_AVX2="1", NUMBA_CPU_NAME="haswell", NUMBA_CPU_FEATURES=features,
                   NUMBA_CACHE_DIR=cache, OPENBLAS_CORETYPE="Haswell", MKL_ENABLE_INSTRUCTIONS="AVX2")
        print("As a processor without AVX-512: numba compiling for Haswell (this processor's features less AVX-512), "
              "OpenBLAS and MKL held to AVX2.", flush=True)
        return subprocess.run([sys.executable, os.path.abspath(__file__), *argv], env=env).returncode


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
    parser.add_argument("--cliff-sizes", default="32,64,128,256,512,1024,2048",
                        help="tokens a side for the cost-per-pair rows (comma-separated; empty = skip)")
    parser.add_argument("--only", choices=["evaluate", "cliff"], help="run one section only")
    parser.add_argument("--without-avx512", action="store_true",
                        help="run as on a processor without AVX-512 (numba compiling for Haswell with this processor's "
                             "features less AVX-512, in a cache of its own; OpenBLAS and MKL held to AVX2): the "
                             "kernels' 4-lane tiles only, the peer's BLAS at AVX2")
    parser.add_argument("--chunk-size", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--stream-child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--compile-child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--load-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.without_avx512 and os.environ.get("WRDSCORE_SPEED_AS_AVX2") != "1":
        return without_avx512(sys.argv[1:] if argv is None else list(argv))
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
    repeat = args.repeat or (2 if quick else 3)
    sizes = [int(x) for x in args.cliff_sizes.split(",") if x.strip()]
    if args.only:
        if args.only == "evaluate":
            n_eval = args.evaluate_pairs if args.evaluate_pairs is not None else 50_000
            eval_pairs = list(iter_method_name_pairs(load_names_by_file(), n_eval, args.seed))
            print_evaluate(evaluate_rows(eval_pairs, repeat))
            print_profile(evaluate_profile(eval_pairs))
        else:
            print_cliff(*cliff_rows(sizes, repeat, args.seed), pot_cosine_bits(args.seed))
        print(f"\nload average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
        return 0
    n_names = args.names or (20_000 if quick else 100_000)
    n_sent = args.sentences or (2_000 if quick else 10_000)
    n_stream = args.stream_pairs if args.stream_pairs is not None else (100_000 if quick else 1_000_000)
    naive_max = args.naive_max if args.naive_max is not None else (5_000 if quick else 0)

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
    cliff = (*cliff_rows(sizes, repeat, args.seed), pot_cosine_bits(args.seed)) if sizes else ([], {}, None)
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
    print_evaluate(evaluate_table)
    print_cliff(*cliff)
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
