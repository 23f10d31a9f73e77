"""Does a text's contextual encoding depend on the texts it was batched with? (issue 15)

A float32 GEMM in MKL gives a row the same bits whatever the other rows and the thread count only
for some row counts; the contextual backend therefore pads every forward pass's token rows
(sequences x length) to a multiple of ``ROW_MULTIPLE`` with copies of a sequence.  This script
measures both halves of that decision on this machine:

1. ``linear``: for each thread count, the row counts m (1..--rows) at which
   ``torch.nn.functional.linear(x[:m], W)`` differs from the first m rows of the full product,
   and whether any of them is a multiple of ``ROW_MULTIPLE``.
2. ``encoder``: the first ``--texts`` distinct STS-B dev sentences encoded by the default MiniLM
   (last layer) with batch sizes 64 / 5 / 1 and 1, 2, 3 and 16 threads, with the row rule and
   without it (``ROW_MULTIPLE = 1``): how many texts' vectors differ from batch 64 on 2 threads,
   and the padded rows at batch 64;
3. ``cost``: CPU time to encode the first ``--cost-texts`` distinct sentences in batches of 64 on one
   thread, with and without the rule, in ``--rounds`` interleaved rounds, alternating which goes first (medians).

4. ``scores``: the first ``--pairs`` STS-B dev pairs scored by the default contextual scorer (float32,
   CPU, ``--runtime``) in one call (batch 64, 2 threads), then again in one call with the same settings
   (the bits must not move), with 1, 3 and 16 threads, batch sizes 1 and 5, each pair alone, and in
   chunks of 1 and 13 (``score_chunked``): how many pairs' P/R/F1 differ from the first call, and the
   largest |difference|.  ``--envs`` repeats part 4 in fresh processes under environment variables that
   select other code paths of this CPU's libraries (``MKL_ENABLE_INSTRUCTIONS=AVX2``: MKL's AVX2 kernels,
   what it runs on CPUs without AVX-512, AMD's included; ``ATEN_CPU_CAPABILITY=avx2``: torch's own AVX2
   kernels; ``MKL_CBWR=AUTO,STRICT``: MKL's strict conditional numerical reproducibility), and prints how
   far each one's first call lies from this process's.

5. ``static``: the same comparison for the static default (its compiled kernel sums in its own order), on
   every STS-B dev pair: 1, 2 and 4 transport threads, chunks of 1, 7 and 1,000, each pair alone; bits.

    python benchmarks/batch_independence.py            # about 6 minutes on 2 cores
    python benchmarks/batch_independence.py --scores-only --envs   # part 4, here and in 3 environments
    python benchmarks/batch_independence.py --static-only          # part 5
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import wrd_score.backends.contextual as contextual  # noqa: E402
# ROW_MULTIPLE is read (and so set here) in the module whose forward pass uses it.
import wrd_score.backends.encoder as forward_pass  # noqa: E402

STSB_DEV = REPO.parent / "shared" / "data" / "stsb" / "stsb_dev.tsv"


def linear_rows(max_rows: int, threads: list) -> None:
    import torch

    gen = torch.Generator().manual_seed(0)
    weight, bias = torch.randn(1536, 384, generator=gen), torch.randn(1536, generator=gen)
    x = torch.randn(max_rows, 384, generator=gen)
    torch.set_num_threads(1)
    full = torch.nn.functional.linear(x, weight, bias)
    for n in threads:
        torch.set_num_threads(n)
        bad = [m for m in range(1, max_rows + 1)
               if not torch.equal(torch.nn.functional.linear(x[:m], weight, bias), full[:m])]
        print(json.dumps({"linear 384->1536": f"{n} threads", "rows that differ": bad,
                          f"of which multiples of {forward_pass.ROW_MULTIPLE}":
                              [m for m in bad if m % forward_pass.ROW_MULTIPLE == 0]}), flush=True)


def encode(texts: list, batch_size: int, n_threads: int):
    """(vectors per text, CPU seconds, token rows the model ran) of one fresh encoding."""
    import torch

    torch.set_num_threads(n_threads)
    backend = contextual.ContextualBackend(batch_size=batch_size, progress=False)
    rows = [0]
    real = backend.loaded.model.forward

    def counting(*args, **kwargs):
        rows[0] += kwargs["input_ids"].numel()
        return real(*args, **kwargs)

    backend.loaded.model.forward = counting
    try:
        start = time.process_time()
        states = backend._compute_states(texts)
        seconds = time.process_time() - start
    finally:
        del backend.loaded.model.forward
    return [s.vectors for s in states], seconds, rows[0]


def encoder(texts: list, threads: list) -> None:
    rule = forward_pass.ROW_MULTIPLE
    for multiple in (rule, 1):
        forward_pass.ROW_MULTIPLE = multiple
        reference, _, rows = encode(texts, 64, 2)
        tokens = sum(len(v) for v in reference)
        print(json.dumps({"row multiple": multiple, "texts": len(texts), "token rows": tokens,
                          "rows run": rows, "padding rows": rows - tokens}), flush=True)
        for batch_size, n_threads in [(64, t) for t in threads if t != 2] + [(5, 3), (1, 2), (1, 1), (1, 16)]:
            got, _, _ = encode(texts, batch_size, n_threads)
            differ = sum(not np.array_equal(a, b) for a, b in zip(got, reference))
            print(json.dumps({"row multiple": multiple, "batch": batch_size, "threads": n_threads,
                              "texts that differ from batch 64, 2 threads": differ}), flush=True)
    forward_pass.ROW_MULTIPLE = rule


def cost(texts: list, rounds: int) -> None:
    """Encoding time with and without the rule, one torch thread, interleaved rounds (ABBA), medians."""
    rule = forward_pass.ROW_MULTIPLE
    times: dict = {rule: [], 1: []}
    rows: dict = {}
    for r in range(rounds):
        for multiple in ((rule, 1) if r % 2 == 0 else (1, rule)):  # ABBA: neither always goes first
            forward_pass.ROW_MULTIPLE = multiple
            _, seconds, rows[multiple] = encode(texts, 64, 1)
            times[multiple].append(seconds)
    forward_pass.ROW_MULTIPLE = rule
    with_rule, without = np.median(times[rule]), np.median(times[1])
    print(json.dumps({"cost": f"{len(texts)} texts, batch 64, 1 thread, CPU seconds, median of {rounds}",
                      "token rows": rows[1], "padding rows": rows[rule] - rows[1],
                      "with the rule": round(float(with_rule), 2), "without": round(float(without), 2),
                      "rounds": {f"multiple {m}": [round(t, 2) for t in ts] for m, ts in times.items()},
                      "ratio": round(float(with_rule / without), 3)}), flush=True)


ENVS = ({"MKL_ENABLE_INSTRUCTIONS": "AVX2"}, {"ATEN_CPU_CAPABILITY": "avx2"}, {"MKL_CBWR": "AUTO,STRICT"})


def scores(pairs: list, runtime: str) -> dict:
    """Part 4; returns the first call's scores (P, R, F1 lists) for the comparison across environments."""
    import torch

    from wrd_score import WRDScorer
    from wrd_score.stream import score_chunked

    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]

    def run(n_threads: int = 2, batch_size: int = 64, how: str = "one call"):
        torch.set_num_threads(n_threads)
        scorer = WRDScorer(backend="contextual", batch_size=batch_size, runtime=runtime)
        scorer.backend.progress = False
        scorer.backend._memo_key = None  # encode anew: no states kept from an earlier call
        if how == "one call":
            out = scorer.score(preds, refs)
        elif how == "alone":
            out = {k: [] for k in ("precision", "recall", "f1")}
            for p, r in pairs:
                one = scorer.score([p], [r])
                for k in out:
                    out[k] += one[k]
        else:
            out = score_chunked(scorer, preds, refs, chunk_size=int(how.split()[-1]))
        torch.set_num_threads(2)
        return np.array([out["precision"], out["recall"], out["f1"]])

    first = run()
    variations = [("again, the same settings", {}), ("1 thread", {"n_threads": 1}), ("3 threads", {"n_threads": 3}),
                  ("16 threads", {"n_threads": 16}), ("batch size 1", {"batch_size": 1}),
                  ("batch size 5", {"batch_size": 5}), ("each pair alone", {"how": "alone"}),
                  ("chunks of 1", {"how": "chunks of 1"}), ("chunks of 13", {"how": "chunks of 13"})]
    for name, kwargs in variations:
        got = run(**kwargs)
        differ = int((got != first).any(axis=0).sum())
        print(json.dumps({"runtime": runtime, "against one call (batch 64, 2 threads)": name, "pairs": len(pairs),
                          "pairs whose P, R or F1 differ": differ,
                          "largest |difference|": float(np.abs(got - first).max())}), flush=True)
    return {"scores": first.tolist()}


