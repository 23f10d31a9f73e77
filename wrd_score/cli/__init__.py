"""The ``wrdscore`` command: one tool, one set of metric flags, a subcommand per job.

Each subcommand is a module of this package exposing ``add_arguments(parser)`` and
``run(args) -> int``; this module only dispatches.  No module outside this package parses arguments.
"""
from __future__ import annotations

import argparse
import importlib
import os
import shlex
import signal
import sys
import threading
from typing import Dict, List, Optional

from .. import __version__
from ..checks import close_match_hint
from ..deps import MissingDependency
from .common import name_flags, option_flags

# name -> one-line help; each command is the module wrd_score.cli.<name> with add_arguments(parser)
# and run(args) -> exit status. Modules are imported only when their command runs, so
# `wrdscore score` never pays for importing torch.
COMMANDS: Dict[str, str] = {
    "score": "score candidates against references (files, one per line, or strings)",
    "merge": "join the records of `score --shard K/N` runs into the result of one run",
    "compare": "WRDScore, BERTScore, MoverScore and ROUGE side by side on the same pairs",
    "show": "draw the alignment of one pair (cosines and optimal flow, token by token): PNG, PDF, SVG ... by suffix",
    "validate": "correlate metrics with human judgments in TSV files (tables, CSV, plots)",
    "baseline": "compute the rescaling baseline of a configuration from random unrelated pairs",
    "train": "train a static token embedding (word2vec, fastText, SVD) from a corpus",
    "distill": "distil a static token embedding from a local transformers encoder (MiniLM)",
    "constraints": "antonym and synonym pairs (WordNet 3.0, Java method names) for specialize, and held-out dev triplets",
    "specialize": "counter-fit a static embedding to antonym/synonym constraints (Mrkšić et al. 2016), with verb and negation masses",
    "convert": "convert an embedding file (word2vec, GloVe, fastText .bin, gensim) to the safe .npz",
    "install-evaluate-module": "place the installed evaluate module where evaluate.load(\"wrdscore\") finds it, offline",
}


class UsageError(Exception):
    """argparse's refusal of a command line, kept so that :func:`main` can add a hint to it; ``value``: a flag's
    value refused by its type (one line, as a value refused while the command runs), not a command line of the
    wrong shape (argparse's usage, then the error)."""

    def __init__(self, parser: argparse.ArgumentParser, message: str, value: bool = False) -> None:
        super().__init__(message)
        self.parser = parser
        self.value = value


class _NoHyphenBreaks(argparse.HelpFormatter):
    # argparse wraps at hyphens: "wrd-minilm-cf-morph-" ending a line read as another shipped embedding's name.
    def _split_lines(self, text: str, width: int) -> List[str]:
        import textwrap

        return textwrap.wrap(self._whitespace_matcher.sub(" ", text).strip(), width, break_on_hyphens=False)


class _Parser(argparse.ArgumentParser):
    # Subcommand parsers are made by add_parser with the parent's class, so they raise too.
    def error(self, message: str):  # type: ignore[override]
        raise UsageError(self, message)

    def _get_value(self, action: argparse.Action, arg_string: str) -> object:
        try:
            return super()._get_value(action, arg_string)
        except argparse.ArgumentError as exc:  # the library's check in the flag's type names the flag (name_flags)
            message = str(argparse.ArgumentError(action, name_flags(exc.message, option_flags(self))))
            raise UsageError(self, message, value=True) from None

    def _get_formatter(self) -> argparse.HelpFormatter:
        # Whichever formatter a command chose (RawDescriptionHelpFormatter for its description), without the breaks;
        # one that lays out help lines its own way (RawTextHelpFormatter) is kept as it is.
        formatter_class = self.formatter_class
        if getattr(formatter_class, "_split_lines", None) is argparse.HelpFormatter._split_lines:
            formatter_class = type("Formatter", (_NoHyphenBreaks, formatter_class), {})
        return formatter_class(prog=self.prog)


def habit_hint(argv: List[str]) -> str:
    """The right form of a sacreBLEU-style command line (``sacrebleu REFS -i CANDS``, or flags with
    no command), or "" when the line is not one.

    >>> habit_hint(["score", "refs.txt", "-i", "cands.txt"])
    "sacreBLEU's 'sacrebleu REFS -i CANDS' is 'wrdscore score -c cands.txt -r refs.txt' here"
    >>> habit_hint(["-c", "a", "-r", "b"])
    "name the command first: 'wrdscore score -c a -r b'"
    """
    words = list(argv)
    command = words[0] if words and words[0] in COMMANDS else ""
    rest = words[1:] if command else words
    for flag in ("-i", "--input"):
        if flag in rest:
            at = rest.index(flag)
            cands = [w for w in rest[at + 1:] if not w.startswith("-")][:1] or ["CANDS"]
            refs = [w for w in rest[:at] if not w.startswith("-")] or ["REFS"]
            return (f"sacreBLEU's 'sacrebleu REFS -i CANDS' is "
                    f"'wrdscore {command or 'score'} -c {shlex.join(cands)} -r {shlex.join(refs)}' here")
    if not command and any(w in ("-c", "--candidates", "-r", "--references") for w in rest):
        return f"name the command first: 'wrdscore score {shlex.join(rest)}'"
    return ""


