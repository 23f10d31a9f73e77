"""Step 1 of the pipeline: text -> tokens.

Two tokenizers ship. ``identifier`` splits code identifiers the way developers read them
(``getHTTPResponseCode`` -> ``get http response code``; ``snake_case``, ``kebab-case``, dots and
digit runs are boundaries); ``words`` splits plain sentences into lowercase word runs.  Both drop
punctuation-only and symbol-only fragments (emoji, operators): they carry no embedding in any
static vocabulary we ship, and keeping them would make the score depend on formatting.

Both read the text in NFKC (so canonically equal texts, NFC or NFD, give the same tokens), keep
combining marks inside the word they belong to (Hindi ``की`` is not ``क``), and split scripts
written without spaces into the units a reader of them would count (see :func:`unit_spans`).
"""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import Callable, Dict, Iterator, List, Literal, NamedTuple, Optional, Sequence, Tuple

from .checks import check_choice

__all__ = ["split_identifier", "split_words", "get_tokenizer", "Tokenizer", "TOKENIZERS", "TokenizerName", "DEFAULT_TOKENIZER", "normal_form", "normalise_with_offsets",
           "unit_spans", "tokenize_many", "tokenize_separated", "SEPARATOR"]

_CHUNK = re.compile(r"[^\W_]+")  # ASCII text: maximal letter/digit runs (_, -, ., spaces and symbols split)
# ASCII text, words: maximal letter/digit runs, lowercase.  A translation table (letters to
# lowercase, every other character to a space) and split(), two C loops over the text, find them
# 4x faster than a regex's findall (1.5 ms against 6.4 ms on the 3,850 texts of 2,000 STS-B pairs).
_ASCII_WORD = str.maketrans({c: c.lower() if c.isalnum() else " " for c in map(chr, range(128))})
# ASCII fast path of split_identifier: the same parts as the per-character loop below (digit runs,
# lower->Upper, and an acronym's last capital when a lowercase letter follows), 4-5x faster;
# checked equal on all 249,655 distinct Java method names of shared/data and on random strings.
# Lowercase runs, the commonest part, are tried first; an uppercase run stops before a capital
# that starts a lowercase word (HTTPResponse -> HTTP | Response).
_ASCII_PART = re.compile(r"[a-z]+|[A-Z][a-z]+|[A-Z]+(?![a-z])|[0-9]+")

# Scripts written without spaces between words.  Han (Chinese characters, Japanese kanji): one unit
# per character, as BERT-style tokenizers and Chinese BLEU/BERTScore tokenisation do (a character is
# a morpheme; word segmentation needs a dictionary).  Kana: one unit per run of hiragana or of
# katakana (a loanword or an inflection ending).  The Brahmic scripts of South-East Asia (Thai, Lao,
# Khmer, Myanmar, Tai scripts, Balinese, Javanese): one unit per letter with its combining marks (a
# grapheme cluster, approximately): without a dictionary there is no word boundary to find, and a
# whole run is a clause, not a word.  Each range is (first, last) code point.
_HAN = ((0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0x20000, 0x323AF), (0x3006, 0x3007),
        (0x3021, 0x3029), (0x3038, 0x303A))
_HIRAGANA = ((0x3041, 0x309F), (0x1B000, 0x1B000), (0x1B001, 0x1B11F), (0x1B150, 0x1B152))
_KATAKANA = ((0x30A0, 0x30FF), (0x31F0, 0x31FF), (0x1AFF0, 0x1AFFE), (0x1B155, 0x1B155), (0x1B164, 0x1B167))
_CLUSTER = ((0x0E00, 0x0EFF), (0x1000, 0x109F), (0x1780, 0x17FF), (0x1950, 0x19DF), (0x19E0, 0x19FF),
            (0x1A20, 0x1AAF), (0x1B00, 0x1B7F), (0xA980, 0xA9DF), (0xA9E0, 0xA9FF), (0xAA60, 0xAADF))
# Marks that continue a unit without being combining marks: the iteration mark 々 (U+3005) after a
# Han character, the prolonged sound mark ー (U+30FC) in a hiragana run.
_HAN_CONTINUE = "\u3005\u303b"
_KANA_CONTINUE = "\u30fc"
# Hangul vowel and final jamo compose with the syllable before them (the Unicode composition
# algorithm's VBase..VBase+20 and TBase+1..TBase+27, fixed by the standard).
_HANGUL_JOINING = ((0x1161, 0x1175), (0x11A8, 0x11C2))


def _ranges(pairs) -> str:
    return "".join(f"{chr(a)}-{chr(b)}" if a != b else chr(a) for a, b in pairs)


