"""`wrdscore score`: files and strings, output formats, streaming, atomic output, bad input."""
import gzip
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import wrd_score
from wrd_score import WRDScorer, cli
from wrd_score.files import atomic_write, iter_lines
from wrd_score.stream import iter_scores

CANDS = ["getCount", "size", "", "run", "toString", "isEmpty", "closeQuietly"]
REFS1 = ["get_count", "getSize", "x", "execute", "as string", "empty", "close"]
REFS2 = ["count", "length", "", "start", "toString", "is empty", "shutdown"]
SIG_START = "wrdscore:v"


def _write(path: Path, lines, end="\n") -> str:
    path.write_text("".join(line + end for line in lines), encoding="utf-8")
    return str(path)


@pytest.fixture
def files(tmp_path):
    return (_write(tmp_path / "cands.txt", CANDS), _write(tmp_path / "refs1.txt", REFS1),
            _write(tmp_path / "refs2.txt", REFS2))


def run_cli(capsys, *argv):
    try:
        code = cli.main(list(argv))
    except SystemExit as exc:  # argparse's own refusals (an invalid choice) exit 2
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


# ----------------------------------------------------------------------------------- results
def test_summary_matches_library(files, capsys):
    cands, refs1, _ = files
    code, out, err = run_cli(capsys, "score", "-c", cands, "-r", refs1)
    assert code == 0
    expected = WRDScorer().score(CANDS, REFS1)
    sig, rest = out.strip().split(" P: ")
    assert sig == expected["signature"]
    p, r, f = float(rest.split()[0]), float(rest.split()[2]), float(rest.split()[4])
    assert (p, r, f) == pytest.approx((expected["mean_precision"], expected["mean_recall"], expected["mean_f1"]),
                                      abs=1e-6)
    assert err == ""  # stderr is not a TTY here: no progress bar noise


def test_json_is_the_full_result_of_one_score_call(files, capsys):
    cands, refs1, refs2 = files
    code, out, _ = run_cli(capsys, "score", "-c", cands, "-r", refs1, "-r", refs2, "--json")
    assert code == 0
    got = json.loads(out)
    expected = WRDScorer().score(CANDS, [list(pair) for pair in zip(REFS1, REFS2)])
    for key in ("precision", "recall", "f1", "best_reference", "signature"):
        assert got[key] == expected[key], key
    for key in ("mean_precision", "mean_recall", "mean_f1"):
        assert got[key] == pytest.approx(expected[key], rel=1e-12)
    assert set(got) == set(expected)
    assert 1 in got["best_reference"]  # the second reference file is really used


def test_per_example_lines(files, capsys):
    # Format changed (issue 14): a header row, then one row per candidate; the summary line with the
    # signature goes to stderr, no longer after the rows (a table reader read it as a broken last row).
    cands, refs1, refs2 = files
    _, out, err = run_cli(capsys, "score", "-c", cands, "-r", refs1, "--per-example", "--digits", "4")
    lines = out.splitlines()
    assert len(lines) == len(CANDS) + 1 and lines[0] == "precision\trecall\tf1"
    assert SIG_START not in out and err.startswith(SIG_START) and len(err.splitlines()) == 1
    expected = WRDScorer().score(CANDS, REFS1)
    for line, p, r, f in zip(lines[1:], expected["precision"], expected["recall"], expected["f1"]):
        assert line == f"{p:.4f}\t{r:.4f}\t{f:.4f}"
    # several references: a fourth column with the winning reference's index
    _, out, _ = run_cli(capsys, "score", "-c", cands, "-r", refs1, refs2, "--per-example")
    best = WRDScorer().score(CANDS, [list(p) for p in zip(REFS1, REFS2)])["best_reference"]
    assert out.splitlines()[0] == "precision\trecall\tf1\tbest_reference"
    assert [int(line.split("\t")[3]) for line in out.splitlines()[1:]] == best


