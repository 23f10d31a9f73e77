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

    python benchmarks/batch_independence.py            # about 6 minutes on 2 cores
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
                          f"of which multiples of {contextual.ROW_MULTIPLE}":
                              [m for m in bad if m % contextual.ROW_MULTIPLE == 0]}), flush=True)


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
    rule = contextual.ROW_MULTIPLE
    for multiple in (rule, 1):
        contextual.ROW_MULTIPLE = multiple
        reference, _, rows = encode(texts, 64, 2)
        tokens = sum(len(v) for v in reference)
        print(json.dumps({"row multiple": multiple, "texts": len(texts), "token rows": tokens,
                          "rows run": rows, "padding rows": rows - tokens}), flush=True)
        for batch_size, n_threads in [(64, t) for t in threads if t != 2] + [(5, 3), (1, 2), (1, 1), (1, 16)]:
            got, _, _ = encode(texts, batch_size, n_threads)
            differ = sum(not np.array_equal(a, b) for a, b in zip(got, reference))
            print(json.dumps({"row multiple": multiple, "batch": batch_size, "threads": n_threads,
                              "texts that differ from batch 64, 2 threads": differ}), flush=True)
    contextual.ROW_MULTIPLE = rule


def cost(texts: list, rounds: int) -> None:
    """Encoding time with and without the rule, one torch thread, interleaved rounds (ABBA), medians."""
    rule = contextual.ROW_MULTIPLE
    times: dict = {rule: [], 1: []}
    rows: dict = {}
    for r in range(rounds):
        for multiple in ((rule, 1) if r % 2 == 0 else (1, rule)):  # ABBA: neither always goes first
            contextual.ROW_MULTIPLE = multiple
            _, seconds, rows[multiple] = encode(texts, 64, 1)
            times[multiple].append(seconds)
    contextual.ROW_MULTIPLE = rule
    with_rule, without = np.median(times[rule]), np.median(times[1])
    print(json.dumps({"cost": f"{len(texts)} texts, batch 64, 1 thread, CPU seconds, median of {rounds}",
                      "token rows": rows[1], "padding rows": rows[rule] - rows[1],
                      "with the rule": round(float(with_rule), 2), "without": round(float(without), 2),
                      "rounds": {f"multiple {m}": [round(t, 2) for t in ts] for m, ts in times.items()},
                      "ratio": round(float(with_rule / without), 3)}), flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=400, help="largest row count of the linear test")
    parser.add_argument("--texts", type=int, default=400, help="distinct STS-B dev sentences to encode")
    parser.add_argument("--cost-texts", type=int, default=3000, help="distinct STS-B dev sentences to time")
    parser.add_argument("--rounds", type=int, default=6, help="interleaved rounds of the timing")
    parser.add_argument("--cost-only", action="store_true", help="run part 3 only")
    args = parser.parse_args(argv)
    import torch

    print(json.dumps({"torch": torch.__version__, "blas": torch.backends.mkl.is_available() and "mkl",
                      "cpu capability": torch.backends.cpu.get_cpu_capability()}), flush=True)
    with open(STSB_DEV, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))[1:]
    distinct = list(dict.fromkeys(t for r in rows for t in (r[1], r[2])))
    if not args.cost_only:
        linear_rows(args.rows, [1, 2, 3, 16, 64])
        encoder(distinct[:args.texts], [1, 2, 3, 16])
    cost(distinct[:args.cost_texts], args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
