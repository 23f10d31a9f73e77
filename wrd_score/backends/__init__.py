"""Embedding backends: static vectors and (see ``contextual``) transformer encoders."""
from typing import Literal

from .base import Backend, Encoded
from .static import StaticBackend
from .contextual import ContextualBackend  # cheap: torch/transformers are imported on first use

#: Where token vectors come from (``backend=``): name -> meaning.
BACKENDS = {
    "static": "a static embedding file (no torch needed)",
    "contextual": "a transformer encoder (torch + transformers; MiniLM unless model= is given)",
}
#: A value of ``backend=`` (the keys of :data:`BACKENDS`).
BackendName = Literal["static", "contextual"]

__all__ = ["BACKENDS", "BackendName", "Backend", "Encoded", "StaticBackend", "ContextualBackend"]