def test_literal_strings(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_cli(capsys, "score", "-c", "get count", "-r", "size", "-r", "getCount", "--json")
    assert code == 0
    got = json.loads(out)
    assert got["f1"] == [1.0] and got["best_reference"] == [1]
    # --strings scores the text even when a file of that name exists
    (tmp_path / "size").write_text("getCount\n")
    _, out, _ = run_cli(capsys, "score", "--strings", "-c", "size", "-r", "size", "--json")
    assert json.loads(out)["f1"] == [1.0]
    _, out, _ = run_cli(capsys, "score", "--files", "-c", "size", "-r", "size", "--json")
    assert json.loads(out)["precision"] == [1.0]


def test_gzip_crlf_and_bom_inputs(tmp_path, capsys):
    cands = tmp_path / "c.txt.gz"
    with gzip.open(cands, "wb") as handle:
        handle.write("\ufeff".encode() + "\r\n".join(CANDS).encode() + b"\r\n")
    refs = _write(tmp_path / "r.txt", REFS1)
    assert list(iter_lines(str(cands))) == CANDS
    code, out, _ = run_cli(capsys, "score", "-c", str(cands), "-r", refs, "--json")
    assert code == 0 and json.loads(out)["f1"] == WRDScorer().score(CANDS, REFS1)["f1"]


def test_metric_options_pass_through(files, capsys):
    cands, refs1, _ = files
    _, out, _ = run_cli(capsys, "score", "-c", cands, "-r", refs1, "--variant", "wrd", "--weights", "uniform",
                        "--no-clip-negative", "--json")
    got = json.loads(out)
    expected = WRDScorer(variant="wrd", weights="uniform", clip_negative=False).score(CANDS, REFS1)
    assert got["f1"] == expected["f1"] and got["signature"] == expected["signature"]
    assert "variant:wrd" in got["signature"] and "clip:no" in got["signature"]


@pytest.mark.parametrize("weights", ["norm", "idf"])
def test_chunk_size_never_changes_a_score(files, capsys, weights):
    # With IDF weights a per-chunk IDF table would make scores depend on the chunk size.
    cands, refs1, refs2 = files
    outputs = []
    for chunk in ("1", "3", "1000"):
        _, out, _ = run_cli(capsys, "score", "-c", cands, "-r", refs1, refs2, "--json", "--weights", weights,
                            "--chunk-size", chunk)
        outputs.append(out)
    assert outputs[0] == outputs[1] == outputs[2]
    expected = WRDScorer(weights=weights).score(CANDS, [list(p) for p in zip(REFS1, REFS2)])
    assert json.loads(outputs[0])["f1"] == expected["f1"]


def test_idf_file_json_and_tsv(files, tmp_path, capsys):
    cands, refs1, _ = files
    table = {"get": 1.0, "count": 3.0, "size": 2.5, "run": 0.5}
    (tmp_path / "idf.json").write_text(json.dumps(table))
    _write(tmp_path / "idf.tsv", [f"{k}\t{v}" for k, v in table.items()])
    expected = WRDScorer(weights="idf").score(CANDS, REFS1, idf=table)
    for name in ("idf.json", "idf.tsv"):
        code, out, _ = run_cli(capsys, "score", "-c", cands, "-r", refs1, "--weights", "idf",
                               "--idf-file", str(tmp_path / name), "--json")
        got = json.loads(out)
        assert code == 0 and got["f1"] == expected["f1"] and "idf:user" in got["signature"]
    code, _, err = run_cli(capsys, "score", "-c", cands, "-r", refs1, "--idf-file", str(tmp_path / "idf.json"))
    assert code == 2 and "does not use it" in err


def test_stream_reads_lazily():
    # Bounded memory: scoring the first pair pulls no more than one chunk from the input.
    pulled = []

    def endless():
        i = 0
        while True:
            pulled.append(i)
            yield (f"get item{i % 7}", [f"item{i % 5}"])
            i += 1

    stream = iter_scores(WRDScorer(), endless(), chunk_size=16)
    first = next(stream)
    assert len(pulled) == 16 and len(first) == 4
    rest = [next(stream) for _ in range(20)]  # crosses into the second chunk
    assert len(pulled) == 32 and all(0.0 <= f <= 1.0 for _, _, f, _ in rest)


# ------------------------------------------------------------------------------------- output
def test_output_file_written_atomically(files, tmp_path, capsys):
    cands, refs1, _ = files
    out_path = tmp_path / "scores.tsv"
    code, out, _ = run_cli(capsys, "score", "-c", cands, "-r", refs1, "--per-example", "-o", str(out_path))
    assert code == 0
    assert out.startswith(SIG_START) and len(out.splitlines()) == 1  # stdout: the summary only
    table = out_path.read_text().splitlines()  # header row + one row per candidate, no signature
    assert len(table) == len(CANDS) + 1 and table[0] == "precision\trecall\tf1" and SIG_START not in table[-1]
    assert oct(out_path.stat().st_mode & 0o777) == oct(0o666 & ~_umask())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cands.txt", "refs1.txt", "refs2.txt", "scores.tsv"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_failure_mid_run_leaves_output_untouched(files, tmp_path, capsys, monkeypatch):
    cands, refs1, _ = files
    out_path = tmp_path / "scores.tsv"
    out_path.write_text("previous results\n")
    calls = []
    original = WRDScorer.score

    def flaky(self, *args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise OSError("disk went away")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(WRDScorer, "score", flaky)
    code, _, err = run_cli(capsys, "score", "-c", cands, "-r", refs1, "--per-example", "--chunk-size", "2",
                           "-o", str(out_path))
    assert code == 2 and "disk went away" in err and len(calls) == 2
    assert out_path.read_text() == "previous results\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cands.txt", "refs1.txt", "refs2.txt", "scores.tsv"]


@pytest.mark.parametrize("extra, held", [([], "the summary line"), (["--per-example"], "the per-example table"),
                                         (["-b"], "the score alone"), (["-f", "text"], "the summary line"),
                                         (["-c", "SECOND", "--paired-bs"], "the comparison table")])
def test_a_json_output_file_without_json_is_refused(files, tmp_path, capsys, extra, held):
    # `-o scores.json` held the summary line (or a TSV table): the reader expecting JSON failed far from here.
    cands, refs1, _ = files
    extra = [_write(tmp_path / "second.txt", CANDS) if a == "SECOND" else a for a in extra]
    for name in ("scores.json", "SCORES.JSON"):
        out_path = tmp_path / name
        code, out, err = run_cli(capsys, "score", "-c", cands, "-r", refs1, *extra, "-o", str(out_path))
        assert code == 2 and out == "" and err.strip() == (
            f"wrdscore score: error: -o {str(out_path)!r} given without --json: the file would hold {held}, not "
            "JSON; add --json (or -f json), or name the file otherwise"), err
        assert not out_path.exists()
    out_path = tmp_path / "scores.json"
    for flags in (["--json"], ["-f", "json"]):  # JSON it is
        if "-f" not in extra and "-b" not in extra and "--per-example" not in extra:
            assert run_cli(capsys, "score", "-c", cands, "-r", refs1, *extra, *flags, "-o", str(out_path))[0] == 0
            assert json.loads(out_path.read_text())["signature"].startswith(SIG_START)


def test_a_shard_record_is_json_without_json(files, tmp_path, capsys):
    cands, refs1, _ = files
    out_path = tmp_path / "shard1.json"
    assert run_cli(capsys, "score", "-c", cands, "-r", refs1, "--shard", "1/2", "-o", str(out_path))[0] == 0
    assert json.loads(out_path.read_text())


def test_atomic_write_cleans_up():
    # the doctest covers the success and exception paths; here: a missing folder fails up front
    with pytest.raises(FileNotFoundError, match="does not exist"):
        with atomic_write("/nonexistent-folder-xyz/out.txt"):
            pass


# ---------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("case, message", [
    ("short", "has 2 lines but candidates file"),
    ("empty", "is empty"),
    ("missing", "does not exist"),
    ("directory", "is a directory"),
    ("latin1", "line 2: not valid UTF-8"),
    ("pathlike", "looks like a file name but does not exist"),
])
def test_bad_input_exits_2_and_writes_nothing(files, tmp_path, capsys, case, message):
    cands, refs1, _ = files
    bad = {
        "short": lambda: _write(tmp_path / "short.txt", ["a", "b"]),
        "empty": lambda: _write(tmp_path / "empty.txt", []),
        "missing": lambda: str(tmp_path / "missing.txt"),
        "directory": lambda: str(tmp_path),
        "pathlike": lambda: "refs/typo.txt",
    }
    if case == "latin1":
        path = tmp_path / "latin1.txt"
        path.write_bytes("a\nGr\u00f6\u00dfe\n".encode("latin-1") + b"c\n" * (len(CANDS) - 2))
        ref = str(path)
    else:
        ref = bad[case]()
    if case == "pathlike":  # strings mode: a typo'd path must not be scored as text
        cands = "getCount"
    out_path = tmp_path / "out.txt"
    code, out, err = run_cli(capsys, "score", "-c", cands, "-r", ref, "-o", str(out_path))
    assert code == 2, err
    assert message in err and err.startswith("wrdscore score: error:")
    assert out == "" and not out_path.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_bad_flags(files, capsys):
    cands, refs1, _ = files
    code, _, err = run_cli(capsys, "score", "-c", cands, "-r", refs1, "--weights", "bogus")
    assert code == 2 and "argument --weights: --weights must be one of [" in err and "got 'bogus'" in err
    code, _, err = run_cli(capsys, "score", "-c", cands, "-r", refs1, "--json", "--per-example")
    assert code == 2 and "not both" in err
    code, _, err = run_cli(capsys, "score", "-c", cands, "-r", refs1, "--chunk-size", "0")
    assert code == 2 and "--chunk-size" in err
    code, _, err = run_cli(capsys, "score", "-c", cands, "-r", refs1, "-o", cands)
    assert code == 2 and "is also the -c input" in err


