"""The library's readers and writers (wrd_score/files.py): lines, tables, JSON, atomic output. The hostile
inputs across every entry point are in tests/test_hostile_files.py; these pin each function's own rules."""
import gzip
import importlib.util
import json
import os
import stat
from array import array

import numpy as np
import pytest

from wrd_score import files
from wrd_score.files import (TableError, atomic_write, check_output, count_lines, iter_lines, numeric_column,
                             output_kind, read_json, read_table, table_format, write_json)


# ------------------------------------------------------------------------------------ lines
def test_lines_split_on_newline_only_keep_empty_lines_and_drop_crlf_and_a_leading_bom(tmp_path):
    path = tmp_path / "c.txt"
    path.write_bytes("\ufeffgetCount\r\n\n\ufeffsize\nlast".encode("utf-8"))
    assert list(iter_lines(str(path))) == ["getCount", "", "\ufeffsize", "last"]  # a BOM only opens a file
    assert count_lines(str(path)) == 4
    (tmp_path / "empty.txt").write_bytes(b"")
    assert list(iter_lines(str(tmp_path / "empty.txt"))) == [] and count_lines(str(tmp_path / "empty.txt")) == 0


@pytest.mark.parametrize("name", ["c.txt.gz", "C.TXT.GZ"])
def test_gzip_files_are_read_whatever_the_case_of_their_suffix(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(gzip.compress("getCount\nsïze\n".encode("utf-8")))
    assert list(iter_lines(str(path))) == ["getCount", "sïze"]
    with files.open_input(str(path), text=True) as handle:
        assert handle.read() == "getCount\nsïze\n"


def test_line_errors_name_the_file_and_the_line(tmp_path, monkeypatch):
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok\nnot \xff utf8\n")
    with pytest.raises(ValueError, match=r"candidates file '.*bad\.txt', line 2: not valid UTF-8 \(byte 4"):
        list(iter_lines(str(bad), "candidates"))
    mac = tmp_path / "mac.txt"
    mac.write_bytes(b"one\rtwo\n")
    with pytest.raises(ValueError, match=r"line 1: a carriage return"):
        list(iter_lines(str(mac)))
    monkeypatch.setattr(files, "MAX_LINE_BYTES", 8)
    long = tmp_path / "long.txt"
    long.write_bytes(b"short\n" + b"x" * 20 + b"\n")
    with pytest.raises(ValueError, match=r"line 2: longer than 8 bytes"):
        list(iter_lines(str(long)))
    truncated = tmp_path / "t.txt.gz"
    truncated.write_bytes(gzip.compress(b"a\n" * 1000)[:30])
    with pytest.raises(OSError, match=r"input file '.*t\.txt\.gz' cannot be read"):
        list(iter_lines(str(truncated)))


def test_a_missing_file_a_folder_or_a_non_path_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"references file '.*nope\.txt' does not exist"):
        list(iter_lines(str(tmp_path / "nope.txt"), "references"))
    with pytest.raises(IsADirectoryError, match="is a directory"):
        list(iter_lines(str(tmp_path)))
    with pytest.raises(TypeError, match="input must be a file path"):
        list(iter_lines(3))


def test_dash_reads_standard_input_without_closing_it(tmp_path, monkeypatch):
    source = tmp_path / "stdin.txt"
    source.write_bytes(b"getCount\nsize\n")
    with open(source, "rb") as handle:
        monkeypatch.setattr("sys.stdin", handle)
        assert list(iter_lines(files.STDIN)) == ["getCount", "size"]
        assert not handle.closed


# ----------------------------------------------------------------------------------- tables
@pytest.mark.parametrize("name, kind", [("a.csv", "csv"), ("a.TSV", "tsv"), ("a.tab.gz", "tsv"),
                                        ("a.jsonl", "jsonl"), ("a.ndjson.GZ", "jsonl")])
def test_table_format_is_read_off_the_name(name, kind):
    assert table_format(name) == kind


def test_an_unknown_table_suffix_is_refused():
    with pytest.raises(TableError, match=r"unsupported file type '\.xlsx'"):
        table_format("a.xlsx")
    with pytest.raises(TableError, match=r"'\(none\)'"):
        table_format("table")


