"""ONNX Runtime for the contextual encoder (``runtime="onnx"``, the ``onnx`` extra): the export of a model to a
file in the user's cache, and the session that runs it on the CPU.

A second runtime because ONNX Runtime runs these encoders faster than torch on a CPU.  Its floats are another
program's: scores stay within 1e-5 of torch's, not the same bits, so the signature says ``rt:onnx``.  What to
export (the model cut after its deepest needed block, an example batch) is the encoder's business
(``_LoadedModel._export_onnx`` in :mod:`wrd_score.backends.encoder`); this module knows files and sessions.
"""
from __future__ import annotations

import contextlib
import hashlib
import os
import re
from typing import Any, Callable

from ..deps import require
from ..files import user_cache_dir

__all__ = ["onnx_cache_dir", "onnx_session", "export_onnx"]


def onnx_cache_dir() -> str:
    """Where ``runtime="onnx"`` keeps its exports: ``$WRDSCORE_CACHE/onnx``, else the user's cache
    folder (``$XDG_CACHE_HOME`` or ``~/.cache``) ``/wrd_score/onnx``."""
    return os.path.join(user_cache_dir(), "onnx")


def onnx_session(name: str, fingerprint: str, keep: int, all_states: bool, export: Callable[[str], None]):
    """An ONNX Runtime session on model ``name`` cut after ``keep`` blocks; ``export(path)`` writes the graph
    when no usable file is cached.

    The export is cached in :func:`onnx_cache_dir`, named by the model's fingerprint, the blocks
    kept, the outputs and the torch version (a model without a fingerprint is exported afresh).
    Batches are of one length, so the graph takes token ids only (no mask).  It runs on as many
    threads as torch has when the session opens.  A text alone got the bits of a batch of 64 and 1
    and 2 threads the same bits on the machines measured (docs/distributed.md#identical-results),
    but ONNX Runtime picks kernels per CPU too: what is promised is
    :data:`~wrd_score.backends.contextual.SCORE_TOLERANCE`.
    """
    import tempfile

    import torch

    ort = require("onnxruntime", "onnx")
    key = f"{name}|{fingerprint}|{keep}|{all_states}|torch {torch.__version__}"
    file = f"{re.sub(r'[^A-Za-z0-9_.-]', '_', name)}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.onnx"
    folder = onnx_cache_dir() if fingerprint != "hub-cache" else None
    with contextlib.ExitStack() as stack:
        if folder is None:
            folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="wrdscore-onnx-"))
        path = os.path.join(folder, file)
        cached = os.path.isfile(path)
        if not cached:
            export(path)
        options = ort.SessionOptions()
        options.intra_op_num_threads = torch.get_num_threads()
        options.inter_op_num_threads = 1
        try:
            session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        except Exception:  # noqa: BLE001 - onnxruntime's own error types; a damaged cached file is rebuilt once
            if not cached:
                raise
            export(path)
            session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    return session


def export_onnx(model: Any, example: Any, path: str, n_out: int, all_states: bool) -> None:
    """Write ``model``'s graph to ``path``: token ids in, ``n_out`` hidden states out (every layer's with
    ``all_states``, else the top one), batch and length left free."""
    import warnings

    import torch

    require("onnx", "onnx")  # torch.onnx.export writes through it; without it, its own deep error

    class Encoder(torch.nn.Module):
        def __init__(self, model):
            super().__init__()
            self.model = model  # a submodule: its weights become the graph's initialisers

        def forward(self, input_ids):
            out = self.model(input_ids=input_ids, output_hidden_states=all_states)
            return tuple(out.hidden_states) if all_states else out.last_hidden_state

    os.makedirs(os.path.dirname(path), exist_ok=True)
    partial = f"{path}.{os.getpid()}.part"  # written aside, then renamed: no process reads half a file
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the tracer's notes on Python control flow it froze
            names = [f"h{i}" for i in range(n_out)]
            torch.onnx.export(Encoder(model).eval(), (example,), partial, input_names=["input_ids"],
                              output_names=names, opset_version=17, dynamo=False,
                              dynamic_axes={"input_ids": {0: "batch", 1: "tokens"},
                                            **{name: {0: "batch", 1: "tokens"} for name in names}})
        os.replace(partial, path)
    finally:
        if os.path.exists(partial):
            os.remove(partial)