def static_bits(pairs: list) -> None:
    """Part 5: the static default's scores, bit for bit, across thread counts, chunks and a pair alone."""
    from wrd_score import WRDScorer
    from wrd_score.stream import score_chunked

    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]

    def as_array(out):
        return np.array([out["precision"], out["recall"], out["f1"]])

    first = as_array(WRDScorer(num_threads=2).score(preds, refs))
    variations = [(f"{n} transport threads", lambda n=n: as_array(WRDScorer(num_threads=n).score(preds, refs)))
                  for n in (1, 2, 4)]
    variations += [(f"chunks of {size}", lambda size=size: as_array(score_chunked(WRDScorer(), preds, refs,
                                                                                     chunk_size=size)))
                   for size in (1, 7, 1000)]
    variations.append(("each pair alone", lambda: np.array([as_array(WRDScorer().score([p], [r]))[:, 0]
                                                             for p, r in pairs]).T))
    for name, run in variations:
        got = run()
        print(json.dumps({"static default": name, "against": "one call, 2 transport threads", "pairs": len(pairs),
                          "pairs whose P, R or F1 differ": int((got != first).any(axis=0).sum())}), flush=True)


def environments(args) -> None:
    """Part 4 again in fresh processes, each under one of :data:`ENVS`."""
    import os
    import subprocess
    import tempfile

    here = scores(_pairs(args.pairs), args.runtime)["scores"]
    for env in ENVS:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "scores.json"
            print(json.dumps({"environment": env}), flush=True)
            subprocess.run([sys.executable, __file__, "--scores-only", "--pairs", str(args.pairs), "--runtime",
                            args.runtime, "--save", str(out)], env={**os.environ, **env}, check=True)
            there = np.array(json.loads(out.read_text())["scores"])
        print(json.dumps({"environment": env, "first call against this process's": True,
                          "pairs whose P, R or F1 differ": int((there != np.array(here)).any(axis=0).sum()),
                          "largest |difference|": float(np.abs(there - np.array(here)).max())}), flush=True)


