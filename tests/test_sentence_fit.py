"""`wrdscore distill --fit`: training text, held-out exclusion, the training F1 equal to scoring's, determinism."""
import hashlib
from pathlib import Path

import numpy as np
import pytest

from wrd_score import WRDScorer
from wrd_score.embeddings import StaticEmbedding

torch = pytest.importorskip("torch")
ot = pytest.importorskip("ot")
transformers = pytest.importorskip("transformers")

from wrd_score import sentence_fit as sf  # noqa: E402
from wrd_score.distill import distill  # noqa: E402

SENTENCES = ["A man is playing a guitar.", "A man plays the guitar.", "A woman is slicing an onion.",
             "Someone is cutting an onion.", "The cat sleeps on the sofa.", "A dog runs in the park.",
             "Two dogs are running through a field.", "A child is reading a book quietly."]


@pytest.fixture(scope="module")
def texts(tmp_path_factory):
    root = tmp_path_factory.mktemp("fit-texts")
    header = "id\tprediction\treference\thuman\tsplit\n"
    (root / "train.tsv").write_text(header + "".join(
        f"t{i}\t{a}\t{b}\t3.0\ttrain\n" for i, (a, b) in enumerate(zip(SENTENCES[::2], SENTENCES[1::2]))))
    (root / "sick.tsv").write_text(header + "s1\tA bird is flying over the sea\tA bird flies above water\t4\tTRAIN\n"
                                   "s2\tA held out trial sentence is here\tAnother trial one\t2\tTRIAL\n")
    (root / "dev.tsv").write_text(header + "d1\tThe cat sleeps on the sofa.\tSomething else entirely\t1\tdev\n")
    (root / "lines.txt").write_text("Plain text line one is here\n\nPlain text line two is here\n"
                                    "Plain text line one is here\n")
    (root / "code.txt").write_text("get count\nreturns the number of elements in this list of items\n"
                                   "x y z a b c d e\n")
    wordnet = root / "wordnet"
    wordnet.mkdir()
    for pos in ("noun", "verb", "adj", "adv"):
        (wordnet / f"data.{pos}").write_text(
            "  1 This software and database is being provided\n"
            f"00001740 03 n 01 thing 0 000 | a separate and self-contained {pos}; \"the {pos} stood there alone\"; "
            "an entity\n")
    return root


def test_texts_formats_exclusion_and_pairs(texts):
    corpora = [(str(texts / "train.tsv"), "stsb", None), (str(texts / "sick.tsv"), "sick", None),
               (str(texts / "lines.txt"), "lines", None), (str(texts / "code.txt"), "code-comments", None),
               (str(texts / "wordnet"), "wordnet", None)]
    exclude = [(str(texts / "dev.tsv"), "stsb"), (str(texts / "sick.tsv"), "sick")]
    got, pairs, counts = sf.collect_texts(corpora, exclude)
    assert "The cat sleeps on the sofa." not in got  # a dev sentence never enters, even from the train file
    assert not any("trial" in t for t in got)  # SICK's TRIAL rows neither as text nor through the exclusion
    assert got.count("Plain text line one is here") == 1 and "" not in got
    assert "returns the number of elements in this list of items" in got and "get count" not in got
    assert "x y z a b c d e" not in got  # one-letter tokens: code, not a comment
    assert got.index("a separate and self-contained noun") < got.index("the noun stood there alone")
    assert "an entity" not in got  # fewer than 3 words
    assert counts["held-out"] == 1 and counts["train.tsv:stsb"] == 7 and counts["sick.tsv:sick"] == 2
    assert [(got[a], got[b]) for a, b in pairs][0] == ("A man is playing a guitar.", "A man plays the guitar.")
    assert len(pairs) == 4  # the pair with the dev sentence is gone, SICK's TRIAL pair too


def test_a_sample_is_seeded(texts):
    one = sf.read_texts(str(texts / "code.txt"), "lines", sample=2)
    assert one == sf.read_texts(str(texts / "code.txt"), "lines", sample=2) and len(one) == 2