#: read_table needs pandas (the validate extra); the line, JSON and output tests do not.
needs_pandas = pytest.mark.skipif(importlib.util.find_spec("pandas") is None, reason="pandas not installed")


def _table(tmp_path, name, content, **kwargs):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))
    return read_table(str(path), **kwargs)


@needs_pandas
def test_tables_of_every_format_read_the_same_data(tmp_path):
    expected = {"prediction": ["getCount", "", 'say "hi"'], "reference": ["size", "x", "nan"]}
    csv_text = 'PREDICTION,Reference,human\ngetCount,size,0.5\n,x,\n"say ""hi""",nan,NA\n'
    tsv_text = 'prediction\treference\tHuman\ngetCount\tsize\t0.5\n\tx\t\nsay "hi"\tnan\tnull\n'
    jsonl_text = "\n".join(json.dumps(r) for r in [
        {"prediction": "getCount", "reference": "size", "human": 0.5}, {"prediction": "", "reference": "x"},
        {"prediction": 'say "hi"', "reference": "nan", "human": None}]) + "\n\n"
    for name, text in [("t.csv", csv_text), ("t.tsv", tsv_text), ("t.jsonl", jsonl_text)]:
        frame = _table(tmp_path, name, text, numeric=["human"])
        assert {k: frame[k].tolist() for k in expected} == expected, name  # text cells stay text, exactly
        assert frame["human"].tolist()[0] == 0.5 and np.isnan(frame["human"].tolist()[1:]).all(), name
    gz = tmp_path / "t.tsv.gz"
    gz.write_bytes(gzip.compress(tsv_text.encode("utf-8")))
    assert read_table(str(gz))["prediction"].tolist() == expected["prediction"]


@needs_pandas
@pytest.mark.parametrize("name, content, message", [
    ("t.tsv", "a\tb\nx\ty\n",
     r"needs columns 'prediction' and 'reference'; missing \['prediction', 'reference'\], found 'a', 'b'"),
    ("t.tsv", "prediction,reference\nx,y\n", r"is it really tab-separated\?"),
    ("t.csv", "prediction,reference\nx,y,z\n", r"row 1 has 3 fields but the header names 2 columns"),
    ("t.csv", "prediction,Prediction,reference\nx,y,z\n", r"more than one 'prediction' column"),
    # Red-team finding: pandas renamed the second to 'reference.1', and the first was used without a word.
    ("t.csv", "prediction,reference,reference\nx,y,z\n", r"more than one 'reference' column"),
    ("t.tsv", "prediction\treference\tHuman\thuman\nx\ty\t1\t2\n", r"more than one 'Human' column"),
    ("t.jsonl", '{"prediction": "x", "reference": "y", "reference": "z"}\n', r"line 1 names 'reference' twice"),
    ("t.csv", "prediction,reference\n", r"a header but no rows"),
    ("t.csv", "  \n", r"the file is empty"),
    ("t.csv", b"prediction,reference\nx\x00,y\n", r"looks binary"),
    ("t.csv", b"prediction,reference\n\xff,y\n", r"not UTF-8 text \(invalid byte at position 21\)"),
    ("t.jsonl", '{"prediction": "x", "reference": "y"}\n[1, 2]\n', r"line 2 must be a JSON object"),
    ("t.jsonl", '{"prediction": "x", "reference": 3}\n', r"row 1: reference must be text, got 3"),
    ("t.jsonl", '{"prediction": "x"\n', r"line 1 is not valid JSON"),
])
def test_table_problems_are_one_line_errors_that_say_what_is_wrong(tmp_path, name, content, message):
    with pytest.raises(TableError, match=message):
        _table(tmp_path, name, content)


@needs_pandas
def test_table_limits_are_checked_before_the_table_is_built(tmp_path):
    with pytest.raises(TableError, match="the file has 3 rows; the limit is 2"):
        _table(tmp_path, "t.csv", "prediction,reference\na,b\nc,d\ne,f\n", max_rows=2)
    with pytest.raises(TableError, match="the limit is 0 MB"):
        _table(tmp_path, "u.csv", "prediction,reference\na,b\n", max_bytes=10)
    bomb = tmp_path / "b.csv.gz"
    bomb.write_bytes(gzip.compress(b"prediction,reference\n" + b"a,b\n" * 20_000))
    with pytest.raises(TableError, match="decompresses to over"):
        read_table(str(bomb), max_bytes=50_000)


