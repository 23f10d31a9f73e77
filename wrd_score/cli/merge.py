"""``wrdscore merge``: join the records of ``wrdscore score --shard K/N`` into the result of one run."""
from __future__ import annotations

import argparse
import contextlib
import sys
from typing import IO

from ..checks import needed_or_default
from ..files import atomic_write, check_output, write_json
from ..shards import merge_shards
from .common import int_type


#: Decimals of the summary line.
_DIGITS = 6


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = (
        "examples:\n"
        "  for k in 1 2 3 4; do wrdscore score -c preds.txt -r refs.txt --shard $k/4 -o shard$k.json; done\n"
        "  wrdscore merge shard*.json -o scores.json\n"
        "The output is what `wrdscore score --json` writes for the whole input (per-example values, means,\n"
        "signature). Shards with different signatures or inputs, and missing or repeated shards, are refused.\n"
        "exit status: 0 on success, 2 on bad input (nothing is written to -o then)."
    )
    parser.add_argument("shards", nargs="+", metavar="SHARD", help="shard records (any order)")
    parser.add_argument("-o", "--output", metavar="FILE",
                        help="write the merged result to FILE (atomically) and print only the summary line")
    parser.add_argument("--digits", type=int_type("--digits", 0, 17), default=None,
                        help=f"decimals in the summary line, printed with -o (default: {_DIGITS})")



def run(args: argparse.Namespace) -> int:
    # Without -o the merged JSON is printed, every digit kept, and no summary line: --digits would be ignored.
    digits = needed_or_default({"--digits": args.digits}, {"--digits": _DIGITS}, {"--digits": "-o (the summary line)"},
                               {"-o (the summary line)": args.output is not None})["--digits"]
    if args.output:
        check_output(args.output, args.shards)
    merged = merge_shards(args.shards)
    means = merged.means
    # The summary line of `wrdscore score`, for the same means.
    summary = (f"{merged.signature} P: {means['mean_precision']:.{digits}f} R: {means['mean_recall']:.{digits}f} "
               f"F1: {means['mean_f1']:.{digits}f}")
    with contextlib.ExitStack() as stack:
        out: IO[str] = stack.enter_context(atomic_write(args.output)) if args.output else sys.stdout
        write_json(out, merged.columns, means, merged.signature)
    if args.output:
        print(summary)
    return 0
