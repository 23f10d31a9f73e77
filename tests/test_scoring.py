"""Pair scoring (scoring.py): the bounded problem size on every entry."""
import pytest


def test_transport_node_cap_is_a_clear_error_naming_the_text(monkeypatch):
    """Above the cap, score() and explain() refuse before any transport matrix exists (POT would
    abort the process with std::bad_alloc on a big enough problem).  The cap is lowered so the test
    is fast; the check is the same at 4096."""
    from wrd_score import WRDScorer, scoring

    monkeypatch.setattr(scoring, "MAX_TRANSPORT_NODES", 20)
    monkeypatch.setattr(scoring, "emd_plan", lambda *a: pytest.fail("transport ran above the cap"))
    wide = " ".join(f"qz{c}w" for c in "abcdefghijklmnopqrstu")  # 21 distinct unknown tokens: 21 n-gram nodes
    repeated = " ".join(["get count"] * 50)  # 100 tokens, 2 distinct: within the cap
    s = WRDScorer()
    assert s.score([repeated], [repeated])["f1"] == [1.0]
    with pytest.raises(ValueError, match=r"predictions\[1\] has 21 transport nodes.*limit is 20"):
        s.score(["get", wide], ["get", "size"])
    with pytest.raises(ValueError, match=r"references\[0\]\[1\] has 21 transport nodes"):
        s.score(["get"], [["size", wide]])
    with pytest.raises(ValueError, match=r"references\[1\]\[0\] has 21 transport nodes"):
        s.score(["get", "size"], ["get", wide])  # plain strings: no list per item until an error names one
    with pytest.raises(ValueError, match=r"reference has 21 tokens"):
        s.explain("get", wide)
