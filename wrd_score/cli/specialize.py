"""``wrdscore specialize``: counter-fit a static ``.npz`` embedding to antonym/synonym constraints (Mrkšić et al.
2016), give leading verbs and negations their weight (:mod:`wrd_score.specialize`); words, tokenizer and tables kept."""
from __future__ import annotations

import argparse
import os

from ..constraints import read_constraints
from ..distill import DOCUMENT_FORMATS
from ..specialize import NEGATORS, POST_SPECIALIZE, specialize_file
from .distill import _corpus_arg
from ..train import STORED_DTYPES, check_embedding_output
from .common import choice_type


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("embedding", help="the embedding to counter-fit (a name or a .npz)")
    parser.add_argument("-o", "--output", required=True, help="the .npz to write")
    parser.add_argument("--constraints", default=[], nargs="+", metavar="TSV",
                        help="constraint files of `wrdscore constraints` (relation, word1, word2, source)")
    parser.add_argument("--delta", type=float, default=1.0, help="antonyms pushed to this cosine distance (default 1.0)")
    parser.add_argument("--gamma", type=float, default=0.0, help="synonyms pulled to this cosine distance (default 0.0)")
    parser.add_argument("--rho", type=float, default=0.2,
                        help="neighbours kept: original cosine distance below this (default 0.2)")
    parser.add_argument("--k-antonym", type=float, default=0.1, help="weight of antonym repel (default 0.1)")
    parser.add_argument("--k-synonym", type=float, default=0.1, help="weight of synonym attract (default 0.1)")
    parser.add_argument("--k-vsp", type=float, default=0.1, help="weight of vector space preservation (default 0.1)")
    parser.add_argument("--iterations", type=int, default=20, help="full-batch steps (default 20)")
    parser.add_argument("--post-specialize", default=None, type=choice_type("--post-specialize", sorted(POST_SPECIALIZE)),
                        help="post-specialisation (Vulic et al. 2018): a map fitted from the constrained words' original "
                             "directions to their counter-fitted ones moves every word in no constraint (linear: least "
                             "squares with a bias); norms kept (default: off, only constrained words and neighbours move)")
    parser.add_argument("--verbs", default=None, metavar="NAMES",
                        help="method names (one per line, .gz allowed): a word gets a norm (mass) of at least the share of the "
                             "names holding it that it starts, times the median norm of an object word")
    parser.add_argument("--verb-weight", type=float, default=1.0,
                        help="scale of that floor (default 1.0: a leading verb weighs like a median object word)")
    parser.add_argument("--negation", action="store_true",
                        help=f"give the negating words ({', '.join(NEGATORS)}) one direction opposite to the "
                             "vocabulary's mean and a full weight (needs --verbs)")
    parser.add_argument("--df-corpus", action="append", default=None, metavar="PATH:FORMAT",
                        help="document corpus (FORMAT identifiers|stsb) of a document-frequency table stored in place "
                             "of the input's, as `wrdscore distill --df-corpus` builds it; repeatable")
    parser.add_argument("--dtype", default="float16", type=choice_type("--dtype", STORED_DTYPES))
    parser.add_argument("--name", required=True, help="name recorded in signatures")


def run(args: argparse.Namespace) -> int:
    check_embedding_output(args.output)
    constraints = {path: read_constraints(path) for path in args.constraints}
    checksum = specialize_file(args.embedding, args.output, constraints, name=args.name, dtype=args.dtype,
                               command=getattr(args, "_command_line", None), delta=args.delta, gamma=args.gamma,
                               rho=args.rho, k_antonym=args.k_antonym, k_synonym=args.k_synonym, k_vsp=args.k_vsp,
                               iterations=args.iterations, post=args.post_specialize, verb_corpus=args.verbs, verb_weight=args.verb_weight,
                               negators=NEGATORS if args.negation else (),
                               df_corpora=[_corpus_arg(c, "--df-corpus", DOCUMENT_FORMATS) for c in args.df_corpus or ()])
    size = os.path.getsize(args.output) / 1e6 if os.path.isfile(args.output) else float("nan")
    print(f"wrote {args.output}: {size:.1f} MB, sha256 {checksum}")
    return 0
