"""The dev data of the identifiers default, and its measures (used by ``choose_identifiers.py``).

Every dev set, read from ``../shared/data`` (never copied into the repository) or, for the triplets,
from the committed ``embeddings/constraints/dev_triplets.tsv``:

* ``IdBench sim`` / ``IdBench rel``: Spearman of F1 with the developers' similarity / relatedness ratings on
  IdBench small, medium and large (Wainakh et al. 2021), the mean of the three (the sets are nested:
  small within medium within large, so they count as one dev set each for the ranks);
* ``IdBench opp<syn``: IdBench large's 7 ``subset_opposites`` pairs and 26 ``subset_synonyms`` pairs:
  the share of the 182 (synonym pair, opposite pair) combinations in which the synonym pair scores higher;
* ``triplets``: the frozen (anchor, synonym, opposite) method-name triplets: the share in which
  F1(anchor, synonym) > F1(anchor, opposite) (a tie is a miss);
* ``STS-B dev``: Spearman with the human score (STS-B test is read only by ``--test``, after the choice);
* ``SICK``: SICK train + trial relatedness, Spearman (the SICK test split is kept outside the repository).

Paired bootstrap (1000 resamples, seed 0): for the correlations ``wrd_score.stats.paired_bootstrap``
(rows resampled, the Spearman difference averaged over IdBench's three sets); for the two shares the items
resampled (triplets; synonym and opposite pairs apart), the same two-sided p-value rule
(``wrd_score.stats.paired_p_value``).
"""
from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np
from scipy.stats import spearmanr

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data"
TRIPLETS = REPO / "embeddings" / "constraints" / "dev_triplets.tsv"

from wrd_score.stats import paired_bootstrap, paired_p_value  # noqa: E402

N_BOOT = 1000


def read_tsv(path: Path) -> List[Dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))


