"""`wrdscore score --shard K/N` and `wrdscore merge`: the shards of one input merge into exactly one run."""
import json
import re
import os
from pathlib import Path

import pytest

from wrd_score.shards import Shard, merge_shards

CANDS = ["getCount", "size", "", "run", "toString", "isEmpty", "closeQuietly", "readLine", "hashCode", "x", "setUp"]
REFS1 = ["get_count", "getSize", "x", "execute", "as string", "empty", "close", "read line", "hash", "", "init"]
REFS2 = ["count", "length", "", "start", "toString", "is empty", "shutdown", "line", "hashCode", "y", "set up"]


def _write(path: Path, lines) -> str:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return str(path)


@pytest.fixture
def inputs(tmp_path):
    return ["-c", _write(tmp_path / "c.txt", CANDS), "-r", _write(tmp_path / "r1.txt", REFS1),
            "-r", _write(tmp_path / "r2.txt", REFS2)]


def _shards(run_cli, tmp_path, inputs, count, *flags, name="s"):
    paths = []
    for k in range(1, count + 1):
        path = tmp_path / f"{name}{k}.json"
        code, out, err = run_cli("score", *inputs, "--shard", f"{k}/{count}", "-o", path, *flags)
        assert code == 0, err
        assert out.startswith(f"shard {k}/{count}: lines ")
        paths.append(path)
    return paths


@pytest.mark.parametrize("count, flags", [(3, []), (4, ["--weights", "idf", "--chunk-size", "2"]),
                                          (1, ["--variant", "paper"]), (11, []),  # one line a shard, the most
                                          (2, ["--rescale-with-baseline"]), (2, ["--no-clip-negative"])],
                         ids=["3", "4-idf", "1", "11-one-line-each", "rescaled", "unclipped"])
def test_merged_shards_are_byte_for_byte_one_run(run_cli, tmp_path, inputs, count, flags):
    code, one_run, _ = run_cli("score", *inputs, "--json", *flags)
    assert code == 0
    paths = _shards(run_cli, tmp_path, inputs, count, *flags)
    merged = tmp_path / "merged.json"
    code, out, err = run_cli("merge", *reversed(paths), "-o", merged)  # any order
    assert code == 0, err
    assert merged.read_text(encoding="utf-8") == one_run
    code, summary, _ = run_cli("score", *inputs, *flags)
    assert out == summary  # the same summary line as the one run prints
    code, to_stdout, _ = run_cli("merge", *paths)
    assert to_stdout == one_run


def test_contextual_shards_merge_into_one_run(run_cli, tmp_path, inputs, tiny_bert, contextual_agrees):
    # Each shard encodes only its own lines; the one run encodes them all in shared batches: the same
    # scores up to float32 rounding (SCORE_TOLERANCE), the same signature and best references.
    flags = ["--backend", "contextual", "--model", tiny_bert]
    code, one_run, err = run_cli("score", *inputs, "--json", *flags)
    assert code == 0, err
    paths = _shards(run_cli, tmp_path, inputs, 4, *flags)
    code, merged, err = run_cli("merge", *paths)
    assert code == 0, err
    contextual_agrees(json.loads(merged), json.loads(one_run))
    assert "backend:contextual" in one_run


def test_shard_record_names_its_slice_signature_and_input(run_cli, tmp_path, inputs):
    path = _shards(run_cli, tmp_path, inputs, 3)[1]
    record = json.loads(path.read_text())
    assert (record["shard"], record["lines"], record["start"], record["stop"]) == ("2/3", 11, 3, 7)
    assert len(record["f1"]) == 4 and record["signature"].startswith("wrdscore:v")
    assert record["inputs"].startswith("sha256:")
    assert [Shard(k, 3).bounds(11) for k in (1, 2, 3)] == [(0, 3), (3, 7), (7, 11)]


def test_mismatched_signatures_are_refused(run_cli, tmp_path, inputs):
    paths = _shards(run_cli, tmp_path, inputs, 2)
    other = _shards(run_cli, tmp_path, inputs, 2, "--weights", "uniform", name="u")
    code, _, err = run_cli("merge", paths[0], other[1])
    assert code == 2 and "different signature" in err