@pytest.mark.parametrize("options, message", [
    ({"loss": "l2"}, "fit loss must be one of"), ({"epochs": -1}, "fit epochs must be an integer >= 0"),
    ({"lr": 0}, "fit lr must be a number"), ({"neighbours": 0}, "fit neighbours must be a positive"),
    ({"bogus": 1}, "unknown fit option"), ({"seed": True}, "fit seed must be"),
])
def test_bad_fit_options_name_the_option(options, message):
    with pytest.raises(ValueError, match=message):
        sf.check_fit_options(options)


def _table(minilm_tokenizer, dim=6, seed=0):
    words = ["man", "guitar", "onion", "cat", "dog", "##s", "the", "a", "is"] + \
        [p for p in sorted(minilm_tokenizer.get_vocab()) if not p.startswith("[")]
    words = list(dict.fromkeys(words))
    vectors = np.random.RandomState(seed).randn(len(words), dim).astype(np.float32)
    return words, vectors, minilm_tokenizer.backend_tokenizer.to_str()


def test_the_training_f1_is_the_score_wrdscore_gives(minilm_tokenizer, tmp_path):
    """What the wrd loss trains is what scoring computes: wrd variant, norm masses, clipped cosines,
    unknown words composed from word pieces, equal tokens matching exactly."""
    words, vectors, tokenizer_json = _table(minilm_tokenizer)
    pairs = [(0, 1), (2, 3), (4, 5), (6, 7), (0, 0), (1, 6)]
    data = sf.fit_data(SENTENCES, words, tokenizer_json, pairs=pairs)
    assert len(data.kept) == len(SENTENCES)
    n_units = len(data.row_start) - 1
    table = torch.tensor(vectors)
    unit_vec = sf._unit_vectors(torch, table, data, np.arange(n_units))
    f1 = sf._wrd_f1(torch, ot, unit_vec, data, data.pairs,
                    np.arange(n_units)).detach().numpy()
    path = tmp_path / "t.npz"
    StaticEmbedding(words, vectors, tokenizer_json=tokenizer_json, name="t").save(str(path), dtype="float32")
    scored = WRDScorer(embedding=str(path), variant="wrd", weights="norm").score(
        [SENTENCES[a] for a, _ in pairs], [SENTENCES[b] for _, b in pairs])["f1"]
    np.testing.assert_allclose(f1, scored, atol=1e-5)


def test_the_envelope_gradient_matches_finite_differences(minilm_tokenizer):
    words, vectors, tokenizer_json = _table(minilm_tokenizer, dim=4, seed=1)
    data = sf.fit_data(SENTENCES[:4], words, tokenizer_json, pairs=[(0, 2), (1, 3)])
    n_units = len(data.row_start) - 1
    base = torch.tensor(np.random.RandomState(2).randn(n_units, 4), dtype=torch.float64, requires_grad=True)

    def f1_sum(unit_vec):
        return sf._wrd_f1(torch, ot, unit_vec, data, data.pairs, np.arange(n_units)).sum()

    f1_sum(base).backward()
    step = 1e-6
    for unit, k in ((0, 0), (1, 2), (n_units - 1, 3)):
        bumped = base.detach().clone()
        bumped[unit, k] += step
        lower = base.detach().clone()
        lower[unit, k] -= step
        numeric = (f1_sum(bumped) - f1_sum(lower)).item() / (2 * step)
        assert base.grad[unit, k].item() == pytest.approx(numeric, abs=1e-4)


def test_fitting_moves_the_pair_scores_toward_the_targets(minilm_tokenizer):
    words, vectors, tokenizer_json = _table(minilm_tokenizer, dim=8)
    data = sf.fit_data(SENTENCES, words, tokenizer_json, pairs=[(0, 1), (2, 3), (0, 2), (4, 6), (5, 6), (1, 7)])
    targets = np.random.RandomState(3).randn(len(SENTENCES), 16).astype(np.float32)
    targets[1], targets[3] = targets[0] + 0.1, targets[2] + 0.1  # the paraphrases agree
    targets /= np.linalg.norm(targets, axis=1, keepdims=True)
    goal = np.einsum("ij,ij->i", targets[data.pairs[:, 0]], targets[data.pairs[:, 1]])
    n_units = len(data.row_start) - 1

    def correlation(table):
        unit_vec = sf._unit_vectors(torch, torch.tensor(table), data, np.arange(n_units))
        f1 = sf._wrd_f1(torch, ot, unit_vec, data, data.pairs, np.arange(n_units)).detach().numpy()
        return np.corrcoef(f1, goal)[0, 1]

    fitted = sf.fit_table(vectors, data, targets, loss="wrd", epochs=60, batch_size=6, lr=0.05, random_share=0,
                          neighbours=1, progress=False)
    before, after = correlation(vectors), correlation(fitted)
    assert before < 0.95 and after > 0.99
    assert not np.shares_memory(fitted, vectors)


