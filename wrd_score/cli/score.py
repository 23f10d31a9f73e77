"""``wrdscore score``: score candidates against references (files, one per line, or strings)."""
from __future__ import annotations

import argparse
import contextlib
import sys
from array import array
from typing import IO, Any, Iterator

from tqdm import tqdm  # not tqdm.auto: this is a terminal tool

from ..files import Pair, atomic_write, check_output, iter_file_pairs, read_idf_file, resolve_inputs, write_json
from ..metric import WRDScorer
from ..stream import iter_scores
from ..weights import user_idf, uses_idf
from .common import add_input_arguments, add_metric_arguments, options_from_args


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = (
        "examples:\n"
        "  wrdscore score -c preds.txt -r refs.txt\n"
        "  wrdscore score -c preds.txt -r refs1.txt -r refs2.txt --per-example -o scores.tsv\n"
        "  wrdscore score -c getCount -r get_count -r size --json\n"
        "  generate | wrdscore score -c - -r refs.txt\n"
        "exit status: 0 on success, 2 on bad input (nothing is written to -o then)."
    )
    io = add_input_arguments(parser)
    io.add_argument("--per-example", action="store_true",
                    help="one line per candidate: P, R, F1 tab-separated (plus the best reference's "
                         "index when there are several references)")
    io.add_argument("--json", action="store_true",
                    help="print the full result (per-example lists, means, signature) as JSON")
    io.add_argument("-o", "--output", metavar="FILE",
                    help="write the output to FILE (atomically: complete or not at all) and print "
                         "only the summary line")
    io.add_argument("--digits", type=int, default=6, help="decimals in text output (default: 6)")
    io.add_argument("--chunk-size", type=int, default=10_000,
                    help="pairs scored at a time; bounds memory, never changes a score (default: 10000)")
    io.add_argument("--idf-file", metavar="FILE",
                    help="token weights for --weights idf / norm*idf: JSON object or 'token<TAB>weight' "
                         "lines (default: fit on the references)")
    io.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    add_metric_arguments(parser)


def run(args: argparse.Namespace) -> int:
    if args.json and args.per_example:
        raise ValueError("--json already holds the per-example scores; give --json or --per-example, not both")
    if args.digits < 0 or args.digits > 17:
        raise ValueError(f"--digits must be between 0 and 17, got {args.digits}")
    if args.chunk_size < 1:
        raise ValueError(f"--chunk-size must be a positive integer, got {args.chunk_size}")
    inputs = resolve_inputs(args.candidates, args.references, args.input_mode)
    are_files, n = inputs.are_files, inputs.n
    if args.output:
        check_output(args.output, [args.candidates, *args.references] if are_files else [])
    scorer = WRDScorer(**options_from_args(args))
    with_idf = uses_idf(scorer.options.weights)
    idf: Any = None
    if args.idf_file:
        if not with_idf:
            raise ValueError(f"--idf-file was given but --weights {scorer.options.weights} does not use it; "
                             "pass --weights idf or norm*idf")
        table = read_idf_file(args.idf_file)
        try:
            idf = user_idf(table)
        except (TypeError, ValueError) as exc:  # name the file the bad weight came from
            raise type(exc)(f"idf file {args.idf_file!r}: {exc}") from None

    def pairs() -> Iterator[Pair]:
        if are_files:
            return iter_file_pairs(inputs.candidates, inputs.references)
        return iter([(args.candidates, list(args.references))])

    if with_idf and idf is None:
        # One table for the whole input, as a single score() call would fit (a second streaming pass).
        idf = scorer.idf_table(refs for _, refs in pairs())
    signature = scorer.signature(idf)

    several = len(args.references) > 1
    columns = {"precision": array("d"), "recall": array("d"), "f1": array("d"), "best_reference": array("l")}
    sums = [0.0, 0.0, 0.0]
    digits = args.digits
    with contextlib.ExitStack() as stack:
        out: IO[str] = (stack.enter_context(atomic_write(args.output)) if args.output else sys.stdout)
        bar = stack.enter_context(tqdm(total=n, unit="pair", file=sys.stderr, dynamic_ncols=True,
                                       disable=args.quiet or not sys.stderr.isatty()))
        for p, r, f, best in iter_scores(scorer, pairs(), chunk_size=args.chunk_size, idf=idf):
            # A running sum in example order: the same for every chunk size.
            sums[0] += p
            sums[1] += r
            sums[2] += f
            if args.json:
                columns["precision"].append(p)
                columns["recall"].append(r)
                columns["f1"].append(f)
                columns["best_reference"].append(best)
            elif args.per_example:
                line = f"{p:.{digits}f}\t{r:.{digits}f}\t{f:.{digits}f}"
                out.write(f"{line}\t{best}\n" if several else line + "\n")
            bar.update(1)
        means = {"mean_precision": sums[0] / n, "mean_recall": sums[1] / n, "mean_f1": sums[2] / n}
        summary = (f"{signature} P: {means['mean_precision']:.{digits}f} R: {means['mean_recall']:.{digits}f} "
                   f"F1: {means['mean_f1']:.{digits}f}")
        if args.json:
            write_json(out, columns, means, signature)
        else:
            out.write(summary + "\n")
    if args.output:
        print(summary)
    return 0