def build_parser(only: Optional[str] = None) -> argparse.ArgumentParser:
    """The full parser; with ``only``, just that subcommand's module is imported (see :func:`main`)."""
    parser = _Parser(prog="wrdscore", description="WRDScore: optimal-transport text similarity.")
    parser.add_argument("--version", action="version", version=f"wrdscore {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, help_text in COMMANDS.items():
        cmd = sub.add_parser(name, help=help_text, description=help_text)
        module = f"{__name__}.{name.replace('-', '_')}"
        if only is None or name == only:
            importlib.import_module(module).add_arguments(cmd)
        cmd.set_defaults(_module=module)
    return parser


def _stop(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)


def main(argv: Optional[List[str]] = None) -> int:
    """Run one command; its exit status (0 success, 2 bad input, 143 stopped by SIGTERM)."""
    # SIGTERM (a scheduler's stop, `timeout`) ends a process at once by default, leaving the copy of a streamed
    # input and a half-written output behind; raised as SystemExit, every cleanup runs first. Only where nobody
    # else handles it: a program that calls main() keeps its own handler.
    own = threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    if own:
        signal.signal(signal.SIGTERM, _stop)
    try:
        try:
            return _dispatch(argv)
        finally:
            # Output still buffered for a reader that has gone shows up here, not as a traceback
            # printed by the interpreter at exit.
            sys.stdout.flush()
    except BrokenPipeError:
        # The reader stopped early (`wrdscore score ... | head`): it has what it asked for, so stop
        # quietly with success. (sacreBLEU restores SIG_DFL instead: killed by the signal, status 141.)
        _discard_stdout()
        return 0
    finally:
        if own:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _discard_stdout() -> None:
    # Point standard output at /dev/null so that the interpreter's last flush of the dead pipe
    # cannot fail again (the recipe of the Python signal module's documentation).
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):  # stdout replaced by an object without a descriptor
        pass


def _commands(parser: argparse.ArgumentParser) -> Dict[str, argparse.ArgumentParser]:
    """Each command's parser."""
    return next((a.choices for a in parser._actions if isinstance(a, argparse._SubParsersAction)), {})


def _flag_hint(parser: argparse.ArgumentParser, command: str, message: str) -> str:
    """The closest flag of ``command`` to the first one argparse did not recognise (the library's close-match
    rule, :func:`~wrd_score.checks.close_match_hint`), or ""."""
    if not message.startswith("unrecognized arguments:"):
        return ""
    unknown = next((word for word in message.split(":", 1)[1].split() if word.startswith("--")), None)
    owner = _commands(parser).get(command, parser)
    return close_match_hint(unknown.split("=", 1)[0], owner._option_string_actions) if unknown else ""


def _dispatch(argv: Optional[List[str]]) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    # Import only the chosen command's module: `wrdscore --help` and `wrdscore score` stay fast and
    # do not depend on every other command's imports. The command is the first non-option word
    # (the top-level parser has no option that takes a value).
    command = next((a for a in argv if not a.startswith("-")), "")
    parser = build_parser(only=command)
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        hint = habit_hint(argv)
        if hint:  # one line: the refusal and the form that works
            print(f"{exc.parser.prog}: error: {exc}; {hint}", file=sys.stderr)
        elif exc.value:
            print(f"{exc.parser.prog}: error: {exc}", file=sys.stderr)
        else:  # argparse's own output: usage, then the error (with the closest flag for a misspelt one)
            exc.parser.print_usage(sys.stderr)
            print(f"{exc.parser.prog}: error: {exc}{_flag_hint(parser, command, str(exc))}", file=sys.stderr)
        return 2
    # The command line as given (also when main() is called in-process with an argv list), for the
    # provenance that `train` and `baseline` record; sys.argv would be the caller's, e.g. pytest's.
    args._command_line = "wrdscore " + shlex.join(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    try:  # the import too: a command module may need a missing extra
        return int(importlib.import_module(args._module).run(args) or 0)
    except BrokenPipeError:
        raise  # not the user's input: main() ends quietly
    except (ValueError, TypeError, FileNotFoundError, OSError, MissingDependency) as exc:
        # Bad input (or a missing extra) is the user's to fix: one line and a non-zero exit, no traceback. The
        # library's message names its keywords; here, the flags typed (and a command's own spellings, its FLAGS).
        module = sys.modules.get(args._module)
        flags = option_flags(_commands(parser)[args.command], args, getattr(module, "FLAGS", {}))
        print(f"wrdscore {args.command}: error: {name_flags(str(exc), flags, argv)}", file=sys.stderr)
        return 2