def _in(ranges, code: int) -> bool:
    return any(a <= code <= b for a, b in ranges)


@lru_cache(maxsize=1)
def _tables() -> Tuple["re.Pattern", "re.Pattern", frozenset]:
    """The unit pattern for non-ASCII text, the pattern of normalisation segments, and the set of
    combining marks.  Built on first use (about 0.05 s: a scan of Unicode planes 0, 1 and 14, the
    only ones holding marks), so ``import wrd_score`` and ASCII-only runs never pay for it."""
    marks: List[int] = []
    joining: List[int] = []
    for code in list(range(0x20000)) + list(range(0xE0000, 0xE1000)):
        ch = chr(code)
        if unicodedata.category(ch)[0] == "M":
            marks.append(code)
            joining.append(code)
        elif unicodedata.decomposition(ch):
            # A character whose compatibility form starts with a mark or a joining jamo (Thai SARA
            # AM, half-width voiced sound marks, Hangul compatibility vowels) composes with the one before.
            first = ord(unicodedata.normalize("NFKD", ch)[0])
            if unicodedata.category(chr(first))[0] == "M" or _in(_HANGUL_JOINING, first):
                joining.append(code)
    for first, last in _HANGUL_JOINING:
        joining.extend(range(first, last + 1))
    joining.sort()
    mark = "[" + _ranges(_runs(marks)) + "]"
    han, hira, kata, cluster = (_ranges(r) for r in (_HAN, _HIRAGANA, _KATAKANA, _CLUSTER))
    letter = r"(?=[^\W\d_])"  # a letter (a word character, not a digit)
    other = rf"(?:(?!{letter}[{han}{hira}{kata}{cluster}])[^\W_])"
    units = re.compile(
        rf"{letter}[{han}](?:[{_HAN_CONTINUE}]|{mark})*"
        rf"|{letter}[{hira}](?:{letter}[{hira}{_KANA_CONTINUE}]|{mark})*"
        rf"|{letter}[{kata}](?:{letter}[{kata}]|{mark})*"
        rf"|{letter}[{cluster}]{mark}*"
        rf"|{other}(?:{other}|{mark})*"
    )
    segments = re.compile("(?s:.[" + _ranges(_runs(joining)) + "]*)")
    return units, segments, frozenset(map(chr, marks))


def _runs(codes: List[int]) -> List[Tuple[int, int]]:
    out: List[Tuple[int, int]] = []
    for code in codes:
        if out and out[-1][1] == code - 1:
            out[-1] = (out[-1][0], code)
        else:
            out.append((code, code))
    return out


def normal_form(text: str) -> str:
    """The text in the library's normal form, NFKC: what :func:`normalise_with_offsets` returns.

    >>> normal_form("ｇｅｔ ﬁle"), normal_form("e\u0301") == "\u00e9"
    ('get file', True)
    """
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


def normalise_with_offsets(text: str) -> Tuple[str, Optional[Tuple[List[int], List[int]]]]:
    """The one Unicode normalisation of the library: NFKC, with the span ``[start, end)`` of original
    characters each normalised character came from (``None`` for ASCII, its own NFKC form).

    NFKC folds full-width letters and ligatures into their plain forms (``ｇｅｔ`` matches ``get``)
    and composes a letter with its combining marks, so canonically equal texts (NFC and NFD
    ``résumé``) give the same tokens.  It runs on segments (a character and the marks or jamo that
    compose with it), so units found in the normalised text map back to the original characters
    (the contextual backend needs the offsets); the result is checked equal to NFKC of the whole
    text, and where it is not (no case is known) every character maps to the whole text.

    >>> normalise_with_offsets("ｇｅｔﬁ")
    ('getfi', ([0, 1, 2, 3, 3], [1, 2, 3, 4, 4]))
    >>> normalise_with_offsets("re\u0301s")
    ('rés', ([0, 1, 3], [1, 3, 4]))
    """
    if text.isascii():
        return text, None
    pieces: List[str] = []
    starts: List[int] = []
    ends: List[int] = []
    for match in _tables()[1].finditer(text):
        segment, start, end = match.group(), match.start(), match.end()
        norm = segment if segment.isascii() else unicodedata.normalize("NFKC", segment)
        pieces.append(norm)
        starts.extend([start] * len(norm))
        ends.extend([end] * len(norm))
    out = "".join(pieces)
    whole = normal_form(text)
    if out != whole:  # pragma: no cover - a safety net: segment-wise NFKC differed from the whole text's
        return whole, ([0] * len(whole), [len(text)] * len(whole))
    return out, (starts, ends)


