"""``wrdscore train``: a static token embedding (word2vec, fastText, SVD) from a corpus."""
from __future__ import annotations

import argparse
import os

from ..options import option_info
from ..train import TrainOptions, train
from .common import add_option_arguments, options_from_args


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("corpus", nargs="+", help="corpus file(s), one document per line (.gz allowed)")
    parser.add_argument("-o", "--output", required=True, help="the .npz to write")
    add_option_arguments(parser.add_argument_group("training options (defaults: the library's)"),
                         option_info(of=TrainOptions))
    parser.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bars")


def run(args: argparse.Namespace) -> int:
    command = getattr(args, "_command_line", None)
    emb = train(args.corpus, args.output, options=TrainOptions(**options_from_args(args, TrainOptions)),
                progress=args.progress, command=command or "wrdscore train (arguments via the Python API)")
    return report(args.output, emb)


def report(output: str, emb) -> int:
    """The one line ``train`` and ``convert`` print about the file they wrote."""
    # A FIFO or device (-o /dev/null) has no size to report.
    size = f"{os.path.getsize(output) / 1e6:.1f} MB, " if os.path.isfile(output) else ""
    print(f"wrote {output}: {len(emb)} tokens x {emb.dim} dims"
          f"{f', {emb.ngram_vectors.shape[0]} n-gram buckets' if emb.has_ngrams else ''}, "
          f"{size}sha256 {emb.checksum}")
    return 0
