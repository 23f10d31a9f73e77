"""The signature of a result: every setting that can change a score, as ``name:value`` fields.

As sacreBLEU and bert_score do, a reported score carries its signature, so that a reader can tell
which configuration produced it and reproduce it.  :class:`Signature` is the one value object
that builds, prints and parses signatures; the rescaling baselines are keyed by :meth:`Signature.key`
(the signature without the fields that leave raw scores unchanged).

>>> sig = Signature.build(wrdscore="v0.1.0", variant="wrd", weights="norm", rescale="baseline")
>>> str(sig)
'wrdscore:v0.1.0|variant:wrd|weights:norm|rescale:baseline'
>>> Signature.parse(str(sig)) == sig, sig.key()
(True, 'variant:wrd|weights:norm')
>>> sig["variant"]
'wrd'
>>> sig.with_fields(ci="bs1000,seed0").key()  # resampling settings do not change a score
'variant:wrd|weights:norm'
"""
from __future__ import annotations

from typing import Any, Dict, Iterator, Mapping, Tuple, Union

__all__ = ["Signature", "pinned"]

#: Fields left out of the baseline key: the library version (scores are compared across versions by the
#: fingerprint benchmark instead), whether the score was rescaled, the resampling settings of ``wrdscore score
#: --confidence`` (``ci``) and ``--paired-bs`` (``paired``), none of which changes a raw score, and ``solver:pot``
#: (no numba: the POT reference path, scores within 1e-15 of the compiled kernel's), which moves none by more
#: than a baseline could show.
UNSCORED_FIELDS = ("wrdscore", "rescale", "ci", "paired", "solver")
_SEPARATORS = ("|", ":")
#: Hex digits of a sha256 kept in a signature (48 bits: two different files or tables collide by chance
#: once in some 10^14 pairs).
DIGEST_CHARS = 12


def pinned(name: str, sha256_hex: str) -> str:
    """``name@sha256:<12 hex digits>``: a field value that names its content (an embedding file, an IDF
    table), so that results of different content never share a signature.

    >>> pinned("user", "0123456789abcdef" * 4)
    'user@sha256:0123456789ab'
    """
    return f"{name}@sha256:{sha256_hex[:DIGEST_CHARS]}"


class Signature(Mapping[str, str]):
    """An ordered, immutable ``{field: value}`` with the text form ``name:value|name:value``."""

    __slots__ = ("_fields",)

    def __init__(self, fields: Union[Mapping[str, Any], Tuple[Tuple[str, Any], ...]] = ()) -> None:
        items = tuple((fields.items() if isinstance(fields, Mapping) else fields))
        clean = []
        for name, value in items:
            name, value = str(name), str(value)
            if not name or any(sep in name for sep in _SEPARATORS) or "|" in value:
                raise ValueError(f"signature field {name!r}:{value!r} may not be empty or contain '|' "
                                 "(or ':' in its name)")
            clean.append((name, value))
        self._fields: Tuple[Tuple[str, str], ...] = tuple(clean)

    @classmethod
    def build(cls, **fields: Any) -> "Signature":
        return cls(tuple(fields.items()))

    @classmethod
    def parse(cls, text: Union[str, "Signature"]) -> "Signature":
        """The signature a string shows (``name:value`` fields joined by ``|``)."""
        if isinstance(text, Signature):
            return text
        if not isinstance(text, str) or not text:
            raise TypeError(f"signature must be a non-empty string, got {text!r}")
        fields = []
        for part in text.split("|"):
            name, sep, value = part.partition(":")
            if not sep:
                raise ValueError(f"signature {text!r}: field {part!r} is not name:value")
            fields.append((name, value))
        return cls(tuple(fields))

    def __getitem__(self, name: str) -> str:
        for key, value in self._fields:
            if key == name:
                return value
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return (key for key, _ in self._fields)

    def __len__(self) -> int:
        return len(self._fields)

    def __str__(self) -> str:
        return "|".join(f"{key}:{value}" for key, value in self._fields)

    def __repr__(self) -> str:
        return f"Signature({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Signature) and self._fields == other._fields

    def __hash__(self) -> int:
        return hash(self._fields)

    def with_fields(self, **fields: Any) -> "Signature":
        """A copy with fields added (at the end) or replaced (in place)."""
        current: Dict[str, str] = dict(self._fields)
        current.update({k: str(v) for k, v in fields.items()})
        return Signature(tuple(current.items()))

    def key(self) -> str:
        """The fields that determine raw scores (what a rescaling baseline is stored under)."""
        return "|".join(f"{k}:{v}" for k, v in self._fields if k not in UNSCORED_FIELDS)
