"""Identifier splitting: developer-style boundaries, and the ASCII fast path equals the general loop."""
import random
import string

import pytest

from wrd_score.tokenize import _CHUNK, _split_case, get_tokenizer, split_identifier, split_words


def _general(text):
    return [p.lower() for chunk in _CHUNK.findall(text) for p in _split_case(chunk)]


@pytest.mark.parametrize(
    "text, tokens",
    [
        ("getHTTPResponseCode", ["get", "http", "response", "code"]),
        ("snake_case_name", ["snake", "case", "name"]),
        ("kebab-case-name", ["kebab", "case", "name"]),
        ("java.util.List", ["java", "util", "list"]),
        ("parseJSON5Value", ["parse", "json", "5", "value"]),
        ("IOError", ["io", "error"]),
        ("get count", ["get", "count"]),
        ("ÜberPrüfung_größe", ["über", "prüfung", "größe"]),
        ("ｇｅｔＣｏｕｎｔ", ["get", "count"]),
        ("", []),
        ("!!! ---", []),
    ],
)
def test_split_identifier(text, tokens):
    assert split_identifier(text) == tokens


def test_ascii_fast_path_equals_general_loop():
    rng = random.Random(0)
    alphabet = string.ascii_letters + string.digits + "_-. $"
    for _ in range(20000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 24)))
        assert split_identifier(text) == _general(text), text


def test_words_and_unknown_tokenizer():
    assert split_words("A man, a plan.") == ["a", "man", "a", "plan"]
    with pytest.raises(ValueError, match="tokenizer"):
        get_tokenizer("spacy")


# ---------------------------------------------------------------- combining marks, NFC/NFD, unspaced scripts
import unicodedata  # noqa: E402
import warnings  # noqa: E402

from wrd_score import WRDScorer  # noqa: E402
from wrd_score.tokenize import unit_spans  # noqa: E402


@pytest.mark.parametrize("split", [split_identifier, split_words])
def test_combining_marks_stay_inside_words(split):
    # Devanagari vowel signs (Mc/Mn) and Thai vowel marks (Mn) are part of the word they sit on.
    assert split("की कि को के") == ["की", "कि", "को", "के"]
    assert len({tuple(split("की")), tuple(split("कि"))}) == 2
    assert split("กิน") != split("กัน")
    assert split("e\u0301x\u0301") == ["éx\u0301"]


@pytest.mark.parametrize("text", ["résumé", "Tiếng Việt", "Ångström naïve", "की को", "ガギ", "한국어"])
@pytest.mark.parametrize("tokenizer", ["identifier", "words"])
def test_canonically_equal_texts_give_equal_tokens_and_score_one(text, tokenizer):
    forms = {form: unicodedata.normalize(form, text) for form in ("NFC", "NFD", "NFKC", "NFKD")}
    split = get_tokenizer(tokenizer)
    assert len({tuple(split(t)) for t in forms.values()}) == 1
    out = WRDScorer(tokenizer=tokenizer, oov="exact").score([forms["NFC"]] * 3, [forms["NFD"], forms["NFKD"], text])
    assert out["f1"] == [1.0, 1.0, 1.0]


def test_scripts_without_spaces_split_into_characters_kana_runs_and_clusters():
    assert split_words("获取计数") == ["获", "取", "计", "数"]
    assert split_identifier("getCount获取计数") == ["get", "count", "获", "取", "计", "数"]
    assert split_words("コンピューターを使う") == ["コンピューター", "を", "使", "う"]
    assert split_words("กินข้าว") == ["กิ", "น", "ข้", "า", "ว"]  # a letter with its marks
    assert split_words("人々") == ["人々"]  # the iteration mark stays on its character
    assert split_words("๑๒๓") == ["๑๒๓"]  # Thai digits form a number, like any digit run


