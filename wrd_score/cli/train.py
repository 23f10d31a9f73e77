"""``wrdscore train``: a static token embedding (word2vec, fastText, SVD) from a corpus."""
from __future__ import annotations

import argparse
import os

from ..train import ARCHITECTURES, CORPUS_FORMATS, METHODS, SVD_WEIGHTINGS, train


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("corpus", nargs="+", help="corpus file(s), one document per line (.gz allowed)")
    parser.add_argument("-o", "--output", required=True, help="the .npz to write")
    parser.add_argument("--method", default="fasttext", choices=METHODS)
    parser.add_argument("--corpus-format", default="tokens", choices=CORPUS_FORMATS,
                        help="tokens: whitespace-separated; identifiers: split each line with split_identifier")
    parser.add_argument("--dim", type=int, default=None, help="vector size (default 100; svd: 50)")
    parser.add_argument("--window", type=int, default=None, help="context window (default: word2vec 2, fastText 5)")
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--min-count", type=int, default=5)
    parser.add_argument("--architecture", default="cbow", choices=ARCHITECTURES)
    parser.add_argument("--negative", type=int, default=5)
    parser.add_argument("--sample", type=float, default=1e-3)
    parser.add_argument("--min-n", type=int, default=2, help="fastText: shortest character n-gram")
    parser.add_argument("--max-n", type=int, default=5, help="fastText: longest character n-gram")
    parser.add_argument("--bucket", type=int, default=50_000, help="fastText: n-gram hash rows (file size)")
    parser.add_argument("--svd-weighting", default="count", choices=SVD_WEIGHTINGS)
    parser.add_argument("--fraction", type=float, default=1.0, help="train on this evenly spread share of lines")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=1,
                        help="training threads; >1 is faster but not reproducible run to run")
    parser.add_argument("--dtype", default="float16", choices=["float16", "float32"])
    parser.add_argument("--name", default=None, help="name recorded in signatures (default: output file stem)")
    parser.add_argument("--no-progress", dest="progress", action="store_false")


def run(args: argparse.Namespace) -> int:
    command = getattr(args, "_command_line", None)
    emb = train(args.corpus, args.output, method=args.method, corpus_format=args.corpus_format, dim=args.dim,
                window=args.window, epochs=args.epochs, min_count=args.min_count,
                architecture=args.architecture, negative=args.negative, sample=args.sample,
                min_n=args.min_n, max_n=args.max_n, bucket=args.bucket, svd_weighting=args.svd_weighting,
                fraction=args.fraction, seed=args.seed, workers=args.workers, dtype=args.dtype,
                name=args.name, progress=args.progress,
                command=command or "wrdscore train (arguments via the Python API)")
    return report(args.output, emb)


def report(output: str, emb) -> int:
    """The one line ``train`` and ``convert`` print about the file they wrote."""
    # A FIFO or device (-o /dev/null) has no size to report.
    size = f"{os.path.getsize(output) / 1e6:.1f} MB, " if os.path.isfile(output) else ""
    print(f"wrote {output}: {len(emb)} tokens x {emb.dim} dims"
          f"{f', {emb.ngram_vectors.shape[0]} n-gram buckets' if emb.has_ngrams else ''}, "
          f"{size}sha256 {emb.checksum}")
    return 0
