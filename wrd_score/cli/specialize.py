"""``wrdscore specialize``: counter-fit a static ``.npz`` embedding to antonym/synonym constraints (Mrkšić et al.
2016), give leading verbs and negations their weight (:mod:`wrd_score.specialize`); words, tokenizer and tables kept."""
from __future__ import annotations

import argparse
import os

from ..constraints import read_constraints
from ..distill import DOCUMENT_FORMATS
from ..specialize import (COUNTER_FIT_DEFAULTS, MAX_ITERATIONS, MAX_VERB_WEIGHT, NEGATORS, POST_SPECIALIZE, check_steps,
                          specialize_file)
from .distill import _corpus_arg
from ..train import STORED_DTYPES, check_embedding_output
from .common import choice_type, flag_name, int_type, number_type

#: Counter-fitting's flags: (help, minimum, maximum); the defaults are the library's.
_COUNTER_FIT_FLAGS = {
    "delta": ("antonyms pushed to this cosine distance", 0, 2),
    "gamma": ("synonyms pulled to this cosine distance", 0, 2),
    "rho": ("neighbours kept: original cosine distance below this", 0, 2),
    "k_antonym": ("weight of antonym repel", 0, 1),
    "k_synonym": ("weight of synonym attract", 0, 1),
    "k_vsp": ("weight of vector space preservation", 0, 1),
}


#: Flags whose name is not the parameter's (:func:`~wrd_score.cli.common.option_flags`'s ``renamed``).
FLAGS = {"verb_corpus": "--verbs", "post": "--post-specialize", "negators": "--negation"}


def _flag(name: str) -> str:
    return flag_name(name, FLAGS)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("embedding", help="the embedding to counter-fit (a name or a .npz)")
    parser.add_argument("-o", "--output", required=True, help="the .npz to write")
    parser.add_argument("--constraints", default=[], nargs="+", metavar="TSV",
                        help="constraint files of `wrdscore constraints` (relation, word1, word2, source)")
    for name, (text, low, high) in _COUNTER_FIT_FLAGS.items():
        parser.add_argument(_flag(name), type=number_type(_flag(name), low, high), default=None,
                            help=f"{text}, in [{low}, {high}] (default {COUNTER_FIT_DEFAULTS[name]}; needs --constraints)")
    parser.add_argument("--iterations", type=int_type("--iterations", 1, MAX_ITERATIONS), default=None,
                        help=f"full-batch steps, 1-{MAX_ITERATIONS:,} (default {COUNTER_FIT_DEFAULTS['iterations']}; "
                             "needs --constraints)")
    parser.add_argument("--post-specialize", default=None, type=choice_type("--post-specialize", sorted(POST_SPECIALIZE)),
                        help="post-specialisation (Vulic et al. 2018): a map fitted from the constrained words' original "
                             "directions to their counter-fitted ones moves every word in no constraint (linear: least "
                             "squares with a bias); norms kept (default: off, only constrained words and neighbours move)")
    parser.add_argument("--verbs", default=None, metavar="NAMES",
                        help="method names (one per line, .gz allowed): a word gets a norm (mass) of at least the share of the "
                             "names holding it that it starts, times the median norm of an object word")
    parser.add_argument("--verb-weight", type=number_type("--verb-weight", 0, MAX_VERB_WEIGHT), default=None,
                        help=f"scale of that floor, in [0, {MAX_VERB_WEIGHT:g}] (default 1: a leading verb weighs like a "
                             "median object word; needs --verbs)")
    parser.add_argument("--negation", action="store_true",
                        help=f"give the negating words ({', '.join(NEGATORS)}) one direction opposite to the "
                             "vocabulary's mean and a full weight (needs --verbs)")
    parser.add_argument("--df-corpus", action="append", default=None, metavar="PATH:FORMAT",
                        help="document corpus (FORMAT identifiers|stsb) of a document-frequency table stored in place "
                             "of the input's, as `wrdscore distill --df-corpus` builds it; repeatable")
    parser.add_argument("--dtype", default="float16", type=choice_type("--dtype", STORED_DTYPES),
                        help=f"stored precision, one of {', '.join(STORED_DTYPES)} (default float16)")
    parser.add_argument("--name", required=True, help="name recorded in signatures")


def run(args: argparse.Namespace) -> int:
    params = {name: getattr(args, name) for name in COUNTER_FIT_DEFAULTS if getattr(args, name) is not None}
    check_steps(params, args.verb_weight, args.post_specialize, constraints=bool(args.constraints),
                verbs=args.verbs is not None, negators=args.negation, name=_flag)
    df_corpora = [_corpus_arg(c, "--df-corpus", DOCUMENT_FORMATS) for c in args.df_corpus or ()]
    # -o on the input embedding replaced the user's file; so would -o on any other file this command reads.
    check_embedding_output(args.output, [("embedding", args.embedding), ("--verbs", args.verbs)]
                           + [("--constraints", path) for path in args.constraints]
                           + [("--df-corpus", path) for path, _ in df_corpora])
    constraints = {path: read_constraints(path) for path in args.constraints}
    checksum = specialize_file(args.embedding, args.output, constraints, name=args.name, dtype=args.dtype,
                               command=getattr(args, "_command_line", None), verb_corpus=args.verbs,
                               verb_weight=args.verb_weight, post=args.post_specialize, **params,
                               negators=NEGATORS if args.negation else (),
                               df_corpora=df_corpora)
    size = os.path.getsize(args.output) / 1e6 if os.path.isfile(args.output) else float("nan")
    print(f"wrote {args.output}: {size:.1f} MB, sha256 {checksum}")
    return 0
