"""``wrdscore convert``: an embedding file (word2vec, GloVe, fastText .bin, gensim) to the safe .npz."""
from __future__ import annotations

import argparse

from ..embeddings import EMBEDDING_FORMATS
from ..embeddings import STORED_DTYPES
from ..train import convert
from .common import choice_type
from .train import report


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("source", help="embedding file: word2vec/GloVe text, .bin, fastText .bin, gensim pickle")
    parser.add_argument("output", help="the .npz to write")
    parser.add_argument("--format", default="auto", type=choice_type("--format", EMBEDDING_FORMATS),
                        metavar="{" + ",".join(EMBEDDING_FORMATS) + "}",
                        help="input format (default: by extension)")
    parser.add_argument("--allow-pickle", action="store_true",
                        help="allow gensim pickles (.model/.kv); only for files you trust")
    parser.add_argument("--dtype", default="float16", type=choice_type("--dtype", STORED_DTYPES),
                        metavar="{" + ",".join(STORED_DTYPES) + "}")


def run(args: argparse.Namespace) -> int:
    emb = convert(args.source, args.output, format=args.format, allow_pickle=args.allow_pickle,
                  dtype=args.dtype, command=getattr(args, "_command_line", None))
    return report(args.output, emb)
