"""Word pieces pooled onto the tokenizer's tokens (wrd_score/backends/pooling.py), on hand-made states: no model.

Through the real MiniLM the same rule is checked in tests/backends/test_contextual.py (a unit's vector is the
mean of its word pieces' hidden states; the units are the static tokenizer's)."""
from __future__ import annotations

import numpy as np

from wrd_score.backends.pooling import pool_onto_units
from wrd_score.backends.windows import TextStates
from wrd_score.tokenize import split_identifier


def _states(pieces, dim=3):
    """[CLS] + pieces + [SEP], each piece ``(start, end)`` in the text; row i's vector is 10 i + (0, 1, 2, ...),
    so that every mean is exact and says which rows went into it."""
    n = len(pieces) + 2
    special = np.zeros(n, dtype=bool)
    special[[0, -1]] = True
    offsets = np.zeros((n, 2), dtype=np.int64)
    offsets[1:-1] = np.asarray(pieces, dtype=np.int64).reshape(-1, 2)
    vectors = (np.arange(n, dtype=np.float32)[:, None] * 10 + np.arange(dim, dtype=np.float32)).astype(np.float32)
    vectors[special] = -1000  # a special token's row must never reach a unit
    return TextStates(ids=np.arange(n), special=special, offsets=offsets, vectors=vectors)


def test_a_unit_is_the_mean_of_the_pieces_over_its_characters():
    text = "getCount now"  # pieces: get | co ##unt | now; units: get, count, now
    states = _states([(0, 3), (3, 5), (5, 8), (9, 12)])
    vectors, units = pool_onto_units(text, states, "identifier")
    assert units == ["get", "count", "now"] == split_identifier(text)
    assert vectors.dtype == np.float64
    np.testing.assert_array_equal(vectors, [states.vectors[1], states.vectors[2:4].mean(axis=0), states.vectors[4]])


def test_a_piece_spanning_two_units_goes_into_both():
    text = "HTTPServer"  # units http, server; one piece covers "PS"
    states = _states([(0, 3), (3, 5), (5, 10)])
    vectors, units = pool_onto_units(text, states, "identifier")
    assert units == ["http", "server"]
    np.testing.assert_array_equal(vectors, [states.vectors[1:3].mean(axis=0), states.vectors[2:4].mean(axis=0)])


def test_units_without_a_piece_are_left_out_and_empty_text_has_none():
    states = _states([(0, 2)])  # the model's tokenizer kept "ab" only
    vectors, units = pool_onto_units("ab cd", states, "words")
    assert units == ["ab"] and vectors.shape == (1, 3)
    np.testing.assert_array_equal(vectors[0], states.vectors[1])
    vectors, units = pool_onto_units("", _states([]), "identifier")
    assert units == [] and vectors.shape == (0, 3)
