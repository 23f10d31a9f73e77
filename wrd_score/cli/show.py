"""``wrdscore show``: the alignment of one pair (cosines and optimal flow, token by token) as a figure."""
from __future__ import annotations

import argparse

from ..plot import show
from ..scoring import MAX_TRANSPORT_NODES
from .common import add_metric_arguments, int_type, options_from_args


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = ("examples:\n"
                     "  wrdscore show -c 'get count' -r size -o pair.png\n"
                     "  wrdscore show -c 'A man plays a guitar.' -r 'A man is playing music.' --variant paper -o s.png\n"
                     f"Texts of up to {MAX_TRANSPORT_NODES} tokens; beyond about 40 tokens a side, every k-th label is shown.")
    parser.add_argument("-c", "--candidate", required=True, metavar="TEXT", help="the prediction (one text)")
    parser.add_argument("-r", "--reference", required=True, metavar="TEXT", help="the reference (one text)")
    parser.add_argument("-o", "--output", required=True, metavar="FILE.png",
                        help="the figure to write (atomically), in the format its suffix names: .png, .pdf, .svg, ...")
    parser.add_argument("--dpi", type=int_type("--dpi", 30, 600), default=110, help="resolution of a raster image (PNG, JPEG ...; default 110)")
    add_metric_arguments(parser)


def run(args: argparse.Namespace) -> int:
    path = show(args.candidate, args.reference, args.output, dpi=args.dpi, **options_from_args(args))
    print(f"wrote {path}")
    return 0
