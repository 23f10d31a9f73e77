"""``wrdscore compare``: WRDScore beside the literature's metrics (BERTScore, MoverScore, ROUGE, ...) on the same pairs."""
from __future__ import annotations

import argparse
import json
import sys
from itertools import chain
from typing import FrozenSet

from ..checks import check_needs, needed_or_default
from ..deps import require
from ..files import STDIN, iter_lines, write_table
from ..metrics import COMPARED, MOVERSCORE_FORMS, compare, metric_help, metric_names
from ..metrics.base import check_options_read
from ..metrics.compare import check_metrics
from ..metrics.moverscore import KEEP_DROP, MAX_STOP_WORDS, stop_word_set
from ..metrics.subtoken import EXACT_MATCH_RULES
from .common import (add_input_arguments, add_metric_arguments, choice_type, flag_name, int_type, options_from_args,
                     set_by)
from .io import iter_file_pairs, resolve_inputs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``wrdscore compare``: the table of :func:`compare` for files or strings."""
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = (
        "examples:\n"
        "  wrdscore compare -c getCount -r get_count --metrics wrdscore,rouge --rouge-split-identifiers\n"
        "  wrdscore compare -c preds.txt -r refs.txt --backend contextual --pooling wordpiece --csv\n"
        "metrics:\n" + "".join(f"  {name:<11}{metric_help(name)}\n" for name in metric_names()) +
        "exit status: 0 on success, 2 on bad input.")
    io = add_input_arguments(parser)
    io.add_argument("--metrics", default=",".join(COMPARED),
                    help=f"comma-separated metrics from {','.join(metric_names())}, or 'all' for every one "
                         f"(default: {','.join(COMPARED)})")
    fmt = io.add_mutually_exclusive_group()
    fmt.add_argument("--csv", action="store_true", help="print CSV instead of an aligned table")
    fmt.add_argument("--json", action="store_true", help="print the dict of lists (with signatures) as JSON")
    io.add_argument("--digits", type=int_type("--digits", 0, 17), default=None,
                    help=f"decimals in the table (default {_DIGITS}; --json keeps every digit)")
    sib = parser.add_argument_group("sibling metrics")
    sib.add_argument("--bertscore-idf", action="store_true", help="BERTScore with IDF weights fit on the references")
    sib.add_argument("--moverscore-no-idf", action="store_true", help="MoverScore with uniform masses")
    sib.add_argument("--moverscore-form", type=choice_type("--moverscore-form", MOVERSCORE_FORMS), default=None,
                     metavar="{" + ",".join(MOVERSCORE_FORMS) + "}",
                     help="inverse: 1/(1+cost) (default); complement: 1-cost (PyPI moverscore 1.0.3)")
    sib.add_argument("--moverscore-subwords", type=choice_type("--moverscore-subwords", KEEP_DROP), default=None,
                     metavar="{" + ",".join(KEEP_DROP) + "}",
                     help="drop (default, as moverscore_v2) or keep ## word pieces")
    sib.add_argument("--moverscore-punctuation", type=choice_type("--moverscore-punctuation", KEEP_DROP),
                     default=None, metavar="{" + ",".join(KEEP_DROP) + "}",
                     help="drop (default, as moverscore_v2) or keep single punctuation tokens")
    sib.add_argument("--moverscore-stop-words", metavar="FILE",
                     help=f"file of stop words (UTF-8, whitespace-separated; at most {MAX_STOP_WORDS:,})")
    sib.add_argument("--rouge-split-identifiers", action="store_true",
                     help="ROUGE over identifier subtokens (getCount -> get count)")
    sib.add_argument("--rouge-use-stemmer", action="store_true", help="Porter stemming in ROUGE")
    sib.add_argument("--chrf-word-order", type=int_type("--chrf-word-order", 0, 32), default=None, metavar="N",
                     help="word n-gram order of chrF (default 0; 2 is chrF++)")
    sib.add_argument("--exact-match-rule", type=choice_type("--exact-match-rule", EXACT_MATCH_RULES), default=None,
                     metavar="{" + ",".join(EXACT_MATCH_RULES) + "}",
                     help="code2seq (default: equal subtokens, equal without repeats, or equal joined) or "
                          "sequence (equal subtoken sequences)")
    add_metric_arguments(parser)


#: Decimals of the table.
_DIGITS = 4
#: Flags whose name is not their option's (:func:`~wrd_score.cli.common.option_flags`'s ``renamed``).
FLAGS = {"moverscore_idf": "--moverscore-no-idf", "exact-match_rule": "--exact-match-rule"}


def _stop_words(args: argparse.Namespace) -> FrozenSet[str]:
    """The words of the ``--moverscore-stop-words`` file (whitespace-separated), read a bounded line at a time and
    no further than the most stop words MoverScore takes."""
    path, flag = args.moverscore_stop_words, "--moverscore-stop-words"
    if path == STDIN and args.input_mode != "strings" and STDIN in (args.candidates, *args.references):
        raise ValueError(f"standard input ('-') can be given only once among -c, -r and {flag}")
    return stop_word_set(chain.from_iterable(line.split() for line in iter_lines(path, flag)), f"{flag} file")


def run(args: argparse.Namespace) -> int:
    table = "a table (--json keeps every digit)"
    args.digits = needed_or_default({"--digits": args.digits}, {"--digits": _DIGITS}, {"--digits": table},
                                    {table: not args.json})["--digits"]
    metrics = tuple(m.strip() for m in args.metrics.split(",") if m.strip())
    metrics = check_metrics(metric_names(bundles=False) if metrics == ("all",) else metrics)
    # Every flag is checked before any file is read: one that no metric asked for reads would be ignored.
    given = {"bertscore_idf": args.bertscore_idf or None, "moverscore_idf": False if args.moverscore_no_idf else None,
             "moverscore_form": args.moverscore_form, "moverscore_subwords": args.moverscore_subwords,
             "moverscore_punctuation": args.moverscore_punctuation, "moverscore_stop_words": args.moverscore_stop_words,
             "rouge_split_identifiers": args.rouge_split_identifiers or None,
             "rouge_use_stemmer": args.rouge_use_stemmer or None, "chrf_word_order": args.chrf_word_order,
             "exact-match_rule": args.exact_match_rule}
    sibling = {key: value for key, value in given.items() if value is not None}
    family = {key: key.split("_")[0] for key in given}
    check_needs(sibling, {key: f"{name} in --metrics" for key, name in family.items()},
                {f"{name} in --metrics": any(m.startswith(name) for m in metrics) for name in family.values()},
                lambda name: flag_name(name, FLAGS))
    options = options_from_args(args)
    check_options_read(options, [(m, ()) for m in metrics], "--metrics", lambda name: flag_name(name, set_by(options)))
    if "moverscore_stop_words" in sibling:
        sibling["moverscore_stop_words"] = _stop_words(args)
    inputs = resolve_inputs(args.candidates, args.references, args.input_mode)
    if inputs.are_files:
        rows = list(iter_file_pairs(inputs.candidates, inputs.references))
        predictions, references = [p for p, _ in rows], [r for _, r in rows]
    else:
        predictions, references = [args.candidates], [list(args.references)]
    table = compare(predictions, references, metrics, **options, **sibling)
    signatures = table.pop("signatures")
    corpus = table.pop("corpus", {})
    if args.json:
        json.dump({**table, "signatures": signatures, **({"corpus": corpus} if corpus else {})}, sys.stdout,
                  ensure_ascii=False, indent=1)
        print()
        return 0
    pd = require("pandas", "siblings")
    frame = pd.DataFrame(table)
    if args.csv:
        write_table(frame, sys.stdout, "csv", digits=args.digits)
    else:
        with pd.option_context("display.max_columns", None, "display.width", 200,
                               "display.max_colwidth", 40):
            print(frame.round(args.digits).to_string(index=False))
    notes = sys.stderr if args.csv else sys.stdout
    sys.stdout.flush()  # the table before the notes where both reach one terminal
    for name, values in corpus.items():
        # Corpus-level scores (micro averages, chrF's summed statistics) are not means of the rows above.
        shown = " ".join(f"{key} {value:.{args.digits}f}" if isinstance(value, float) else f"{key} {value}"
                         for key, value in values.items())
        print(f"# {name} corpus: {shown}", file=notes)
    for name, sig in signatures.items():
        print(f"# {name}: {sig}", file=notes)
    return 0
