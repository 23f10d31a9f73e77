"""``wrdscore baseline``: the rescaling baseline of a configuration, from random unrelated pairs."""
from __future__ import annotations

import argparse
import os
import sys

from ..files import check_output
from ..scorer import WRDScorer
from ..rescale import (check_pairs, compute_baseline, default_output, load_baselines, save_baseline,
                       shipped_baseline_path)
from .common import add_metric_arguments, int_type, options_from_args

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--corpus", required=True,
                        help="texts to pair at random: a table (.tsv, .csv, .jsonl, [.gz]) whose --columns hold them, or any "
                             "other file (.txt[.gz]) one text per line "
                             "(e.g. ../shared/data/java_method_names/java_method_names.txt.gz for identifiers, "
                             "../shared/data/stsb/stsb_train.tsv for sentences)")
    parser.add_argument("--columns", nargs="+", default=None,
                        help="text columns of a table corpus (default: prediction reference)")
    parser.add_argument("--pairs", type=int, default=2000, help="random pairs to score (default 2000)")
    parser.add_argument("--seed", type=int_type("--seed", 0), default=0, help="random seed (default 0)")
    parser.add_argument("--output", default=None,
                        help="baselines file to update (default: <embedding file>.baselines.json beside a user "
                             "embedding file, else the user's baselines.json in $WRDSCORE_CACHE, "
                             "$XDG_CACHE_HOME/wrd_score or ~/.cache/wrd_score; never the installed package). "
                             "Scoring with --rescale-with-baseline finds it in either place")
    add_metric_arguments(parser)


def run(args: argparse.Namespace) -> int:
    check_pairs(args.pairs)  # before the embedding or the model is loaded
    options = options_from_args(args)
    if options.get("rescale_with_baseline"):
        # Users copy their scoring flags here; the flag could only be ignored, so it is refused, as elsewhere.
        raise ValueError("--rescale-with-baseline given to wrdscore baseline: it would be ignored (a baseline is the "
                         "mean of raw scores, the b that --rescale-with-baseline then subtracts); drop the flag here "
                         "and score with it once the baseline is written")
    scorer = WRDScorer(**options)
    command = getattr(args, "_command_line", None)
    output = args.output
    if output is None:
        output = default_output(scorer.options.embedding)
        os.makedirs(os.path.dirname(output), exist_ok=True)  # the user's cache folder may not exist yet
    check_output(output, [("--corpus", args.corpus), ("--embedding", args.embedding)])  # before the scoring
    key, entry = compute_baseline(scorer, args.corpus, args.pairs, args.seed, args.columns, command=command)
    save_baseline(output, key, entry)
    print(f"{key}\n  precision {entry['precision']:.4f}  recall {entry['recall']:.4f}  f1 {entry['f1']:.4f}"
          f"  ({entry['n_pairs']} pairs of {entry['corpus']}, seed {entry['seed']})\n  written to {output}")
    if os.path.abspath(output) != os.path.abspath(shipped_baseline_path()) and key in load_baselines(
            shipped_baseline_path()):
        print("  note: the shipped baselines file has an entry for this configuration, and it is the one "
              "rescaling uses (published rescaled scores stay reproducible)", file=sys.stderr)
    return 0