# ------------------------------------------------------------------------------ console script
def test_console_script_help_and_exit_codes(files, tmp_path):
    exe = Path(sys.executable).with_name("wrdscore")
    base = [str(exe)] if exe.exists() else [sys.executable, "-m", "wrd_score.cli"]
    top = subprocess.run(base + ["--help"], capture_output=True, text=True, timeout=120)
    assert top.returncode == 0 and "score" in top.stdout
    sub = subprocess.run(base + ["score", "--help"], capture_output=True, text=True, timeout=120)
    assert sub.returncode == 0 and "--candidates" in sub.stdout and "--weights" in sub.stdout
    cands, _, _ = files
    short = _write(tmp_path / "short.txt", ["a"])
    bad = subprocess.run(base + ["score", "-c", cands, "-r", short], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "has 1 lines" in bad.stderr and bad.stdout == ""


def test_help_imports_no_heavy_library():
    code = ("import sys; from wrd_score import cli; cli.build_parser(only='score').parse_args(['score', '-c', 'a', "
            "'-r', 'b']); heavy = [m for m in ('torch', 'transformers', 'gradio', 'datasets') if m in sys.modules]; "
            "print(heavy); sys.exit(1 if heavy else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_exports():
    assert wrd_score.transformers_hook and wrd_score.score_dataset
    assert "score" in cli.COMMANDS


@pytest.mark.parametrize("command", sorted(cli.COMMANDS))
def test_every_command_has_help(command, capsys):
    # One tool: each subcommand parses --help and shares the metric flags where it scores.
    with pytest.raises(SystemExit) as exit_info:
        cli.main([command, "--help"])
    out = capsys.readouterr().out
    assert exit_info.value.code == 0 and out.startswith(f"usage: wrdscore {command}")


def test_help_never_splits_an_embedding_name_across_lines(capsys, monkeypatch):
    """argparse wraps at hyphens: `--embedding`'s help read "wrd-minilm-cf-" at a line's end and "morph-post" on the
    next, or "wrd-minilm-cf-morph-" then "post:", the name of another shipped file with a stray word."""
    from wrd_score.embeddings.store import NAMED_EMBEDDINGS

    monkeypatch.setenv("COLUMNS", "100")
    with pytest.raises(SystemExit):
        cli.main(["score", "--help"])
    lines = capsys.readouterr().out.splitlines()
    assert not [line for line in lines if line.endswith("-") and not line.endswith(" -")]
    text = " ".join(line.strip() for line in lines)
    for name in NAMED_EMBEDDINGS:
        assert f"{name}:" in text


def test_progress_bar_on_a_terminal_only(files, capsys, monkeypatch):
    import io

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    cands, refs1, _ = files
    for extra, shown in (([], True), (["-q"], False)):
        terminal = Terminal()
        monkeypatch.setattr(sys, "stderr", terminal)
        assert cli.main(["score", "-c", cands, "-r", refs1, "--chunk-size", "2", *extra]) == 0
        assert (f"{len(CANDS)}/{len(CANDS)}" in terminal.getvalue()) is shown, terminal.getvalue()
    capsys.readouterr()


# ------------------------------------------------------------------------- streams (issue 12)
REPO = Path(__file__).resolve().parents[1]


def _cli_base():
    # This checkout's code (the installed console script may belong to another one).
    return [sys.executable, "-m", "wrd_score.cli"]


def _expected_json(refs):
    return WRDScorer().score(CANDS, refs)


def test_process_substitution_is_read_once(files):
    """Item 2: `-c <(cat c) -r <(cat r)`: the checking pass used to consume the pipes (empty result, exit 0)."""
    cands, refs1, _ = files
    import shlex
    command = " ".join(map(shlex.quote, _cli_base())) + f" score -c <(cat {shlex.quote(cands)}) " \
                                                        f"-r <(cat {shlex.quote(refs1)}) --json"
    proc = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=300, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["f1"] == _expected_json(REFS1)["f1"]


@pytest.mark.parametrize("name", ["-", "/dev/stdin"])
def test_standard_input(files, name):
    cands, refs1, refs2 = files
    # A pipe, as from `generate | wrdscore ...` (a file redirected to stdin could be reopened).
    proc = subprocess.run(_cli_base() + ["score", "-c", name, "-r", refs1, "-r", refs2, "--json"],
                          input=Path(cands).read_text(encoding="utf-8"), capture_output=True, text=True,
                          timeout=300, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    expected = _expected_json([list(pair) for pair in zip(REFS1, REFS2)])
    assert got["f1"] == expected["f1"] and got["best_reference"] == expected["best_reference"]


def test_candidates_from_a_pipe_without_c(files):
    # sacreBLEU's habit, `cat sys | sacrebleu refs`: with no -c the candidates are standard input.
    cands, refs1, _ = files
    proc = subprocess.run(_cli_base() + ["score", "-r", refs1, "--json"], input=Path(cands).read_text(encoding="utf-8"),
                          capture_output=True, text=True, timeout=300, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["f1"] == _expected_json(REFS1)["f1"]


def test_no_candidates_and_a_terminal_on_stdin_is_refused_not_waited_for(files, capsys, monkeypatch):
    _, refs1, _ = files
    monkeypatch.setattr("sys.stdin.isatty", lambda: True, raising=False)
    code, _, err = run_cli(capsys, "score", "-r", refs1)
    assert code == 2 and "-c" in err and "standard input" in err and err.count("\n") == 1, err


def test_score_only_and_format_json_as_sacrebleu(files, capsys):
    cands, refs1, _ = files
    code, out, _ = run_cli(capsys, "score", "-c", cands, "-r", refs1, "--json")
    full = json.loads(out)
    code, out, err = run_cli(capsys, "score", "-c", cands, "-r", refs1, "-b")
    assert code == 0 and out == f"{full['mean_f1']:.6f}\n", err  # -b/--score-only: the score alone (mean F1)
    code, out, _ = run_cli(capsys, "score", "-c", cands, "-r", refs1, "--score-only", "--digits", "3")
    assert out == f"{full['mean_f1']:.3f}\n"
    code, out, _ = run_cli(capsys, "score", "-c", cands, "-r", refs1, "-b", "--confidence")
    assert re.fullmatch(r"\d\.\d{6} \[\d\.\d{6}, \d\.\d{6}\]\n", out), out
    code, out, _ = run_cli(capsys, "score", "-c", cands, "-r", refs1, "-f", "json")  # -f/--format as sacreBLEU
    assert code == 0 and json.loads(out) == full
    code, out, _ = run_cli(capsys, "score", "-c", cands, "-r", refs1, "--format", "text")
    assert code == 0 and out.startswith(full["signature"] + " P: ")
    for flags, message in ((["-b", "--json"], "-b"), (["-b", "--per-example"], "-b"), (["-f", "latex"], "latex"),
                           (["-f", "text", "--json"], "--json")):
        code, _, err = run_cli(capsys, "score", "-c", cands, "-r", refs1, *flags)
        assert code == 2 and message in err, (flags, err)


def test_stdin_twice_is_refused(files, capsys):
    code, _, err = run_cli(capsys, "score", "-c", "-", "-r", "-")
    assert code == 2 and "standard input ('-') can be given only once" in err


def test_endless_line_is_refused_with_file_and_line(tmp_path, capsys, files):
    """Item 11: /dev/zero is one endless line; it used to be read whole (gigabytes, then MemoryError)."""
    from wrd_score.files import MAX_LINE_BYTES

    _, refs1, _ = files
    code, out, err = run_cli(capsys, "score", "-c", "/dev/zero", "-r", refs1)
    assert code == 2 and out == ""
    assert "'/dev/zero', line 1: longer than 1,000,000 bytes" in err
    long = tmp_path / "long.txt"
    long.write_bytes(b"getCount\n" + b"a" * (MAX_LINE_BYTES + 1) + b"\n")
    code, _, err = run_cli(capsys, "score", "-c", str(long), "-r", refs1)
    assert code == 2 and f"{str(long)!r}, line 2: longer than" in err
    exact = tmp_path / "exact.txt"  # a line of exactly the limit (plus its newline) is fine
    exact.write_bytes(b"a" * MAX_LINE_BYTES + b"\n")
    assert list(iter_lines(str(exact))) == ["a" * MAX_LINE_BYTES]


@pytest.mark.parametrize("content, message", [
    (b'{"get": 1' + b"0" * 400 + b'}', r"idf file '.*idf.json': idf\['get'\] must be finite and >= 0, got an integer "
                                      r"of 401 digits"),
    (b'{"get": "\xff"}', r"idf file '.*idf.json' is not UTF-8 text"),
    (b'{"get": 1' + b"0" * 5000 + b'}', r"idf file '.*idf.json' is not valid JSON"),
    # Issue 22 item 13: a RecursionError traceback; item 20: a bool taken as the weight 1.0.
    (b"[" * 100_000 + b"]" * 100_000, r"idf file '.*idf.json' is not valid JSON: nested too deeply"),
    (b'{"get": true}', r"idf file '.*idf.json': idf\['get'\] must be a number, got True"),
    # A JSON string is no number, though float() reads "5", " 1e0 " and "1_0".
    (b'{"get": "1_0"}', r"idf file '.*idf.json': idf\['get'\] must be a number, got '1_0'"),
    # Each weight finite, but a text's total mass overflowed to inf and its masses fell back to uniform.
    (b'{"get": 8e307, "count": 8e307}', r"idf file '.*idf.json': idf\['get'\] must be at most 1e\+100"),
], ids=["400-digit", "not-utf8", "5000-digit", "deep", "bool", "string", "overflowing-sum"])
def test_hostile_idf_files_name_the_file(files, tmp_path, capsys, content, message):
    """Issue 12, items 13 and 17: OverflowError / UnicodeDecodeError without the file name."""
    cands, refs1, _ = files
    path = tmp_path / "idf.json"
    path.write_bytes(content)
    code, _, err = run_cli(capsys, "score", "-c", cands, "-r", refs1, "--weights", "idf", "--idf-file", str(path))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert re.search(message, err), err


def test_huge_integer_idf_weight_in_the_library():
    with pytest.raises(ValueError, match=r"idf\['get'\] must be finite and >= 0"):
        wrd_score.score(["get"], ["count"], weights="idf", idf={"get": 10**400})


def test_idf_weights_whose_sum_would_overflow_are_refused_not_made_uniform():
    """Red-team finding: 8e307 per weight gave finite weights whose per-text sum was inf, and the masses fell back to
    uniform silently (precision 0.412 instead of 0.225 for the same ratios)."""
    small = {"get": 2.0, "count": 0.5, "value": 1.0, "size": 1.5}
    want = wrd_score.score(["get count value"], ["size count"], weights="idf", idf=small)["precision"]
    scaled = {token: value * 1e99 for token, value in small.items()}  # the largest weight, 2e99, is allowed
    got = wrd_score.score(["get count value"], ["size count"], weights="idf", idf=scaled)["precision"]
    assert got == pytest.approx(want, rel=1e-12)
    with pytest.raises(ValueError, match=r"idf\['get'\] must be at most 1e\+100 .*got 8e\+307"):
        wrd_score.score(["get count value"], ["size count"], weights="idf",
                        idf={token: value * 4e307 for token, value in small.items()})


@pytest.mark.parametrize("value", ["5", " 1e0 ", "1_0", b"5"])
def test_idf_weights_must_be_numbers_not_strings(value):
    with pytest.raises(TypeError, match=r"idf\['get'\] must be a number, got "):
        wrd_score.score(["get"], ["count"], weights="idf", idf={"get": value})


def test_idf_file_errors_name_the_file_once(files, tmp_path, capsys):
    """Red-team finding: "idf file 'x': idf file 'x', line 1: ..." (the reader's message wrapped again)."""
    cands, refs1, _ = files
    path = tmp_path / "two.txt"
    path.write_text("a\nb\n")
    code, _, err = run_cli(capsys, "score", "-c", cands, "-r", refs1, "--weights", "idf", "--idf-file", str(path))
    assert code == 2 and err.count("idf file") == 1, err
    assert re.search(r"idf file '.*two.txt', line 1: expected 'token<TAB>weight', got 'a'", err), err


@pytest.mark.parametrize("weight", ["1_0", "0x10", "٣"])
def test_idf_tsv_weights_are_plain_decimal_numbers(files, tmp_path, capsys, weight):
    """float() also reads "1_0" (10), and Arabic-Indic digits: a TSV weight is a plain decimal number."""
    cands, refs1, _ = files
    path = tmp_path / "idf.tsv"
    path.write_text(f"get\t{weight}\n", encoding="utf-8")
    code, _, err = run_cli(capsys, "score", "-c", cands, "-r", refs1, "--weights", "idf", "--idf-file", str(path))
    assert code == 2 and "line 1: expected 'token<TAB>weight'" in err, err


# ------------------------------------------------------------------ item 17 (issue 12): smaller holes
def test_output_through_a_symlink_keeps_the_link(files, tmp_path, capsys):
    cands, refs1, _ = files
    target = tmp_path / "real.tsv"
    target.write_text("old\n")
    link = tmp_path / "link.tsv"
    link.symlink_to(target)
    code, _, _ = run_cli(capsys, "score", "-c", cands, "-r", refs1, "--per-example", "-o", str(link))
    assert code == 0 and link.is_symlink() and os.readlink(link) == str(target)
    assert len(target.read_text().splitlines()) == len(CANDS) + 1  # the header row, then per-example rows


def test_unwritable_output_names_the_output_not_a_temporary_file(files, capsys):
    cands, refs1, _ = files
    code, _, err = run_cli(capsys, "score", "-c", cands, "-r", refs1, "-o", "/proc/x.tsv")
    assert code == 2 and "output '/proc/x.tsv'" in err and ".tmp" not in err


@pytest.mark.parametrize("path", ["/dev/zero", "DIR"])
def test_embedding_that_is_not_a_regular_file(tmp_path, path):
    path = str(tmp_path) if path == "DIR" else path
    with pytest.raises(ValueError, match="is not a regular file"):
        WRDScorer(embedding=path)


@pytest.mark.parametrize("options", [dict(embedding="glove-6b-50d"), dict(oov="exact"), dict(allow_pickle=True),
                                     dict(embedding_format="npz")], ids=lambda o: next(iter(o)))
def test_static_options_are_refused_with_the_contextual_backend(options):
    with pytest.raises(ValueError, match=r"applies only to backend='static', but backend='contextual'"):
        WRDScorer(backend="contextual", **options)


# --------------------------------------------------- issue 14: sacreBLEU-style statistics, pipes, tables
def _summary_fields(line):
    """{'P': (mean, low, high), ...} of a --confidence summary line, and its signature."""
    sig, rest = line.split(" P: ", 1)
    found = re.findall(r"(P|R|F1): (\S+) \[(\S+), (\S+)\]", "P: " + rest)
    return sig, {name: tuple(map(float, values)) for name, *values in found}


def test_confidence_intervals_in_the_summary(files, capsys):
    from wrd_score.signature import Signature
    from wrd_score.stats import system_confidence

    cands, refs1, _ = files
    code, out, _ = run_cli(capsys, "score", "-c", cands, "-r", refs1, "--confidence", "--digits", "17")
    assert code == 0
    sig, fields = _summary_fields(out.strip())
    expected = WRDScorer().score(CANDS, REFS1)
    assert Signature.parse(sig) == Signature.parse(expected["signature"]).with_fields(ci="bs1000,seed0")
    assert sig.endswith("|ci:bs1000,seed0")
    for short, name in (("P", "precision"), ("R", "recall"), ("F1", "f1")):
        mean, low, high = fields[short]
        assert mean == pytest.approx(expected[f"mean_{name}"], abs=1e-15)
        assert low <= mean <= high and low < high
        ci = system_confidence(expected[name], 1000, 0)
        assert (low, high) == pytest.approx((ci.low, ci.high), abs=1e-15)
    # the settings change the interval and the signature; the same settings repeat it exactly
    _, again, _ = run_cli(capsys, "score", "-c", cands, "-r", refs1, "--confidence", "--digits", "17")
    _, other, _ = run_cli(capsys, "score", "-c", cands, "-r", refs1, "--confidence", "--digits", "17",
                          "--confidence-n", "200", "--seed", "3")
    assert again == out
    other_sig, other_fields = _summary_fields(other.strip())
    assert other_sig.endswith("|ci:bs200,seed3") and other_fields["F1"][1:] != fields["F1"][1:]
    assert other_fields["F1"][0] == fields["F1"][0]  # the mean is not resampled


def test_confidence_in_json(files, capsys):
    cands, refs1, _ = files
    _, out, _ = run_cli(capsys, "score", "-c", cands, "-r", refs1, "--confidence", "--json")
    got = json.loads(out)
    for name in ("precision", "recall", "f1"):
        low, high = got[f"mean_{name}_ci"]
        assert low <= got[f"mean_{name}"] <= high
    assert got["signature"].endswith("|ci:bs1000,seed0")


def test_confidence_needs_two_examples(capsys):
    code, _, err = run_cli(capsys, "score", "--strings", "-c", "getCount", "-r", "get_count", "--confidence")
    assert code == 2 and "--confidence resamples examples and needs at least 2 candidates, got 1" in err


def _paired_rows(out):
    lines = out.splitlines()
    assert lines[0].startswith(SIG_START) and lines[1].split() == ["system", "F1", "[95%", "CI]", "delta", "F1",
                                                                   "p-value"]
    rows = []
    for line in lines[2:]:  # columns are aligned with two or more spaces between them
        name, f1, delta, p = re.split(r"\s{2,}", line)
        mean, low, high = re.fullmatch(r"(\S+) \[(\S+), (\S+)\]", f1).groups()
        rows.append({"name": name, "f1": float(mean), "low": float(low), "high": float(high), "delta": delta, "p": p})
    return lines[0], rows


def test_paired_bootstrap_table(files, tmp_path, capsys):
    from wrd_score.stats import paired_system_test

    cands, refs1, _ = files
    perfect = _write(tmp_path / "perfect.txt", REFS1)  # scores 1.0 on every example
    copy = _write(tmp_path / "copy.txt", CANDS)
    code, out, err = run_cli(capsys, "score", "-c", cands, "-c", perfect, "-c", copy, "-r", refs1, "--paired-bs")
    assert code == 0 and err == ""
    sig, rows = _paired_rows(out)
    assert sig.endswith("|ci:bs1000,seed0|paired:bs1000,seed0")
    assert [r["name"] for r in rows] == [f"baseline: {cands}", perfect, copy]
    base = WRDScorer().score(CANDS, REFS1)
    assert rows[0]["f1"] == pytest.approx(base["mean_f1"], abs=1e-6) and rows[0]["delta"] == rows[0]["p"] == "-"
    assert rows[1]["f1"] == 1.0 and float(rows[1]["delta"]) == pytest.approx(1 - base["mean_f1"], abs=1e-6)
    # the perfect system's gain is hardly ever reached by chance (7 examples); the copy does not differ
    # at all: p 1 (sacreBLEU's meaning, issue 23.9)
    assert float(rows[1]["p"]) < 0.01
    assert float(rows[2]["delta"]) == 0 and float(rows[2]["p"]) == 1.0
    assert all(r["low"] <= r["f1"] <= r["high"] for r in rows)
    # JSON: the same numbers unrounded, from the library's functions
    _, out_json, _ = run_cli(capsys, "score", "-c", cands, perfect, copy, "-r", refs1, "--paired-bs", "--json")
    got = json.loads(out_json)
    assert got["signature"] == sig and [s["system"] for s in got["systems"]] == [cands, perfect, copy]
    expected = paired_system_test(base["f1"], [1.0] * len(CANDS), 1000, 0)
    assert (got["systems"][1]["delta_f1"], got["systems"][1]["p_value"]) == pytest.approx(tuple(expected))
    assert got["systems"][0]["p_value"] is None and got["systems"][0]["baseline"] is True


def test_paired_and_confidence_means_have_the_plain_means_bits(tmp_path, capsys):
    """The paired table's and --confidence's means were np.mean (a pairwise sum); the plain score's the running sum
    in order (wrd_score.scorer.mean): over 997 examples they parted in the last bits."""
    rng = np.random.default_rng(1)
    words = "get set count size value name list item add remove is has to string index find load save".split()
    texts = [" ".join(rng.choice(words, rng.integers(1, 4))) for _ in range(2 * 997)]
    cands, refs = _write(tmp_path / "c.txt", texts[:997]), _write(tmp_path / "r.txt", texts[997:])
    _, plain, _ = run_cli(capsys, "score", "-c", cands, "-r", refs, "--json")
    _, confidence, _ = run_cli(capsys, "score", "-c", cands, "-r", refs, "--json", "--confidence")
    _, paired, _ = run_cli(capsys, "score", "-c", cands, "-c", refs, "-r", refs, "--paired-bs", "--json",
                           "--paired-bs-n", "100", "--confidence-n", "100")
    want = json.loads(plain)["mean_f1"]
    assert want != float(np.mean(json.loads(plain)["f1"]))  # the data tells the two sums apart
    assert json.loads(confidence)["mean_f1"] == want
    assert json.loads(paired)["systems"][0]["mean_f1"] == want


def test_paired_bootstrap_settings_and_output_file(files, tmp_path, capsys):
    cands, refs1, _ = files
    perfect = _write(tmp_path / "perfect.txt", REFS1)
    out_path = tmp_path / "table.txt"
    code, out, _ = run_cli(capsys, "score", "-c", cands, "-c", perfect, "-r", refs1, "--paired-bs",
                           "--paired-bs-n", "99", "--confidence-n", "50", "--seed", "7", "-o", str(out_path))
    assert code == 0 and out_path.read_text() == out  # the table in the file and on the terminal
    sig, rows = _paired_rows(out)
    assert sig.endswith("|ci:bs50,seed7|paired:bs99,seed7")
    # (1 + k) / (N + 1) with N = 99: a multiple of 1/100, small for a system this much better.
    p = float(rows[1]["p"])
    assert p <= 0.05 and round(p * 100, 6) == round(p * 100)


def test_paired_approximate_randomisation(files, tmp_path, capsys):
    # Issue 23.9: sacreBLEU's --paired-ar, through scipy.stats.permutation_test, recorded in the signature.
    from wrd_score.stats import paired_system_test

    cands, refs1, _ = files
    perfect = _write(tmp_path / "perfect.txt", REFS1)
    code, out, err = run_cli(capsys, "score", "-c", cands, "-c", perfect, "-r", refs1, "--paired-ar",
                             "--paired-ar-n", "500", "--seed", "2")
    assert code == 0 and err == ""
    sig, rows = _paired_rows(out)
    assert sig.endswith("|ci:bs1000,seed2|paired:ar500,seed2")
    base = WRDScorer().score(CANDS, REFS1)["f1"]
    want = paired_system_test(base, [1.0] * len(CANDS), 500, 2, method="ar")
    assert float(rows[1]["p"]) == pytest.approx(want.p_value, abs=1e-4) and want.p_value < 0.05


@pytest.mark.parametrize("extra, message", [
    (["--paired-bs"], "--paired-bs compares systems with a baseline: give -c BASELINE -c SYSTEM"),
    (["-c", "SECOND"], "2 candidate inputs (-c) were given: several systems are compared only with --paired-bs"),
    (["-c", "SECOND", "--paired-bs", "--per-example"], "--per-example reports one system; it cannot be combined with --paired-bs"),
    (["-c", "SHORT", "--paired-bs"], "has 7 lines but candidates file"),
    (["-c", "SECOND", "--paired-bs", "--paired-bs-n", "0"], "--paired-bs-n must be an integer between 40 and 100,000 (a 95% interval needs one resample beyond each bound), got 0"),
    (["--confidence", "--confidence-n", "-3"], "--confidence-n must be an integer between 40 and 100,000 (a 95% interval needs one resample beyond each bound), got -3"),
    (["--confidence", "--confidence-n", "1"], "--confidence-n must be an integer between 40 and 100,000 (a 95% interval needs one "),
    (["-c", "SECOND", "--paired-ar", "--paired-ar-n", "10"], "--paired-ar-n must be an integer between 40 and 100,000 (a 95% interval needs one resample beyond each bound), got 10"),
    (["-c", "SECOND", "--paired-ar", "--paired-bs"], "give --paired-bs or --paired-ar, not both"),
    (["-c", "-", "--paired-bs", "-r", "-"], "standard input ('-') can be given only once"),
])
def test_statistics_flags_refused_clearly(files, tmp_path, capsys, extra, message):
    cands, refs1, _ = files
    names = {"SECOND": _write(tmp_path / "second.txt", CANDS), "SHORT": _write(tmp_path / "short.txt", CANDS[:3])}
    extra = [names.get(a, a) for a in extra]
    code, out, err = run_cli(capsys, "score", "-c", cands, "-r", refs1, *extra)
    assert code == 2 and out == "" and err.startswith("wrdscore score: error:") and message in err, err


def test_integer_flags_are_held_by_the_checks(files, capsys):
    # argparse refuses them (the one line of wrd_score.checks, naming the flag), before any input is read.
    cands, refs1, _ = files
    for extra, message in ((["--seed", "-1"], "argument --seed: --seed must be an integer >= 0, got -1"),
                           (["--digits", "18"], "--digits must be an integer between 0 and 17, got 18"),
                           (["--chunk-size", "x"], "--chunk-size must be an integer between 1 and 1,000,000, got 'x'"),
                           # Before: "Stop argument for islice() must be None or an integer: 0 <= x <= sys.maxsize."
                           (["--chunk-size", "99999999999999999999999"], "--chunk-size must be an integer between 1 "
                                                                         "and 1,000,000, got 99999999999999999999999")):
        code, out, err = run_cli(capsys, "score", "-c", cands, "-r", refs1, *extra)
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and err.rstrip().endswith(message), err


def test_per_example_tsv_reads_as_a_table(files, tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    cands, refs1, refs2 = files
    path = tmp_path / "out.tsv"
    assert run_cli(capsys, "score", "-c", cands, "-r", refs1, "--per-example", "-o", str(path))[0] == 0
    expected = WRDScorer().score(CANDS, REFS1)
    for kwargs in ({"comment": "#"}, {}):  # with or without comment handling: no stray row
        table = pd.read_csv(path, sep="\t", **kwargs)
        assert list(table.columns) == ["precision", "recall", "f1"] and len(table) == len(CANDS)
        assert all(dtype == "float64" for dtype in table.dtypes)
        assert table["f1"].tolist() == pytest.approx(expected["f1"], abs=1e-6)
    run_cli(capsys, "score", "-c", cands, "-r", refs1, refs2, "--per-example", "-o", str(path))
    table = pd.read_csv(path, sep="\t", comment="#")
    assert list(table.columns) == ["precision", "recall", "f1", "best_reference"] and len(table) == len(CANDS)
    assert str(table["best_reference"].dtype) == "int64" and table["f1"].dtype == "float64"


def test_candidates_as_a_list_or_repeated(files, tmp_path, capsys):
    cands, refs1, _ = files
    other = _write(tmp_path / "other.txt", REFS1)
    listed = run_cli(capsys, "score", "-c", cands, other, "-r", refs1, "--paired-bs")
    repeated = run_cli(capsys, "score", "-c", cands, "-c", other, "-r", refs1, "--paired-bs")
    assert listed == repeated and listed[0] == 0


def test_pipe_closed_early_is_quiet(tmp_path):
    """`wrdscore score ... --per-example | head -1`: no 'Broken pipe', no traceback, exit status 0."""
    import shlex

    n = 5000  # ~130 kB of rows: more than a pipe holds, so writing hits the closed pipe
    cands = _write(tmp_path / "c.txt", [CANDS[i % len(CANDS)] for i in range(n)])
    refs = _write(tmp_path / "r.txt", [REFS1[i % len(REFS1)] for i in range(n)])
    command = (" ".join(map(shlex.quote, _cli_base())) + f" score -c {shlex.quote(cands)} -r {shlex.quote(refs)} "
               "--per-example | head -1; echo \"status=${PIPESTATUS[0]}\" >&2")
    proc = subprocess.run(["bash", "-c", command], capture_output=True, text=True, timeout=300, cwd=REPO)
    assert proc.stdout == "precision\trecall\tf1\n"
    assert proc.stderr == "status=0\n", proc.stderr


def test_show_writes_a_readable_png(tmp_path, capsys):
    from matplotlib.image import imread

    out = tmp_path / "pair.png"
    code, stdout, err = run_cli(capsys, "show", "-c", "get count", "-r", "size", "-o", str(out))
    assert code == 0 and str(out) in stdout, err
    image = imread(out)
    assert image.shape[0] > 200 and image.shape[1] > 400
    code, _, err = run_cli(capsys, "show", "-c", "a", "-r", "b", "-o", str(out), "--dpi", "5")
    assert code == 2 and "--dpi" in err


@pytest.mark.parametrize("ending, line", [(b"\r", 1), (b"\r\n\r", 2)], ids=["old-mac", "mixed"])
def test_old_mac_line_ends_are_refused_not_read_as_one_example(tmp_path, capsys, ending, line):
    """Issue 22 item 8: `\\r`-only line ends made a file one example. Lines end with \\n (or \\r\\n), as in
    sacreBLEU (newline="\\n") and `wc -l`; a carriage return inside a line is refused, naming file and line."""
    cands, refs = tmp_path / "c.txt", tmp_path / "r.txt"
    cands.write_bytes(ending.join([b"getCount", b"size", b"run"]) + b"\n")
    refs.write_bytes(ending.join([b"get_count", b"length", b"execute"]) + b"\n")
    code, out, err = run_cli(capsys, "score", "-c", str(cands), "-r", str(refs))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
    assert f"{str(cands)!r}, line {line}" in err and "carriage return" in err
    # Windows line ends stay fine.
    cands.write_bytes(b"getCount\r\nsize\r\n")
    refs.write_bytes(b"get_count\r\nlength\r\n")
    assert list(iter_lines(str(cands))) == ["getCount", "size"]


@pytest.mark.parametrize("argv, hint", [
    (["score", "refs.txt", "-i", "cands.txt"], "'wrdscore score -c cands.txt -r refs.txt'"),
    (["-c", "a", "-r", "b"], "name the command first: 'wrdscore score -c a -r b'"),
])
def test_sacrebleu_habits_are_answered_with_the_right_form(capsys, argv, hint):
    # Issue 23.11: bare argparse errors for sacreBLEU's command lines.
    code, out, err = run_cli(capsys, *argv)
    assert code == 2 and out == "" and hint in err and len(err.strip().splitlines()) == 1, err


def test_other_usage_errors_keep_argparses_usage_line(capsys):
    code, _, err = run_cli(capsys, "score", "-c", "a")
    assert code == 2 and err.startswith("usage: wrdscore score") and "required: -r/--references" in err


def test_show_writes_the_format_of_its_suffix_or_refuses_it_in_one_line(tmp_path, capsys):
    # Issue 23.6: -o x.pdf held PNG bytes.
    code, _, err = run_cli(capsys, "show", "-c", "get count", "-r", "size", "-o", str(tmp_path / "p.pdf"))
    assert code == 0 and (tmp_path / "p.pdf").read_bytes().startswith(b"%PDF"), err
    code, _, err = run_cli(capsys, "show", "-c", "get count", "-r", "size", "-o", str(tmp_path / "p.docx"))
    assert code == 2 and len(err.strip().splitlines()) == 1 and "must end in a figure format" in err
    assert not (tmp_path / "p.docx").exists()


def test_paired_tests_at_the_fewest_resamples_raise_no_numpy_warnings(tmp_path, capsys):
    # Issue 22.15: --paired-bs-n 1 / --confidence-n 1 printed numpy's "Degrees of freedom <= 0" warnings.
    import warnings

    base = _write(tmp_path / "base.txt", ["getCount", "size"])
    same = _write(tmp_path / "same.txt", ["getCount", "size"])
    refs = _write(tmp_path / "refs.txt", ["getCount", "size"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for flag in ("--paired-bs", "--paired-ar"):
            code, out, err = run_cli(capsys, "score", "-c", base, "-c", same, "-r", refs, flag, f"{flag}-n", "40",
                                     "--confidence-n", "40")
            assert code == 0 and err == "" and out.splitlines()[-1].split()[-1] == "1.0000", (flag, out, err)


@pytest.mark.parametrize("argv, message", [
    (["--confidence-n", "500"], "--confidence-n given without --confidence, --paired-bs or --paired-ar"),
    (["--seed", "3"], "--seed given without --confidence, --paired-bs or --paired-ar"),
    (["--paired-bs-n", "100"], "--paired-bs-n given without --paired-bs"),
    (["--confidence", "--paired-ar-n", "100"], "--paired-ar-n given without --paired-ar"),
])
def test_score_refuses_a_resampling_setting_it_would_ignore(tmp_path, capsys, argv, message):
    """Before, `--confidence-n 500` without --confidence printed the plain score as if it had not been given."""
    from wrd_score import cli

    cands, refs = tmp_path / "c.txt", tmp_path / "r.txt"
    cands.write_text("getCount\n")
    refs.write_text("size\n")
    assert cli.main(["score", "-c", str(cands), "-r", str(refs), "--files", "-q", *argv]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--chrf-word-order", "2"], "--chrf-word-order given without chrf in --metrics"),
    (["--moverscore-no-idf"], "--moverscore-no-idf given without moverscore in --metrics"),
    (["--exact-match-rule", "sequence"], "--exact-match-rule given without exact-match in --metrics"),
    (["--bertscore-idf"], "--bertscore-idf given without bertscore in --metrics"),
])
def test_compare_names_the_flag_of_a_metric_not_asked_for(capsys, argv, message):
    """Before, the refusal listed the library's internal option names and said nothing of --metrics."""
    from wrd_score import cli

    assert cli.main(["compare", "-c", "getCount", "-r", "size", "--metrics", "wrdscore,rouge1", *argv]) == 2
    assert message in capsys.readouterr().err


_BACKEND_READERS = "wrdscore, bertscore, moverscore, wms, sms or s+wms in --metrics"


@pytest.mark.parametrize("argv, message", [
    (["--metrics", "rouge1", "--variant", "paper"], "--variant given without wrdscore in --metrics"),
    (["--metrics", "rouge1", "--weights", "idf"], "--weights given without wrdscore in --metrics"),
    (["--metrics", "rouge1", "--rescale-with-baseline"], "--rescale-with-baseline given without wrdscore in --metrics"),
    (["--metrics", "rouge1,bertscore", "--variant", "paper", "--num-threads", "1"],
     "--variant, --num-threads given without wrdscore in --metrics"),
    (["--metrics", "rouge1", "--embedding", "wrd-java-default"], f"--embedding given without {_BACKEND_READERS}"),
    (["--metrics", "rouge1,chrf", "--no-clip-negative"], f"--no-clip-negative given without {_BACKEND_READERS}"),
])
def test_compare_refuses_a_wrdscore_option_no_metric_reads(capsys, argv, message):
    """Before, `--metrics rouge1 --variant paper` printed rouge1 alone, exit 0, as if --variant had not been given."""
    assert cli.main(["compare", "-c", "get count", "-r", "size", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("wrdscore compare: error:") and message in err and "it would be ignored" in err, err


def test_compare_takes_a_backend_option_for_the_metrics_on_wrdscores_backend(capsys):
    assert cli.main(["compare", "-c", "get count", "-r", "size", "--metrics", "bertscore,rouge1",
                     "--embedding", "wrd-java-default", "--no-clip-negative"]) == 0
    assert "bertscore-rule[static]_f1" in capsys.readouterr().out
    assert cli.main(["compare", "-c", "get count", "-r", "size", "--metrics", "wrdscor", "--variant", "paper"]) == 2
    assert "got 'wrdscor'; did you mean 'wrdscore'?" in capsys.readouterr().err  # the name first, then the flags


@pytest.mark.parametrize("command, argv, message", [
    ("score", ["--json", "--digits", "3"], "--digits given without text output"),
    ("score", ["--shard", "1/2", "-o", "OUT", "--digits", "3"], "--digits given without text output"),
    ("compare", ["--json", "--digits", "2"], "--digits given without a table"),
])
def test_digits_where_every_digit_is_kept_is_refused(tmp_path, capsys, command, argv, message):
    """Before, --digits with --json (or a shard record) printed every digit as if it had not been given."""
    from wrd_score import cli

    cands, refs = tmp_path / "c.txt", tmp_path / "r.txt"
    cands.write_text("getCount\nsize\n")
    refs.write_text("size\ncount\n")
    argv = [str(tmp_path / "o.json") if a == "OUT" else a for a in argv]
    inputs = ["-c", str(cands), "-r", str(refs), "--files"] + (["-q"] if command == "score" else [])
    assert cli.main([command, *inputs, *argv]) == 2
    assert message in capsys.readouterr().err


def _killed_while_copying_standard_input(tmp_path, sig):
    """``score -c - -r refs`` stopped by ``sig`` while it copies standard input (the pipe left open, so the copy is
    under way); returns the process, the TMPDIR it copied into, the references file and the environment."""
    import time

    refs = tmp_path / "refs.txt"
    refs.write_text("size\n" * 1000)
    spool_root = tmp_path / "tmp"
    spool_root.mkdir()
    env = {**os.environ, "TMPDIR": str(spool_root)}
    proc = subprocess.Popen(_cli_base() + ["score", "-c", "-", "-r", str(refs)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        proc.stdin.write(b"get count\n" * 10)
        proc.stdin.flush()  # the pipe stays open: the command waits for the rest of the candidates
        deadline = time.monotonic() + 120
        while not any(spool_root.iterdir()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert any(spool_root.iterdir()), "the command never started copying standard input"
        time.sleep(0.5)
        proc.send_signal(sig)
        proc.wait(timeout=60)
    finally:
        proc.kill()
        proc.stdin.close()
    return proc, spool_root, refs, env


def test_sigterm_while_copying_standard_input_leaves_no_copy_behind(tmp_path):
    # The copy of a streamed input lives in a temporary folder; killed by SIGTERM (a job scheduler's stop, `timeout`),
    # the process died without removing it (Python's default action for the signal runs no cleanup).
    import signal

    proc, spool_root, _, _ = _killed_while_copying_standard_input(tmp_path, signal.SIGTERM)
    assert proc.returncode == 128 + signal.SIGTERM
    assert list(spool_root.iterdir()) == []


def test_a_copy_left_by_sigkill_is_removed_by_the_next_command_that_copies(tmp_path):
    # SIGKILL runs no cleanup: the killed command's copy of standard input stayed in TMPDIR for good. The next command
    # that copies a stream removes the copies whose owner lock is free, and leaves a running command's copy (its lock
    # held, even under a pid that this PID namespace does not know: another container sharing TMPDIR), a folder that
    # only looks like one, and a symlink.
    import fcntl
    import signal

    proc, spool_root, refs, env = _killed_while_copying_standard_input(tmp_path, signal.SIGKILL)
    left = [p.name for p in spool_root.iterdir()]
    assert len(left) == 1 and left[0].startswith(f"wrdscore-stdin-{proc.pid}-"), left  # what SIGKILL leaves
    mine = spool_root / f"wrdscore-stdin-{os.getpid()}-alive"  # a running process's copy
    mine.mkdir()
    other = spool_root / "wrdscore-stdin-notapid"
    other.mkdir()
    target = tmp_path / "target"
    target.mkdir()
    (spool_root / f"wrdscore-stdin-{proc.pid}-link").symlink_to(target)
    elsewhere = spool_root / f"wrdscore-stdin-{proc.pid}-elsewhere"  # a dead pid here, its owner alive elsewhere
    elsewhere.mkdir()
    held = open(elsewhere / ".owner", "wb")
    fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
    done = subprocess.run(_cli_base() + ["score", "-c", "-", "-r", str(refs)], input=b"get count\n" * 1000,
                          capture_output=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    held.close()
    assert sorted(p.name for p in spool_root.iterdir()) == sorted(
        [mine.name, other.name, elsewhere.name, f"wrdscore-stdin-{proc.pid}-link"])
    assert target.is_dir()


# ------------------------------------------------------------- a value refused: the flag typed, in one line
# A value the library refuses, given on the command line: one line on standard error, exit status 2, and the
# message names the flag the user typed (--num-threads), never the library's keyword (num_threads); the rest of the
# message is the library's own wording (the rule: wrd_score.cli.common.name_flags).
PAIR = ["-c", "getCount", "-r", "size", "--strings"]  # one pair of strings: nothing to read before the options


@pytest.fixture(scope="module")
def flag_files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cli-flags")
    (folder / "corpus.txt").write_text("get count\nset count\nsize of list\nis empty\n" * 5)
    (folder / "judged.tsv").write_text("prediction\treference\thuman\n" +
                                       "".join(f"getCount{i}\tsize{i}\t{i % 5}\n" for i in range(12)))
    (folder / "methods.tsv").write_text("repo\tpath\tname\tis_test_path\nr\tp\tgetCount\tfalse\n")
    (folder / "a_file").write_text("not a folder\n")
    return folder


# (argv, {pair} for PAIR and {d} for the fixture's folder; the flag typed; the library's keyword; the message)
REFUSALS = [
    # score: an integer out of range (the library's check), one argparse cannot read, a bad choice, a pair of options
    ("score {pair} --num-threads 0", "--num-threads", "num_threads",
     "--num-threads must be an integer between 1 and 1,024 or None (None: every core), got 0"),
    ("score {pair} --batch-size x", "--batch-size", "batch_size", "--batch-size must be an integer, got 'x'"),
    ("score {pair} --max-length 3", "--max-length", "max_length", "--max-length must be an integer >= 8 or None, got 3"),
    ("score {pair} --embedding-format glove2", "--embedding-format", "embedding_format",
     "--embedding-format must be one of ['auto', 'npz', 'word2vec', 'word2vec-binary', 'glove', 'fasttext-bin', "
     "'gensim'], got 'glove2'; did you mean 'glove'?"),
    ("score {pair} --layer x", "--layer", "layer", "--layer must be an int or comma-separated ints such as '4,5,6', got 'x'"),
    ("score {pair} --model x", "--model", "model", "--model='x' applies only to --backend='contextual', but --backend='static'"),
    ("score {pair} --backend contextual --weights corpus-idf", "--weights", "weights",
     "--weights='corpus-idf' reads the document frequencies shipped in a static embedding file; "
     "--backend='contextual' has none"),
    # compare
    ("compare {pair} --num-threads 0", "--num-threads", "num_threads", "--num-threads must be an integer between 1"),
    ("compare {pair} --oov exakt", "--oov", "oov", "--oov must be one of ['auto', 'exact', 'drop'], got 'exakt'"),
    ("compare {pair} --metrics rogue", "--metrics", "metrics", "--metrics must be one of ['wrdscore',"),
    # show
    ("show -c a -r b -o {d}/x.png --num-threads 0", "--num-threads", "num_threads", "--num-threads must be an integer"),
    ("show -c a -r b -o {d}/x.png --variant papr", "--variant", "variant",
     "--variant must be one of ['wrd', 'paper'], got 'papr'; did you mean 'paper'?"),
    ("show -c a -r b -o {d}/x.png --dpi 5", "--dpi", "dpi", "--dpi must be an integer between 30 and 600, got 5"),
    # validate: numbers (--human-range: floats), an option of the metric, a choice
    ("validate {d}/judged.tsv --no-files --human-range 1 0", "--human-range", "human_range",
     "--human-range must be two finite numbers with LO < HI, got [1.0, 0.0]"),
    ("validate {d}/judged.tsv --no-files --human-range 0 x", "--human-range", "human_range",
     "argument --human-range: invalid float value: 'x'"),
    ("validate {d}/judged.tsv --no-files --num-threads 0", "--num-threads", "num_threads",
     "--num-threads must be an integer between 1"),
    ("validate {d}/judged.tsv --no-files --tokenizer word", "--tokenizer", "tokenizer",
     "--tokenizer must be one of ['identifier', 'words'], got 'word'"),
    ("validate {d}/judged.tsv --no-files --bootstrap 5", "--bootstrap", "n_boot", "--bootstrap must be an integer"),
    # baseline
    ("baseline --corpus {d}/corpus.txt --output {d}/b.json --pairs 1", "--pairs", "n_pairs",
     "--pairs must be an integer between 2 and 1,000,000, got 1"),
    ("baseline --corpus {d}/corpus.txt --output {d}/b.json --stride 0 --backend contextual", "--stride", "stride",
     "--stride must be a positive integer or None, got 0"),
    ("baseline --corpus {d}/corpus.txt --output {d}/b.json --weights nrom", "--weights", "weights",
     "--weights must be one of"),
    # train: integers, numbers, a choice, and a limit met only once the corpus is read
    ("train {d}/corpus.txt -o {d}/t.npz --min-count 0", "--min-count", "min_count",
     "--min-count must be a positive integer, got 0"),
    ("train {d}/corpus.txt -o {d}/t.npz --sample 2", "--sample", "sample", "--sample must be in [0, 1), got 2.0"),
    ("train {d}/corpus.txt -o {d}/t.npz --fraction 0", "--fraction", "fraction", "--fraction must be in (0, 1], got 0.0"),
    ("train {d}/corpus.txt -o {d}/t.npz --corpus-format identifier", "--corpus-format", "corpus_format",
     "--corpus-format must be one of ['tokens', 'identifiers'], got 'identifier'"),
    ("train {d}/corpus.txt -o {d}/t.npz --negative 0", "--negative", "negative",
     "--negative must be an integer between 1 and 1,000, got 0"),
    ("train {d}/corpus.txt -o {d}/t.npz --no-progress --min-count 1000", "--min-count", "min_count",
     "no token in the corpus occurs at least --min-count=1000 times; lower --min-count or give a larger corpus"),
    ("train {d}/corpus.txt -o t.txt", "-o/--output", "output", "-o/--output must be a .npz file, got 't.txt'"),
    # distill (torch is imported; nothing is loaded): numbers, the fitting options, a choice, an integer
    ("distill -o {d}/d.npz --corpus {d}/corpus.txt:tokens --sif 1", "--sif", "sif",
     "--sif must be a number in [0, 1) (0 or None: no weighting), got 1.0"),
    ("distill -o {d}/d.npz --corpus {d}/corpus.txt:tokens --fit {d}/corpus.txt:stsb --fit-lr 5", "--fit-lr",
     "fit lr", "--fit-lr must be a number in [0.0, 1.0], got 5.0"),
    ("distill -o {d}/d.npz --corpus {d}/corpus.txt:tokens --fit {d}/corpus.txt:stsb --fit-epochs -1", "--fit-epochs",
     "fit epochs", "--fit-epochs must be an integer >= 0, got -1"),
    ("distill -o {d}/d.npz --pooling mean", "--pooling", "pooling", "--pooling must be one of ['pieces', 'all', 'first']"),
    ("distill -o {d}/d.npz --min-count 0", "--min-count", "min_count", "--min-count must be a positive integer, got 0"),
    # specialize: an integer, a number, a choice (argparse's refusals: one line too)
    ("specialize wrd-minilm-distilled -o {d}/s.npz --name n --iterations 0", "--iterations", "iterations",
     "--iterations must be an integer between 1 and 1,000, got 0"),
    ("specialize wrd-minilm-distilled -o {d}/s.npz --name n --delta 3", "--delta", "delta",
     "--delta must be a number in [0, 2], got 3.0"),
    ("specialize wrd-minilm-distilled -o {d}/s.npz --name n --post-specialize linar", "--post-specialize", "post",
     "--post-specialize must be one of ['linear'], got 'linar'"),
    # constraints
    ("constraints -o {d}/c.tsv --vocabulary wrd-minilm-distilled --methods {d}/methods.tsv --wordnet {d}",
     "--wordnet", "wordnet", "--wordnet="),
    ("constraints -o {d}/c.tsv --vocabulary wrd-minilm-distilled --methods {d}/methods.tsv --min-dice 2", "--min-dice",
     "min_dice", "--min-dice must be a number in [0, 1], got 2.0"),
    ("constraints -o {d}/c.tsv --vocabulary wrd-minilm-distilled --methods {d}/methods.tsv --senses 0", "--senses",
     "senses", "--senses must be a positive integer, got 0"),
    # merge, convert, install-evaluate-module
    ("merge {d}/s.json --digits 18", "--digits", "digits", "--digits must be an integer between 0 and 17, got 18"),
    ("convert {d}/corpus.txt {d}/o.npz --format glov", "--format", "format", "--format must be one of ['auto', 'npz',"),
    ("convert {d}/corpus.txt {d}/o.npz --dtype float8", "--dtype", "dtype", "--dtype must be one of ['float16',"),
    ("install-evaluate-module --modules-cache {d}/a_file", "--modules-cache", "modules_cache",
     "--modules-cache '{d}/a_file' is a file, not a folder"),
]


def _keyword(keyword):
    """The library's keyword as a word of its own (``--min-count`` holds no ``min_count``; ``--model`` no ``model``)."""
    return re.compile(rf"(?<![\w-]){re.escape(keyword)}(?![\w-])")


@pytest.mark.parametrize("line, flag, keyword, message", REFUSALS, ids=[c[0].split()[0] + " " + c[1] for c in REFUSALS])
def test_a_refused_value_names_the_flag_typed_in_one_line(flag_files, capsys, line, flag, keyword, message):
    argv = [part for word in line.split() for part in (PAIR if word == "{pair}" else [word.format(d=flag_files)])]
    code, out, err = run_cli(capsys, *argv)
    command = argv[0]
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and len(lines) == 1, err
    assert lines[0].startswith(f"wrdscore {command}: error: "), err
    assert flag in lines[0] and not _keyword(keyword).search(lines[0]), err
    assert message.format(d=flag_files) in lines[0], err


def test_a_keyword_the_user_typed_is_kept(flag_files, capsys):
    # validate's metric specs spell the library's keywords: the message names what was typed, the keyword.
    code, _, err = run_cli(capsys, "validate", str(flag_files / "judged.tsv"), "--no-files", "-m",
                           "wrdscore:num_threads=0")
    assert code == 2 and err.strip() == ("wrdscore validate: error: num_threads must be an integer between 1 and 1,024 "
                                         "or None (None: every core), got 0"), err
    # ... and the flag where the same keyword came from the flag.
    code, _, err = run_cli(capsys, "validate", str(flag_files / "judged.tsv"), "--no-files", "--num-threads=0")
    assert code == 2 and err.strip().startswith("wrdscore validate: error: --num-threads must be"), err


def test_a_boolean_flag_is_named_as_typed(capsys):
    # --no-clip-negative, not --clip-negative (the flag that set the value); with a metric that cannot read it.
    code, _, err = run_cli(capsys, "compare", *PAIR, "--metrics", "rouge", "--no-clip-negative")
    assert code == 2 and "--no-clip-negative" in err and not _keyword("clip_negative").search(err), err


def test_words_that_are_no_keyword_stay_as_they_are(flag_files, capsys):
    # "embedding file": prose, not the keyword of --embedding; left alone. The advice's keyword is the flag's.
    code, _, err = run_cli(capsys, "score", "-c", "a", "-r", "b", "--embedding", str(flag_files / "a_file"))
    assert code == 2 and err.startswith("wrdscore score: error: cannot tell the format of embedding file "), err
    assert "; pass --embedding-format= one of ['npz'," in err and "embedding_format" not in err, err
