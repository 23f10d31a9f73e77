"""``wrdscore baseline``: the rescaling baseline of a configuration, from random unrelated pairs."""
from __future__ import annotations

import argparse
import os
import sys

from ..files import check_output
from ..scorer import WRDScorer
from ..rescale import baseline_files, check_pairs, compute_baseline, save_baseline, shipped_baseline_path
from .common import add_metric_arguments, options_from_args

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--corpus", required=True,
                        help="texts to pair at random: .txt[.gz] one per line, or a .tsv[.gz] with a header "
                             "(e.g. ../shared/data/java_method_names/java_method_names.txt.gz for identifiers, "
                             "../shared/data/stsb/stsb_train.tsv for sentences)")
    parser.add_argument("--columns", nargs="+", default=None,
                        help="text columns of a .tsv corpus (default: prediction reference)")
    parser.add_argument("--pairs", type=int, default=2000, help="random pairs to score (default 2000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--output", default=None,
                        help="baselines file to update (default: beside a user embedding file, "
                             "else the shipped embeddings/baselines.json)")
    add_metric_arguments(parser)


def run(args: argparse.Namespace) -> int:
    check_pairs(args.pairs)  # before the embedding or the model is loaded
    options = options_from_args(args)
    if options.pop("rescale_with_baseline", False):
        print("wrdscore baseline: ignoring --rescale-with-baseline (a baseline is the raw score's mean)",
              file=sys.stderr)
    scorer = WRDScorer(**options)
    command = getattr(args, "_command_line", None)
    output = args.output
    if output is None:
        embedding = scorer.options.embedding
        output = baseline_files(embedding)[-1] if os.path.isfile(embedding) else shipped_baseline_path()
    check_output(output, [("--corpus", args.corpus), ("--embedding", args.embedding)])  # before the scoring
    key, entry = compute_baseline(scorer, args.corpus, args.pairs, args.seed, args.columns, command=command)
    save_baseline(output, key, entry)
    print(f"{key}\n  precision {entry['precision']:.4f}  recall {entry['recall']:.4f}  f1 {entry['f1']:.4f}"
          f"  ({entry['n_pairs']} pairs of {entry['corpus']}, seed {entry['seed']})\n  written to {output}")
    return 0
