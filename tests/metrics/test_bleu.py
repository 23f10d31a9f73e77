"""BLEU through sacreBLEU: sentence and corpus parity, its signature carried into ours, options."""
from __future__ import annotations

import pytest


def test_bleu_matches_sacrebleu_sentence_and_corpus(literature_pairs):
    hyps, refs = literature_pairs
    sacrebleu = pytest.importorskip("sacrebleu")
    from wrd_score.metrics import bleu, corpus_bleu

    out = bleu(hyps, refs)
    for i, (h, r) in enumerate(zip(hyps, refs)):
        assert out["bleu"][i] == pytest.approx(sacrebleu.sentence_bleu(h, [r]).score / 100, abs=1e-12)
    multi = [[r, r.upper()] for r in refs]
    options = dict(lowercase=True, tokenize="intl", smooth_method="floor", smooth_value=0.2)
    out = bleu(hyps, multi, **options)
    for i, h in enumerate(hyps):
        want = sacrebleu.sentence_bleu(h, multi[i], lowercase=True, tokenize="intl", smooth_method="floor",
                                       smooth_value=0.2).score / 100
        assert out["bleu"][i] == pytest.approx(want, abs=1e-12)
    corpus = corpus_bleu(hyps, refs)
    want = sacrebleu.corpus_bleu(hyps, [refs])
    assert corpus["score"] == pytest.approx(want.score / 100, abs=1e-12)
    assert corpus["precisions"] == pytest.approx([p / 100 for p in want.precisions])
    # Variable numbers of references: sacreBLEU's padding with None.
    ragged = [[refs[0], "A guitar is played."], refs[1], [refs[2]], refs[3]]
    padded = [[refs[0], refs[1], refs[2], refs[3]], ["A guitar is played.", None, None, None]]
    assert corpus_bleu(hyps, ragged)["score"] == pytest.approx(sacrebleu.corpus_bleu(hyps, padded).score / 100)


def test_bleu_carries_sacrebleus_signature(literature_pairs):
    hyps, refs = literature_pairs
    sacrebleu = pytest.importorskip("sacrebleu")
    from wrd_score.metrics import bleu, corpus_bleu

    theirs = sacrebleu.metrics.BLEU(effective_order=True, tokenize="char")
    theirs.sentence_score(hyps[0], [refs[0]])
    ours = bleu(hyps[:1], refs[:1], tokenize="char")["signature"]
    assert ours == "bleu:sacrebleu|" + str(theirs.get_signature()) + "|split:no"
    assert "nrefs:2" in bleu(hyps[:1], [[refs[0], refs[1]]])["signature"]
    assert "|eff:no|" in corpus_bleu(hyps, refs)["signature"]


def test_bleu_identifiers_empty_texts_and_bad_options():
    pytest.importorskip("sacrebleu")
    from wrd_score.metrics import bleu

    assert bleu(["getCount"], ["get_count"])["bleu"] == [0.0]
    assert bleu(["getCount"], ["get_count"], split_identifiers=True)["bleu"] == [1.0]
    assert bleu(["", " ", "a"], ["", "x", ""])["bleu"] == [1.0, 0.0, 0.0]  # the library's empty-text rule
    for kwargs, pattern in [({"tokenize": "nope"}, "tokenize must be one of"),
                            ({"smooth_method": "x"}, "smooth_method must be one of"),
                            ({"smooth_value": -1}, "smooth_value"), ({"max_ngram_order": 0}, "max_ngram_order"),
                            ({"lowercase": "yes"}, "lowercase must be True or False")]:
        with pytest.raises((ValueError, TypeError), match=pattern):
            bleu(["a"], ["a"], **kwargs)
    with pytest.raises(ValueError, match="same length"):
        bleu(["a", "b"], ["a"])
