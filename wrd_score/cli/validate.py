"""``wrdscore validate``: correlate metrics with human judgments in TSV files (tables, CSV, plots)."""
from __future__ import annotations

import argparse
import sys

from ..checks import check_needs
from ..stats import MIN_RESAMPLES, check_resamples
from ..validation import DEFAULT_METRICS, ConstantHumanError, all_metrics, check_options_used, output_paths, validate
from .common import add_metric_arguments, flag_name, int_type, options_from_args, set_by


_OUTPUT_DIR = "wrdscore-validate"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE.tsv", help="judgment files (shared/data format)")
    parser.add_argument("--metric", "-m", dest="metrics", action="append", default=None, metavar="SPEC",
                        help="metric to validate, repeatable: wrdscore[:opt=val,...], or any registered metric "
                             f"with its options ({', '.join(m for m in all_metrics() if m != 'wrdscore')}), or "
                             f"column:NAME (patterns allowed). Default: {' '.join(DEFAULT_METRICS)}")
    parser.add_argument("--all-metrics", action="store_true",
                        help="validate every registered metric with its defaults (backend metrics on the "
                             "command's backend options); --metric specs are added after them")
    parser.add_argument("--human", default="human", help="column with the human score (default: human)")
    parser.add_argument("--group-by", default=None, metavar="COLUMN", help="report each group and their mean")
    parser.add_argument("--human-range", nargs=2, type=float, default=None, metavar=("LO", "HI"),
                        help="human scale, mapped to [0, 1] for MSE/MAE (default: observed min and max)")
    parser.add_argument("--bootstrap", type=int, default=1000,
                        help=f"bootstrap resamples: 0 (no intervals, no paired test) or {MIN_RESAMPLES} to 100,000 "
                             "(default 1000)")
    parser.add_argument("--seed", type=int_type("--seed", 0), default=None,
                        help="bootstrap seed (default 0; not with --bootstrap 0)")
    parser.add_argument("--reference-metric", default=None, metavar="LABEL",
                        help="metric the paired test compares the others against (default: first wrdscore; not with "
                             "--bootstrap 0)")
    parser.add_argument("--output-dir", default=None, metavar="DIR",
                        help=f"where the per-pair CSV and scatter PNG go (default: ./{_OUTPUT_DIR}; not with --no-files)")
    parser.add_argument("--no-files", action="store_true", help="print the table only; write no CSV/PNG")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress bars (they are drawn only when standard error is a terminal)")
    add_metric_arguments(parser)


def run(args: argparse.Namespace) -> int:
    check_resamples(args.bootstrap, "--bootstrap", off=True)
    resampling, files = "resampling (--bootstrap 0 turns it off)", "files (--no-files)"
    check_needs([flag for flag, value in (("--seed", args.seed), ("--reference-metric", args.reference_metric),
                                          ("--output-dir", args.output_dir)) if value is not None],
                {"--seed": resampling, "--reference-metric": resampling, "--output-dir": files},
                {resampling: args.bootstrap > 0, files: not args.no_files})
    output_dir = None if args.no_files else args.output_dir or _OUTPUT_DIR
    metrics = list(args.metrics or ())
    if args.all_metrics:
        metrics = list(all_metrics()) + metrics
    metrics = metrics or list(DEFAULT_METRICS)
    options = options_from_args(args)
    check_options_used(metrics, options, "--metric", lambda name: flag_name(name, set_by(options)))
    try:
        results = validate(args.files, metrics, human=args.human, group_by=args.group_by,
                           human_range=args.human_range, n_boot=args.bootstrap, seed=args.seed,
                           options=options, reference=args.reference_metric,
                           output_dir=output_dir, progress=not args.quiet and sys.stderr.isatty())
    except ConstantHumanError as exc:  # the same advice in this command's own syntax
        raise ValueError(str(exc).replace("human_range=(LO, HI)", "--human-range LO HI")) from None
    for i, result in enumerate(results):
        if i:
            print()
        print(result.markdown())
        if output_dir is not None:
            print("wrote {} and {}".format(*output_paths(result.path, output_dir)), file=sys.stderr)
    return 0
