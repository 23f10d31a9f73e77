"""What a user's ``idf=`` dict costs each scoring call, against the same call without it, measured in one run.

    python benchmarks/idf_dict_cost.py                 # 250,000 tokens, best of 5
    python benchmarks/idf_dict_cost.py --tokens 50000 --repeat 9

A training loop passes one ``{token: weight}`` dict at every evaluation.  The table is 250,000 random lowercase words
(each one token for the identifier tokenizer, so every key is usable) with weights in [1, 6); the call scores 64
method-name pairs with ``weights="idf"``.  Rows, each the best wall-clock time of ``--repeat`` calls:

* ``fitted on the references`` (the peer: no table given),
* ``IDFTable built once`` (``WRDScorer.idf_table(refs, table)`` outside the loop, the table passed each call),
* ``the same dict again`` (what a loop that keeps its dict pays),
* ``the dict after one weight changed`` (each call changes a weight first: the table is built anew),
* ``a copy of the dict`` (each call passes a fresh ``dict(table)``: the same key and weight objects in the same order,
  so it gets the table back as well, often at the address of the last copy),
* ``evaluate compute(idf=dict)`` (the evaluate module, one compute per call).

Times share the machine with whatever else runs: compare rows of one run, not runs.
"""
from __future__ import annotations

import argparse
import random
import time
from typing import Callable, Dict, List

from wrd_score import WRDScorer


def words(n: int, seed: int = 0) -> Dict[str, float]:
    rng = random.Random(seed)
    table: Dict[str, float] = {}
    while len(table) < n:
        table["".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 9)))] = 1.0 + 5 * rng.random()
    return table


def best(call: Callable[[], object], repeat: int) -> float:
    times: List[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tokens", type=int, default=250_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-evaluate", action="store_true", help="skip the evaluate module's row")
    args = parser.parse_args()

    table = words(args.tokens)
    preds = ["getCount", "setValue", "readFile", "size"] * 16
    refs = ["get_count", "getValue", "read_file", "length"] * 16
    scorer = WRDScorer(weights="idf")
    built = scorer.idf_table(refs, table)
    scorer.score(preds, refs, idf=table)  # compiles, loads, checks the keys once
    first = next(iter(table))

    def changed() -> object:
        table[first] += 1e-9
        return scorer.score(preds, refs, idf=table)

    rows = {
        "fitted on the references": lambda: scorer.score(preds, refs),
        "IDFTable built once": lambda: scorer.score(preds, refs, idf=built),
        "the same dict again": lambda: scorer.score(preds, refs, idf=table),
        "the dict after one weight changed": changed,
        "a copy of the dict": lambda: scorer.score(preds, refs, idf=dict(table)),
    }
    if not args.no_evaluate:
        import evaluate
        import wrd_score

        metric = evaluate.load(wrd_score.evaluate_module())
        metric.compute(predictions=preds, references=refs, weights="idf", idf=table)
        rows["evaluate compute(idf=dict)"] = lambda: metric.compute(predictions=preds, references=refs,
                                                                    weights="idf", idf=table)
        rows["evaluate compute(), no idf"] = lambda: metric.compute(predictions=preds, references=refs, weights="idf")
    peer = best(rows["fitted on the references"], args.repeat)
    print(f"{len(table):,}-token idf dict, {len(preds)} pairs a call, best of {args.repeat}")
    print(f"{'call':40s} {'ms':>9s} {'- peer ms':>9s}")
    for name, call in rows.items():
        seconds = peer if name == "fitted on the references" else best(call, args.repeat)
        print(f"{name:40s} {1000 * seconds:9.1f} {1000 * (seconds - peer):9.1f}")


if __name__ == "__main__":
    main()
