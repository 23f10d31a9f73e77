"""The ``wrdscore`` command: one tool, one set of metric flags, a subcommand per job.

Each subcommand lives in the module that owns its step and exposes ``cli_add_arguments(parser)``
and ``cli_run(args) -> int``; this module only dispatches and defines the shared metric flags.
"""
from __future__ import annotations

import argparse
import importlib
import shlex
import sys
from dataclasses import fields
from typing import Any, Dict, List, Optional

from . import __version__
from .metric import Options

# name -> (module, one-line help). Modules are imported only when their command runs, so
# `wrdscore score` never pays for importing torch.
COMMANDS: Dict[str, tuple] = {
    "validate": ("wrd_score.validate", "correlate metrics with human judgments in TSV files (tables, CSV, plots)"),
    "baseline": ("wrd_score.rescale", "compute the rescaling baseline of a configuration from random unrelated pairs"),
    "score": ("wrd_score.files", "score candidates against references (files, one per line, or strings)"),
    "train": ("wrd_score.train", "train a static token embedding (word2vec, fastText, SVD) from a corpus"),
    "distill": ("wrd_score.distill", "distil a static token embedding from a local transformers encoder (MiniLM)"),
    "convert": ("wrd_score.train", "convert an embedding file (word2vec, GloVe, fastText .bin, gensim) to the safe .npz"),
    "compare": ("wrd_score.siblings", "WRDScore, BERTScore, MoverScore and ROUGE side by side on the same pairs"),
}


def add_metric_arguments(parser: argparse.ArgumentParser) -> None:
    """Add one ``--flag`` per field of :class:`wrd_score.Options` (defaults: the library's)."""
    group = parser.add_argument_group("metric options (defaults: the library's)")
    for field in fields(Options):
        flag = "--" + field.name.replace("_", "-")
        if field.type == "bool":
            group.add_argument(flag, dest=field.name, default=None, action=argparse.BooleanOptionalAction,
                               help=f"default: {field.default}")
        elif field.type in ("int", "Optional[int]"):
            group.add_argument(flag, dest=field.name, default=None, type=int, help=f"default: {field.default}")
        elif field.type in ("float", "Optional[float]"):
            group.add_argument(flag, dest=field.name, default=None, type=float, help=f"default: {field.default}")
        else:
            group.add_argument(flag, dest=field.name, default=None, help=f"default: {field.default}")


def options_from_args(args: argparse.Namespace) -> Dict[str, Any]:
    """The metric options a user set on the command line (unset ones keep the library default)."""
    return {f.name: getattr(args, f.name) for f in fields(Options) if getattr(args, f.name, None) is not None}


def build_parser(only: Optional[str] = None) -> argparse.ArgumentParser:
    """The full parser; with ``only``, just that subcommand's module is imported (see :func:`main`)."""
    parser = argparse.ArgumentParser(prog="wrdscore", description="WRDScore: optimal-transport text similarity.")
    parser.add_argument("--version", action="version", version=f"wrdscore {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        cmd = sub.add_parser(name, help=help_text, description=help_text)
        if only is None or name == only:
            importlib.import_module(module).cli_add_arguments(cmd)
        cmd.set_defaults(_module=module)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # Import only the chosen command's module: `wrdscore --help` and `wrdscore score` stay fast and
    # do not depend on every other command's imports. The command is the first non-option word
    # (the top-level parser has no option that takes a value).
    command = next((a for a in argv if not a.startswith("-")), "")
    parser = build_parser(only=command)
    args = parser.parse_args(argv)
    # The command line as given (also when main() is called in-process with an argv list), for the
    # provenance that `train` and `baseline` record; sys.argv would be the caller's, e.g. pytest's.
    args._command_line = "wrdscore " + shlex.join(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    try:
        return int(importlib.import_module(args._module).cli_run(args) or 0)
    except (ValueError, TypeError, FileNotFoundError, OSError) as exc:
        # Bad input is the user's to fix: a one-line message and a non-zero exit, no traceback.
        print(f"wrdscore {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