def _rows():
    with open(STSB_DEV, encoding="utf-8", newline="") as f:
        return list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))[1:]


def _pairs(n: int) -> list:
    return [(r[1], r[2]) for r in _rows()[:n]]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=400, help="largest row count of the linear test")
    parser.add_argument("--texts", type=int, default=400, help="distinct STS-B dev sentences to encode")
    parser.add_argument("--cost-texts", type=int, default=3000, help="distinct STS-B dev sentences to time")
    parser.add_argument("--rounds", type=int, default=6, help="interleaved rounds of the timing")
    parser.add_argument("--cost-only", action="store_true", help="run part 3 only")
    parser.add_argument("--linear-only", action="store_true", help="run part 1 only")
    parser.add_argument("--static-only", action="store_true", help="run part 5 only")
    parser.add_argument("--pairs", type=int, default=300, help="STS-B dev pairs of part 4")
    parser.add_argument("--runtime", default="torch", choices=("torch", "onnx"), help="runtime of part 4")
    parser.add_argument("--scores-only", action="store_true", help="run part 4 only")
    parser.add_argument("--envs", action="store_true", help="with --scores-only: part 4 in each environment of ENVS")
    parser.add_argument("--save", help=argparse.SUPPRESS)  # where a child process of --envs leaves its scores
    args = parser.parse_args(argv)
    import torch

    print(json.dumps({"torch": torch.__version__, "blas": torch.backends.mkl.is_available() and "mkl",
                      "cpu capability": torch.backends.cpu.get_cpu_capability()}), flush=True)
    if args.scores_only:
        if args.envs:
            environments(args)
        else:
            first = scores(_pairs(args.pairs), args.runtime)
            if args.save:
                Path(args.save).write_text(json.dumps(first))
        return 0
    if args.static_only:
        static_bits([(r[1], r[2]) for r in _rows()])
        return 0
    if args.linear_only:
        linear_rows(args.rows, [1, 2, 3, 16, 64])
        return 0
    distinct = list(dict.fromkeys(t for r in _rows() for t in (r[1], r[2])))
    if not args.cost_only:
        linear_rows(args.rows, [1, 2, 3, 16, 64])
        encoder(distinct[:args.texts], [1, 2, 3, 16])
    cost(distinct[:args.cost_texts], args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
