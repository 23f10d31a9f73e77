"""Soak run: the property suite with the long hypothesis profile, then the long-pair resource table.

    python benchmarks/soak.py                 # soak profile (20x the CI examples, random seeds)
    python benchmarks/soak.py --factor 100    # longer
    python benchmarks/soak.py --pairs-only    # only the 10,000-token table

The property run uses ``WRDSCORE_HYPOTHESIS_PROFILE=soak`` (random, not derandomized, so every run
explores new cases; a failure prints the ``@reproduce_failure`` blob) and ``NUMBA_BOUNDSCHECK=1``
(with a private numba cache), so an out-of-bounds index in the compiled transport kernel raises
IndexError instead of corrupting memory silently.  The long-pair table scores one pair per row
in a fresh interpreter and reports its wall time and peak memory; rows are comparable with each
other only within one run (the machine is shared).
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_properties(factor: int) -> int:
    env = dict(os.environ, WRDSCORE_HYPOTHESIS_PROFILE="soak", WRDSCORE_SOAK_FACTOR=str(factor),
               NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=tempfile.mkdtemp(prefix="wrdscore-numba-boundscheck-"))
    command = [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider",
               "tests/test_properties.py", "tests/test_hostile_files.py", "tests/test_concurrency.py"]
    print("$", " ".join(command), f"(WRDSCORE_HYPOTHESIS_PROFILE=soak WRDSCORE_SOAK_FACTOR={factor} NUMBA_BOUNDSCHECK=1)",
          flush=True)
    return subprocess.call(command, cwd=REPO, env=env)


def run_pairs(adversarial: list, contextual: bool) -> None:
    sys.path.insert(0, str(REPO / "tests"))
    from test_concurrency import measure_long_pair  # the same measurement the CI test makes

    rows = [("zipf", 0)] + [("distinct", n) for n in adversarial] + ([("contextual", 0)] if contextual else [])
    print("\n| pair | tokens (pred, ref) | transport nodes (pred, ref) | seconds | RSS before -> peak (MB) | F1 |")
    print("|---|---|---|---|---|---|")
    labels = {"zipf": "10,000 Zipf-sampled tokens, static default",
              "contextual": "10,000 Zipf-sampled tokens, contextual (tiny BERT)"}
    for kind, n in rows:
        r = measure_long_pair(kind, n, timeout=3600)
        label = labels.get(kind, f"{n:,} distinct tokens + 100 OOV, static default")
        print(f"| {label} | {r['tokens'][0]:,}, {r['tokens'][1]:,} | {r['distinct'][0]:,}, {r['distinct'][1]:,} | "
              f"{r['seconds']:.1f} | {r['before_mb']:.0f} -> {r['peak_mb']:.0f} | {r['f1']:.4f} |", flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--factor", type=int, default=20, help="examples per test = factor x the CI profile's")
    parser.add_argument("--pairs-only", action="store_true", help="skip the property run")
    parser.add_argument("--distinct", type=int, nargs="*", default=[2500, 3900],
                        help="sizes of the all-distinct adversarial pairs (the default vocabulary has 15,688 words; "
                             "above wrd_score.scoring.MAX_TRANSPORT_NODES = 4,096 nodes a text is refused)")
    # The contextual row's 10,000 occurrences a side are over MAX_TRANSPORT_NODES: the library
    # refuses that pair now, so the row is skipped unless the cap is raised for a measurement.
    parser.add_argument("--no-contextual", action="store_true", default=True,
                        help="skip the contextual 10,000-token row (default: refused by the 4,096-node cap)")
    args = parser.parse_args(argv)
    status = 0 if args.pairs_only else run_properties(args.factor)
    run_pairs(args.distinct, not args.no_contextual)
    return status


if __name__ == "__main__":
    sys.exit(main())