def _float(value: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return float("nan")


@dataclass
class DevSet:
    """One dev set: the pairs to score and how a metric's F1 on them becomes one number."""

    name: str
    kind: str  # "identifiers" or "sentences"
    groups: List[Tuple[List[str], List[str], np.ndarray]]  # (predictions, references, human) per group
    measure: str  # "spearman", "opp<syn", "triplets"
    split_identifiers: bool = True
    extra: Dict = field(default_factory=dict)

    def pairs(self) -> Tuple[List[str], List[str]]:
        preds = [p for g in self.groups for p in g[0]]
        refs = [r for g in self.groups for r in g[1]]
        return preds, refs

    def value(self, f1: np.ndarray) -> float:
        return self.value_of(self.parts(f1))

    def parts(self, f1: np.ndarray) -> List[np.ndarray]:
        out, start = [], 0
        for preds, _, _ in self.groups:
            out.append(np.asarray(f1[start:start + len(preds)], dtype=np.float64))
            start += len(preds)
        return out

    def value_of(self, parts: List[np.ndarray]) -> float:
        if self.measure == "spearman":
            return float(np.mean([spearmanr(p, g[2])[0] for p, g in zip(parts, self.groups)]))
        if self.measure == "opp<syn":
            syn, opp = parts
            return float(np.mean(syn[:, None] > opp[None, :]))
        if self.measure == "triplets":
            with_syn, with_opp = parts
            return float(np.mean(with_syn > with_opp))
        raise ValueError(self.measure)

    def paired(self, a: np.ndarray, b: np.ndarray, n_boot: int = N_BOOT, seed: int = 0) -> Tuple[float, float]:
        """``(value(a) - value(b), two-sided paired p)``."""
        pa, pb = self.parts(a), self.parts(b)
        if self.measure == "spearman":
            return paired_bootstrap([(x, y, g[2]) for x, y, g in zip(pa, pb, self.groups)], n_boot=n_boot, seed=seed)
        rng = np.random.default_rng(seed)
        observed = self.value_of(pa) - self.value_of(pb)
        diffs = np.empty(n_boot)
        if self.measure == "opp<syn":
            n_syn, n_opp = len(pa[0]), len(pa[1])
            for k in range(n_boot):
                s, o = rng.integers(0, n_syn, n_syn), rng.integers(0, n_opp, n_opp)
                diffs[k] = (self.value_of([pa[0][s], pa[1][o]]) - self.value_of([pb[0][s], pb[1][o]]))
        else:
            n = len(pa[0])
            for k in range(n_boot):
                i = rng.integers(0, n, n)
                diffs[k] = self.value_of([pa[0][i], pa[1][i]]) - self.value_of([pb[0][i], pb[1][i]])
        return observed, paired_p_value(diffs, observed)


def _human_rows(path: Path, column: str) -> Tuple[List[str], List[str], np.ndarray]:
    rows = [r for r in read_tsv(path) if np.isfinite(_float(r[column]))]
    return [r["prediction"] for r in rows], [r["reference"] for r in rows], np.array([_float(r[column]) for r in rows])


def load_dev_sets(triplets: Path = TRIPLETS) -> List[DevSet]:
    idb = [DATA / "idbench" / f"idbench_{size}.tsv" for size in ("small", "medium", "large")]
    large = read_tsv(idb[2])
    syn = [r for r in large if _float(r["subset_synonyms"]) == 1]
    opp = [r for r in large if _float(r["subset_opposites"]) == 1]
    trip = read_tsv(triplets)
    sick = [r for r in read_tsv(DATA / "sick" / "sick_train_trial.tsv")]
    return [
        DevSet("IdBench sim", "identifiers", [_human_rows(p, "similarity") for p in idb], "spearman"),
        DevSet("IdBench rel", "identifiers", [_human_rows(p, "relatedness") for p in idb], "spearman"),
        DevSet("IdBench opp<syn", "identifiers",
               [([r["prediction"] for r in syn], [r["reference"] for r in syn], np.ones(len(syn))),
                ([r["prediction"] for r in opp], [r["reference"] for r in opp], np.zeros(len(opp)))], "opp<syn"),
        DevSet("triplets", "identifiers",
               [([t["anchor"] for t in trip], [t["synonym"] for t in trip], np.ones(len(trip))),
                ([t["anchor"] for t in trip], [t["opposite"] for t in trip], np.zeros(len(trip)))], "triplets"),
        DevSet("STS-B dev", "sentences", [_human_rows(DATA / "stsb" / "stsb_dev.tsv", "human")], "spearman",
               split_identifiers=False),
        DevSet("SICK", "sentences", [([r["prediction"] for r in sick], [r["reference"] for r in sick],
                                      np.array([_float(r["human"]) for r in sick]))], "spearman",
               split_identifiers=False),
    ]


def f1_scores(scorer, preds, refs, idf_fn=None) -> np.ndarray:
    """F1 of every pair through the library; ``idf_fn(scorer, texts)``, where given, makes the ``idf=`` table (a
    token's mass is its value) from the pairs' texts."""
    idf = idf_fn(scorer, list(preds) + list(refs)) if idf_fn is not None else None
    return np.asarray(scorer.score(list(preds), list(refs), idf=idf)["f1"], dtype=np.float64)


def rouge_f1(dev: DevSet) -> np.ndarray:
    from wrd_score.metrics import get_metric

    preds, refs = dev.pairs()
    metric = get_metric("rouge1", split_identifiers=dev.split_identifiers)
    return np.asarray(metric.score(preds, refs).score, dtype=np.float64)


def pearson(dev: DevSet, f1: np.ndarray) -> float:
    parts = dev.parts(f1)
    return float(np.mean([np.corrcoef(p, g[2])[0, 1] for p, g in zip(parts, dev.groups)]))


#: The paper's section-4 showcase pairs (benchmarks/paper_examples.py), ten distinct.
def showcase_pairs() -> Tuple[List[str], List[str]]:
    import importlib.util

    spec = importlib.util.spec_from_file_location("paper_examples", REPO / "benchmarks" / "paper_examples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    pairs = list(dict.fromkeys(module.EXAMPLES))
    return [p for _, p in pairs], [r for r, _ in pairs]


NEGATORS = ("not", "no", "non", "never", "none", "nothing", "without", "cannot", "neither", "nor")


def negation_pairs() -> Tuple[List[str], List[str]]:
    """(name, its negation) pairs declared in the Java corpus: ``isEmpty``/``isNotEmpty``, ``hasArgs``/``hasNoArgs``
    (a negating word inserted after the first word of another declared name), as split text."""
    from wrd_score.distill import corpus_documents

    names, _ = corpus_documents(str(DATA / "java_method_names" / "java_method_names.txt.gz"), "identifiers")
    declared = set(names)
    out = []
    for name in names:
        words = name.split()
        if len(words) >= 3 and words[1] in NEGATORS:
            base = " ".join([words[0]] + words[2:])
            if base in declared:
                out.append((base, name))
    return [a for a, _ in out], [b for _, b in out]


def random_name_pairs(n_pairs: int = 2000, seed: int = 0) -> Tuple[List[str], List[str]]:
    """The random method-name pairs of ``wrdscore baseline --pairs 2000 --seed 0`` on java_method_names.txt.gz."""
    from wrd_score.rescale import random_pairs, read_corpus

    return random_pairs(read_corpus(str(DATA / "java_method_names" / "java_method_names.txt.gz")), n_pairs, seed)
