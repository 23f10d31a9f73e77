"""wrd_score/checks.py: the one place where inputs are held to their type and range, on every surface."""
import ast
import importlib
import re
from pathlib import Path

import numpy as np
import pytest

from wrd_score import checks
from wrd_score.checks import (InputTypeError, check_bool, check_choice, check_int, check_names, check_number,
                              check_references, check_texts, read_references, reference_lists, unknown_message)

REPO = Path(__file__).resolve().parents[1]
_module = importlib.import_module


# --------------------------------------------------------------------------- the one unknown-value message
def test_unknown_message_suggests_the_closest_value():
    assert unknown_message("weights", "nrom", ["norm", "idf"]) == \
        "weights must be one of ['norm', 'idf'], got 'nrom'; did you mean 'norm'?"
    assert unknown_message("weights", "zzz", ["norm", "idf"]) == "weights must be one of ['norm', 'idf'], got 'zzz'"
    assert "did you mean" not in unknown_message("weights", 3, ["norm"])  # not a string: no guess


def test_check_choice_and_check_names():
    assert check_choice("variant", "wrd", {"wrd": "", "paper": ""}) == "wrd"
    with pytest.raises(ValueError, match=r"got 'wdr'; did you mean 'wrd'\?"):
        check_choice("variant", "wdr", ("wrd", "paper"))
    with pytest.raises(ValueError, match="got \\['wrd'\\]"):  # unhashable: refused, not a TypeError from `in`
        check_choice("variant", ["wrd"], {"wrd": ""})
    check_names(["variant"], ["variant", "weights"])
    with pytest.raises(TypeError, match=r"option must be one of \['variant', 'weights'\], got 'wieghts'; "
                                        r"did you mean 'weights'\?"):
        check_names(["variant", "wieghts"], ["variant", "weights"])


@pytest.mark.parametrize("call", [
    lambda: _module("wrd_score").WRDScorer(varaint="wrd"),                     # library keywords
    lambda: _module("wrd_score").WRDScorer(variant="wdr"),                     # Options values
    lambda: _module("wrd_score.metrics").compare(["a"], ["b"], metrics=("rouge1",), rouge1_use_stemer=True),
    lambda: _module("wrd_score.metrics").get_metric("rouge2x"),
    lambda: _module("wrd_score.validation").parse_metric("wrdscore:varaint=wrd"),  # validate specs
    lambda: _module("wrd_score.train").TrainOptions(method="fasttxt").validate(),
], ids=["kwargs", "values", "compare", "registry", "validate-spec", "train"])
def test_every_library_surface_gives_the_one_message(call):
    with pytest.raises((TypeError, ValueError)) as info:
        call()
    assert re.search(r" must be one of \[.*\], got '.*'; did you mean '.*'\?$", str(info.value)), str(info.value)


def test_the_command_line_gives_the_one_message(run_cli):
    code, _, err = run_cli("score", "-c", "a", "-r", "b", "--weights", "nrom")
    assert code == 2 and "weights must be one of [" in err and "got 'nrom'; did you mean 'norm'?" in err
    code, _, err = run_cli("score", "-c", "a", "-r", "b", "--varient", "wrd")
    assert code == 2 and "unrecognized arguments: --varient wrd; did you mean '--variant'?" in err


# --------------------------------------------------------------------------- scalars
def test_check_int():
    assert check_int("n", 3) == 3 and type(check_int("n", np.int64(3))) is int
    assert check_int("seed", 0, minimum=0) == 0 and check_int("n", None, allow_none=True) is None
    for bad in (0, -1):
        with pytest.raises(ValueError, match=f"n must be a positive integer, got {bad}") as info:
            check_int("n", bad)
        assert not isinstance(info.value, TypeError)  # in the right type, out of range
    for bad in (True, 2.0, "3", None, [1]):
        with pytest.raises(InputTypeError, match="n must be a positive integer, got"):
            check_int("n", bad)
    with pytest.raises(ValueError, match="n must be an integer between 2 and 5 \\(why\\), got 6"):
        check_int("n", 6, 2, 5, why="why")
    with pytest.raises(ValueError, match="or None, got 0"):
        check_int("n", 0, allow_none=True)
    assert issubclass(InputTypeError, TypeError) and issubclass(InputTypeError, ValueError)


def test_check_number_and_bool():
    assert check_number("x", 1) == 1.0 and check_number("x", np.float32(0.5), 0, 1) == 0.5
    for bad, message in ((float("nan"), "a finite number"), (float("inf"), "a finite number"), (True, "a finite"),
                         (10 ** 400, "a finite number"), ("1", "a finite")):
        with pytest.raises(ValueError, match=message):
            check_number("x", bad)
    with pytest.raises(ValueError, match="strictly between 0 and 1, got 1"):
        check_number("level", 1, 0, 1, exclusive=True)
    assert check_bool("b", False) is False
    for bad in (1, 0, "yes", None, np.bool_(True)):
        with pytest.raises(TypeError, match="b must be True or False"):
            check_bool("b", bad)


