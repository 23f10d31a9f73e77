"""WMS, SMS and S+WMS (Kusner et al. 2015; Clark et al. 2019) against gensim and POT (issue 16).

* gensim's ``KeyedVectors.wmdistance`` on the same vectors for WMS (both of its ``norm`` settings);
* POT's ``emd2`` on sentence vectors built here by hand for SMS and S+WMS (Clark et al.'s recipe).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from wrd_score.metrics import get_metric


@pytest.fixture(scope="module")
def word2vec_file(literature_pairs, tmp_path_factory):
    """A small word2vec text file: the same vectors for gensim and for the static backend."""
    hyps, refs = literature_pairs
    words = sorted({w for text in hyps + refs for w in text.lower().replace(".", " ").replace(",", " ")
                    .replace("!", " ").split()} - {"fridge"})  # "fridge" stays out of the vocabulary
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(len(words), 8)) * rng.uniform(0.5, 2.0, size=(len(words), 1))
    path = tmp_path_factory.mktemp("w2v") / "tiny.txt"
    lines = [f"{len(words)} 8"] + [w + " " + " ".join(f"{v:.6f}" for v in row) for w, row in zip(words, vectors)]
    path.write_text("\n".join(lines) + "\n", encoding="utf8")
    return str(path)


@pytest.mark.parametrize("unit", [False, True])
def test_wms_matches_gensim_wmdistance(literature_pairs, word2vec_file, unit):
    hyps, refs = literature_pairs
    from gensim.models import KeyedVectors

    from wrd_score.tokenize import split_words

    kv = KeyedVectors.load_word2vec_format(word2vec_file)
    result = get_metric("wms", embedding=word2vec_file, tokenizer="words", unit_vectors=unit).score(hyps, refs)
    for i, (h, r) in enumerate(zip(hyps, refs)):
        want = kv.wmdistance(split_words(h), split_words(r), norm=unit)  # gensim drops "fridge" (OOV) too
        tol = 1e-6 if unit else 1e-9  # gensim normalises in float32, we in float64
        assert result.details["distance"][i] == pytest.approx(want, abs=tol)
        assert result.score[i] == pytest.approx(math.exp(-want), abs=tol)
    assert result.signature["vectors"] == ("unit" if unit else "raw") and result.signature["mass"] == "tf"


def test_wms_on_the_default_embedding_matches_gensim():
    from gensim.models import KeyedVectors

    from wrd_score.embeddings import StaticEmbedding
    from wrd_score.tokenize import split_words

    emb = StaticEmbedding.load("default")
    pairs = [("the cat sat on the mat", "a dog lay on the rug"), ("stocks fell sharply", "shares dropped")]
    words = sorted({w for pair in pairs for text in pair for w in split_words(text)})
    assert all(w in emb.index for w in words)
    kv = KeyedVectors(vector_size=emb.dim)
    kv.add_vectors(words, np.stack([emb.vectors[emb.index[w]].astype(np.float64) for w in words]))
    result = get_metric("wms", tokenizer="words").score([p for p, _ in pairs], [r for _, r in pairs])
    for i, (p, r) in enumerate(pairs):
        assert result.details["distance"][i] == pytest.approx(kv.wmdistance(split_words(p), split_words(r),
                                                                            norm=False), abs=1e-6)


def _clark_bag(kv, text, nodes):
    """Clark et al.'s bag, built here independently: word counts and/or sentence means with lengths."""
    from wrd_score.metrics.wms import split_sentences
    from wrd_score.tokenize import split_words

    sentences = [[w for w in split_words(s) if w in kv] for s in split_sentences(text)]
    sentences = [s for s in sentences if s]
    vectors, masses = [], []
    if nodes != "sentences":
        words = [w for s in sentences for w in s]
        for w in dict.fromkeys(words):
            vectors.append(kv[w].astype(np.float64))
            masses.append(words.count(w))
    if nodes != "words":
        for s in sentences:
            vectors.append(np.mean([kv[w].astype(np.float64) for w in s], axis=0))
            masses.append(len(s))
    masses = np.asarray(masses, dtype=np.float64)
    return np.asarray(vectors), masses / masses.sum()


@pytest.mark.parametrize("name,nodes", [("sms", "sentences"), ("s+wms", "both")])
def test_sms_and_s_wms_follow_clark_et_al(literature_pairs, word2vec_file, name, nodes):
    hyps, refs = literature_pairs
    import ot
    from gensim.models import KeyedVectors
    from scipy.spatial.distance import cdist

    kv = KeyedVectors.load_word2vec_format(word2vec_file)
    result = get_metric(name, embedding=word2vec_file, tokenizer="words").score(hyps, refs)
    for i, (h, r) in enumerate(zip(hyps, refs)):
        (vh, mh), (vr, mr) = _clark_bag(kv, h, nodes), _clark_bag(kv, r, nodes)
        want = ot.emd2(mh, mr, cdist(vh, vr))
        assert result.details["distance"][i] == pytest.approx(want, abs=1e-9)
    assert result.signature[name] == "clark2019" and result.signature["split"].startswith("sentencex-")


def test_mover_similarities_on_edge_cases(literature_pairs):
    # One sentence of one word: every bag is one node at the same vector, so all three agree.
    hyps, refs = literature_pairs
    one = [get_metric(n).score(["size"], ["length"]).score[0] for n in ("wms", "sms", "s+wms")]
    assert one[0] == pytest.approx(one[1]) == pytest.approx(one[2]) and 0 < one[0] < 1
    text = "A man plays. He sings!"
    for name in ("wms", "sms", "s+wms"):
        metric = get_metric(name)
        assert metric.score([text, "", "", "!!"], [text, "", "x", "?"]).score == [1.0, 1.0, 0.0, 0.0]
        multi = metric.score([hyps[0]], [[refs[1], refs[0]]])
        assert multi.best_reference == [1]
    # Sentence order moves no mass in SMS; word order never does.
    swapped = get_metric("sms").score(["He sings. A man plays."], [text]).score[0]
    assert swapped == pytest.approx(1.0)
    with pytest.raises(ValueError, match="nodes must be one of"):
        get_metric("wms").__class__(nodes="paragraphs")
    with pytest.raises(TypeError, match="fixes option"):
        get_metric("sms", nodes="words")
    with pytest.raises(TypeError, match="unit_vectors must be True or False"):
        get_metric("wms", unit_vectors="yes")
    with pytest.raises(ValueError, match="language"):
        get_metric("sms", language="")


def test_split_sentences_uses_sentencex():
    from wrd_score.metrics.wms import split_sentences

    assert split_sentences("Dr. Smith went to Washington. He arrived at 5 p.m. on Monday! Did he?") == [
        "Dr. Smith went to Washington.", "He arrived at 5 p.m. on Monday!", "Did he?"]
    assert split_sentences("getCount") == ["getCount"]
