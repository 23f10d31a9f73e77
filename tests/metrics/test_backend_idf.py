"""What BERTScore and MoverScore share (metrics/backend_idf.py): the backend, its encoding, the empty-text rule."""
from __future__ import annotations

import math

from wrd_score.metrics import bertscore, moverscore


def test_siblings_on_the_static_backend():
    out = bertscore(["get count", "size"], ["getCount", "receive message"], idf=True)
    assert out["f1"][0] == 1.0 and 0 <= out["f1"][1] < 1
    ms = moverscore(["get count", "size"], ["getCount", "receive message"])
    assert ms["score"][0] == 1.0 and 1 / 3 <= ms["score"][1] < 1
    # Token-less sides follow the one empty-text rule: equal texts 1, else 0 (MoverScore: cost inf).
    assert bertscore(["!!", "!!"], ["!!", "word"])["f1"] == [1.0, 0.0]
    mover = moverscore(["!!", "!!"], ["!!", "word"])
    assert mover["score"] == [1.0, 0.0] and mover["cost"] == [0.0, math.inf]
