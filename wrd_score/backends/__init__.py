"""Embedding backends: static vectors and (see ``contextual``) transformer encoders."""
from .base import Backend, Encoded
from .static import StaticBackend
from .contextual import ContextualBackend  # cheap: torch/transformers are imported on first use

__all__ = ["Backend", "Encoded", "StaticBackend", "ContextualBackend"]