def test_missing_and_repeated_shards_are_refused(run_cli, tmp_path, inputs):
    paths = _shards(run_cli, tmp_path, inputs, 3)
    code, _, err = run_cli("merge", paths[0], paths[2])
    assert code == 2 and "1 of 3 shards are missing (2/3)" in err
    code, _, err = run_cli("merge", *paths, paths[1])
    assert code == 2 and "shard 2/3 is given twice" in err
    four = _shards(run_cli, tmp_path, inputs, 4, name="f")
    code, _, err = run_cli("merge", paths[0], paths[1], four[3])
    assert code == 2 and "split the input differently" in err


def test_shards_of_different_inputs_are_refused(run_cli, tmp_path, inputs):
    paths = _shards(run_cli, tmp_path, inputs, 2)
    shorter = ["-c", _write(tmp_path / "c2.txt", CANDS[:-1]), "-r", _write(tmp_path / "r12.txt", REFS1[:-1]),
               "-r", _write(tmp_path / "r22.txt", REFS2[:-1])]
    code, _, err = run_cli("merge", paths[0], _shards(run_cli, tmp_path, shorter, 2, name="t")[1])
    assert code == 2 and "different number of input lines" in err
    changed = ["-c", _write(tmp_path / "c3.txt", CANDS[:-1] + ["other"]), *inputs[2:]]
    code, _, err = run_cli("merge", paths[0], _shards(run_cli, tmp_path, changed, 2, name="v")[1])
    assert code == 2 and "different input digest" in err


def test_a_tampered_or_foreign_record_is_refused(run_cli, tmp_path, inputs):
    paths = _shards(run_cli, tmp_path, inputs, 2)
    record = json.loads(paths[1].read_text())
    record["f1"] = record["f1"][:-1]
    paths[1].write_text(json.dumps(record))
    code, _, err = run_cli("merge", *paths)
    assert code == 2 and "f1 must be a list of" in err
    code, _, err = run_cli("score", *inputs, "--json", "-o", tmp_path / "plain.json")
    code, _, err = run_cli("merge", paths[0], tmp_path / "plain.json")
    assert code == 2 and "is not a shard record" in err
    with pytest.raises(ValueError, match="give the shard files"):
        merge_shards([])


@pytest.mark.parametrize("spec", ["0/3", "4/3", "3", "a/b", "1/0", "-1/2"])
def test_bad_shard_specs_are_refused(run_cli, inputs, spec):
    code, _, err = run_cli("score", *inputs, f"--shard={spec}")
    assert code == 2 and "a shard must be K/N with 1 <= K <= N" in err


@pytest.mark.parametrize("flag", [["--json"], ["-f", "text"], ["-f", "json"]])
def test_shard_with_another_output_format_is_refused(run_cli, inputs, flag):
    # -f text was accepted, and the shard record (JSON) written anyway (red-team 2).
    code, _, err = run_cli("score", *inputs, "--shard", "1/2", *flag)
    assert code == 2 and "--shard writes its own per-example record" in err


def test_merge_output_may_not_overwrite_a_shard(run_cli, tmp_path, inputs):
    paths = _shards(run_cli, tmp_path, inputs, 2)
    code, _, err = run_cli("merge", *paths, "-o", paths[0])
    assert code == 2 and "also an input" in err


def test_merge_digits_needs_the_summary_line_of_o(run_cli, tmp_path, inputs):
    """Red-team finding: without -o merge prints the JSON (every digit) and no summary, and --digits was ignored."""
    paths = _shards(run_cli, tmp_path, inputs, 2)
    code, out, err = run_cli("merge", *paths, "--digits", "2")
    assert code == 2 and out == "" and "--digits given without -o (the summary line): it would be ignored" in err
    code, out, _ = run_cli("merge", *paths, "-o", tmp_path / "all.json", "--digits", "2")
    assert code == 0 and re.search(r" F1: \d\.\d\d$", out.strip()), out


@pytest.mark.parametrize("value, field", [(float("nan"), "f1"), (float("inf"), "precision"), (-1.5, "recall"),
                                          (1.5, "f1"), (-1, "best_reference"), (True, "best_reference")])
