"""Token masses: IDF fitted on the references, a user table, and the embedding file's fixed table (corpus-idf)."""
import json
import math

import numpy as np
import pytest

from wrd_score import WRDScorer, score
from wrd_score.embeddings import StaticEmbedding
from wrd_score.options import Options
from wrd_score.stream import iter_scores, score_chunked


def test_idf_options():
    one_doc = score(["get count"], ["get size"], weights="idf")
    assert all(math.isfinite(v) for v in one_doc["f1"])
    user = score(["get count"], ["get size"], weights="idf", idf={"get": 0.0, "count": 1.0, "size": 1.0})
    fitted = score(["get count"], ["get size"], weights="idf")
    assert user["f1"] != fitted["f1"]
    assert "idf:user" in user["signature"] and "idf:refs" in fitted["signature"]
    with pytest.raises(ValueError, match="idf"):
        score(["a"], ["b"], idf={"a": 1.0})  # idf given, weights='norm' would ignore it
    with pytest.raises(ValueError, match=r"idf\['a'\]"):
        score(["a"], ["b"], weights="idf", idf={"a": float("nan")})


def test_corpus_idf_gives_a_pair_the_same_score_whatever_else_is_in_the_call(with_table):
    scorer = WRDScorer(embedding=with_table, weights="norm*corpus-idf")
    pair, crowd = (["get count"], ["get size"]), (["set color", "get count", "list"], ["get name", "get size", "get"])
    assert scorer.score(*pair)["f1"][0] == scorer.score(*crowd)["f1"][1]
    # Unlike weights="norm*idf", fit on the references of each call.
    fitted = WRDScorer(embedding=with_table, weights="norm*idf")
    assert fitted.score(*pair)["f1"][0] != fitted.score(*crowd)["f1"][1]


def test_corpus_idf_masses_are_the_smoothed_idf_of_the_shipped_counts(with_table, df_embedding):
    detail = WRDScorer(embedding=with_table, weights="corpus-idf").explain("get count", "list")
    idf = [math.log((1 + df_embedding.documents) / (1 + df_embedding.df[t])) + 1 for t in ("get", "count")]
    np.testing.assert_allclose(detail.mass_p, np.array(idf) / sum(idf), rtol=1e-12)
    # "list" is not in the table: the largest weight, as an unseen word in a fitted table.
    assert detail.tokens_r == ["list"] and detail.mass_r.tolist() == [1.0]
    norm = WRDScorer(embedding=with_table, weights="norm*corpus-idf").explain("get count", "list")
    norms = np.linalg.norm(StaticEmbedding.load(with_table).vectors[[0, 1]], axis=1) * idf
    np.testing.assert_allclose(norm.mass_p, norms / norms.sum(), rtol=1e-6)


def test_corpus_idf_signature_is_pinned_by_the_file(with_table, df_embedding, tmp_path):
    sig = WRDScorer(embedding=with_table, weights="corpus-idf").signature()
    assert "weights:corpus-idf|idf:emb" in sig and "emb:with_table@sha256:" in sig
    other = df_embedding.write(tmp_path / "with_table2.npz", df={**df_embedding.df, "get": 10})
    assert WRDScorer(embedding=other, weights="corpus-idf").signature().split("emb:")[1] != sig.split("emb:")[1]
    assert "idf:refs" in WRDScorer(embedding=with_table, weights="idf").signature()


def test_corpus_idf_refusals(with_table, df_embedding, tmp_path):
    plain = df_embedding.write(tmp_path / "plain.npz", df=None)
    with pytest.raises(ValueError, match=r"^weights='corpus-idf' reads the document-frequency table .* 'plain' has "
                                         r"none \(arrays df_tokens"):
        WRDScorer(embedding=plain, weights="corpus-idf")
    with pytest.raises(ValueError, match="backend='contextual' has none"):
        Options(backend="contextual", weights="norm*corpus-idf").validate()
    with pytest.raises(ValueError, match=r"idf= was given but weights='corpus-idf' does not use it \(it reads the embedding file's"):
        WRDScorer(embedding=with_table, weights="corpus-idf").score(["a"], ["b"], idf={"a": 1.0})


