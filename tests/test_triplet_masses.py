"""benchmarks/triplet_masses.py, whose table in docs/tuning.md says where the default loses the dev triplets: its
mass rows go through the library's ``idf=`` tables, so a table of each token's norm must give the default's scores
bit for bit (else every row would measure the mechanism, not the masses), and its diagnosis must account for
every triplet."""
from __future__ import annotations

import re

import numpy as np
import pytest

from wrd_score import WRDScorer


@pytest.fixture(scope="module")
def bench(benchmark_script):
    with benchmark_script("triplet_masses") as module:
        yield module


def test_a_table_of_norms_gives_the_default_scores_exactly(bench):
    preds = ["getCount", "allMatch", "a quick brown fox", "newWriter qzxv"]
    refs = ["size", "wholeMatch", "the fast brown dog", "freshWriter"]
    by_idf = WRDScorer(weights="idf")
    table = bench.norm_masses(lambda norm: norm)(by_idf, preds + refs)
    got = np.asarray(by_idf.score(preds, refs, idf=table)["f1"])
    want = np.asarray(WRDScorer().score(preds, refs)["f1"])
    assert got.tobytes() == want.tobytes()
    squared = bench.norm_masses(lambda norm: norm ** 2)(by_idf, preds + refs)
    assert not np.array_equal(np.asarray(by_idf.score(preds, refs, idf=squared)["f1"]), want)


def test_the_diagnosis_accounts_for_every_triplet(bench):
    text = bench.diagnosis(WRDScorer())
    count = lambda label: int(re.search(re.escape(label) + r"[^:]*: (\d+)", text).group(1))  # noqa: E731
    right, total = map(int, re.search(r"triplets right: (\d+) of (\d+)", text).groups())
    by_mass = count("lost to the masses")
    by_vectors = count("lost to the vectors")
    assert total == sum(1 for _ in open(bench.TRIPLETS, encoding="utf-8")) - 1
    assert right + by_mass + by_vectors == total