def unit_spans(text: str, tokenizer: TokenizerName) -> List[Tuple[str, int, int]]:
    """``(unit, start, end)`` for each unit of ``tokenizer``, with offsets into the original text.

    The units are those :func:`get_tokenizer` gives; the contextual backend pools word pieces onto them.
    Units are maximal runs of letters and digits with the combining marks on them, except in
    scripts written without spaces: one unit per Han character, per run of hiragana or of katakana,
    and per letter with its marks in Thai, Lao, Khmer, Myanmar and the other South-East Asian
    scripts listed in ``_CLUSTER``.  The ``identifier`` tokenizer splits units further at case and
    digit boundaries.

    >>> unit_spans("getHTTPCode x_1", "identifier")
    [('get', 0, 3), ('http', 3, 7), ('code', 7, 11), ('x', 12, 13), ('1', 14, 15)]
    >>> [u for u, _, _ in unit_spans("获取计数 データを取得", "words")]
    ['获', '取', '计', '数', 'データ', 'を', '取', '得']
    """
    check_choice("tokenizer", tokenizer, TOKENIZERS)
    norm, origin = normalise_with_offsets(text)
    out: List[Tuple[str, int, int]] = []
    for part, start in _unit_starts(norm, text.isascii(), tokenizer):
        end = start + len(part)
        if origin is None:
            out.append((part.lower(), start, end))
        else:
            out.append((part.lower(), origin[0][start], origin[1][end - 1]))
    return out


def _unit_starts(norm: str, ascii: bool, tokenizer: str) -> Iterator[Tuple[str, int]]:
    # The units of normalised text (before lowercasing) and where each starts in it: the one rule
    # behind unit_spans and the per-text tokenizers.
    for match in (_CHUNK if ascii else _tables()[0]).finditer(norm):
        chunk, start = match.group(), match.start()
        if tokenizer == "words" or (chunk.isalpha() and chunk[1:].islower()):
            parts = [chunk]  # "word"/"Word" has no case boundary: skip the splitter (most of prose)
        else:
            parts = _split_case(chunk)
        for part in parts:
            yield part, start
            start += len(part)


def _units(text: str, tokenizer: str) -> List[str]:
    """The units of :func:`unit_spans` without their offsets, which the tokenizers do not need:
    normalise_with_offsets's text is NFKC of the whole text, here one C call instead of its walk
    segment by segment (60 us a non-ASCII STS-B sentence, against 14 us now)."""
    return [part.lower() for part, _ in _unit_starts(normal_form(text), text.isascii(), tokenizer)]


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
    return _units(text, "identifier")


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
    # A combining mark belongs to the letter before it: it takes that letter's kind and never
    # starts a part.
    marks = _tables()[2] if not chunk.isascii() else ()
    kinds: List[int] = []
    for ch in chunk:
        kinds.append(kinds[-1] if ch in marks and kinds else _kind(ch))
    letters = [i for i, ch in enumerate(chunk) if ch not in marks]
    parts: List[str] = []
    start = 0
    for k in range(1, len(letters)):
        i = letters[k]
        prev, cur = kinds[i - 1], kinds[i]
        boundary = (prev == 0) != (cur == 0) or (prev == 2 and cur == 1)
        if not boundary and prev == 1 and cur == 1 and k + 1 < len(letters) and kinds[letters[k + 1]] == 2:
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
    if text.isascii():
        return text.translate(_ASCII_WORD).split()
    return _units(text, "words")


#: The token :func:`tokenize_separated` puts between two texts' tokens (no token holds it).
SEPARATOR = "\x00"
# The same ASCII rules with one more part, the separator NUL, for tokenize_many.
_ASCII_PART_OR_NUL = re.compile(_ASCII_PART.pattern + "|" + SEPARATOR)
_ASCII_WORD_OR_NUL = {**_ASCII_WORD, ord(SEPARATOR): ord(SEPARATOR)}
# What joins two texts for the words rule's ASCII pass: its translation keeps characters in place,
# so NUL needs spaces on either side to stay a token of its own after split().  The identifier
# regex finds NUL as a part of its own and takes NUL alone (two more characters a text cost its
# scan about 6%).
_WORDS_JOIN = f" {SEPARATOR} "