@pytest.fixture(scope="module")
def fitted(tmp_path_factory, tiny_bert, texts):
    root = tmp_path_factory.mktemp("fit")
    out = root / "tiny-fit.npz"
    kwargs = dict(model=str(tiny_bert), fit=[(str(texts / "train.tsv"), "stsb", None),
                                             (str(texts / "lines.txt"), "lines", None)],
                  fit_exclude=[(str(texts / "dev.tsv"), "stsb")], min_count=1, layer=1, pca_dims=8, progress=False,
                  name="tiny-fit", fit_options={"epochs": 2, "batch_size": 4, "neighbours": 2}, threads=1,
                  teacher_cache=str(root / "cache"))
    checksum = distill(str(out), **kwargs)
    return out, checksum, kwargs


def test_distill_fit_writes_a_loadable_file_with_its_provenance(fitted):
    out, checksum, _ = fitted
    emb = StaticEmbedding.load(str(out))
    assert emb.checksum == checksum and emb.dim == 8 and emb.has_pieces
    fit = emb.meta["fit"]
    assert fit["loss"] == "both" and fit["epochs"] == 2 and fit["threads"] == 1
    assert fit["held_out"] == ["dev.tsv"] and fit["sentences"]["held-out"] == 1
    assert "guitar" in emb  # the vocabulary is counted on the training text
    assert 0 <= WRDScorer(embedding=str(out)).score(["A man plays guitar"], ["someone strums"])["f1"][0] <= 1


def test_distill_fit_is_byte_reproducible(fitted, tmp_path):
    out, checksum, kwargs = fitted
    again = tmp_path / "tiny-fit.npz"
    assert distill(str(again), **{**kwargs, "teacher_cache": None}) == checksum
    assert hashlib.sha256(Path(again).read_bytes()).hexdigest() == checksum


def test_the_fit_moves_the_vectors(fitted, tmp_path):
    out, _, kwargs = fitted
    still = tmp_path / "still.npz"
    distill(str(still), **{**kwargs, "fit_options": {"epochs": 0}})
    assert not np.array_equal(StaticEmbedding.load(str(out)).vectors, StaticEmbedding.load(str(still)).vectors)


def test_cli_fit_flags(tiny_bert, texts, tmp_path, capsys):
    from wrd_score.cli import main

    out = tmp_path / "cli.npz"
    assert main(["distill", "-o", str(out), "--model", str(tiny_bert), "--fit", f"{texts / 'train.tsv'}:stsb",
                 "--fit", f"{texts / 'lines.txt'}:lines@2", "--fit-exclude", f"{texts / 'dev.tsv'}:stsb",
                 "--min-count", "1", "--layer", "1", "--pca-dims", "8", "--fit-epochs", "1", "--threads", "1",
                 "--no-progress"]) == 0
    meta = StaticEmbedding.load(str(out)).meta
    assert meta["command"].startswith("wrdscore distill") and meta["fit"]["corpora"][1]["sample"] == 2
    assert main(["distill", "-o", str(out), "--model", str(tiny_bert), "--fit", f"{texts / 'x.txt'}:poems"]) == 2
    assert "--fit takes PATH:FORMAT" in capsys.readouterr().err
    assert main(["distill", "-o", str(out), "--model", str(tiny_bert), "--fit", f"{texts / 'x.txt'}:lines@0"]) == 2
    assert "N a positive integer" in capsys.readouterr().err
