"""Choose the identifiers default (``PRESETS["identifiers"]["static"]``) on all dev data at once (issue 30).

Candidates: embedding file x variant x masses, among them the 0.2.0 default (``wrd-minilm-code``, ``wrd``,
``norm*corpus-idf``), the 0.1.x default (``wrd-minilm-distilled``, ``wrd``, ``norm``), ``corpus-idf`` on the
0.2.0 file, and the counter-fitted files. Every candidate is scored through the library on every dev set of
``identifier_dev.py`` (IdBench similarity and relatedness, IdBench's opposites-vs-synonyms, the frozen
method-name triplets, STS-B dev, SICK train+trial).

The rule (docs/tuning.md, section *Identifiers default of 0.3.0*):

1. a candidate must be at least ROUGE-1 + ``ROUGE_MARGIN`` on every dev set;
2. it must not lose to the 0.1.x default on a sentence dev set (STS-B dev, SICK) by more than its
   paired-bootstrap noise (behind with two-sided paired p < 0.05 is out);
3. among the rest, the best mean rank over the dev sets (rank 1 = best on a set; ties share the mean rank);
4. a simpler candidate (:func:`complexity`) whose differences from that leader are all inside the noise (on no
   dev set is the leader ahead with p < 0.05) is chosen instead; the simplest such, then the best mean rank.

Then the rule is run again without each dev set in turn (leave one dev set out).

Usage::

    python benchmarks/choose_identifiers.py --workdir /work/cache/r30/files --markdown /tmp/identifiers.md
    python benchmarks/choose_identifiers.py --test LABEL...    # STS-B test, once, after the choice
"""
from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from identifier_dev import DATA, DevSet, load_dev_sets, pearson, rouge_f1  # noqa: E402
from wrd_score import WRDScorer  # noqa: E402

ROUGE_MARGIN = 0.03
P_NOISE = 0.05


SHARED = DATA
NAMES = DATA / "java_method_names" / "java_method_names.txt.gz"
TRAIN = REPO / "embeddings" / "constraints" / "train.tsv"
CODE = REPO / "embeddings" / "wrd-minilm-code.npz"

#: The files of the grid: label -> (wrdscore command building it from the repository root, or None for a shipped
#: file; build steps). Counter-fitted files are built from the *train* constraints only (the dev triplets' pairs
#: held out): the dev figures measure pairs that trained nothing.
FILES: Dict[str, Tuple[Optional[str], int]] = {
    "wrd-minilm-distilled": (None, 1),
    "wrd-minilm-code": (None, 3),
    "code+verbs": ("wrdscore specialize embeddings/wrd-minilm-code.npz -o {out} --verbs {names} --negation "
                   "--name code+verbs", 4),
    "code+cf": ("wrdscore specialize embeddings/wrd-minilm-code.npz -o {out} --constraints {train} --name code+cf", 4),
    "code+cf+verbs": ("wrdscore specialize embeddings/wrd-minilm-code.npz -o {out} --constraints {train} "
                      "--verbs {names} --negation --name code+cf+verbs", 5),
    "code+cf(g0.3)+verbs": ("wrdscore specialize embeddings/wrd-minilm-code.npz -o {out} --constraints {train} "
                            "--gamma 0.3 --verbs {names} --negation --name code+cf-g0.3+verbs", 5),
    "code+cf(repel)+verbs": ("wrdscore specialize embeddings/wrd-minilm-code.npz -o {out} --constraints {train} "
                             "--k-synonym 0 --verbs {names} --negation --name code+cf-repel+verbs", 5),
    "distilled+cf+verbs": ("wrdscore specialize wrd-minilm-distilled -o {out} --constraints {train} --verbs {names} "
                           "--negation --name distilled+cf+verbs", 3),
}
VARIANTS = ("wrd", "paper")
WEIGHTS = ("norm", "corpus-idf", "norm*corpus-idf", "uniform")
MASS_STEPS = {"uniform": 0, "norm": 1, "corpus-idf": 1, "norm*corpus-idf": 2}
#: The defaults of earlier versions, by label.
DEFAULT_01 = "wrd-minilm-distilled/wrd/norm"
DEFAULT_02 = "wrd-minilm-code/wrd/norm*corpus-idf"


@dataclass(frozen=True)
class Candidate:
    label: str
    embedding: str
    variant: str
    weights: str
    #: build steps of the file (distill 1, + aggregate, + concat, + counter-fit, + verbs) and of the masses
    file_steps: int
    mass_steps: int
    idf: Optional[Callable] = None  # a function (scorer, texts) -> {token: mass}: the masses tables only

    @property
    def complexity(self) -> int:
        return self.file_steps + self.mass_steps


def file_path(label: str, workdir: Path) -> str:
    if label == "wrd-minilm-distilled":
        return "wrd-minilm-distilled"
    if label == "wrd-minilm-code":
        return str(CODE)
    return str(workdir / (label.replace("(", "-").replace(")", "").replace("+", "_") + ".npz"))