def test_a_record_with_impossible_scores_is_refused(run_cli, tmp_path, inputs, value, field):
    # A hand-edited or corrupted shard must not turn into a NaN or out-of-range mean.
    paths = _shards(run_cli, tmp_path, inputs, 2)
    record = json.loads(paths[1].read_text())
    record[field][0] = value
    paths[1].write_text(json.dumps(record))  # json writes NaN and Infinity as Python reads them back
    code, out, err = run_cli("merge", *paths)
    assert code == 2 and out == "" and f"shard file {str(paths[1])!r}: {field}" in err
    assert len(err.strip().splitlines()) == 1


def test_hostile_json_is_a_clear_error_not_a_traceback(run_cli, tmp_path, inputs):
    paths = _shards(run_cli, tmp_path, inputs, 2)
    paths[1].write_text("[" * 100_000 + "]" * 100_000)  # nesting that overflows the JSON parser's stack
    code, _, err = run_cli("merge", *paths)
    assert code == 2 and "is not a shard record" in err and "Traceback" not in err
    paths[1].write_bytes(b"\xff\xfe{}")
    code, _, err = run_cli("merge", *paths)
    assert code == 2 and "is not a shard record" in err


def test_a_shard_file_larger_than_the_limit_is_refused_before_reading(run_cli, tmp_path, inputs, monkeypatch):
    from wrd_score import shards

    paths = _shards(run_cli, tmp_path, inputs, 2)
    monkeypatch.setattr(shards, "MAX_SHARD_BYTES", paths[1].stat().st_size - 1)
    code, _, err = run_cli("merge", *paths)
    assert code == 2 and "limit" in err and str(paths[1]) in err


def test_rescaled_negative_scores_are_accepted(run_cli, tmp_path):
    # Rescaled scores may lie below 0 (and unclipped ones down to -1): merge must not refuse them.
    inputs = ["-c", _write(tmp_path / "c.txt", ["getCount", "parseXml"]), "-r", _write(tmp_path / "r.txt", ["size", "dispose"])]
    code, one_run, _ = run_cli("score", *inputs, "--json", "--rescale-with-baseline")
    assert code == 0 and min(json.loads(one_run)["precision"]) < 0
    paths = _shards(run_cli, tmp_path, inputs, 2, "--rescale-with-baseline")
    code, merged, err = run_cli("merge", *paths)
    assert code == 0 and merged == one_run, err


@pytest.mark.parametrize("signature", ["", "garbage", 7])
def test_a_record_with_a_broken_signature_is_refused_naming_the_file(run_cli, tmp_path, inputs, signature):
    paths = _shards(run_cli, tmp_path, inputs, 2)
    record = json.loads(paths[0].read_text())
    record["signature"] = signature
    paths[0].write_text(json.dumps(record))
    code, _, err = run_cli("merge", *paths)
    assert code == 2 and f"shard file {str(paths[0])!r}: " in err and len(err.strip().splitlines()) == 1


def test_a_missing_shard_or_a_pipe_is_refused_by_name(run_cli, tmp_path, inputs):
    paths = _shards(run_cli, tmp_path, inputs, 2)
    code, _, err = run_cli("merge", paths[0], tmp_path / "nope.json")
    assert code == 2 and "nope.json' does not exist" in err
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    code, _, err = run_cli("merge", paths[0], fifo)  # refused without opening it (no hang)
    assert code == 2 and "is not a regular file (a pipe or a folder?)" in err
    code, _, err = run_cli("merge", paths[0], tmp_path)
    assert code == 2 and "is not a regular file" in err


