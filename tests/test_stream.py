"""Chunked scoring (stream.py): iter_scores and iter_chunks equal one call, and refuse bad input by name."""
import pytest

from wrd_score import WRDScorer
from wrd_score.stream import MAX_CHUNK_SIZE, PairScore, iter_chunks, iter_scores, score_chunked


def test_iter_scores_matches_one_call_for_any_chunk_size():
    pairs = [("getCount", "get_count"), ("size", ["getSize", "length"]), ("", ""), ("run", "execute")] * 5
    scorer = WRDScorer()
    whole = scorer.score([p for p, _ in pairs], [r for _, r in pairs])
    expected = list(zip(whole["precision"], whole["recall"], whole["f1"], whole["best_reference"]))
    for chunk_size in (1, 3, 1000):
        got = list(iter_scores(scorer, iter(pairs), chunk_size=chunk_size))
        assert all(isinstance(g, PairScore) for g in got)
        assert [tuple(g) for g in got] == expected
    assert [len(c["f1"]) for c in iter_chunks(scorer, pairs, chunk_size=8)] == [8, 8, 4]


def test_iter_scores_bad_input():
    scorer = WRDScorer()
    for bad in (0, -5, 2.5, True):
        with pytest.raises(ValueError, match="chunk_size"):
            list(iter_scores(scorer, [("a", "b")], chunk_size=bad))
    with pytest.raises(TypeError, match=r"pairs\[1\]"):
        list(iter_scores(scorer, [("a", "b"), "ab"]))
    with pytest.raises(ValueError, match="needs idf=: each chunk would fit IDF on its own references"):
        list(iter_scores(WRDScorer(weights="idf"), iter([("a", "b")])))  # one pass: nothing to fit on first
    got = list(iter_scores(WRDScorer(weights="idf"), iter([("get", "get")]), idf={"get": 1.0}))
    assert got[0].f1 == 1.0
    with pytest.raises(ValueError, match="idf= was given but weights='norm' does not use it"):
        list(iter_scores(WRDScorer(weights="norm"), [("get", "get")], idf={"get": 1.0}))


@pytest.mark.parametrize("weights", ["idf", "norm*idf"])
def test_iter_scores_of_a_list_fits_idf_once_as_score_chunked_does(weights):
    # The one IDF rule of chunked scoring (wrd_score.weights.shared_idf): with every reference at hand
    # the table is fitted once on all of them, so chunks equal one call; only a one-pass stream needs idf=.
    # iter_scores used to refuse a list that score_chunked scored.
    pairs = [("getCount", "get_count"), ("size", ["getSize", "length"]), ("run", "execute"), ("get", "size")] * 3
    scorer = WRDScorer(weights=weights)
    whole = scorer.score([p for p, _ in pairs], [r for _, r in pairs])
    for chunk_size in (1, 5):
        got = list(iter_scores(scorer, pairs, chunk_size=chunk_size))
        assert [tuple(g) for g in got] == list(zip(whole["precision"], whole["recall"], whole["f1"],
                                                    whole["best_reference"]))
        chunk = next(iter_chunks(scorer, pairs, chunk_size=chunk_size))
        assert chunk["signature"] == whole["signature"]


def test_a_chunk_size_beyond_the_limit_is_refused_by_name():
    """Before, chunk_size=10**30 raised islice's "Stop argument for islice() must be None or an integer"."""
    scorer = WRDScorer()
    message = f"chunk_size must be an integer between 1 and {MAX_CHUNK_SIZE:,}"
    for call in (lambda size: list(iter_chunks(scorer, [("a", "b")], chunk_size=size)),
                 lambda size: list(iter_scores(scorer, iter([("a", "b")]), chunk_size=size)),
                 lambda size: score_chunked(scorer, ["a"], ["b"], chunk_size=size)["f1"]):
        with pytest.raises(ValueError, match=message):
            call(10**30)
        with pytest.raises(ValueError, match=message):
            call(MAX_CHUNK_SIZE + 1)
        assert len(call(MAX_CHUNK_SIZE)) == 1