def test_chunked_streamed_and_distributed_scoring_fit_nothing(with_table):
    scorer = WRDScorer(embedding=with_table, weights="corpus-idf")
    preds, refs = ["get count", "set color", "size"], ["size", "get name", ["list", "get size"]]
    one = scorer.score(preds, refs)
    assert score_chunked(scorer, preds, refs, chunk_size=1) == one
    assert [s.f1 for s in iter_scores(scorer, zip(preds, refs), chunk_size=1)] == one["f1"]  # no idf= needed
    tm = pytest.importorskip("wrd_score.integrations.torchmetrics")
    metric = tm.WRDScore(embedding=with_table, weights="corpus-idf")  # no table asked for
    metric.update(preds[:1], refs[:1])
    metric.update(preds[1:], refs[1:])
    assert metric.compute()["f1"] == one["f1"]


def test_cli_corpus_idf(with_table, run_cli):
    code, out, _ = run_cli("score", "--strings", "-c", "get count", "-r", "size", "--embedding", with_table,
                           "--weights", "corpus-idf", "--json")
    assert code == 0 and json.loads(out) == WRDScorer(embedding=with_table, weights="corpus-idf").score(
        ["get count"], ["size"])


def test_idf_masses_read_the_table_as_calling_it_does():
    # token_masses reads IDFTable's dict directly (a speed path): the values must stay idf(token),
    # the default for unseen tokens, and a subclass's own __call__ must still be honoured.
    from wrd_score.weights import IDFTable, fit_idf, token_masses

    table = fit_idf([["get", "count"], ["get", "size"]])
    tokens = ["get", "size", "unseen", "count"]
    norms = np.array([2.0, 0.5, 1.0, 3.0])
    want = np.array([table(t) for t in tokens]) * norms
    assert token_masses(norms, tokens, "norm*idf", table).tolist() == want.tolist()

    class Doubled(IDFTable):
        def __call__(self, token):
            return 2 * super().__call__(token)

    doubled = Doubled(table.weights, table.default, table.n_documents, table.source)
    assert token_masses(norms, tokens, "idf", doubled).tolist() == [2 * table(t) for t in tokens]


def test_corpus_idf_read_by_vocabulary_row_is_the_table_itself():
    # encode hands token_masses each token's row in the embedding; the embedding file's IDF is then
    # read by row: the values must be idf(token) for tokens in and out of the vocabulary, and a word
    # list other than the table's own must not be read by row.
    from wrd_score.weights import corpus_idf, token_masses

    scorer = WRDScorer(tokenizer="words", weights="norm*corpus-idf")
    table, emb = scorer.corpus_idf, scorer.backend.embedding
    assert table is corpus_idf(emb) and table.by_word[0] is emb.words
    enc = scorer.backend.encode(["The quick brown fox jumps over a lazy dog", "xqzvw glorbification 1987",
                                 "getCount size"])
    words, rows = enc.vocabulary
    assert words is emb.words and (rows < 0).any() and (rows >= 0).any()
    want = np.array([table(t) for t in enc.tokens]) * enc.norms
    assert token_masses(enc.norms, enc.tokens, "norm*corpus-idf", table, enc.vocabulary).tolist() == want.tolist()
    shifted = (list(emb.words), np.maximum(rows - 1, -1))  # an equal list, but not the table's own
    assert token_masses(enc.norms, enc.tokens, "norm*corpus-idf", table, shifted).tolist() == want.tolist()


@pytest.mark.parametrize("key, made", [("getCount", "['get', 'count']"), ("get count", "['get', 'count']"),
                                       ("GET", "['get']"), ("", None)])
def test_an_idf_key_that_is_never_a_token_is_refused(key, made):
    """Red-team finding: keys are matched to tokens as they are, so `getCount`, `get count` or `GET` went unused and
    every token got the table's largest weight: the scores of weights="uniform", under an idf:user signature."""
    with pytest.raises(ValueError, match=f"idf key {key!r} ") as info:
        score(["get count value"], ["size count"], weights="idf", idf={key: 5.0, "count": 1.0})
    assert (made or "makes no token") in str(info.value)
    # The same keys as tokens are taken, and weigh.
    weighted = score(["get count value"], ["size count"], weights="idf", idf={"get": 5.0, "count": 1.0})
    assert weighted["f1"] != score(["get count value"], ["size count"], weights="uniform")["f1"]