def _ascii_runs(texts: List[str], tokenizer: str) -> Iterator[Tuple[Optional[str], int]]:
    """The texts in order, for :func:`tokenize_many` and :func:`tokenize_separated`: each run of
    texts that are ASCII and hold no NUL as ``(the run joined, -1)``, each other text as
    ``(None, its index)``.  A few non-ASCII texts (a curly quote in a sentence) leave the runs
    between them on the fast path instead of sending every text one by one."""
    join = (_WORDS_JOIN if tokenizer == "words" else SEPARATOR).join
    joined = join(texts)
    if joined.isascii() and joined.count(SEPARATOR) == len(texts) - 1:
        if texts:
            yield joined, -1
        return
    start = 0
    for i in [i for i, text in enumerate(texts) if not text.isascii() or SEPARATOR in text]:
        if i > start:
            yield join(texts[start:i]), -1
        yield None, i
        start = i + 1
    if start < len(texts):
        yield join(texts[start:]), -1


def _ascii_parts(joined: str, tokenizer: str) -> str:
    """One pass of the ASCII rule over texts joined as :func:`_ascii_runs` joins them: their parts
    lowercase, separated by whitespace, NUL a part of its own between two texts'."""
    if tokenizer == "identifier":
        # One lower() over the joined parts is cheaper than one per part.
        return " ".join(_ASCII_PART_OR_NUL.findall(joined)).lower()
    return joined.translate(_ASCII_WORD_OR_NUL)


def tokenize_many(texts: Sequence[str], tokenizer: TokenizerName) -> List[List[str]]:
    """``[get_tokenizer(tokenizer)(text) for text in texts]``, faster on many short texts.

    The ASCII texts (without NUL) are joined by NUL and split by one pass of the ASCII rule, which
    keeps NUL as a part of its own; the parts are then cut at the NULs.  Splitting text by text,
    most of the time went to Python's per-call overhead (a method name is 2-3 tokens).  Same rule,
    same parts: equal to the per-text call on any text (tested on random Unicode in
    ``tests/test_tokenize.py``); other texts take the per-text call.

    >>> tokenize_many(["getCount", "", "size_t", "Größe"], "identifier")
    [['get', 'count'], [], ['size', 't'], ['größe']]
    """
    texts = list(texts)
    split = get_tokenizer(tokenizer)
    out: List[List[str]] = []
    for joined, i in _ascii_runs(texts, tokenizer):
        if joined is None:
            out.append(split(texts[i]))
        else:
            out += [group.split() for group in _ascii_parts(joined, tokenizer).split(SEPARATOR)]
    return out


def tokenize_separated(texts: Sequence[str], tokenizer: TokenizerName) -> List[str]:
    """The tokens of :func:`tokenize_many` in one list, :data:`SEPARATOR` between two texts'.

    Each run of ASCII texts is one ``split()`` of the fast path's parts: no list per text, which at
    20,000 method-name pairs cost about as much as the regex pass itself.

    >>> tokenize_separated(["getCount", "", "size_t", "Größe"], "identifier")
    ['get', 'count', '\\x00', '\\x00', 'size', 't', '\\x00', 'größe']
    """
    texts = list(texts)
    runs = list(_ascii_runs(texts, tokenizer))
    if len(runs) == 1 and runs[0][0] is not None:  # one run of every text: its split is the list
        return _ascii_parts(runs[0][0], tokenizer).split()
    split = get_tokenizer(tokenizer)
    out: List[str] = []
    for joined, i in runs:
        out += split(texts[i]) if joined is None else _ascii_parts(joined, tokenizer).split()
        out.append(SEPARATOR)
    return out[:-1]


class Tokenizer(NamedTuple):
    """One tokenizer: its function and what it does (the meaning the ``tokenizer`` option shows)."""

    split: Callable[[str], List[str]]
    meaning: str

    def __call__(self, text: str) -> List[str]:
        return self.split(text)


#: The tokenizers by name (``tokenizer=``); each is called as its function is.
TOKENIZERS: Dict[str, Tokenizer] = {
    "identifier": Tokenizer(split_identifier, "words, split further at camelCase, snake_case and digits"),
    "words": Tokenizer(split_words, "lowercase words (letters, digits and their marks; one token per Han character)"),
}
#: A value of ``tokenizer=`` (the keys of :data:`TOKENIZERS`).
TokenizerName = Literal["identifier", "words"]
#: The tokenizer where none is given and one acts (the static backend; contextual ``pooling="tokenizer"``).
DEFAULT_TOKENIZER: TokenizerName = "identifier"


def get_tokenizer(name: TokenizerName) -> Callable[[str], List[str]]:
    """Return the tokenizer called ``name`` (one of :data:`TOKENIZERS`)."""
    check_choice("tokenizer", name, TOKENIZERS)
    return TOKENIZERS[name].split