def test_unit_spans_map_back_to_the_original_characters_of_nfd_text():
    text = unicodedata.normalize("NFD", "Tiếng Việt résumé ｶﾞ")
    spans = unit_spans(text, "words")
    assert [u for u, _, _ in spans] == ["tiếng", "việt", "résumé", "ガ"]
    for unit, start, end in spans:
        assert unicodedata.normalize("NFKC", text[start:end]).lower() == unit
    assert spans[0][1:] == (0, len(unicodedata.normalize("NFD", "Tiếng")))


def test_texts_without_vectors_warn_once_per_call():
    scorer = WRDScorer()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = scorer.score(["获取计数", "getCount"], ["获取数量", "get_count"])
    assert out["f1"][0] == 0.75  # 3 of 4 characters shared, matched exactly
    messages = [str(w.message) for w in caught if w.category.__name__ == "NoVectorWarning"]
    assert len(messages) == 1 and messages[0].startswith("5 of 7 distinct tokens have no vector"), messages
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scorer.score(["getCount"], ["size"])  # every token has a vector: no warning


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from wrd_score.tokenize import tokenize_many  # noqa: E402

_ASCII_ID = st.text(string.ascii_letters + string.digits + "_-. $\x00\n", max_size=30)


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(texts=st.lists(st.one_of(_ASCII_ID, _ASCII_ID, st.text(max_size=20)), max_size=25),
       tokenizer=st.sampled_from(["identifier", "words"]))
def test_tokenize_many_equals_one_text_at_a_time(texts, tokenizer):
    """The batched ASCII pass (texts joined by NUL) is the per-text tokenizer, on any Unicode,
    NULs inside texts included."""
    assert tokenize_many(texts, tokenizer) == [get_tokenizer(tokenizer)(t) for t in texts]


from wrd_score.tokenize import SEPARATOR, tokenize_separated  # noqa: E402

_PLAIN_ID = st.text(string.ascii_letters + string.digits + "_-. $\n", max_size=30)


def _joined(groups):
    out = []
    for i, group in enumerate(groups):
        out += ([SEPARATOR] if i else []) + group
    return out


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(texts=st.one_of(st.lists(_PLAIN_ID, max_size=25),  # every text ASCII: the one-split path
                       st.lists(st.one_of(_ASCII_ID, st.text(max_size=20)), max_size=25)),
       tokenizer=st.sampled_from(["identifier", "words"]))
def test_tokenize_separated_is_every_text_tokens_between_separators(texts, tokenizer):
    """One flat list, cut at the separators, gives back each text's tokens; no token is the separator."""
    split = get_tokenizer(tokenizer)
    assert tokenize_separated(texts, tokenizer) == _joined([split(t) for t in texts])


_MIXED = ["Größe", "getCount words", "", "a\x00b", "获取计数", "size_t", "ＡＢＣ x", "x\x00", "plain text",
          "naïve café", "\x00", "end", "Ünïcode"]


@pytest.mark.parametrize("tokenizer", ["identifier", "words"])
@pytest.mark.parametrize("start", range(4))
def test_runs_of_ascii_texts_between_other_texts_keep_every_text_in_place(tokenizer, start):
    """The ASCII runs between non-ASCII or NUL-holding texts (first, last, one after another, alone)
    are spliced back in text order."""
    texts = _MIXED[start:] + _MIXED[:start]
    split = get_tokenizer(tokenizer)
    assert tokenize_many(texts, tokenizer) == [split(t) for t in texts]
    assert tokenize_separated(texts, tokenizer) == _joined([split(t) for t in texts])


@settings(max_examples=500, deadline=None, derandomize=True, database=None)
@given(text=st.text(max_size=40), tokenizer=st.sampled_from(["identifier", "words"]))
def test_tokenizers_give_the_units_of_unit_spans(text, tokenizer):
    """The tokenizers read NFKC of the whole text without offsets; unit_spans normalises segment by
    segment to keep them: the units must be the same."""
    assert get_tokenizer(tokenizer)(text) == [unit for unit, _, _ in unit_spans(text, tokenizer)]
