"""``wrdscore install-evaluate-module``: make ``evaluate.load("wrdscore")`` load the installed module, offline."""
from __future__ import annotations

import argparse

from ..evaluate_cache import copy_is_current, install_evaluate_module, installed_copy


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = (
        "WRDScore has no module on the Hugging Face Hub; evaluate falls back to its cache for a bare name, and this\n"
        "command puts the evaluate module installed with wrd-score there (run it again after an upgrade: the copy\n"
        "is replaced; an outdated copy warns when it is loaded). Then, in Python, offline too:\n"
        "  import evaluate\n"
        "  wrdscore = evaluate.load(\"wrdscore\")\n"
        "exit status: 0 on success; with --check, 0 when the copy is current and 1 when it is missing or outdated.")
    parser.add_argument("--modules-cache", metavar="DIR", default=None,
                        help="evaluate's modules folder (default: evaluate's own: $HF_MODULES_CACHE, else "
                             "~/.cache/huggingface/modules)")
    parser.add_argument("--check", action="store_true",
                        help="only say whether the copy evaluate.load(\"wrdscore\") would load is the installed one")


def run(args: argparse.Namespace) -> int:
    if args.check:
        copy = installed_copy(args.modules_cache)
        if copy is None:
            print("no copy: evaluate.load(\"wrdscore\") fails; run `wrdscore install-evaluate-module`")
            return 1
        current = copy_is_current(copy)
        print(f"{copy}: {'current' if current else 'outdated: run `wrdscore install-evaluate-module`'}")
        return 0 if current else 1
    path = install_evaluate_module(args.modules_cache)
    print(f"wrote {path}\nevaluate.load(\"wrdscore\") now loads it (offline too); run this again after upgrading wrd-score")
    return 0
