"""Fingerprints of every score the library gives on the benchmark inputs, to show a refactoring changed none.

For each input set and configuration it prints the sha256 of the float64 bytes of the per-pair
precision, recall and F1 (and best-reference indices), and the signature.  Run it before and after a
change and diff the two outputs: equal hashes mean bit-identical scores.

    python benchmarks/fingerprint.py > before.txt     # on the old commit
    python benchmarks/fingerprint.py > after.txt      # on the new one
    diff before.txt after.txt                         # the versions' signature fields aside

Inputs: the ``benchmarks/speed.py`` workloads (``--quick`` sizes: 20,000 method-name pairs with
near-duplicates, 2,000 sentence pairs; seed 0) and every human-rated file of ``../shared/data``
(IdBench small/medium/large, STS-B train/dev/test, STS 2012-16).  Sibling metrics run on a subset.  The first
lines score 300 sentence and 300 method-name pairs on POT's path (numba disabled in a child process), which the
compiled solver otherwise hands only the pairs it declines.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import importlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Callable, Dict, List, Sequence, Tuple

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))
SHARED = REPO.parent / "shared" / "data"

import speed  # noqa: E402  (the speed benchmark's workloads, same seed)

import wrd_score  # noqa: E402

Pairs = List[Tuple[str, str]]


def _digest(values: Sequence) -> str:
    return hashlib.sha256(np.asarray(values, dtype=np.float64).tobytes()).hexdigest()[:16]


def read_pairs(path: Path) -> Pairs:
    with open(path, encoding="utf-8", newline="") as handle:
        rows = csv.DictReader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)
        if not {"prediction", "reference"} <= set(rows.fieldnames or ()):
            return []
        return [(row["prediction"], row["reference"]) for row in rows]


def workloads() -> Dict[str, Pairs]:
    corpus = speed.load_names_by_file()
    out = {
        "names-20k": list(speed.iter_method_name_pairs(corpus, 20_000, 0)),
        "sentences-2k": speed.sentence_pairs(2_000, 0),
    }
    for path in sorted(SHARED.glob("*/*.tsv")):
        pairs = read_pairs(path)
        if pairs:  # judgment files only (repos.tsv is not one)
            out[path.stem] = pairs
    return out


STATIC_CONFIGS: Dict[str, dict] = {
    "default": {},
    # The default of 0.5.x (negative cosines clipped): its lines equal 0.5.2's "default" lines.
    "clip": {"clip_negative": True},
    "paper": {"variant": "paper"},
    "idf": {"weights": "idf"},
    "norm*idf": {"weights": "norm*idf"},
    "uniform-noclip": {"weights": "uniform", "clip_negative": False},
    "oov-exact": {"oov": "exact"},
    "java": {"embedding": "wrd-java-default", "variant": "paper"},
    "glove-words": {"embedding": "glove-6b-50d", "tokenizer": "words"},
    "rescaled": {"rescale_with_baseline": True},
}


def line(name: str, result: dict, keys=("precision", "recall", "f1")) -> str:
    parts = [f"{k}={_digest(result[k])}" for k in keys if k in result]
    if "best_reference" in result:
        parts.append(f"best={_digest(result['best_reference'])}")
    sig = result.get("signature", "")
    sig = "|".join(p for p in str(sig).split("|") if not p.startswith("wrdscore:v"))
    return f"{name}\t{' '.join(parts)}\t{sig}"


def compare_fn() -> Callable:
    for module in ("wrd_score.metrics", "wrd_score.siblings"):
        try:
            return importlib.import_module(module).compare
        except (ImportError, AttributeError):
            continue
    raise ImportError("no compare()")


#: Pairs scored on POT's path (numba disabled, in a child process: numba is chosen at import), so a change to that
#: path shows here too; with numba, it scores only the few pairs the compiled solver declines.
POT_PAIRS = 300


def pot_path_lines() -> None:
    pairs = speed.sentence_pairs(2_000, 0)[:POT_PAIRS] + list(speed.iter_method_name_pairs(
        speed.load_names_by_file(), POT_PAIRS, 0))
    preds, refs = [p for p, _ in pairs], [r for _, r in pairs]
    for config in ("default", "paper", "idf"):
        print(line(f"pot-path-{len(pairs)}/{config}", wrd_score.score(preds, refs, **STATIC_CONFIGS[config])))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-contextual", action="store_true", help="skip the contextual backend")
    parser.add_argument("--pot-path-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.pot_path_only:
        if wrd_score.deps.HAVE_NUMBA:
            raise SystemExit("--pot-path-only needs WRDSCORE_DISABLE_NUMBA=1")
        pot_path_lines()
        return
    sys.stdout.write(subprocess.run([sys.executable, __file__, "--pot-path-only"], check=True, capture_output=True,
                                    text=True, env={**os.environ, "WRDSCORE_DISABLE_NUMBA": "1"}).stdout)
    sys.stdout.flush()
    data = workloads()
    for set_name, pairs in data.items():
        preds = [p for p, _ in pairs]
        refs = [r for _, r in pairs]
        for config, options in STATIC_CONFIGS.items():
            if config == "rescaled" and set_name != "names-20k":
                continue
            print(line(f"{set_name}/{config}", wrd_score.score(preds, refs, **options)), flush=True)
    # Several references each: the best-reference rule.
    pairs = data["names-20k"][:4000]
    preds = [p for p, _ in pairs[0::2]]
    refs = [[a, b] for (_, a), (_, b) in zip(pairs[0::2], pairs[1::2])]
    print(line("names-multiref/default", wrd_score.score(preds, refs)))
    compare = compare_fn()
    for set_name in ("idbench_small", "stsb_dev"):
        pairs = data[set_name][:500]
        preds = [p for p, _ in pairs]
        refs = [r for _, r in pairs]
        table = compare(preds, refs)
        sigs = table.pop("signatures")
        for key in sorted(k for k in table if k not in ("prediction", "reference")):
            print(f"{set_name}/compare/{key}\t{_digest(table[key])}")
        for key in sorted(sigs):
            sig = "|".join(p for p in str(sigs[key]).split("|") if not p.startswith("wrdscore:v"))
            print(f"{set_name}/compare-signature/{key}\t{sig}")
    if not args.no_contextual:
        pairs = data["stsb_dev"][:200]
        preds = [p for p, _ in pairs]
        refs = [r for _, r in pairs]
        print(line("stsb_dev-200/contextual", wrd_score.score(preds, refs, backend="contextual")))
        print(line("stsb_dev-200/contextual-wordpiece",
                   wrd_score.score(preds, refs, backend="contextual", pooling="wordpiece", weights="uniform")))
        table = compare(preds, refs, backend="contextual", pooling="wordpiece")
        table.pop("signatures")
        for key in sorted(k for k in table if k not in ("prediction", "reference")):
            print(f"stsb_dev-200/compare-contextual/{key}\t{_digest(table[key])}")
    # The method-name papers' metrics (issue 32.5): per-example columns, corpus scores, signatures.
    for set_name in ("idbench_small", "stsb_dev"):
        pairs = data[set_name][:500]
        table = compare([p for p, _ in pairs], [r for _, r in pairs], metrics=("subtoken-f1", "exact-match", "chrf"))
        sigs, corpus = table.pop("signatures"), table.pop("corpus")
        for key in sorted(k for k in table if k not in ("prediction", "reference")):
            print(f"{set_name}/compare/{key}\t{_digest(table[key])}")
        for name in sorted(corpus):
            print(f"{set_name}/corpus/{name}\t{_digest([corpus[name][k] for k in sorted(corpus[name])])}")
        for key in sorted(sigs):
            sig = "|".join(p for p in str(sigs[key]).split("|") if not p.startswith("version:"))
            print(f"{set_name}/compare-signature/{key}\t{sig}")


if __name__ == "__main__":
    main()