def build_files(workdir: Path) -> List[str]:
    """Build the grid's files that are missing in ``workdir``; returns the commands (run from the repository root)."""
    import subprocess

    commands = []
    for label, (command, _) in FILES.items():
        if command is None:
            continue
        out = file_path(label, workdir)
        line = command.format(out=out, train=TRAIN.relative_to(REPO), names=NAMES)
        commands.append(line)
        if not Path(out).is_file():
            print(f"building {label}: {line}", file=sys.stderr)
            subprocess.run(line.split(), check=True, cwd=REPO, stdout=subprocess.DEVNULL)
    return commands


def candidates(workdir: Path) -> List[Candidate]:
    out = []
    for label, (_, steps) in FILES.items():
        for variant in VARIANTS:
            for weights in WEIGHTS:
                if label == "wrd-minilm-distilled" and "corpus-idf" in weights:
                    continue  # that file has no document-frequency table
                out.append(Candidate(f"{label}/{variant}/{weights}", file_path(label, workdir), variant, weights,
                                     steps, MASS_STEPS[weights]))
    return out


def score_candidate(c: Candidate, dev_sets: Sequence[DevSet]) -> Dict[str, np.ndarray]:
    scorer = WRDScorer(embedding=c.embedding, variant=c.variant, weights=c.weights)
    out = {}
    for dev in dev_sets:
        preds, refs = dev.pairs()
        idf = c.idf(scorer, preds + refs) if c.idf is not None else None
        out[dev.name] = np.asarray(scorer.score(preds, refs, idf=idf)["f1"], dtype=np.float64)
    return out
def ranks(values: Dict[str, float]) -> Dict[str, float]:
    """Rank 1 = the highest value; ties share the mean of their ranks."""
    from scipy.stats import rankdata

    labels = list(values)
    r = rankdata([-values[k] for k in labels], method="average")
    return dict(zip(labels, r.tolist()))


_PAIRED: Dict[Tuple[str, str, str], Tuple[float, float]] = {}


def paired(dev: DevSet, scores: Dict[str, Dict[str, np.ndarray]], a: str, b: str, n_boot: int = 1000) -> Tuple[float, float]:
    """``dev.paired`` of candidates ``a`` and ``b`` (memoised: the leave-one-out runs ask again)."""
    key = (dev.name, a, b)
    if key not in _PAIRED:
        _PAIRED[key] = dev.paired(scores[a][dev.name], scores[b][dev.name], n_boot=n_boot)
    return _PAIRED[key]


def choose(cands: List[Candidate], scores: Dict[str, Dict[str, np.ndarray]], dev_sets: Sequence[DevSet],
           rouge: Dict[str, np.ndarray], reference: str, n_boot: int = 1000) -> Dict:
    """The rule of the module docstring over ``dev_sets``; returns the choice and why."""
    value = {c.label: {d.name: d.value(scores[c.label][d.name]) for d in dev_sets} for c in cands}
    floor = {d.name: d.value(rouge[d.name]) + ROUGE_MARGIN for d in dev_sets}
    why: Dict[str, str] = {}
    alive = []
    for c in cands:
        below = [d.name for d in dev_sets if value[c.label][d.name] < floor[d.name]]
        if below:
            why[c.label] = "below ROUGE-1 + %.2f on %s" % (ROUGE_MARGIN, ", ".join(below))
            continue
        lost = []
        for d in dev_sets:
            if d.kind != "sentences" or c.label == reference:
                continue
            diff, p = paired(d, scores, c.label, reference, n_boot)
            if diff < 0 and p < P_NOISE:
                lost.append(f"{d.name} ({diff:+.3f}, p={p:.3f})")
        if lost:
            why[c.label] = "loses to the 0.1.x default on " + ", ".join(lost)
            continue
        alive.append(c)
    if not alive:
        return {"chosen": None, "why": why, "mean_rank": {}, "leader": None, "ties": []}
    per_set = {d.name: ranks({c.label: value[c.label][d.name] for c in alive}) for d in dev_sets}
    mean_rank = {c.label: float(np.mean([per_set[d.name][c.label] for d in dev_sets])) for c in alive}
    leader = min(alive, key=lambda c: (mean_rank[c.label], c.complexity, c.label))
    ties = []
    for c in alive:
        if c is leader or c.complexity >= leader.complexity:
            continue
        worse = []
        for d in dev_sets:
            diff, p = paired(d, scores, leader.label, c.label, n_boot)
            if diff > 0 and p < P_NOISE:
                worse.append(d.name)
        if not worse:
            ties.append(c)
    chosen = min(ties, key=lambda c: (c.complexity, mean_rank[c.label], c.label)) if ties else leader
    return {"chosen": chosen, "leader": leader, "ties": ties, "mean_rank": mean_rank, "why": why, "value": value}


# ------------------------------------------------------------------------------------------------ report
def _fmt(x: float) -> str:
    return "–" if x is None or not np.isfinite(x) else f"{x:.3f}"


