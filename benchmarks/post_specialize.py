"""Experiment (issue 30): can counter-fitting generalise to the words outside its constraints?

The identifiers default of 0.3.0 (``distilled+cf(repel)+verbs(0.5)``, ``wrd``, ``norm``) moves only the words of its
constraints and their neighbours, so the held-out triplets gain little (54.1%, aim >= 90%). Two ways to generalise,
each measured as ``choose_identifiers.py`` measures a candidate, on the same dev sets, against the chosen recipe
built from ``train.tsv`` (the triplets' antonym pairs held out: the triplets test generalisation):

* **post-specialisation** (Vulić et al., NAACL 2018; Ponti et al., EMNLP 2018): a global map ``f`` learnt from each
  constrained word's original direction to its counter-fitted direction (the words of ``train.tsv``), applied to
  every other word (constrained words keep their counter-fitted vectors; norms, i.e. masses, are kept: only
  directions move, as in ``wrd_score.specialize``). ``linear``: least squares with a bias, float64;
  ``procrustes``: the orthogonal map (it keeps every cosine among the mapped words, so it can only move them
  relative to the constrained ones); ``mlp``: a residual 2-layer MLP (torch, CPU, seed 0, one thread);
* **synonyms mined by substitution** (``--mined``, :func:`mine_substitutes`): method-name words that take the same
  objects across many projects but are rarely declared side by side in one file, attracted (``--k-synonym``).

The map is applied to the built file after the fact: the verb step changes only norms and the negation step only the
negating words' rows (left as built, neither learnt from nor mapped), so mapping the directions of the built file is
mapping between the counter-fitting and the verb steps, up to the file's float16 rounding. ``wrdscore specialize
--post-specialize linear`` maps inside the build (learnt from the words of the antonym pairs with ``--k-synonym 0``);
its file is built and measured too.

Usage::

    python benchmarks/post_specialize.py --workdir WORK --methods linear procrustes mlp --learn-from all antonyms \\
        --mined rule wordnet --markdown /tmp/post.md      # docs/tuning.md, *Experiment: post-specialisation ...*
"""
from __future__ import annotations

import argparse
import pickle
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Set, Tuple

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

import choose_identifiers as ci  # noqa: E402
from identifier_dev import DevSet, load_dev_sets, rouge_f1  # noqa: E402
from wrd_score.constraints import Constraint, read_constraints  # noqa: E402
from wrd_score.embeddings import StaticEmbedding, load_embedding  # noqa: E402
from wrd_score.specialize import NEGATORS, linear_map, post_specialize  # noqa: E402
from report_output import add_markdown_argument, emit  # noqa: E402

RECIPE = "distilled+cf(repel)+verbs(0.5)"
SOURCE = "wrd-minilm-distilled"
SHIPPED = str(REPO / "embeddings" / "wrd-minilm-cf.npz")
NAMES = "../shared/data/java_method_names/java_method_names.txt.gz"


# ------------------------------------------------------------------------------------------------ the maps
def fit_map(method: str, seed: int = 0):
    """``fit(x, y)``: a function from original unit rows to specialised directions, fitted on the pairs ``(x, y)``."""
    if method == "linear":
        return linear_map
    if method == "procrustes":
        def procrustes(x: np.ndarray, y: np.ndarray):
            u, _, vt = np.linalg.svd(x.T @ y)
            r = u @ vt
            return lambda z: z @ r
        return procrustes
    if method == "mlp":
        return lambda x, y: _fit_mlp(x, y, seed)
    raise ValueError(f"method must be linear, procrustes or mlp, got {method!r}")


