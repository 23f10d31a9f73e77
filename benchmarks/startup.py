"""Start-up cost of the entry points a user meets first (issue 23 item 13), each in a fresh process.

    python benchmarks/startup.py              # best of 5
    python benchmarks/startup.py --repeat 9

Times ``python -c "import wrd_score"``, ``wrdscore score -c getCount -r sizeLength`` and ``wrdscore show ... -o
pair.png`` end to end (wall clock and the child's CPU seconds, which another load on the machine disturbs
less), then lists the slowest top-level imports of ``show`` from ``python -X importtime``.  Aims:
``import wrd_score`` < 1 s, ``show`` < 2.5 s.
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from typing import List, Tuple

COMMANDS = {
    "import wrd_score": ["-c", "import wrd_score"],
    "wrdscore score (one pair)": ["-m", "wrd_score.cli", "score", "-c", "getCount", "-r", "sizeLength"],
    "wrdscore show (one pair)": ["-m", "wrd_score.cli", "show", "-c", "getCount", "-r", "sizeLength", "-o", "{png}"],
    "POT import alone": ["-c", "import ot"],
}


def timed(args: List[str]) -> Tuple[float, float]:
    """Wall and CPU seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable] + args, check=True, capture_output=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def slowest_imports(args: List[str], top: int = 6) -> List[Tuple[float, str]]:
    """The ``top`` top-level imports of a command with the largest cumulative time (seconds, name)."""
    out = subprocess.run([sys.executable, "-X", "importtime"] + args, check=True, capture_output=True, text=True)
    rows = []
    for line in out.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line[len("import time:"):].split("|")
        if not name.startswith("  "):  # nested imports are indented further
            rows.append((int(cumulative) / 1e6, name.strip()))
    return sorted(rows, reverse=True)[:top]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        png = os.path.join(tmp, "pair.png")
        commands = {label: [a.replace("{png}", png) for a in argv] for label, argv in COMMANDS.items()}
        for argv in commands.values():  # warm the OS file cache and numba's on-disk cache once
            subprocess.run([sys.executable] + argv, capture_output=True)
        results = {label: [] for label in commands}
        for _ in range(args.repeat):  # interleaved, so a burst of load elsewhere hits every command
            for label, argv in commands.items():
                results[label].append(timed(argv))
        print(f"# Start-up times (best of {args.repeat}, fresh process each; cpu cores available: "
              f"{len(os.sched_getaffinity(0))}; load average at end: {', '.join(f'{x:.2f}' for x in os.getloadavg())})")
        print()
        print("| command | wall s (best) | CPU s (best) | aim |")
        print("|---|---:|---:|---|")
        aims = {"import wrd_score": 1.0, "wrdscore show (one pair)": 2.5}
        for label, runs in results.items():
            wall, cpu = min(w for w, _ in runs), min(c for _, c in runs)
            aim = f"< {aims[label]} s: {'met' if wall < aims[label] else 'NOT met'}" if label in aims else ""
            print(f"| `{label}` | {wall:.2f} | {cpu:.2f} | {aim} |")
        print()
        print("Slowest top-level imports of `wrdscore show` (python -X importtime, cumulative seconds):")
        for seconds, name in slowest_imports(commands["wrdscore show (one pair)"]):
            print(f"  {seconds:6.3f}  {name}")
        print("POT imported by show:", any(name == "ot" for _, name in slowest_imports(commands["wrdscore show (one pair)"], 1000)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
