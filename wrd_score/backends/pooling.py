"""Word pieces pooled onto tokens (``pooling=``): the units in which contextual scores speak.

With ``pooling="tokenizer"`` (the default) a unit's vector is the mean of the model's word pieces that overlap
its characters, so that contextual and static scores speak about the same tokens (identifier subtokens or
words); with ``"wordpiece"`` the units are the model's own pieces, as BERTScore's.
"""
from __future__ import annotations

from typing import List, Literal, Optional, Tuple

import numpy as np

from ..tokenize import DEFAULT_TOKENIZER, TokenizerName, unit_spans
from .windows import TextStates

__all__ = ["POOLINGS", "PoolingName", "pool_onto_units", "units_tokenizer"]

#: The token units of the contextual backend (``pooling=``): value -> meaning.
POOLINGS = {
    "tokenizer": "word pieces mean-pooled onto the tokenizer's tokens (those of the static backend)",
    "wordpiece": "the model's word pieces (as BERTScore)",
}
#: A value of ``pooling=`` (the keys of :data:`POOLINGS`).
PoolingName = Literal["tokenizer", "wordpiece"]


def units_tokenizer(pooling: Optional[str], tokenizer: Optional[TokenizerName], why: str = "") -> Optional[TokenizerName]:
    """The tokenizer whose tokens are the units: ``tokenizer`` (not given, ``None``: :data:`DEFAULT_TOKENIZER`)
    with ``pooling="tokenizer"`` or no pooling (the static backend); none with ``"wordpiece"``, whose units are the
    model's word pieces, so a tokenizer given there would be ignored and is refused.  ``why``: where that pooling
    came from, for the message.

    >>> units_tokenizer("tokenizer", None), units_tokenizer("tokenizer", "words"), units_tokenizer("wordpiece", None)
    ('identifier', 'words', None)
    >>> units_tokenizer("wordpiece", "words")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: tokenizer='words' has no effect with pooling='wordpiece': the units are then the model's word...
    """
    if pooling != "wordpiece":
        return DEFAULT_TOKENIZER if tokenizer is None else tokenizer
    if tokenizer is not None:
        raise ValueError(f"tokenizer={tokenizer!r} has no effect with pooling='wordpiece'{why}: the units are then the "
                         "model's word pieces; leave tokenizer unset, or pass pooling='tokenizer' to pool the word "
                         "pieces onto its tokens")
    return None


def pool_onto_units(text: str, states: TextStates, tokenizer: TokenizerName) -> Tuple[np.ndarray, List[str]]:
    """The ``tokenizer``'s units of ``text`` and their vectors, each the mean of the word pieces overlapping
    its characters; a unit none overlaps (characters the model's tokenizer dropped) is left out."""
    spans = unit_spans(text, tokenizer)
    dim = states.vectors.shape[1]
    if not spans:
        return np.zeros((0, dim)), []
    content = ~states.special
    starts = states.offsets[content, 0]
    ends = states.offsets[content, 1]
    unit_start = np.fromiter((u[1] for u in spans), dtype=np.int64, count=len(spans))
    unit_end = np.fromiter((u[2] for u in spans), dtype=np.int64, count=len(spans))
    # Word pieces overlapping each unit's characters (offsets are sorted along the text):
    # pieces lo..hi-1, averaged through a cumulative sum (one pass for all units of the text).
    lo = np.searchsorted(ends, unit_start, side="right")
    hi = np.searchsorted(starts, unit_end, side="left")
    ok = hi > lo  # else the model tokenizer dropped these characters: no vector to pool
    csum = np.zeros((int(content.sum()) + 1, dim))
    np.cumsum(states.vectors[content], axis=0, dtype=np.float64, out=csum[1:])
    lo, hi = lo[ok], hi[ok]
    pooled = (csum[hi] - csum[lo]) / (hi - lo)[:, None]
    units = [u[0] for u, keep in zip(spans, ok) if keep] if not ok.all() else [u[0] for u in spans]
    return pooled, units
