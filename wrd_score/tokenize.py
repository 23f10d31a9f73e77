"""Step 1 of the pipeline: text -> tokens.

Two tokenizers ship. ``identifier`` splits code identifiers the way developers read them
(``getHTTPResponseCode`` -> ``get http response code``; ``snake_case``, ``kebab-case``, dots and
digit runs are boundaries); ``words`` splits plain sentences into lowercase word runs.  Both drop
punctuation-only and symbol-only fragments (emoji, operators): they carry no embedding in any
static vocabulary we ship, and keeping them would make the score depend on formatting.
"""
from __future__ import annotations

import re
import unicodedata
from typing import Callable, Dict, List, Optional, Tuple

__all__ = ["split_identifier", "split_words", "get_tokenizer", "TOKENIZERS", "normalise_with_offsets", "unit_spans"]

_CHUNK = re.compile(r"[^\W_]+")  # maximal letter/digit runs: _, -, ., spaces and symbols split
_WORD = re.compile(r"[^\W_]+")
# ASCII fast path of split_identifier: the same parts as the per-character loop below (digit runs,
# lower->Upper, and an acronym's last capital when a lowercase letter follows), 4-5x faster;
# checked equal on all 249,655 distinct Java method names of shared/data and on random strings.
_ASCII_PART = re.compile(r"[0-9]+|[A-Z]+(?=[A-Z][a-z])|[A-Z]*[a-z]+|[A-Z]+")


def _normalise(text: str) -> str:
    # NFKC folds full-width letters and ligatures into their plain forms, so "ｇｅｔ" matches "get".
    return normalise_with_offsets(text)[0]


def normalise_with_offsets(text: str) -> Tuple[str, Optional[List[int]]]:
    """The one Unicode normalisation of the library: NFKC, character by character, with the index
    of the original character each normalised one came from (``None`` for ASCII, its own form).

    Per character, so that units found in the normalised text map back to the original characters
    (the contextual backend needs the offsets); both backends therefore see the same tokens.

    >>> normalise_with_offsets("ｇｅｔﬁ")
    ('getfi', [0, 1, 2, 3, 3])
    """
    if text.isascii():
        return text, None
    chars: List[str] = []
    origin: List[int] = []
    for i, ch in enumerate(text):
        norm = unicodedata.normalize("NFKC", ch) if not ch.isascii() else ch
        chars.append(norm)
        origin.extend([i] * len(norm))
    return "".join(chars), origin


def unit_spans(text: str, tokenizer: str) -> List[Tuple[str, int, int]]:
    """``(unit, start, end)`` for each unit of ``tokenizer``, with offsets into the original text.

    The units are those :func:`get_tokenizer` gives; the contextual backend pools word pieces onto them.

    >>> unit_spans("getHTTPCode x_1", "identifier")
    [('get', 0, 3), ('http', 3, 7), ('code', 7, 11), ('x', 12, 13), ('1', 14, 15)]
    """
    if tokenizer not in TOKENIZERS:
        raise ValueError(f"tokenizer must be one of {sorted(TOKENIZERS)}, got {tokenizer!r}")
    norm, origin = normalise_with_offsets(text)
    out: List[Tuple[str, int, int]] = []
    for match in _CHUNK.finditer(norm):
        chunk, start = match.group(), match.start()
        if tokenizer == "words" or (chunk.isalpha() and chunk[1:].islower()):
            parts = [chunk]  # "word"/"Word" has no case boundary: skip the splitter (most of prose)
        else:
            parts = _split_case(chunk)
        for part in parts:
            end = start + len(part)
            if origin is None:
                out.append((part.lower(), start, end))
            else:
                out.append((part.lower(), origin[start], origin[end - 1] + 1))
            start = end
    return out


def split_identifier(text: str) -> List[str]:
    """Split identifiers (and pre-split text) into lowercase subtokens.

    >>> split_identifier("getHTTPResponseCode")
    ['get', 'http', 'response', 'code']
    >>> split_identifier("snake_case-and-kebab.v2")
    ['snake', 'case', 'and', 'kebab', 'v', '2']
    >>> split_identifier("get count")
    ['get', 'count']
    """
    if text.isascii():  # NFKC is the identity on ASCII
        # One lower() over the joined parts is cheaper than one per part; parts hold no spaces.
        return " ".join(_ASCII_PART.findall(text)).lower().split()
    parts: List[str] = []
    for chunk in _CHUNK.findall(_normalise(text)):
        parts.extend(_split_case(chunk))
    return [part.lower() for part in parts]


def _kind(ch: str) -> int:
    if ch.isdigit():
        return 0
    if ch.isupper():
        return 1
    return 2  # lowercase and caseless letters (CJK, Arabic...) behave alike


def _split_case(chunk: str) -> List[str]:
    # Boundaries: letter<->digit, lower->Upper, and the last capital of an acronym run when a
    # lowercase letter follows it (HTTPResponse -> HTTP | Response). Written over str methods
    # rather than an ASCII regex so that Größe and ÜberPrüfung split like their ASCII twins.
    parts: List[str] = []
    start = 0
    n = len(chunk)
    for i in range(1, n):
        prev, cur = _kind(chunk[i - 1]), _kind(chunk[i])
        boundary = (prev == 0) != (cur == 0) or (prev == 2 and cur == 1)
        if not boundary and prev == 1 and cur == 1 and i + 1 < n and _kind(chunk[i + 1]) == 2:
            boundary = True
        if boundary:
            parts.append(chunk[start:i])
            start = i
    parts.append(chunk[start:])
    return parts


def split_words(text: str) -> List[str]:
    """Split a sentence into lowercase words; identifiers stay whole.

    >>> split_words("A man is playing the guitar, isn't he?")
    ['a', 'man', 'is', 'playing', 'the', 'guitar', 'isn', 't', 'he']
    """
    return _WORD.findall(_normalise(text).lower())


TOKENIZERS: Dict[str, Callable[[str], List[str]]] = {
    "identifier": split_identifier,
    "words": split_words,
}


def get_tokenizer(name: str) -> Callable[[str], List[str]]:
    """Return the tokenizer called ``name`` (one of :data:`TOKENIZERS`)."""
    if not isinstance(name, str) or name not in TOKENIZERS:
        raise ValueError(
            f"tokenizer must be one of {sorted(TOKENIZERS)}, got {name!r}"
        )
    return TOKENIZERS[name]
