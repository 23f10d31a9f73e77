"""CPU time and peak memory of registered metrics on one pair at the size caps (SECURITY.md, *Resources*).

    python benchmarks/metric_caps.py                       # subtoken-f1, exact-match, chrf
    python benchmarks/metric_caps.py rougeL bertscore      # any registered metric

Each metric scores one pair of 4,096 random six-letter words a side (``MAX_METRIC_TOKENS``, the cap of every
metric); chrF also one pair of ``MAX_CHRF_CHARS`` random characters (its own cap).  CPU seconds of this process
(``time.process_time``), so another load on the machine matters less than for wall-clock time.
"""
from __future__ import annotations

import random
import resource
import sys
import time

from wrd_score.metrics import MAX_METRIC_TOKENS, get_metric
from wrd_score.metrics.chrf import MAX_CHRF_CHARS


def _text(rng: random.Random, words: int) -> str:
    return " ".join("".join(rng.choice("abcdefghij") for _ in range(6)) for _ in range(words))


def main(names) -> None:
    rng = random.Random(0)
    pair = ([_text(rng, MAX_METRIC_TOKENS)], [_text(rng, MAX_METRIC_TOKENS)])
    for name in names:
        metric = get_metric(name)
        start = time.process_time()
        metric.score(*pair)
        print(f"{name}: {MAX_METRIC_TOKENS:,} tokens a side: {time.process_time() - start:.3f} s CPU")
        if name == "chrf":
            chars = [("".join(rng.choice("abcdefghijklmnopqrstuvwxyz ") for _ in range(MAX_CHRF_CHARS)),) for _ in "ab"]
            start = time.process_time()
            metric.score(list(chars[0]), list(chars[1]))
            print(f"chrf: {MAX_CHRF_CHARS:,} characters a side: {time.process_time() - start:.3f} s CPU")
    print(f"peak RSS of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MB")


if __name__ == "__main__":
    main(sys.argv[1:] or ["subtoken-f1", "exact-match", "chrf"])