@pytest.mark.parametrize("value, message", [(True, "must be a number, got True"), ("inf", "must be finite"),
                                            ("abc", r"must be a number \(or empty\)"), (10 ** 400, "is too large")],
                         ids=["bool", "inf", "text", "huge-int"])
def test_numeric_cells_are_numbers_or_missing(value, message):
    assert np.isnan(numeric_column(["", "NaN", " none ", None], "human")).all()
    with pytest.raises(TableError, match=rf"row 2: human {message}"):
        numeric_column([1, value], "human")


# ----------------------------------------------------------------------------------- output
def test_output_kind_tells_files_from_streams_and_refuses_the_rest(tmp_path):
    regular = tmp_path / "out.txt"
    assert output_kind(str(regular)) == "file"  # not there yet
    regular.write_text("x")
    assert output_kind(str(regular)) == "file"
    assert output_kind(os.devnull) == "stream"
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert output_kind(str(fifo)) == "stream"
    link = tmp_path / "to-null"
    link.symlink_to(os.devnull)
    assert output_kind(str(link)) == "stream"  # the target decides
    with pytest.raises(IsADirectoryError, match="is a directory"):
        output_kind(str(tmp_path))


def test_atomic_write_replaces_whole_or_not_at_all_and_writes_through_a_symlink(tmp_path):
    target = tmp_path / "real.txt"
    target.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    with pytest.raises(RuntimeError):
        with atomic_write(str(link)) as handle:
            handle.write("half")
            raise RuntimeError("interrupted")
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["link.txt", "real.txt"]
    with atomic_write(str(link), "wb") as handle:
        handle.write(b"new")
    assert link.is_symlink() and target.read_bytes() == b"new"
    umask = os.umask(0o022)
    try:
        with atomic_write(str(tmp_path / "mode.txt")) as handle:
            handle.write("x")
    finally:
        os.umask(umask)
    assert stat.S_IMODE(os.stat(tmp_path / "mode.txt").st_mode) == 0o644  # not mkstemp's 0600
    with pytest.raises(FileNotFoundError, match="output folder .* does not exist"):
        with atomic_write(str(tmp_path / "no" / "out.txt")):
            pass


def test_check_output_refuses_an_input_or_a_missing_folder_before_a_run(tmp_path):
    inp = tmp_path / "in.txt"
    inp.write_text("x")
    check_output(str(tmp_path / "out.txt"), [str(inp)])
    with pytest.raises(ValueError, match="is also an input file"):
        check_output(str(inp), [str(inp)])
    with pytest.raises(FileNotFoundError, match="output folder .* does not exist"):
        check_output(str(tmp_path / "no" / "out.txt"))
    check_output(os.devnull)


def test_write_json_is_json_with_columns_written_in_slices():
    import io

    out = io.StringIO()
    columns = {"f1": array("d", [0.5] * 70_000 + [1.0]), "best_reference": array("l", [0, 1])}
    write_json(out, columns, {"mean_f1": 0.25}, "wrdscore:v0|a:b", header={"system": "x"})
    doc = json.loads(out.getvalue())
    assert list(doc) == ["system", "f1", "best_reference", "mean_f1", "signature"]
    assert doc["f1"] == list(columns["f1"]) and doc["best_reference"] == [0, 1]
    assert doc["signature"] == "wrdscore:v0|a:b" and out.getvalue().endswith("}\n")


@pytest.mark.parametrize("content, message", [(b"\xff", r"is not UTF-8 text \(byte 0\)"),
                                              (b"{", "is not valid JSON"), (b"1" * 5000, "is not valid JSON")])
def test_read_json_errors_name_the_file_and_what_it_is(tmp_path, content, message):
    path = tmp_path / "t.json"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=rf"baseline file '.*t\.json' {message}"):
        read_json(str(path), "baseline")
    path.write_text('{"a": [1, 2]}')
    assert read_json(str(path), "baseline") == {"a": [1, 2]}
