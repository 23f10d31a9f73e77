"""``wrdscore score``: score candidates against references (files, one per line, or strings).

One system: the summary line (signature, mean P, R, F1), optionally with bootstrap confidence
intervals (``--confidence``), per-example scores (``--per-example``, a plain TSV) or everything as
JSON.  Several systems on the same references (``-c BASE -c SYS ...``): ``--paired-bs`` (paired
bootstrap) or ``--paired-ar`` (approximate randomisation) tests every system against the first, as
sacreBLEU's flags of the same names do (the p-value's meaning and the differences: :mod:`wrd_score.stats`).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import sys
from array import array
from typing import IO, Any, Dict, Iterator, List, Optional, Sequence, Tuple

from tqdm import tqdm  # not tqdm.auto: this is a terminal tool

from ..checks import needed_or_default
from ..files import STDIN, Pair, atomic_write, check_output, write_json
from ..scorer import WRDScorer, check_idf_keys
from ..shards import write_shard
from ..stats import (MIN_RESAMPLES, check_resamples, format_p_value, paired_system_test,  # scipy: when they run
                     system_confidence)
from ..stream import MAX_CHUNK_SIZE, iter_chunks
from ..weights import shared_idf, user_idf
from .common import add_input_arguments, add_metric_arguments, choice_type, flag_name, int_type, options_from_args, shard_spec
from .io import Inputs, iter_file_pairs, read_idf_file, resolve_inputs

FIELDS = ("precision", "recall", "f1")
_SHORT = {"precision": "P", "recall": "R", "f1": "F1"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = (
        "examples:\n"
        "  wrdscore score -c preds.txt -r refs.txt\n"
        "  wrdscore score -c preds.txt -r refs.txt --confidence\n"
        "  wrdscore score -c preds.txt -r refs1.txt -r refs2.txt --per-example -o scores.tsv\n"
        "  wrdscore score -c base.txt -c sysA.txt -c sysB.txt -r refs.txt --paired-bs\n"
        "  wrdscore score -c base.txt -c sysA.txt -r refs.txt --paired-ar\n"
        "  wrdscore score -c getCount -r get_count -r size --json\n"
        "  generate | wrdscore score -r refs.txt          (no -c: standard input, as in sacreBLEU)\n"
        "  wrdscore score -c preds.txt -r refs.txt -b     (the mean F1 alone)\n"
        "output:\n"
        "  The summary line is the signature, then mean P, R and F1 (with --confidence, each followed\n"
        "  by its 95% interval [low, high]; the signature gains ci:bsN,seedS).\n"
        "  --per-example writes a tab-separated table: a header row (precision, recall, f1, plus\n"
        "  best_reference with several references) and one row per candidate, nothing else, so that\n"
        "  table readers (pandas.read_csv(path, sep='\\t'), R, spreadsheets) read it as is. The summary\n"
        "  line, with the signature, goes to standard output when -o names the table's file, and to\n"
        "  standard error when the table itself goes to standard output.\n"
        "  --paired-bs / --paired-ar print the signature (with ci:... and paired:bsN,seedS or arN,seedS)\n"
        "  and a table: system, mean F1 [95% CI], delta F1 against the baseline (the first -c) and the\n"
        "  p-value, as sacreBLEU's: the probability that a difference this large arises by chance when\n"
        "  the two do not differ (two-sided: small for a clearly better or worse system, 1 for a copy).\n"
        "  --json (-f json) holds everything, the signature included. -b prints the mean F1 alone (with\n"
        "  --confidence, followed by its interval).\n"
        "exit status: 0 on success (also when a reader such as `head` stops reading early), 2 on bad\n"
        "input (nothing is written to -o then)."
    )
    io = add_input_arguments(parser, several_candidates=True)
    io.add_argument("--per-example", action="store_true",
                    help="one row per candidate: P, R, F1 tab-separated under a header row (plus the best "
                         "reference's index when there are several references)")
    io.add_argument("--json", action="store_true",
                    help="print the full result (per-example lists, means, signature) as JSON")
    io.add_argument("-f", "--format", type=choice_type("-f/--format", ("text", "json")), default=None,
                    help="sacreBLEU's spelling of the output format: json is --json; text (the default) the "
                         "summary line")
    io.add_argument("-b", "--score-only", action="store_true",
                    help="print only the score, the mean F1 (with --confidence, followed by its interval), as "
                         "sacreBLEU's -b prints only the score")
    io.add_argument("-o", "--output", metavar="FILE",
                    help="write the output to FILE (atomically: complete or not at all) and print "
                         "only the summary line (or the --paired-bs table); a FILE named .json needs --json "
                         "(or --shard, whose record is JSON)")
    io.add_argument("--digits", type=int_type("--digits", 0, 17), default=None,
                    help=f"decimals in text output (default: {_DIGITS}; --json and --shard keep every digit)")
    io.add_argument("--chunk-size", type=int_type("--chunk-size", 1, MAX_CHUNK_SIZE), default=10_000,
                    help="pairs scored at a time; bounds memory; static scores do not change (bit for bit), "
                         f"contextual ones by at most 1e-6 (default: 10000; at most {MAX_CHUNK_SIZE:,})")
    io.add_argument("--idf-file", metavar="FILE",
                    help="token weights for --weights idf / norm*idf: JSON object or 'token<TAB>weight' "
                         "lines (default: fit on the references)")
    io.add_argument("--shard", metavar="K/N", type=shard_spec,
                    help="score only the K-th (from 1) of N contiguous slices of the input lines and write "
                         "its per-example record for `wrdscore merge` (instead of --json/--per-example)")
    io.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    sig = parser.add_argument_group(
        "significance (bootstrap resampling of examples; the signature records the settings)")
    sig.add_argument("--confidence", action="store_true",
                     help="95%% confidence intervals of mean P, R and F1 (percentile bootstrap); keeps 8 bytes "
                          "per score in memory")
    sig.add_argument("--confidence-n", type=int, default=None, metavar="N",
                     help=f"bootstrap resamples for the confidence intervals, at least {MIN_RESAMPLES} "
                          f"(default: {_RESAMPLING_DEFAULTS['confidence_n']}; with --confidence, --paired-bs or --paired-ar)")
    sig.add_argument("--paired-bs", action="store_true",
                     help="paired bootstrap test of each system (-c after the first) against the baseline "
                          "(the first -c) on the same references; shows F1 with 95%% intervals")
    sig.add_argument("--paired-bs-n", type=int, default=None, metavar="N",
                     help=f"bootstrap resamples for the paired test (default: {_RESAMPLING_DEFAULTS['paired_bs_n']}; "
                          "with --paired-bs)")
    sig.add_argument("--paired-ar", action="store_true",
                     help="paired approximate randomisation test instead (scipy.stats.permutation_test: each "
                          "example's two scores swapped at random)")
    sig.add_argument("--paired-ar-n", type=int, default=None, metavar="N",
                     help=f"random swaps for --paired-ar (default: {_RESAMPLING_DEFAULTS['paired_ar_n']:,}, as sacreBLEU)")
    sig.add_argument("--seed", type=int_type("--seed", 0), default=None,
                     help=f"seed of numpy.random.default_rng for all resampling (default: {_RESAMPLING_DEFAULTS['seed']}; "
                          "with --confidence, --paired-bs or --paired-ar)")
    add_metric_arguments(parser)


#: Decimals of the text output.
_DIGITS = 6
#: Resampling settings, and what each needs: given without it, it would be ignored (refused instead).
_RESAMPLING_DEFAULTS = {"confidence_n": 1000, "paired_bs_n": 1000, "paired_ar_n": 10_000, "seed": 0}
_ANY_TEST = "--confidence, --paired-bs or --paired-ar"
_RESAMPLING_NEEDS = {"confidence_n": _ANY_TEST, "paired_bs_n": "--paired-bs", "paired_ar_n": "--paired-ar",
                     "seed": _ANY_TEST}
_TEXT_OUTPUT = "text output (--json and --shard keep every digit)"


def _stdin_candidates(args: argparse.Namespace) -> None:
    """No -c: the candidates come from standard input, as sacreBLEU reads a system, unless it is a terminal
    (a user who forgot -c would otherwise wait on a prompt that asks for nothing)."""
    if args.candidates:
        return
    if sys.stdin is None or sys.stdin.isatty():
        raise ValueError("no candidates: give -c FILE (or -c TEXT), or pipe them into standard input "
                         "(`cat sys.txt | wrdscore score -r refs.txt`)")
    args.candidates = [STDIN]


def _check_args(args: argparse.Namespace) -> None:
    if args.format == "json" and not args.json:
        args.json = True
    elif args.format == "text" and args.json:
        raise ValueError("-f text and --json ask for two output formats; give one")
    if args.score_only and (args.json or args.per_example or args.shard is not None):
        other = "--json" if args.json else "--per-example" if args.per_example else "--shard"
        raise ValueError(f"-b/--score-only prints the score alone; it cannot be combined with {other}")
    if args.json and args.per_example:
        raise ValueError("--json already holds the per-example scores; give --json or --per-example, not both")
    vars(args).update(needed_or_default({key: getattr(args, key) for key in _RESAMPLING_DEFAULTS}, _RESAMPLING_DEFAULTS,
                                        _RESAMPLING_NEEDS,
                                        {_ANY_TEST: args.confidence or args.paired_bs or args.paired_ar,
                                         "--paired-bs": args.paired_bs, "--paired-ar": args.paired_ar}, flag_name))
    args.digits = needed_or_default({"--digits": args.digits}, {"--digits": _DIGITS}, {"--digits": _TEXT_OUTPUT},
                                    {_TEXT_OUTPUT: not args.json and args.shard is None})["--digits"]
    for flag, value in (("--confidence-n", args.confidence_n), ("--paired-bs-n", args.paired_bs_n),
                        ("--paired-ar-n", args.paired_ar_n)):
        check_resamples(value, flag)
    if args.paired_bs and args.paired_ar:
        raise ValueError("give --paired-bs or --paired-ar, not both")
    paired = _paired_flag(args)
    if paired:
        if len(args.candidates) < 2:
            raise ValueError(f"{paired} compares systems with a baseline: give -c BASELINE -c SYSTEM [-c ...]")
        if args.per_example or args.score_only:
            flag = "--per-example" if args.per_example else "-b/--score-only"
            raise ValueError(f"{flag} reports one system; it cannot be combined with {paired}")
    elif len(args.candidates) > 1:
        raise ValueError(f"{len(args.candidates)} candidate inputs (-c) were given: several systems are compared "
                         "only with --paired-bs or --paired-ar (the first -c is the baseline)")
    if args.shard is not None and (args.json or args.format or args.per_example or args.confidence or paired):
        raise ValueError("--shard writes its own per-example record (merge the shards for the rest); give it "
                         "without -f/--format, --json, --per-example, --confidence, --paired-bs or --paired-ar")
    if [*args.candidates, *args.references].count(STDIN) > 1:
        raise ValueError("standard input ('-') can be given only once among -c and -r")
    if args.output and args.output.lower().endswith(".json") and not args.json and args.shard is None:
        # A .json file that holds a text line or a table: the reader that expects JSON fails far from here.
        held = ("the per-example table" if args.per_example else "the comparison table" if paired
                else "the score alone" if args.score_only else "the summary line")
        raise ValueError(f"-o {args.output!r} given without --json: the file would hold {held}, not JSON; add --json "
                         "(or -f json), or name the file otherwise")


def _input_files(args: argparse.Namespace, are_files: bool) -> List[Tuple[str, Any]]:
    """Every file the command reads, with its flag: ``-o`` may be none of them."""
    texts = [("-c", c) for c in args.candidates] + [("-r", r) for r in args.references] if are_files else []
    return texts + [("--idf-file", args.idf_file), ("--embedding", args.embedding)]


def _paired_flag(args: argparse.Namespace) -> str:
    """The paired test asked for ("--paired-bs", "--paired-ar") or ""."""
    return "--paired-bs" if args.paired_bs else "--paired-ar" if args.paired_ar else ""


def _scorer_and_idf(args: argparse.Namespace, pairs: Any) -> Tuple[WRDScorer, Any]:
    """The scorer of the metric flags and the IDF table (--idf-file, else fitted on the references)."""
    scorer = WRDScorer(**options_from_args(args))
    idf: Any = None
    if args.idf_file:
        table = read_idf_file(args.idf_file)  # its own errors name the file
        try:
            idf = user_idf(table)
            check_idf_keys(idf, scorer.backend)
        except (TypeError, ValueError) as exc:  # name the file the bad weight or key came from
            raise type(exc)(f"idf file {args.idf_file!r}: {exc}") from None
    # One table for the whole input, as a single score() call would fit (a second streaming pass).
    idf = shared_idf(scorer.options.weights, idf, lambda: (refs for _, refs in pairs()), scorer.backend.tokenize,
                     given="--idf-file")
    return scorer, idf


def _pairs(args: argparse.Namespace, inputs: Inputs, candidate: str):
    def pairs() -> Iterator[Pair]:
        if inputs.are_files:
            return iter_file_pairs(inputs.candidates, inputs.references)
        return iter([(candidate, list(args.references))])
    return pairs


def _resampled(n: int, flag: str) -> None:
    if n < 2:
        raise ValueError(f"{flag} resamples examples and needs at least 2 candidates, got {n}")


def _progress(args: argparse.Namespace, total: int, scorer: WRDScorer) -> tqdm:
    """The "score" bar, in pairs; the contextual backend draws its "encode" bar under it.

    It moves a chunk at a time, as the pairs are scored (one pair at a time it claimed a speed from
    the first pair of a chunk whose encoding had taken minutes).  smoothing=0: the ETA is the
    average speed so far, the right guess for chunks of equal size.
    """
    off = args.quiet or not sys.stderr.isatty()
    if hasattr(scorer.backend, "progress"):
        scorer.backend.progress = not off  # the command's process owns this cached backend
    return tqdm(total=total, desc="score", unit="pair", file=sys.stderr, dynamic_ncols=True, smoothing=0,
                disable=off)


def _chunk_scores(result: Dict[str, Any]) -> Iterator[Tuple[float, float, float, int]]:
    return zip(result["precision"], result["recall"], result["f1"], result["best_reference"])


def _with_ci(value: float, interval: Optional[Tuple[float, float]], digits: int) -> str:
    text = f"{value:.{digits}f}"
    return text if interval is None else f"{text} [{interval[0]:.{digits}f}, {interval[1]:.{digits}f}]"


def _resampling(n_boot: int, seed: int, method: str = "bs") -> str:
    return f"{method}{n_boot},seed{seed}"


def run(args: argparse.Namespace) -> int:
    _stdin_candidates(args)
    _check_args(args)
    if _paired_flag(args):
        return _run_paired(args)
    candidate = args.candidates[0]
    inputs = resolve_inputs(candidate, args.references, args.input_mode)
    n = inputs.n
    if args.confidence:
        _resampled(n, "--confidence")
    if args.shard is not None:
        args.shard.check(n)
    if args.output:
        check_output(args.output, _input_files(args, inputs.are_files))
    pairs = _pairs(args, inputs, candidate)
    scorer, idf = _scorer_and_idf(args, pairs)
    if args.shard is not None:
        # Every shard reads the whole input for its IDF table and digest (wrd_score.shards).
        note = write_shard(args.shard, scorer, pairs, n, idf, output=args.output, chunk_size=args.chunk_size)
        if args.output:
            print(note)
        return 0
    signature = scorer.signature_fields(idf)
    if args.confidence:
        signature = signature.with_fields(ci=_resampling(args.confidence_n, args.seed))

    several = len(args.references) > 1
    keep = args.json or args.confidence
    columns = {"precision": array("d"), "recall": array("d"), "f1": array("d"), "best_reference": array("l")}
    sums = [0.0, 0.0, 0.0]
    digits = args.digits
    with contextlib.ExitStack() as stack:
        out: IO[str] = (stack.enter_context(atomic_write(args.output)) if args.output else sys.stdout)
        bar = stack.enter_context(_progress(args, n, scorer))
        if args.per_example:
            out.write("\t".join(FIELDS + (("best_reference",) if several else ())) + "\n")
        for result in iter_chunks(scorer, pairs(), chunk_size=args.chunk_size, idf=idf):
            # Rows written to a terminal while the bar is drawn there would be glued to it.
            with tqdm.external_write_mode(file=out) if args.per_example and not bar.disable \
                    else contextlib.nullcontext():
                for p, r, f, best in _chunk_scores(result):
                    # A running sum in example order: the same for every chunk size.
                    sums[0] += p
                    sums[1] += r
                    sums[2] += f
                    if keep:
                        columns["precision"].append(p)
                        columns["recall"].append(r)
                        columns["f1"].append(f)
                        columns["best_reference"].append(best)
                    if args.per_example:
                        line = f"{p:.{digits}f}\t{r:.{digits}f}\t{f:.{digits}f}"
                        out.write(f"{line}\t{best}\n" if several else line + "\n")
                out.flush()
            bar.update(len(result["f1"]))
        # Closed (at 100%, on its own line) before anything else is printed.
        bar.close()
        means: Dict[str, Any] = {f"mean_{name}": total / n for name, total in zip(FIELDS, sums)}
        intervals: Dict[str, Optional[Tuple[float, float]]] = dict.fromkeys(FIELDS)
        if args.confidence:
            for name in FIELDS:
                ci = system_confidence(columns[name], args.confidence_n, args.seed)
                intervals[name] = (ci.low, ci.high)
                means[f"mean_{name}_ci"] = [ci.low, ci.high]
        summary = str(signature) + "".join(
            f" {_SHORT[name]}: {_with_ci(means[f'mean_{name}'], intervals[name], digits)}" for name in FIELDS)
        if args.score_only:
            summary = _with_ci(means["mean_f1"], intervals["f1"], digits)
        if args.json:
            write_json(out, columns, means, str(signature))
        elif not args.per_example:
            out.write(summary + "\n")
    if args.output:
        print(summary)
    elif args.per_example:
        # Standard output holds the table; the summary must not become its last row.
        print(summary, file=sys.stderr)
    return 0


# ------------------------------------------------------------------------------ --paired-bs / --paired-ar
def _run_paired(args: argparse.Namespace) -> int:
    systems: List[str] = list(args.candidates)
    baseline = resolve_inputs(systems[0], args.references, args.input_mode)
    _resampled(baseline.n, _paired_flag(args))
    method, n_paired = ("ar", args.paired_ar_n) if args.paired_ar else ("bs", args.paired_bs_n)
    # The references as the baseline's check left them (a stream is spooled once, then re-read).
    mode = "files" if baseline.are_files else "strings"
    inputs = [baseline] + [resolve_inputs(s, baseline.references, mode) for s in systems[1:]]
    if args.output:
        check_output(args.output, _input_files(args, baseline.are_files))
    scorer, idf = _scorer_and_idf(args, _pairs(args, baseline, systems[0]))
    signature = scorer.signature_fields(idf).with_fields(
        ci=_resampling(args.confidence_n, args.seed), paired=_resampling(n_paired, args.seed, method))

    f1s: List[array] = []
    with _progress(args, baseline.n * len(systems), scorer) as bar:
        for name, system in zip(systems, inputs):
            values = array("d")
            for result in iter_chunks(scorer, _pairs(args, system, name)(), chunk_size=args.chunk_size, idf=idf):
                values.extend(result["f1"])
                bar.update(len(result["f1"]))
            f1s.append(values)
    rows = []
    for i, (name, values) in enumerate(zip(systems, f1s)):
        ci = system_confidence(values, args.confidence_n, args.seed)
        row: Dict[str, Any] = {"system": name, "baseline": i == 0, "mean_f1": ci.mean, "f1_ci": [ci.low, ci.high],
                               "delta_f1": None, "p_value": None}
        if i:
            row["delta_f1"], row["p_value"] = paired_system_test(f1s[0], values, n_paired, args.seed, method)
        rows.append(row)
    table = _paired_table(rows, str(signature), args.digits)
    with contextlib.ExitStack() as stack:
        out: IO[str] = (stack.enter_context(atomic_write(args.output)) if args.output else sys.stdout)
        if args.json:
            out.write(json.dumps({"systems": rows, "signature": str(signature)}) + "\n")
        else:
            out.write(table)
    if args.output:
        sys.stdout.write(table)
    return 0


def _paired_table(rows: Sequence[Dict[str, Any]], signature: str, digits: int) -> str:
    """The signature, then one aligned row per system (the baseline first)."""
    header = ("system", "F1 [95% CI]", "delta F1", "p-value")
    cells = [header]
    for row in rows:
        name = ("baseline: " if row["baseline"] else "") + row["system"]
        f1 = _with_ci(row["mean_f1"], row["f1_ci"], digits)
        if row["baseline"]:
            cells.append((name, f1, "-", "-"))
        else:
            cells.append((name, f1, f"{row['delta_f1']:+.{digits}f}", format_p_value(row["p_value"])))
    widths = [max(len(r[k]) for r in cells) for k in range(len(header))]
    lines = [signature]
    for r in cells:
        lines.append("  ".join([r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:])]).rstrip())
    return "\n".join(lines) + "\n"