def test_an_idf_key_is_checked_against_the_scorers_own_tokenizer():
    # "count2" is one token of the words tokenizer, two of the identifier one.
    assert score(["count2"], ["count2 size"], weights="idf", tokenizer="words", idf={"count2": 2.0})["f1"]
    with pytest.raises(ValueError, match=r"idf key 'count2' is not one token: "
                                         r"the identifier tokenizer makes \['count', '2'\]"):
        score(["count2"], ["count2 size"], weights="idf", idf={"count2": 2.0})


def test_an_idf_file_with_a_key_that_is_never_a_token_names_the_file(tmp_path, capsys):
    from wrd_score import cli

    path = tmp_path / "idf.tsv"
    path.write_text("getCount\t2.0\n", encoding="utf-8")
    code = cli.main(["score", "-c", "get count", "-r", "size", "--weights", "idf", "--idf-file", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and f"idf file {str(path)!r}: idf key 'getCount' is not one token" in err, err


def test_a_wordpiece_idf_key_must_be_in_the_models_vocabulary():
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    options = dict(backend="contextual", device="cpu", pooling="wordpiece", weights="idf")
    scorer = WRDScorer(**options)
    pieces = scorer.backend.tokenize("getCount")  # ['get', '##co', '##unt']
    assert scorer.score(["getCount"], ["size"], idf={piece: 2.0 for piece in pieces})["f1"]
    with pytest.raises(ValueError, match="idf key 'getCount' is not a word piece of"):
        scorer.score(["getCount"], ["size"], idf={"getCount": 2.0})


def test_idf_table_reads_a_plain_string_as_one_reference():
    """Red-team finding: idf_table(["get_count", ...]) fit IDF on characters (tokens 'a', 'c', 'd', ...), and the
    table the docs tell torchmetrics and chunked users to pass scored other numbers than one call, under the same
    signature."""
    P, R = ["getCount", "setValue", "readFile", "size"], ["get_count", "getValue", "read_file", "length"]
    scorer = WRDScorer(weights="idf")
    table = scorer.idf_table(R)
    assert table.weights == scorer.idf_table([[r] for r in R]).weights
    assert "get" in table.weights and "a" not in table.weights
    assert scorer.score(P, R, idf=table)["f1"] == scorer.score(P, R)["f1"]
    assert scorer.idf_table(iter([["size", "get_count"], "set_color"])).weights == \
        scorer.idf_table([["size", "get_count"], ["set_color"]]).weights
    with pytest.raises(TypeError, match=r"references\[1\] must be a string or a list of strings"):
        scorer.idf_table(["size", 3])


# ------------------------------------------------- non-finite masses: refused, never scored as uniform masses
# Before, a text whose masses summed to inf or NaN (or held a negative mass) fell back to uniform masses without a
# word: the scores of weights="uniform" under another signature.  Every way in is refused by name; normalise is
# the last guard.
P, R = ["getCount size"], ["get_count length"]
BAD_WEIGHTS = [math.inf, -math.inf, math.nan, -1.0, 1e101]


@pytest.mark.parametrize("mass", [[math.inf, 1.0], [math.nan, 1.0], [1e308, 1e308], [-1.0, 2.0], [-1.0, -1.0]])
def test_normalise_refuses_masses_that_are_not_finite_or_negative(mass):
    from wrd_score.scoring import score_pairs
    from wrd_score.weights import normalise
    from wrd_score.backends.base import Encoded

    with pytest.raises(ValueError, match="masses"):
        normalise(np.array(mass))
    # The batch scorer normalises every text at once: the same rule.
    enc = Encoded(units=np.eye(3), norms=np.ones(3), exact_only=np.zeros(3, bool), tokens=["a", "b", "c"],
                  spans=[np.array([0, 1]), np.array([2])])
    with pytest.raises(ValueError, match="masses"):
        score_pairs(enc, ["a b", "c"], np.array([[0, 1]]), np.array(mass + [1.0]), "wrd", True)


def test_normalise_keeps_the_all_zero_fallback():
    from wrd_score.weights import normalise

    assert normalise(np.zeros(4)).tolist() == [0.25] * 4
    assert normalise(np.array([0.0, 3.0])).tolist() == [0.0, 1.0]


# One normalisation rule.  normalise (one text: explain(), the POT path) summed a text's masses with numpy's pairwise
# sum, normalise_texts (the batch scorer) in token order: from 8 tokens on the totals differed in their last bits, and
# explain() reported P/R that differed from score()'s for 85 of 300 sentence pairs (up to 1.1e-16).
LONG_PAIRS = [("Chinese general's son gets 10 years jail for rape", "Chinese general’s son gets 10 years’ jail for gang-rape"),
              ("A few possible problems: 1) Such an ID system seems a little intrusive.",
               "In mathematics, we already have a database of this sort - two them, in fact, with in MathSciNet and "
               "Zentralblatt MATH."),
              ("A child is walking down the street as a jeep pulls up.",
               "A woman is walking along a road and a man in a motorcar pulls up beside her.")]


def test_one_text_is_normalised_as_the_batch_normalises_it():
    from wrd_score.weights import normalise, normalise_texts

    mass = np.random.default_rng(0).random(24)
    assert mass.sum() != np.add.accumulate(mass)[-1]  # not vacuous: numpy's pairwise sum differs from one in order
    together = normalise_texts(np.concatenate([mass, mass[:3]]), np.array([24, 3]))
    assert normalise(mass).tobytes() == together[:24].tobytes()


@pytest.mark.parametrize("preset", ["sentences", "identifiers"])
def test_explain_reports_the_numbers_score_gives(preset):
    scorer = WRDScorer(preset=preset)
    for prediction, reference in LONG_PAIRS:
        scored = scorer.score([prediction], [reference])
        detail = scorer.explain(prediction, reference)
        assert (detail.precision, detail.recall) == (scored["precision"][0], scored["recall"][0]), prediction


@pytest.mark.parametrize("weight", BAD_WEIGHTS)
def test_an_idf_table_built_with_a_weight_out_of_range_is_refused(weight):
    from wrd_score.weights import IDFTable

    with pytest.raises(ValueError, match=r"IDFTable weights\['get'\] must be"):
        IDFTable({"get": weight, "count": 1.0}, 1.0, -1, "mine")
    with pytest.raises(ValueError, match="IDFTable default must be"):
        IDFTable({"get": 1.0}, weight, -1, "mine")
    with pytest.raises(TypeError, match=r"IDFTable weights\['get'\] must be a number, got '5'"):
        IDFTable({"get": "5"}, 1.0, -1, "mine")


def test_an_idf_table_built_directly_holds_float_weights_as_every_other_path():
    """IDFTable kept int and numpy weights as given, where user_idf and fit_idf hold floats: one table, two types."""
    from wrd_score.integrations.torchmetrics import WRDScore
    from wrd_score.weights import IDFTable, user_idf

    given = {"get": 2, "count": np.float32(1.5), "size": np.int64(3), "length": np.float64(0.5)}
    built = IDFTable(given, np.int64(3), 2, "mine")
    assert {type(v) for v in built.weights.values()} == {float} and type(built.default) is float
    assert built.weights == {"get": 2.0, "count": 1.5, "size": 3.0, "length": 0.5}
    as_floats = IDFTable({k: float(v) for k, v in given.items()}, 3.0, 2, "mine")
    scorer = WRDScorer(weights="idf")
    assert scorer.score(P, R, idf=built) == scorer.score(P, R, idf=as_floats)
    assert scorer.score(P, R, idf=user_idf(given)) == scorer.score(P, R, idf=user_idf(as_floats.weights))
    pytest.importorskip("torchmetrics")
    assert WRDScore(weights="idf", idf=built)._config() == WRDScore(weights="idf", idf=as_floats)._config()


@pytest.mark.parametrize("bad,exc,match", [
    ({"get": True}, TypeError, r"IDFTable weights\['get'\] must be a number, got True"),
    ({"get": np.bool_(True)}, TypeError, r"IDFTable weights\['get'\] must be a number, got"),
    ({3: 1.0}, TypeError, r"IDFTable weights keys must be strings, got int \(3\)"),
])
def test_an_idf_table_built_directly_refuses_what_a_users_dict_may_not_hold(bad, exc, match):
    from wrd_score.weights import IDFTable

    with pytest.raises(exc, match=match):
        IDFTable(bad, 1.0, -1, "mine")


@pytest.mark.parametrize("device", ["cpu", "meta"])
def test_a_tensor_is_no_idf_weight(device):
    """A meta tensor reached torch's own "Tensor.item() cannot be called on meta tensors" through numpy."""
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match=r"^idf\['get'\] must be a number, got tensor"):
        score(P, R, weights="idf", idf={"get": torch.tensor(1.0, device=device), "count": 1.0})


@pytest.mark.parametrize("n", [True, -2, 1.5, "3"])
def test_an_idf_table_refuses_a_document_count_that_is_no_count(n):
    from wrd_score.weights import IDFTable

    with pytest.raises((TypeError, ValueError), match="IDFTable n_documents"):
        IDFTable({"get": 1.0}, 1.0, n, "mine")


@pytest.mark.parametrize("weight", BAD_WEIGHTS)
@pytest.mark.parametrize("weights", ["idf", "norm*idf"])
def test_an_idf_table_changed_after_it_was_built_is_refused_where_it_is_read(weight, weights):
    scorer = WRDScorer(weights=weights)
    table = scorer.idf_table(R)
    table.weights["get"] = weight
    with pytest.raises(ValueError, match=r"idf gave token 'get' the weight"):
        scorer.score(P, R, idf=table)
    with pytest.raises(ValueError, match=r"idf gave token 'get' the weight"):
        scorer.explain(P[0], R[0], idf=table)


@pytest.mark.parametrize("weight", BAD_WEIGHTS)
def test_an_idf_subclass_whose_call_gives_a_weight_out_of_range_is_refused(weight):
    from wrd_score.weights import IDFTable

    class Odd(IDFTable):
        def __call__(self, token):
            return weight if token == "count" else 1.0

    with pytest.raises(ValueError, match=r"idf gave token 'count' the weight"):
        score(P, R, weights="idf", idf=Odd({}, 1.0, -1, "odd"))


class _Norms:
    """A custom backend (the ``Backend`` protocol): the default's, with some tokens' norms replaced."""

    def __init__(self, inner, norms):
        self.inner, self.norms = inner, norms

    def encode(self, texts):
        from dataclasses import replace

        enc = self.inner.encode(texts)
        return replace(enc, norms=np.array([self.norms.get(t, n) for t, n in zip(enc.tokens, enc.norms)]))

    def __getattr__(self, name):
        return getattr(self.inner, name)


@pytest.mark.parametrize("norm", [math.inf, math.nan, -2.0])
@pytest.mark.parametrize("weights", ["norm", "norm*idf"])
def test_a_backend_norm_that_is_not_finite_or_negative_is_refused(norm, weights):
    scorer = WRDScorer(weights=weights)
    scorer.backend = _Norms(scorer.backend, {"count": norm})
    with pytest.raises(ValueError, match=r"the backend gave token 'count' the norm"):
        scorer.score(P, R)
    with pytest.raises(ValueError, match=r"the backend gave token 'count' the norm"):
        scorer.explain(P[0], R[0])
    # weights that read no norm do not ask for one.
    scorer.options = Options(weights="uniform").validate()
    assert scorer.score(P, R)["f1"] == score(P, R, weights="uniform")["f1"]


def test_a_mass_or_a_sum_of_masses_that_overflows_is_refused():
    # Every factor finite and in range, the product or the sum not.
    scorer = WRDScorer(weights="norm*idf")
    scorer.backend = _Norms(scorer.backend, {"count": 1e300})
    with pytest.raises(ValueError, match=r"token 'count'.* overflows"):
        scorer.score(P, R, idf={"get": 1.0, "count": 1e100, "size": 1.0, "length": 1.0})
    scorer = WRDScorer(weights="norm")
    scorer.backend = _Norms(scorer.backend, {"get": 1e308, "count": 1e308})
    for call in (lambda: scorer.score(P, R), lambda: scorer.explain(P[0], R[0])):
        with pytest.raises(ValueError, match=r"masses .*sum to inf"):
            call()


# ------------------------------------------------- a user's dict passed again: never a stale table
# A dict of 250k tokens cost a scoring call ~0.4 s to check and pin (benchmarks/idf_dict_cost.py); the table it
# makes is remembered for the very dict.  Whatever changes in that dict between calls must reach the scores.
MUTATIONS = {
    "a weight changed": lambda d: d.__setitem__("get", 3.0),
    "a weight set to an equal int": lambda d: d.__setitem__("get", 2),
    "a token added": lambda d: d.__setitem__("length", 4.0),
    "a token removed": lambda d: d.pop("count"),
    "removed and put back last": lambda d: d.__setitem__("get", d.pop("get")),
    "emptied and refilled": lambda d: (lambda kept: (d.clear(), d.update(kept)))(dict(d)),
}


def test_a_dict_given_again_unchanged_is_not_checked_and_pinned_again(monkeypatch):
    from wrd_score import weights

    digests = []
    monkeypatch.setattr(weights, "table_digest", lambda table: digests.append(1) or "0" * 64)
    table = {"get": 2.0, "count": 1.0, "size": 1.5}
    results = [score(P, R, weights="idf", idf=table) for _ in range(3)]
    assert len(digests) == 1 and results[0] == results[1] == results[2]
    table["get"] = 3.0
    score(P, R, weights="idf", idf=table)
    assert len(digests) == 2


@pytest.mark.parametrize("mutate", MUTATIONS.values(), ids=MUTATIONS.keys())
def test_a_dict_changed_between_calls_scores_as_a_fresh_dict(mutate):
    scorer = WRDScorer(weights="idf")
    table = {"get": 2.0, "count": 1.0, "size": 1.5}
    scorer.score(P, R, idf=table)
    scorer.score(P, R, idf=table)  # remembered, if anything is
    mutate(table)
    assert scorer.score(P, R, idf=table) == scorer.score(P, R, idf=dict(table))


@pytest.mark.parametrize("bad,exc,match", [
    (True, TypeError, r"idf\['get'\] must be a number, got True"),
    (math.nan, ValueError, r"idf\['get'\] must be finite"),
    (-1.0, ValueError, r"idf\['get'\] must be finite and >= 0"),
    ("5", TypeError, r"idf\['get'\] must be a number, got '5'"),
])
def test_a_dict_given_a_bad_weight_between_calls_is_refused(bad, exc, match):
    table = {"get": 2.0, "count": 1.0, "size": 1.5}
    for _ in range(2):
        score(P, R, weights="idf", idf=table)
    table["get"] = bad
    with pytest.raises(exc, match=match):
        score(P, R, weights="idf", idf=table)


def test_a_dict_given_a_key_no_text_makes_between_calls_is_refused():
    table = {"get": 2.0, "count": 1.0, "size": 1.5}
    for _ in range(2):
        score(P, R, weights="idf", idf=table)
    table["getCount"] = 1.0
    with pytest.raises(ValueError, match="idf key 'getCount' is not one token"):
        score(P, R, weights="idf", idf=table)


def test_a_weight_whose_value_changes_in_place_is_read_anew():
    """A number type of the user's own can change its value without leaving the dict."""
    import numbers

    class Knob:
        def __init__(self, value):
            self.value = value

        def __float__(self):
            return self.value

    numbers.Real.register(Knob)
    knob = Knob(2.0)
    table = {"get": knob, "count": 1.0, "size": 1.5}
    first = score(P, R, weights="idf", idf=table)
    knob.value = 4.0
    assert score(P, R, weights="idf", idf=table) == score(P, R, weights="idf", idf={**table, "get": 4.0}) != first


def test_a_table_handed_out_and_changed_never_reaches_the_next_call():
    scorer = WRDScorer(weights="idf")
    given = {"get": 2.0, "count": 1.0, "size": 1.5}
    handed = scorer.idf_table(R, given)
    handed.weights["get"] = 3.0  # the caller's own object to change
    assert scorer.idf_table(R, given).weights["get"] == 2.0
    assert scorer.score(P, R, idf=given) == scorer.score(P, R, idf=dict(given))


def test_a_mapping_that_is_no_dict_is_read_every_call():
    from collections.abc import Mapping

    class View(Mapping):  # e.g. a read-only view of a table the caller keeps changing
        def __init__(self, inner):
            self.inner = inner

        def __getitem__(self, key):
            return self.inner[key]

        def __iter__(self):
            return iter(self.inner)

        def __len__(self):
            return len(self.inner)

    inner = {"get": 2.0, "count": 1.0, "size": 1.5}
    view = View(inner)
    first = score(P, R, weights="idf", idf=view)
    inner["get"] = 4.0
    assert score(P, R, weights="idf", idf=view) == score(P, R, weights="idf", idf=dict(inner)) != first