def test_shards_scored_with_different_idf_tables_are_refused(run_cli, tmp_path, inputs):
    """Issue 22 item 1: the signature pins the user's IDF table, so shards of two tables do not merge."""
    table_a = _write(tmp_path / "a.tsv", ["get\t1.0", "count\t3.0", "size\t2.0"])
    table_b = _write(tmp_path / "b.tsv", ["get\t3.0", "count\t1.0", "size\t0.5"])
    first = _shards(run_cli, tmp_path, inputs, 2, "--weights", "idf", "--idf-file", table_a, name="a")
    second = _shards(run_cli, tmp_path, inputs, 2, "--weights", "idf", "--idf-file", table_b, name="b")
    code, _, err = run_cli("merge", first[0], second[1])
    assert code == 2 and "different signature" in err and "idf" in err, err
    assert len(err.strip().splitlines()) == 1
    # The same table, written another way (JSON, other order), is the same table: it merges.
    same_a = tmp_path / "a.json"
    same_a.write_text(json.dumps({"size": 2, "count": 3.0, "get": 1.0}))
    again = _shards(run_cli, tmp_path, inputs, 2, "--weights", "idf", "--idf-file", same_a, name="j")
    code, out, err = run_cli("merge", first[0], again[1])
    assert code == 0, err


@pytest.mark.parametrize("spec", ["1/100000000", "12/12"])
def test_more_shards_than_lines_is_refused(run_cli, inputs, spec):
    """Issue 22 item 10: `--shard 1/100000000` of 11 lines is refused before anything is scored."""
    code, out, err = run_cli("score", *inputs, "--shard", spec)
    assert code == 2 and f"{int(spec.split('/')[1]):,}" in err and "11 lines" in err, err
    assert len(err.strip().splitlines()) == 1 and out == ""


def _forged(path: Path, shard: str, lines: int, start: int, stop: int) -> str:
    n = stop - start
    record = {"format": "wrdscore-shard/1", "shard": shard, "lines": lines, "start": start, "stop": stop,
              "references": 1, "inputs": "sha256:0", "precision": [0.5] * n, "recall": [0.5] * n, "f1": [0.5] * n,
              "best_reference": [0] * n, "signature": "wrdscore:v0|variant:wrd"}
    path.write_text(json.dumps(record))
    return str(path)


def test_merge_counts_missing_shards_and_names_the_first_few(run_cli, tmp_path):
    """Issue 22 item 10: a merge missing ten million shards says so in one short line (no list of them all)."""
    count = 10_000_000
    path = _forged(tmp_path / "one.json", f"2/{count}", count, 1, 2)
    code, _, err = run_cli("merge", path)
    assert code == 2 and f"{count - 1:,} of {count:,} shards are missing" in err, err[:300]
    assert f"1/{count}, 3/{count}, 4/{count}" in err and len(err) < 300


def test_a_record_with_more_shards_than_lines_is_refused(run_cli, tmp_path):
    path = _forged(tmp_path / "many.json", "1/100000000", 7, 0, 0)
    code, _, err = run_cli("merge", path)
    assert code == 2 and "many.json" in err and "100000000" in err, err


def test_a_best_reference_out_of_range_is_refused(run_cli, tmp_path, inputs):
    """Issue 22 item 20: `best_reference: [99]` of a pair with two references was accepted."""
    paths = _shards(run_cli, tmp_path, inputs, 2)
    record = json.loads(paths[1].read_text())
    assert record["references"] == 2
    record["best_reference"][0] = 99
    paths[1].write_text(json.dumps(record))
    code, _, err = run_cli("merge", *paths)
    assert code == 2 and "best_reference holds 99" in err and "2 references" in err, err


@pytest.mark.parametrize("flags, value, refused", [([], -0.5, False), ([], -1.5, True),
                                                   (["--clip-negative"], -0.5, True)], ids=["unclipped", "below-1", "clipped"])
def test_the_range_a_merge_accepts_is_the_signature_s(run_cli, tmp_path, inputs, flags, value, refused):
    # The default keeps negative cosines since 0.6.0 (clip:no, scores in [-1, 1]); clipped shards stay in [0, 1].
    paths = _shards(run_cli, tmp_path, inputs, 2, *flags)
    record = json.loads(paths[1].read_text())
    assert ("clip:yes" if flags else "clip:no") in record["signature"]
    record["recall"][0] = value
    paths[1].write_text(json.dumps(record))
    code, _, err = run_cli("merge", *paths)
    assert (code == 2 and f"shard file {str(paths[1])!r}: recall" in err) if refused else code == 0, err