# --------------------------------------------------------------------------- texts and references
def test_check_texts():
    assert check_texts("p", ("a", "b")) == ["a", "b"]
    assert check_texts("p", ["x\ud800"]) == ["x\ufffd"]
    for bad, message in (("ab", "p must be a list of strings, got str"), ({"a"}, "got set"), ({"a": 1}, "got dict"),
                         (b"ab", "got bytes"), (3, "got int"), (["a", 3], r"p\[1\] must be a string, got int")):
        with pytest.raises(TypeError, match=message):
            check_texts("p", bad)


@pytest.mark.parametrize("refs, flat, groups", [
    (["a", "b"], ["a", "b"], None),
    ([["a"], ("b",)], ["a", "b"], None),                      # lists of one: no lists kept
    ([["a", "b"], "c"], ["a", "b", "c"], [["a", "b"], ["c"]]),
    ([("a", "b"), ["c"]], ["a", "b", "c"], [["a", "b"], ["c"]]),
    ((r for r in ["a", "b"]), ["a", "b"], None),              # any ordered iterable
    (np.array(["a", "b"]), ["a", "b"], None),                 # numpy strings
    ([np.array(["a", "b"]), "c"], ["a", "b", "c"], [["a", "b"], ["c"]]),
    ([["a\udfff"], ["b"]], ["a\ufffd", "b"], None),          # surrogates through the item path
])
def test_read_references(refs, flat, groups):
    got_flat, got_groups = read_references(refs)
    assert got_flat == flat and got_groups == groups
    assert all(type(text) is str or isinstance(text, str) for text in got_flat)


@pytest.mark.parametrize("refs, error, message", [
    ("abc", TypeError, "references must be a list of strings or of lists of strings, got str"),
    ({"a", "b"}, TypeError, "got set"),
    (["a", []], ValueError, r"references\[1\] is an empty list"),
    ([["a"], []], ValueError, r"references\[1\] is an empty list"),
    (["a", 3], TypeError, r"references\[1\] must be a string or a list of strings, got int"),
    (["a", {"b"}], TypeError, r"references\[1\] must be a string or a list of strings, got set"),
    ([["a"], ["b", 3]], TypeError, r"references\[1\]\[1\] must be a string, got int"),
    ([["a"], [["b"]]], TypeError, r"references\[1\]\[0\] must be a string, got list"),
    ([None], TypeError, r"references\[0\] must be a string or a list of strings, got NoneType"),
])
def test_bad_references_are_named(refs, error, message):
    with pytest.raises(error, match=message):
        read_references(refs)


def test_check_references_lengths_and_forms():
    assert check_references(["a", ["b", "c"]], 2) == [["a"], ["b", "c"]] == reference_lists(["a", ["b", "c"]])
    assert check_references(["a"], 1, flat=True) == (["a"], None)
    with pytest.raises(ValueError, match="predictions and references must have the same length, got 3 and 2"):
        check_references([["a", "b"], "c"], 3)


# --------------------------------------------------------------------------- one place
_HAND_WRITTEN_INT = re.compile(r"isinstance\([^)]*,\s*bool\)\s+or\s+not\s+isinstance\([^)]*(int|Integral)")


def test_no_hand_written_integer_check_outside_the_checks_module():
    """Issue 33: "an int, not a bool, >= 1" was written by hand 22 times in 14 modules (the CLI too)."""
    offenders = []
    for path in [*(REPO / "wrd_score").rglob("*.py"), REPO / "app.py", REPO / "wrdscore.py"]:
        if path.name == "checks.py" and path.parent.name == "wrd_score":
            continue
        text = path.read_text(encoding="utf-8")
        offenders += [f"{path.relative_to(REPO)}:{text[:m.start()].count(chr(10)) + 1}"
                      for m in _HAND_WRITTEN_INT.finditer(text)]
        # argparse's own choices= gives another message (no close match): the flags use checks' types.
        tree = ast.parse(text)
        offenders += [f"{path.relative_to(REPO)}:{node.lineno} choices=" for node in ast.walk(tree)
                      if isinstance(node, ast.keyword) and node.arg == "choices"
                      and "cli" in path.parts]
    assert offenders == []


def test_one_pass_no_per_item_abstract_checks(monkeypatch):
    """The checks of 50,000 method-name pairs took 0.49 s: a typing.Mapping isinstance per reference."""
    import collections.abc
    import typing

    calls = []
    for abc in (collections.abc.Mapping, collections.abc.Set):
        original = type(abc).__instancecheck__
        monkeypatch.setattr(type(abc), "__instancecheck__",
                            lambda cls, obj, original=original: calls.append(cls) or original(cls, obj))
    def checks_of(n):
        calls.clear()
        check_texts("predictions", [f"p{i}" for i in range(n)])
        read_references([[f"name{i}"] for i in range(n)])
        read_references([f"r{i}" for i in range(n)])
        read_references([["a", "b"]] * n)
        return len(calls)

    assert checks_of(2000) == checks_of(4000) <= 16  # a few per call, none per item
    assert typing.Mapping.__instancecheck__  # typing.Mapping's check is this ABC check