def grid_table(cands: List[Candidate], scores, dev_sets: Sequence[DevSet], rouge, result: Dict) -> str:
    names = [d.name for d in dev_sets]
    head = "| candidate (file / variant / weights) | steps | " + " | ".join(names) + " | SICK Pearson | mean rank | rule |"
    lines = [head, "|---|---:|" + "---:|" * (len(names) + 2) + "---|"]
    floor = {d.name: d.value(rouge[d.name]) + ROUGE_MARGIN for d in dev_sets}
    sick = next(d for d in dev_sets if d.name == "SICK")
    for c in cands:
        vals = [dev.value(scores[c.label][dev.name]) for dev in dev_sets]
        cells = [(_fmt(v) + ("*" if v < floor[n] else "")) for v, n in zip(vals, names)]
        rule = result["why"].get(c.label, "")
        if result["chosen"] is not None and c.label == result["chosen"].label:
            rule = "**chosen**"
        elif result["leader"] is not None and c.label == result["leader"].label:
            rule = "best mean rank"
        rank = result["mean_rank"].get(c.label)
        lines.append(f"| {c.label} | {c.complexity} | " + " | ".join(cells)
                     + f" | {_fmt(pearson(sick, scores[c.label]['SICK']))} | {'' if rank is None else f'{rank:.2f}'} | {rule} |")
    lines.append("| ROUGE-1 (identifiers split on IdBench and the triplets) | | "
                 + " | ".join(_fmt(d.value(rouge[d.name])) for d in dev_sets) + f" | {_fmt(pearson(sick, rouge['SICK']))} | | |")
    lines.append("| floor: ROUGE-1 + %.2f | | " % ROUGE_MARGIN + " | ".join(_fmt(floor[n]) for n in names) + " | | | |")
    return "\n".join(lines)


def describe(result: Dict, dev_sets: Sequence[DevSet], scores, n_boot: int) -> str:
    chosen, leader = result["chosen"], result["leader"]
    if chosen is None:
        return "No candidate passes the rule."
    lines = [f"* best mean rank: `{leader.label}` ({result['mean_rank'][leader.label]:.2f}, {leader.complexity} steps)"]
    if result["ties"]:
        for c in sorted(result["ties"], key=lambda c: (c.complexity, c.label)):
            diffs = ", ".join(f"{d.name} {paired(d, scores, leader.label, c.label, n_boot)[0]:+.3f} "
                              f"(p={paired(d, scores, leader.label, c.label, n_boot)[1]:.3f})" for d in dev_sets)
            lines.append(f"* simpler and inside the noise of the leader on every dev set: `{c.label}` "
                         f"({c.complexity} steps; leader minus it: {diffs})")
    else:
        lines.append("* no simpler candidate is inside the leader's noise on every dev set")
    lines.append(f"* **chosen: `{chosen.label}`**")
    return "\n".join(lines)


def leave_one_out(cands, scores, dev_sets, rouge, reference, chosen: str, n_boot: int) -> str:
    lines = ["| dev set left out | chosen without it | same? |", "|---|---|---|"]
    for d in dev_sets:
        rest = [x for x in dev_sets if x is not d]
        r = choose(cands, scores, rest, rouge, reference, n_boot)
        label = r["chosen"].label if r["chosen"] is not None else "none"
        lines.append(f"| {d.name} | `{label}` | {'yes' if label == chosen else '**no**'} |")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    import pickle

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", required=True, type=Path, help="where the grid's files are built and scores cached")
    parser.add_argument("--markdown", default=None, help="also write the tables to this file")
    parser.add_argument("--n-boot", type=int, default=1000)
    args = parser.parse_args(argv)
    args.workdir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    commands = build_files(args.workdir)
    dev_sets = load_dev_sets()
    rouge = {d.name: rouge_f1(d) for d in dev_sets}
    cands = candidates(args.workdir)
    cache_path = args.workdir / "scores.pkl"
    cache = pickle.loads(cache_path.read_bytes()) if cache_path.is_file() else {}
    scores = {}
    from wrd_score.embeddings import file_sha256, load_embedding
    for c in cands:
        key = (c.label, load_embedding(c.embedding).checksum, c.variant, c.weights)
        if key not in cache:
            cache[key] = score_candidate(c, dev_sets)
            print(f"{c.label}: {time.perf_counter() - start:.0f}s", file=sys.stderr)
        scores[c.label] = cache[key]
    cache_path.write_bytes(pickle.dumps(cache))
    result = choose(cands, scores, dev_sets, rouge, DEFAULT_01, args.n_boot)
    parts = ["Files built by (from the repository root; `{names}` = " + str(NAMES.relative_to(REPO.parent.parent))
             + "):", "", "```bash"] + commands + ["```", "", grid_table(cands, scores, dev_sets, rouge, result), "",
             "(`*`: below the ROUGE-1 + %.2f floor on that set.)" % ROUGE_MARGIN, "",
             describe(result, dev_sets, scores, args.n_boot)]
    if result["chosen"] is not None:
        parts += ["", "Leave one dev set out (the rule run on the other five):", "",
                  leave_one_out(cands, scores, dev_sets, rouge, DEFAULT_01, result["chosen"].label, args.n_boot)]
    text = "\n".join(parts)
    print(text)
    if args.markdown:
        Path(args.markdown).write_text(text + "\n", encoding="utf8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
