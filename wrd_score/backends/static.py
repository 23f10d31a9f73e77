"""The static backend: tokens -> rows of a :class:`~wrd_score.embeddings.StaticEmbedding` (context-free vectors).

The embedding store itself (file formats, safety checks, the per-process cache) is
:mod:`wrd_score.embeddings`; this module only turns a call's tokens into the pipeline's vectors.
"""
from __future__ import annotations

import re
import warnings
from itertools import chain, repeat
from typing import Dict, Iterable, List, Literal, Optional, Sequence

import numpy as np

from ..checks import check_choice
from ..embeddings import StaticEmbedding, table_unit_rows, unit_rows
from ..signature import pinned
from ..tokenize import DEFAULT_TOKENIZER, SEPARATOR, TokenizerName, get_tokenizer, tokenize_many, tokenize_separated
from .base import Encoded, FlatSpans, first_appearance_rows, unit_problem

__all__ = ["StaticBackend", "OOV_POLICIES", "OovPolicyName", "NoVectorWarning"]

#: What happens to tokens without a vector (``oov=``): policy -> meaning.
OOV_POLICIES = {
    "auto": "compose them from word pieces or fastText n-grams when the embedding has them, else 'exact'",
    "exact": "they match only an identical token (mean mass)",
    "drop": "leave them out",
}
#: A value of ``oov=`` (the keys of :data:`OOV_POLICIES`).
OovPolicyName = Literal["auto", "exact", "drop"]


class NoVectorWarning(UserWarning):
    """Some tokens of a call have no vector in the embedding (out of its vocabulary, and nothing to
    compose one from): each matches only an identical token.  Issued once per encoding call."""


def _warn_no_vector(tokens: Sequence[str], exact_only: np.ndarray, name: str, oov: str) -> None:
    # Silent, a text of such tokens scores 0 against any other wording (CJK through a vocabulary
    # without its characters did): the user must hear of it, once per call, not once per token.
    missing = np.flatnonzero(exact_only)
    # A token can be a whole line (up to the 1 MB line cap): each example is cut to 40 characters.
    examples = ", ".join(repr(t if len(t) <= 40 else t[:39] + "…") for t in map(tokens.__getitem__, missing[:5]))
    warnings.warn(NoVectorWarning(
        f"{len(missing)} of {len(tokens)} distinct tokens have no vector in embedding {name!r} (e.g. {examples}; "
        f"oov={oov!r}): each matches only an identical token; use an embedding that covers them"), stacklevel=4)


class StaticBackend:
    """Backend over a :class:`StaticEmbedding`.

    Args:
        embedding: a loaded embedding.
        tokenizer: ``identifier`` or ``words``.
        oov: what an out-of-vocabulary token becomes. ``auto``: its fastText n-gram vector when
            the embedding has n-grams, the mean of its word pieces' vectors when it carries a
            word-piece tokenizer (distilled embeddings), else ``exact``. ``exact``: no direction; it matches an
            identical token with cosine 1 and anything else with 0, and its mass is the
            vocabulary's mean norm. ``drop``: removed (opt-in; content is then ignored).
    """

    kind = "static"

    def __init__(self, embedding: StaticEmbedding, tokenizer: TokenizerName = DEFAULT_TOKENIZER,
                 oov: OovPolicyName = "auto") -> None:
        check_choice("oov", oov, OOV_POLICIES)
        self.embedding = embedding
        self.tokenizer_name = tokenizer
        self.tokenize = get_tokenizer(tokenizer)
        self.oov = oov

    def signature_fields(self) -> Dict[str, str]:
        emb = self.embedding
        checksum = emb.checksum or "unhashed"
        # The name comes from the file (meta.name) and must not carry the signature's separators
        # ('|', ':', '@'): otherwise a file could forge another embedding's checksum and borrow its
        # rescaling baseline.  Ordinary names (letters, digits, '.', '_', '-') are unchanged.
        name = re.sub(r"[^A-Za-z0-9._+-]", "_", str(emb.name))[:64] or "custom"
        pin = f"{name}@{checksum}" if checksum.startswith("kumo") else pinned(name, checksum)
        return {"backend": "static", "emb": pin, "tok": self.tokenizer_name, "oov": self.oov}

    def tokenize_all(self, texts: Iterable[str]) -> List[List[str]]:
        return tokenize_many(list(texts), self.tokenizer_name)

    def idf_key_problem(self, key: str) -> Optional[str]:
        """Why an IDF table's ``key`` can never weigh a token of this backend (``None``: it can)."""
        return unit_problem(self.tokenize, key, f"the {self.tokenizer_name} tokenizer")

    def encode(self, texts: Sequence[str]) -> Encoded:
        emb = self.embedding
        compose = self.oov == "auto" and (emb.has_ngrams or emb.has_pieces)
        texts = list(texts)
        # All texts' tokens in one list, a separator between two texts': no list per text.
        flat = tokenize_separated(texts, self.tokenizer_name)
        if self.oov == "drop":
            flat = [t for t in flat if t in emb.index or t == SEPARATOR]
        # One row per distinct token, numbered in order of first appearance, the separator first
        # (then dropped: row -1).
        tokens, rows = first_appearance_rows(chain((SEPARATOR,), flat), len(flat) + 1)
        tokens, rows = tokens[1:], rows[1:] - 1
        # Text i starts after the separator before it, i tokens of separators earlier in the list.
        cuts = np.flatnonzero(rows < 0)
        offsets = np.empty(len(texts) + 1, dtype=np.int64)
        offsets[0] = 0
        offsets[1:-1] = cuts - np.arange(len(cuts))
        offsets[-1] = len(flat) - len(cuts)
        spans = FlatSpans(rows[rows >= 0] if len(cuts) else rows, offsets)
        idx = np.fromiter(map(emb.index.get, tokens, repeat(-1)), dtype=np.int64, count=len(tokens))
        unknown = np.flatnonzero(idx < 0)
        # Unit rows of the known tokens in one pass over the table; those of unknown tokens (zero,
        # or their composed vector) apart, the only rows a Python loop visits.  unit_rows treats
        # each row alone, so the bits are those of one call over all rows.
        units, norms = table_unit_rows(emb.vectors, np.maximum(idx, 0))
        if len(unknown):
            if compose:
                vectors = emb.oov_vectors([tokens[row] for row in unknown.tolist()])
            else:
                vectors = np.zeros((len(unknown), emb.dim))
            units[unknown], norms[unknown] = unit_rows(vectors)
        # A zero vector has no direction; treating it as unknown keeps the cosine defined.  (Only an
        # exact zero: a threshold on the norm would make a uniformly tiny embedding all-unknown.)
        exact_only = norms == 0
        if exact_only.any():
            norms = np.where(exact_only, emb.mean_norm, norms)
            _warn_no_vector(tokens, exact_only, emb.name, self.oov)
        return Encoded(units=units, norms=norms, exact_only=exact_only, tokens=tokens, spans=spans,
                       vocabulary=(emb.words, idx))