def _fit_mlp(x: np.ndarray, y: np.ndarray, seed: int, hidden: int = 512, steps: int = 500, lr: float = 1e-3):
    # f(z) = z + W2 gelu(W1 z + b1) + b2, loss 1 - cos(f(x), y): full batch, Adam, weight decay 1e-4.
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    dim = x.shape[1]
    net = torch.nn.Sequential(torch.nn.Linear(dim, hidden), torch.nn.GELU(), torch.nn.Linear(hidden, dim)).double()
    torch.nn.init.zeros_(net[2].weight)
    torch.nn.init.zeros_(net[2].bias)
    opt = torch.optim.Adam(net.parameters(), lr=lr, weight_decay=1e-4)
    tx, ty = torch.from_numpy(x), torch.from_numpy(y)
    for _ in range(steps):
        opt.zero_grad()
        out = tx + net(tx)
        loss = (1 - torch.nn.functional.cosine_similarity(out, ty, dim=1)).mean()
        loss.backward()
        opt.step()

    def apply(z: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            tz = torch.from_numpy(np.ascontiguousarray(z))
            return (tz + net(tz)).numpy()
    return apply


def post_specialized(source: str, built: str, constraint_files: Sequence[str], method: str, out: str,
                     learn_from: str = "all") -> str:
    """Write ``built`` with every word outside the constraints (and outside the negating words) given the direction
    ``f(its direction in source)`` and its norm in ``built``; returns the sha256. ``f`` is learnt from the words of
    every constraint (``learn_from="all"``) or of the antonym pairs only (``"antonyms"``: with ``--k-synonym 0`` the
    synonym-only words barely move, and teach the map the identity)."""
    original = load_embedding(source)
    emb = StaticEmbedding.load(built)
    if list(original.words) != list(emb.words):
        raise ValueError("the built file and its source must have the same words")
    pairs = [c for path in constraint_files for c in read_constraints(path)]
    index = emb.index
    rows = lambda words: np.array(sorted({index[w] for w in words if w in index}), dtype=np.int64)  # noqa: E731
    negators = rows(NEGATORS)  # the negation step set their rows: neither learnt from nor mapped
    learn = np.setdiff1d(rows(w for c in pairs if learn_from == "all" or c.relation == "antonym" for w in c.pair),
                         negators)
    vectors, mapped = post_specialize(original.vectors, emb.vectors, learn,
                                      np.union1d(rows(w for c in pairs for w in c.pair), negators), fit_map(method))
    meta = dict(emb.meta, name=emb.name + "+post-" + method,
                post_specialize={"method": method, "learn_from": learn_from, "learnt_from": int(len(learn)),
                                 "mapped": mapped})
    return StaticEmbedding(emb.words, vectors, tokenizer_json=emb.tokenizer_json, name=meta["name"], meta=meta,
                           df_table=emb.df_table, df_documents=emb.df_documents).save(out, dtype="float16")


# ------------------------------------------------------------------------------------------------ substitutes
#: The mining rule of synonym candidates, fixed before anything was measured with it (module docstring of
#: :func:`mine_substitutes`).
MIN_SHARED_FRAMES = 10
MIN_SUBSTITUTE_REPOS = 3
MIN_FRAME_DICE = 0.05
MAX_CODECLARED_SHARE = 0.1


def mine_substitutes(rows, vocabulary, min_shared: int = MIN_SHARED_FRAMES, min_repos: int = MIN_SUBSTITUTE_REPOS,
                     min_dice: float = MIN_FRAME_DICE, max_codeclared: float = MAX_CODECLARED_SHARE):
    """Synonym candidates: words that substitute for each other in method names across projects.

    A *frame* is a split name (two words or more) with one word left out (``get *``, ``* of``, ``max * limit``); a
    word *fills* the frames of the names it occurs in. Two words are substitutes when they fill at least
    ``min_shared`` frames in common, each of them in at least ``min_repos`` projects over those shared frames, with a
    Dice coefficient ``2 |F(a) & F(b)| / (|F(a)| + |F(b)|)`` over frames of at least ``min_dice`` (not by the chance
    of a frequent word), and when at most ``max_codeclared`` of their shared frames are filled by both in one file
    (complements such as ``get``/``set`` are declared side by side; ``size`` in one project is ``count`` in
    another), and when they do not share a Porter stem. Returns ``[(a, b, shared, dice, co-declared share)]``."""
    from collections import defaultdict

    from wrd_score.constraints import _is_word, same_stem
    from wrd_score.tokenize import split_identifier

    vocab = {w for w in vocabulary if _is_word(w)}
    fills: Dict[str, Set[str]] = defaultdict(set)  # frame -> words
    repos: Dict[Tuple[str, str], Set[str]] = defaultdict(set)  # (word, frame) -> repos
    in_file: Dict[Tuple[str, str, str], Set[str]] = defaultdict(set)  # (repo, path, frame) -> words
    for repo, path, name in rows:
        tokens = split_identifier(name)
        if len(tokens) < 2:
            continue
        for k, word in enumerate(tokens):
            if word not in vocab:
                continue
            frame = " ".join(tokens[:k] + ["*"] + tokens[k + 1:])
            fills[frame].add(word)
            repos[(word, frame)].add(repo)
            in_file[(repo, path, frame)].add(word)
    frames_of: Dict[str, int] = defaultdict(int)
    for frame, words in fills.items():
        for w in words:
            frames_of[w] += 1
    shared: Dict[Tuple[str, str], List[str]] = defaultdict(list)
    for frame, words in fills.items():
        if len(words) > 200:  # a frame as open as ``* *``-like ones links everything to everything: no evidence
            continue
        ordered = sorted(words)
        for i, a in enumerate(ordered):
            for b in ordered[i + 1:]:
                shared[(a, b)].append(frame)
    together: Dict[Tuple[str, str], Set[str]] = defaultdict(set)
    for (_, _, frame), words in in_file.items():
        ordered = sorted(words)
        for i, a in enumerate(ordered):
            for b in ordered[i + 1:]:
                together[(a, b)].add(frame)
    out = []
    for (a, b), frames in shared.items():
        if len(frames) < min_shared:
            continue
        dice = 2 * len(frames) / (frames_of[a] + frames_of[b])
        if dice < min_dice:
            continue
        if min(len(set().union(*(repos[(w, f)] for f in frames))) for w in (a, b)) < min_repos:
            continue
        codeclared = len(together.get((a, b), ())) / len(frames)
        if codeclared > max_codeclared or same_stem(a, b):
            continue
        out.append((a, b, len(frames), dice, codeclared))
    out.sort(key=lambda t: (-t[3], t[0], t[1]))
    return out


def wordnet_backed(pairs, wordnet) -> List:
    """The mined pairs that WordNet 3.0 also relates: the two words share a synset (any sense, any part of speech),
    or one is the other's prefix without their sharing a stem (``dir``/``directory``, ``params``/``parameters``: an
    abbreviation, which WordNet does not list)."""
    from wrd_score.constraints import same_stem

    out = []
    for m in pairs:
        a, b = m[0], m[1]
        short, long = sorted((a, b), key=len)
        if set(wordnet.synsets(a)) & set(wordnet.synsets(b)) or (long.startswith(short) and not same_stem(a, b)):
            out.append(m)
    return out


def mined_constraints(workdir: Path, vocabulary, wordnet=None) -> Tuple[str, str, List]:
    """Two constraint files in ``workdir``: the antonyms of ``train.tsv``, and the mined substitutes as synonyms,
    less any pair that is an antonym in ``all.tsv`` (WordNet's or mined complements: an antonym wins, as in
    ``merge_constraints``) or has the Porter stems of a held-out pair (``all.tsv`` minus ``train.tsv``); with
    ``wordnet``, only the pairs WordNet backs (:func:`wordnet_backed`)."""
    from wrd_score.constraints import _stem, method_rows, write_constraints

    everything = read_constraints(str(ci.TRAIN.with_name("all.tsv")))
    train = read_constraints(str(ci.TRAIN))
    key = lambda a, b: tuple(sorted((_stem(a), _stem(b))))  # noqa: E731
    held = {key(c.a, c.b) for c in set(everything) - set(train)}
    antonyms = {c.pair for c in everything if c.relation == "antonym"}
    mined = mine_substitutes(method_rows(str(ci.DATA / "java_method_names" / "java_method_names_by_file.tsv.gz")),
                             vocabulary)
    kept = [m for m in mined if (m[0], m[1]) not in antonyms and key(m[0], m[1]) not in held]
    if wordnet is not None:
        kept = wordnet_backed(kept, wordnet)
    ant_path = workdir / "train_antonyms.tsv"
    syn_path = workdir / ("mined_synonyms_wordnet.tsv" if wordnet is not None else "mined_synonyms.tsv")
    write_constraints(str(ant_path), [c for c in train if c.relation == "antonym"])
    write_constraints(str(syn_path), [Constraint("synonym", a, b, "java-substitutes") for a, b, *_ in kept])
    return str(ant_path), str(syn_path), kept


#: The recipe's command with the train antonyms and the mined synonyms, attracted with counter-fitting's default
#: weight (the chosen recipe reads train.tsv with --k-synonym 0: its WordNet synonyms attract nothing).
MINED_COMMAND = ("wrdscore specialize wrd-minilm-distilled -o {out} --constraints {antonyms} {synonyms} --k-synonym 0.1 "
                 "--verbs ../shared/data/java_method_names/java_method_names.txt.gz --verb-weight 0.5 --negation "
                 "--name {name}")


# ------------------------------------------------------------------------------------------------ measuring
def _scores(label: str, embedding: str, dev_sets: Sequence[DevSet], cache: Dict, cache_path: Path):
    key = (label, load_embedding(embedding).checksum)
    if key not in cache:
        t = time.perf_counter()
        cache[key] = ci.score_candidate(ci.Candidate(label, embedding, "wrd", "norm", 0, 0), dev_sets)
        cache_path.write_bytes(pickle.dumps(cache))
        print(f"scored {label}: {time.perf_counter() - t:.0f}s", file=sys.stderr)
    return cache[key]


def diff_table(columns: List[Tuple[str, str, int]], scores, dev_sets, base: str, n_boot: int) -> str:
    names = [d.name for d in dev_sets]
    lines = ["| file (`wrd`, `norm`) | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
    for label, _, _ in columns:
        cells = []
        for d in dev_sets:
            value = d.value(scores[label][d.name])
            if label == base or label.startswith("shipped"):
                cells.append(f"{value:.3f}")
            else:
                diff, p = ci.paired(d, scores, label, base, n_boot)
                cells.append(f"{value:.3f} ({diff:+.3f}, p={p:.3f})")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", required=True, type=Path)
    add_markdown_argument(parser)
    parser.add_argument("--n-boot", type=int, default=1000)
    parser.add_argument("--methods", nargs="+", default=["linear", "procrustes"],
                        choices=["linear", "procrustes", "mlp"])
    parser.add_argument("--learn-from", nargs="+", default=["all"], choices=["all", "antonyms"],
                        help="the words the map is learnt from: of every constraint, or of the antonym pairs")
    parser.add_argument("--mined", nargs="*", default=[], choices=["rule", "wordnet"],
                        help="also the recipe with mined substitutes attracted: every pair of the rule, or those WordNet backs")
    parser.add_argument("--no-aims", action="store_true", help="skip the aims table (named pairs, showcase)")
    args = parser.parse_args(argv)
    args.workdir.mkdir(parents=True, exist_ok=True)
    commands = ci.build_files(args.workdir, labels=[RECIPE])
    recipe = ci.file_path(RECIPE, args.workdir)
    dev_sets = load_dev_sets()
    rouge = {d.name: rouge_f1(d) for d in dev_sets}
    base = f"{RECIPE} (train constraints)"
    columns: List[Tuple[str, str, int]] = [
        ("0.1.x default: wrd-minilm-distilled", SOURCE, 1),
        ("shipped default: wrd-minilm-cf (all constraints; triplets in-sample)", SHIPPED, 3),
        (base, recipe, 3)]
    for learn_from in args.learn_from:
        for method in args.methods:
            out = str(args.workdir / f"post-{method}-{learn_from}.npz")
            if not Path(out).is_file():
                print(f"post-specialising ({method}, learnt from {learn_from}) -> {out}", file=sys.stderr)
                post_specialized(SOURCE, recipe, [str(ci.TRAIN)], method, out, learn_from)
            columns.append((f"{RECIPE} + post-spec {method} (learnt from {learn_from})", out, 4))
    out = str(args.workdir / "recipe-post-linear.npz")
    line = (ci.FILES[RECIPE][0].format(out=out, train=ci.TRAIN.relative_to(REPO), names=NAMES)
            .replace("--name distilled+cf-repel+verbs-0.5", "--post-specialize linear --name recipe+post-linear"))
    commands.append(line)
    if not Path(out).is_file():
        print(f"building: {line}", file=sys.stderr)
        subprocess.run(line.split(), check=True, cwd=REPO, stdout=subprocess.DEVNULL)
    columns.append((f"{RECIPE} + `--post-specialize linear` (the option)", out, 4))
    for variant in args.mined:
        from wrd_score.constraints import load_wordnet

        antonyms, synonyms, kept = mined_constraints(args.workdir, load_embedding(SOURCE).words,
                                                     load_wordnet() if variant == "wordnet" else None)
        out = str(args.workdir / f"mined-{variant}.npz")
        line = MINED_COMMAND.format(out=out, antonyms=antonyms, synonyms=synonyms, name=f"recipe+mined-{variant}")
        commands.append(line)
        if not Path(out).is_file():
            print(f"building: {line}", file=sys.stderr)
            subprocess.run(line.split(), check=True, cwd=REPO, stdout=subprocess.DEVNULL)
        shown = ", ".join(f"{a}/{b}" for a, b, *_ in kept[:40])
        commands.append(f"# {variant}: {len(kept)} synonym pairs: {shown}{', ...' if len(kept) > 40 else ''}")
        columns.append((f"{RECIPE} + mined synonyms ({variant}: {len(kept)} pairs)", out, 4))
    for label, path, _ in columns:
        meta = load_embedding(path).meta
        done = meta.get("post_specialize") or meta.get("specialize", {}).get("post_specialize")
        if done:
            commands.append(f"# {label}: map learnt from {done['learnt_from']} words, {done['mapped']} words mapped")
    cache_path = args.workdir / "scores.pkl"
    cache = pickle.loads(cache_path.read_bytes()) if cache_path.is_file() else {}
    scores = {label: _scores(label, path, dev_sets, cache, cache_path) for label, path, _ in columns}
    parts = ["Files built by (from the repository root; the post-hoc maps are applied to the first, see the module's "
             "docstring):", "", "```bash"] + commands + ["```", ""]
    parts += ["Dev figures (in brackets: minus the chosen recipe from train.tsv, paired bootstrap two-sided p):", "",
             diff_table(columns, scores, dev_sets, base, args.n_boot)]
    # The issue's rule over these candidates (the shipped file, trained on the triplets' pairs, stays out).
    cands = [ci.Candidate(label, path, "wrd", "norm", steps, 1) for label, path, steps in columns
             if not label.startswith("shipped")]
    result = ci.choose(cands, scores, dev_sets, rouge, columns[0][0], args.n_boot)
    parts += ["", "The rule over these candidates (not the whole grid):", "", ci.describe(result, dev_sets, scores, args.n_boot)]
    if result["why"]:
        parts += [f"* out: `{k}`: {v}" for k, v in result["why"].items()]
    if not args.no_aims:
        specs = [(label, path, "wrd", "norm") for label, path, _ in columns]
        parts += ["", "Aims (named pairs, showcase):", "", ci.aims_table(specs, lambda c: scores[c], dev_sets)]
    return emit("\n".join(parts), args.markdown)


if __name__ == "__main__":
    sys.exit(main())
