"""Time and peak memory per worker of ``wrd_score.integrations.ray.score`` on a local Ray cluster (issue 15).

Workloads, made as ``benchmarks/speed.py`` makes them (same generators, same seed):
  1. ``--names`` method-name pairs, static default backend;
  2. ``--sentences`` STS-B sentence pairs (topped up with re-paired sentences), contextual backend
     (MiniLM; ``--device`` and ``--gpus-per-worker`` put each actor on a GPU, the default is CPU).
Each runs on ``ray.init(num_cpus=--workers)`` with ``--workers`` actors of one CPU each, the dataset
in blocks of ``--block-size`` rows.  Printed per run: wall time of the ``score`` call (actor start
and model load included, cluster start excluded), pairs/s, and the peak resident memory (VmHWM) of
each actor process, read from /proc every 0.2 s while the run lasts (the last reading before an
actor exits is its peak unless it grew in its last 0.2 s).  ``--check`` also scores each workload
in this process (``score_chunked``) and reports whether every value is identical.

    python benchmarks/distributed.py --names 1000000 --sentences 50000 --check
    python benchmarks/distributed.py --names 20000 --sentences 200 --check     # a minute
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from speed import iter_method_name_pairs, load_names_by_file, peak_rss_mb, sentence_pairs  # noqa: E402
from wrd_score import WRDScorer  # noqa: E402
from wrd_score.stream import score_chunked  # noqa: E402

#: The command line of the actor processes Ray starts for wrd_score.integrations.ray (ray::MapWorker(MapBatches(_ScoreBatches))).
ACTOR_MARK = b"_ScoreBatches"


class PeakMemory(threading.Thread):
    """Polls VmHWM (peak resident set) of every actor process until stopped."""

    def __init__(self, interval: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.interval, self.peaks_kb = interval, {}  # pid -> VmHWM in kB
        self._stop_event = threading.Event()

    def run(self) -> None:
        while not self._stop_event.is_set():
            for pid in os.listdir("/proc"):
                if not pid.isdigit():
                    continue
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        if ACTOR_MARK not in f.read():
                            continue
                    with open(f"/proc/{pid}/status") as f:
                        hwm = next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
                except (OSError, StopIteration, ValueError):
                    continue  # the process ended between listing and reading
                self.peaks_kb[int(pid)] = max(self.peaks_kb.get(int(pid), 0), hwm)
            self._stop_event.wait(self.interval)

    def stop(self) -> List[float]:
        self._stop_event.set()
        self.join()
        return sorted(round(kb / 1024.0, 1) for kb in self.peaks_kb.values())


def dataset(pairs: List[Tuple[str, str]], block_size: int):
    import pyarrow as pa
    import ray

    blocks = [pa.table({"prediction": [p for p, _ in pairs[i:i + block_size]],
                        "reference": [r for _, r in pairs[i:i + block_size]]})
              for i in range(0, len(pairs), block_size)]
    return ray.data.from_arrow(blocks)


def run(name: str, pairs: List[Tuple[str, str]], workers: int, batch_size: int, block_size: int,
        options: Dict[str, object]) -> Tuple[dict, dict]:
    from wrd_score.integrations.ray import score

    ds = dataset(pairs, block_size)
    poller = PeakMemory()
    poller.start()
    start = time.perf_counter()
    result = score(ds, num_actors=workers, map_batch_size=batch_size, **options)
    seconds = time.perf_counter() - start
    peaks = poller.stop()
    row = {"workload": name, "pairs": len(pairs), "workers": workers, "batch_size": batch_size,
           "block_size": block_size, "options": options, "seconds": round(seconds, 1),
           "pairs_per_s": round(len(pairs) / seconds), "peak_mb_per_worker": peaks,
           "mean_f1": result["mean_f1"], "signature": result["signature"]}
    print(json.dumps(row), flush=True)
    return row, result


def check(row: dict, result: dict, scorer, pairs: List[Tuple[str, str]]) -> None:
    """Score ``pairs`` in this process (one ``score_chunked`` call) and record whether every value,
    mean and the signature equal the Ray result, and the largest |difference| of a P, R or F1 (the
    contextual promise is ``SCORE_TOLERANCE``, not bits)."""
    begin = time.perf_counter()
    single = score_chunked(scorer, [p for p, _ in pairs], [r for _, r in pairs])
    row["one_process_seconds"] = round(time.perf_counter() - begin, 1)
    row["identical_to_one_process"] = single == result
    row["largest_difference"] = max(float(np.max(np.abs(np.subtract(single[key], result[key]))))
                                    for key in ("precision", "recall", "f1"))
    print(json.dumps({"check": row["workload"], "one_process_seconds": row["one_process_seconds"],
                      "identical_to_one_process": row["identical_to_one_process"],
                      "largest_difference": row["largest_difference"]}), flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--names", type=int, default=1_000_000, help="method-name pairs (0: skip)")
    parser.add_argument("--sentences", type=int, default=50_000, help="sentence pairs, contextual backend (0: skip)")
    parser.add_argument("--workers", type=int, default=2, help="Ray CPUs and actors (one CPU each)")
    parser.add_argument("--block-size", type=int, default=10_000, help="rows per dataset block")
    parser.add_argument("--names-batch", type=int, default=4096, help="map_batches batch size, method names")
    parser.add_argument("--sentences-batch", type=int, default=256, help="map_batches batch size, sentences")
    parser.add_argument("--device", default="cpu", help="contextual backend device in each actor (default: cpu)")
    parser.add_argument("--gpus-per-worker", type=float, default=0, help="GPUs each actor asks Ray for (default: 0)")
    parser.add_argument("--check", action="store_true",
                        help="also score each workload in this process and compare every value")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="FILE", help="write the rows as JSON to FILE")
    args = parser.parse_args(argv)

    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    import ray

    start = time.perf_counter()
    ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    print(json.dumps({"ray": ray.__version__, "cluster_start_s": round(time.perf_counter() - start, 1),
                      "cpus": os.cpu_count(), "load_average": os.getloadavg()}), flush=True)
    rows = []
    try:
        if args.names:
            pairs = list(iter_method_name_pairs(load_names_by_file(), args.names, args.seed))
            row, result = run("method names, static", pairs, args.workers, args.names_batch, args.block_size, {})
            if args.check:
                check(row, result, WRDScorer(num_threads=args.workers), pairs)
            rows.append(row)
            del pairs, result
        if args.sentences:
            pairs = sentence_pairs(args.sentences, args.seed)
            options = {"backend": "contextual", "device": args.device}
            if args.gpus_per_worker:
                options["num_gpus"] = args.gpus_per_worker
            row, result = run("sentences, contextual", pairs, args.workers, args.sentences_batch,
                              args.block_size // 10, options)
            if args.check:
                check(row, result, WRDScorer(backend="contextual", device=args.device), pairs)
            rows.append(row)
    finally:
        ray.shutdown()
    rows.append({"driver_peak_mb": round(peak_rss_mb(), 1)})
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    print("\nworkload                 pairs    workers  seconds  pairs/s  peak MB per worker")
    for row in rows[:-1]:
        print(f"{row['workload']:<24} {row['pairs']:>8,} {row['workers']:>8} {row['seconds']:>8} "
              f"{row['pairs_per_s']:>8,}  {', '.join(map(str, row['peak_mb_per_worker']))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
