"""What several commands share: the metric flags (generated from :mod:`wrd_score.options`; ``train``'s from
:class:`wrd_score.train.TrainOptions` alike) and the input flags."""
from __future__ import annotations

import argparse
import re
from collections import Counter
from typing import Any, Callable, Dict, Iterable, Mapping, Optional, Sequence

from ..checks import check_choice, check_int, check_number
from ..options import OptionInfo, Options, option_info
from ..shards import Shard

__all__ = ["add_metric_arguments", "add_option_arguments", "options_from_args", "add_input_arguments", "shard_spec",
           "int_type", "number_type", "choice_type", "flag_name", "set_by", "option_flags", "name_flags"]

_GROUP_TITLES = {
    "metric": "metric options (defaults: the library's)",
    "static": "static backend options (--backend static)",
    "contextual": "contextual backend options (--backend contextual)",
}


def _argparse_type(read: Callable[[str], Any]) -> Callable[[str], Any]:
    """An argparse ``type`` that shows the library's one-line message (:mod:`wrd_score.checks`) as argparse
    shows a refusal, instead of argparse's "invalid value"."""
    def parse(text: str) -> Any:
        try:
            return read(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


def _text_type(info: OptionInfo):
    """The argparse ``type`` of an option: the option's own parser (:meth:`OptionInfo.parse`), then its allowed
    values where it has a closed set (the one unknown-value message, with the closest value)."""
    closed = bool(info.choices) and not info.accepts

    def read(text: str) -> Any:
        value = info.parse(text)
        return check_choice(info.name, value, info.choices) if closed else value

    return _argparse_type(read)


def _number(text: str, kind: type) -> Any:
    try:
        return kind(text)
    except ValueError:
        return text  # refused by the check, which names the flag and shows the text


def int_type(flag: str, minimum: Optional[int] = 1, maximum: Optional[int] = None, why: str = ""):
    """The argparse ``type`` of an integer flag, held to ``[minimum, maximum]`` by :func:`~wrd_score.checks.check_int`."""
    return _argparse_type(lambda text: check_int(flag, _number(text, int), minimum, maximum, why=why))


def number_type(flag: str, minimum: Optional[float] = None, maximum: Optional[float] = None, exclusive: bool = False):
    """The argparse ``type`` of a number flag, held to its range by :func:`~wrd_score.checks.check_number`."""
    return _argparse_type(lambda text: check_number(flag, _number(text, float), minimum, maximum,
                                                    exclusive=exclusive))


def choice_type(flag: str, allowed: Iterable[str]):
    """The argparse ``type`` of a flag with a closed set of values (:func:`~wrd_score.checks.check_choice`)."""
    allowed = tuple(allowed)
    return _argparse_type(lambda text: check_choice(flag, text, allowed))


def _help(info: OptionInfo) -> str:
    # argparse formats help with %-style: a literal % must be doubled.
    return info.describe().replace("%", "%%")


def add_metric_arguments(parser: argparse.ArgumentParser) -> None:
    """One ``--flag`` per :class:`~wrd_score.Options` field, grouped as the options are, with the
    allowed values and their meaning in the help (all from the option metadata)."""
    for group_name, title in _GROUP_TITLES.items():
        add_option_arguments(parser.add_argument_group(title), option_info(group_name))


def flag_name(name: str, renamed: Mapping[str, str] = {}) -> str:
    """The command-line flag of a library parameter: ``renamed[name]`` where the command spells it otherwise, else
    ``--`` and the name with dashes; a text that is no parameter name (a flag already, or a phrase such as ``chrf in
    --metrics``) as it is.  Error messages name the flag the user typed."""
    if name in renamed:
        return renamed[name]
    return name if name.startswith("-") or " " in name else "--" + name.replace("_", "-")


def set_by(options: Mapping[str, Any]) -> Dict[str, str]:
    """The flag that set each boolean option turned off (``--no-clip-negative``), for :func:`flag_name`'s ``renamed``:
    a message names the flag the user typed."""
    return {name: "--no-" + name.replace("_", "-") for name, value in options.items() if value is False}


def option_flags(parser: argparse.ArgumentParser, values: Optional[argparse.Namespace] = None,
                 renamed: Mapping[str, str] = {}) -> Dict[str, str]:
    """:func:`flag_name`'s ``renamed`` for every option of a command: each ``dest`` as argparse spells its flag
    (``-o/--output``), a boolean one set off as :func:`set_by` spells it (``--no-clip-negative``, from ``values``), and
    the library's parameters that the command spells otherwise (``renamed``: ``verb_corpus`` is ``--verbs``)."""
    actions = [a for a in parser._actions if a.option_strings and a.dest != argparse.SUPPRESS]
    shared = Counter(a.dest for a in actions)
    # A dest that several flags set (--files/--strings) has no one flag to name.
    flags = {a.dest: a.option_strings[0] if isinstance(a, argparse.BooleanOptionalAction) else "/".join(a.option_strings)
             for a in actions if shared[a.dest] == 1}
    flags.update(set_by({a.dest: getattr(values, a.dest, None) for a in actions
                         if isinstance(a, argparse.BooleanOptionalAction)}))
    return {**flags, **renamed}


def _named(flag: str, message: str) -> bool:
    return any(re.search(rf"(?<![\w-]){re.escape(f)}(?![\w-])", message) for f in flag.split("/"))


def name_flags(message: str, flags: Mapping[str, str], typed: Sequence[str] = ()) -> str:
    """``message``, a refusal of the library, with the parameters it names spelled as the command's flags
    (:func:`flag_name`, ``renamed`` = ``flags`` of :func:`option_flags`): the command line's one rule by which a
    message names the flag the user typed, not the library's keyword.

    A name is a parameter where the library words it as one: ``name=value``, and the message's subject ``name must
    ...``, ``name given without ...``; anywhere for a name that is no English word (``min_count``); the library's own
    ``name (--flag)`` is the flag alone.  A name is left as it is where the message names its flag already, and where the user typed
    the keyword itself (``wrdscore validate -m wrdscore:num_threads=0``: ``typed``, the command line's words).

    >>> flags = {"num_threads": "--num-threads", "layer": "--layer", "pairs": "--pairs"}
    >>> name_flags("num_threads must be an integer between 1 and 1,024, got 0", flags)
    '--num-threads must be an integer between 1 and 1,024, got 0'
    >>> name_flags("layer='x' applies only to backend='contextual'; the model's last layer", flags)
    "--layer='x' applies only to backend='contextual'; the model's last layer"
    >>> name_flags("n_pairs (--pairs) must be an integer >= 2, got 1", flags)
    '--pairs must be an integer >= 2, got 1'
    >>> name_flags("2 candidate inputs (--pairs) were given; a layer must be", flags)
    '2 candidate inputs (--pairs) were given; a layer must be'
    >>> name_flags("num_threads must be a positive integer, got 0", flags, typed=["-m", "wrdscore:num_threads=0"])
    'num_threads must be a positive integer, got 0'
    """
    known = {f for flag in flags.values() for f in flag.split("/")}
    message = re.sub(r"(?<![\w-])(\w+) \((--[\w-]+)\)", lambda m: m.group(2) if m.group(2) in known and (
        "_" in m.group(1) or m.group(1) in flags) else m.group(0), message)
    for name in sorted(flags, key=len, reverse=True):  # "fit seed" before a "seed"
        flag = flag_name(name, flags)
        if flag == name or _named(flag, message) or any(re.search(rf"(?<![\w-]){re.escape(name)}=", word)
                                                        for word in typed):
            continue
        # Not within a word, a path, a flag or a quoted value ('wrdscore:layer=3', 'layer').
        before = r"(?<![\w\-.:/'\"])" + re.escape(name)
        if "_" in name or not name.isidentifier():
            pattern = before + r"(?![\w\-'\"])"
        else:  # an English word too ("a shard must be K/N"): as the subject of the message, or name=
            pattern = rf"^{re.escape(name)}(?= must | given without)|" + before + "(?==)"
        message = re.sub(pattern, lambda _: flag, message)
    return message


def add_option_arguments(group: argparse._ActionsContainer, infos: Sequence[OptionInfo]) -> None:
    """One ``--flag`` per option described by ``infos`` (:func:`~wrd_score.options.option_info`), unset
    (``None``) unless given, so that the library's defaults apply."""
    for info in infos:
        flag = flag_name(info.name)
        if info.flag:
            group.add_argument(flag, dest=info.name, default=None, action=argparse.BooleanOptionalAction,
                               help=_help(info))
            continue
        closed = info.choices and not info.accepts
        group.add_argument(flag, dest=info.name, default=None, type=_text_type(info),
                           metavar="{" + ",".join(info.choices) + "}" if closed else info.name.upper(),
                           help=_help(info))


def options_from_args(args: argparse.Namespace, of: type = Options) -> Dict[str, Any]:
    """The options (of :class:`~wrd_score.Options`, or the dataclass ``of``) a user set on the command
    line (unset ones keep the library default)."""
    return {info.name: getattr(args, info.name) for info in option_info(of=of)
            if getattr(args, info.name, None) is not None}


def add_input_arguments(parser: argparse.ArgumentParser, several_candidates: bool = False) -> argparse._ArgumentGroup:
    """The ``-c``/``-r``/``--files``/``--strings`` flags shared by every command that reads pairs.

    With ``several_candidates``, ``-c`` takes several files as ``-r`` does (a list; the command
    decides what several systems mean), else exactly one.
    """
    io = parser.add_argument_group("input and output")
    help_text = ("file of candidates, one per line (plain or .gz; '-' reads standard input), "
                 "or one candidate string")
    if several_candidates:
        io.add_argument("-c", "--candidates", action="extend", nargs="+", metavar="FILE_OR_TEXT",
                        help=help_text + "; several files (or -c repeated) are several systems on the same "
                                         "references, the first being the baseline (see --paired-bs). Without -c, "
                                         "standard input, as sacreBLEU reads a system (`cat sys | wrdscore score "
                                         "-r refs`)")
    else:
        io.add_argument("-c", "--candidates", required=True, metavar="FILE_OR_TEXT", help=help_text)
    io.add_argument("-r", "--references", required=True, action="extend", nargs="+", metavar="FILE_OR_TEXT",
                    help="file(s) of references, one per line; several files (or -r repeated) give "
                         "several references per candidate, the best one counts. Or reference strings.")
    mode = io.add_mutually_exclusive_group()
    mode.add_argument("--files", dest="input_mode", action="store_const", const="files", default="auto",
                      help="treat -c/-r as file paths (default: files if they exist)")
    mode.add_argument("--strings", dest="input_mode", action="store_const", const="strings",
                      help="treat -c/-r as literal text even if a file of that name exists")
    return io


def shard_spec(text: str) -> Shard:
    """The argparse type of ``--shard K/N``: argparse shows the library's message, not "invalid value"."""
    try:
        return Shard.parse(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
