"""`wrdscore score`: files and strings, output formats, streaming, atomic output, bad input."""
import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

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
    cands, refs1, refs2 = files
    _, out, _ = run_cli(capsys, "score", "-c", cands, "-r", refs1, "--per-example", "--digits", "4")
    lines = out.splitlines()
    assert len(lines) == len(CANDS) + 1 and lines[-1].startswith(SIG_START)
    expected = WRDScorer().score(CANDS, REFS1)
    for line, p, r, f in zip(lines, expected["precision"], expected["recall"], expected["f1"]):
        assert line == f"{p:.4f}\t{r:.4f}\t{f:.4f}"
    # several references: a fourth column with the winning reference's index
    _, out, _ = run_cli(capsys, "score", "-c", cands, "-r", refs1, refs2, "--per-example")
    best = WRDScorer().score(CANDS, [list(p) for p in zip(REFS1, REFS2)])["best_reference"]
    assert [int(line.split("\t")[3]) for line in out.splitlines()[:-1]] == best


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
    assert len(out_path.read_text().splitlines()) == len(CANDS) + 1
    assert oct(out_path.stat().st_mode & 0o777) == oct(0o666 & ~_umask())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cands.txt", "refs1.txt", "refs2.txt", "scores.tsv"]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_failure_mid_run_leaves_output_untouched(files, tmp_path, capsys, monkeypatch):
    cands, refs1, _ = files
    out_path = tmp_path / "scores.json"
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
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cands.txt", "refs1.txt", "refs2.txt", "scores.json"]


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
    assert code == 2 and "--weights: invalid choice: 'bogus'" in err
    code, _, err = run_cli(capsys, "score", "-c", cands, "-r", refs1, "--json", "--per-example")
    assert code == 2 and "not both" in err
    code, _, err = run_cli(capsys, "score", "-c", cands, "-r", refs1, "--chunk-size", "0")
    assert code == 2 and "--chunk-size" in err
    code, _, err = run_cli(capsys, "score", "-c", cands, "-r", refs1, "-o", cands)
    assert code == 2 and "also an input file" in err


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
], ids=["400-digit", "not-utf8", "5000-digit"])
def test_hostile_idf_files_name_the_file(files, tmp_path, capsys, content, message):
    """Issue 12, items 13 and 17: OverflowError / UnicodeDecodeError without the file name."""
    cands, refs1, _ = files
    path = tmp_path / "idf.json"
    path.write_bytes(content)
    code, _, err = run_cli(capsys, "score", "-c", cands, "-r", refs1, "--weights", "idf", "--idf-file", str(path))
    assert code == 2
    import re
    assert re.search(message, err), err


def test_huge_integer_idf_weight_in_the_library():
    with pytest.raises(ValueError, match=r"idf\['get'\] must be finite and >= 0"):
        wrd_score.score(["get"], ["count"], weights="idf", idf={"get": 10**400})


# ------------------------------------------------------------------ item 17 (issue 12): smaller holes
def test_output_through_a_symlink_keeps_the_link(files, tmp_path, capsys):
    cands, refs1, _ = files
    target = tmp_path / "real.tsv"
    target.write_text("old\n")
    link = tmp_path / "link.tsv"
    link.symlink_to(target)
    code, _, _ = run_cli(capsys, "score", "-c", cands, "-r", refs1, "--per-example", "-o", str(link))
    assert code == 0 and link.is_symlink() and os.readlink(link) == str(target)
    assert len(target.read_text().splitlines()) == len(CANDS) + 1  # per-example lines, then the summary


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
    with pytest.raises(ValueError, match=r"apply only to backend='static', but backend='contextual'"):
        WRDScorer(backend="contextual", **options)
