"""`preset=` (named bundles of defaults, options.py) and benchmarks/choose_presets.py, which chooses them."""
import json
from dataclasses import fields

import numpy as np
import pytest

import wrd_score.options
from wrd_score import WRDScorer, score
from wrd_score.options import (DEFAULT_PRESET, OTHER_EMBEDDING_CLIP, OTHER_EMBEDDING_WEIGHTS, PRESETS, Options,
                               option_info)

#: A bundle unlike any shipped one, so a test sees the preset act whatever the shipped values are.
ODD = {"embedding": "default", "variant": "paper", "weights": "uniform", "clip_negative": True}


@pytest.fixture
def odd_sentences(monkeypatch):
    monkeypatch.setitem(PRESETS["sentences"], "static", dict(ODD))
    return ODD


# --------------------------------------------------------------------------- resolution
def test_the_default_preset_is_identifiers_and_fills_every_preset_option():
    assert DEFAULT_PRESET == "identifiers" and Options().preset == "identifiers"
    for backend in ("static", "contextual"):
        resolved = Options(backend=backend).validate()
        for name, value in PRESETS["identifiers"][backend].items():
            assert getattr(resolved, name) == value
    # Options of the other backend stay unset: nothing is filled that the backend would ignore.
    assert Options(backend="static", preset="sentences").validate().pooling is None
    assert Options(backend="contextual", preset="sentences").validate().embedding is None


@pytest.mark.parametrize("preset", sorted(PRESETS))
@pytest.mark.parametrize("backend", ["static", "contextual"])
def test_an_option_given_explicitly_wins_over_the_preset(preset, backend):
    bundle = PRESETS[preset][backend]
    others = {"variant": {"wrd": "paper", "paper": "wrd"}, "weights": {"uniform": "norm"},
              "pooling": {"tokenizer": "wordpiece", "wordpiece": "tokenizer"}, "clip_negative": {True: False, False: True},
              "embedding": {"default": "x.npz", "wrd-minilm-code": "x.npz", "wrd-minilm-sentences": "x.npz"}}
    for name, value in bundle.items():
        given = others.get(name, {}).get(value, "uniform" if name == "weights" else 2 if name == "layer" else None)
        resolved = Options(backend=backend, preset=preset, **{name: given}).validate()
        assert getattr(resolved, name) == given != value
        # Another static embedding takes the masses every embedding has (the bundle's may need its file's table),
        # and clipped cosines (kept ones were chosen for the bundle's file).
        expect = dict(bundle, weights=OTHER_EMBEDDING_WEIGHTS, clip_negative=OTHER_EMBEDDING_CLIP) \
            if name == "embedding" else bundle
        assert all(getattr(resolved, n) == v for n, v in expect.items() if n != name)


WORDPIECE_TOKENIZER = r"tokenizer='(identifier|words)' has no effect with pooling='wordpiece'"


def test_the_tokenizer_not_given_is_the_default_where_it_acts_and_none_with_word_pieces():
    # tokenizer defaulted to 'identifier', so one given with word pieces could not be told from the default and
    # was ignored (the same scores and signature for every value).  None is "not given".
    assert Options().tokenizer is None and Options().validate().tokenizer == "identifier"
    assert Options(backend="contextual").validate().tokenizer == "identifier"  # pooling='tokenizer'
    assert Options(backend="contextual", preset="sentences", pooling="tokenizer").validate().tokenizer == "identifier"
    sentences = Options(backend="contextual", preset="sentences").validate()
    assert sentences.pooling == "wordpiece" and sentences.tokenizer is None
    assert Options(**{f.name: getattr(sentences, f.name) for f in fields(Options)}).validate() == sentences
    for tokenizer in ("identifier", "words"):
        with pytest.raises(ValueError, match=WORDPIECE_TOKENIZER + ": the units are then the model's word pieces"):
            Options(backend="contextual", pooling="wordpiece", tokenizer=tokenizer).validate()
        with pytest.raises(ValueError, match=WORDPIECE_TOKENIZER + r" \(preset='sentences' sets it"):
            Options(backend="contextual", preset="sentences", tokenizer=tokenizer).validate()


def test_the_preset_changes_scores_and_the_signature_records_the_resolved_values(odd_sentences):
    pairs = (["getCount", "set artwork entry"], ["size", "update image"])
    default, sentences = WRDScorer(), WRDScorer(preset="sentences")
    assert sentences.options.variant == "paper" and sentences.options.weights == "uniform"
    assert sentences.score(*pairs)["f1"] != default.score(*pairs)["f1"]
    # Every resolved value is in the signature: it equals the one of the same settings given by hand.
    explicit = WRDScorer(**ODD)
    assert sentences.signature() == explicit.signature()
    assert "variant:paper" in sentences.signature() and "weights:uniform" in sentences.signature()
    assert "clip:yes" in sentences.signature() and "clip:no" in default.signature()
    assert sentences.score(*pairs) == explicit.score(*pairs)


def test_the_contextual_bundle_reaches_the_encoder_and_its_signature(tiny_bert):
    model = tiny_bert
    bundle = PRESETS["sentences"]["contextual"]
    by_preset = WRDScorer(backend="contextual", model=model, preset="sentences", device="cpu")
    by_hand = WRDScorer(backend="contextual", model=model, device="cpu", **bundle)
    assert by_preset.backend.pooling == bundle["pooling"]
    assert by_preset.signature() == by_hand.signature()
    assert f"weights:{bundle['weights']}" in by_preset.signature()
    pairs = (["getCount", "set artwork entry"], ["size", "update image"])
    assert by_preset.score(*pairs) == by_hand.score(*pairs)


def test_an_unknown_preset_is_a_one_line_error():
    with pytest.raises(ValueError, match=r"^preset must be one of \['identifiers', 'sentences'\], got 'code'$"):
        WRDScorer(preset="code")
    with pytest.raises(ValueError, match="preset must be one of"):
        score(["a"], ["b"], preset=None)


def test_an_option_of_the_other_backend_is_refused_even_when_it_equals_a_bundle_value():
    # pooling="tokenizer" used to equal the (contextual) default and pass unnoticed with the static backend.
    with pytest.raises(ValueError, match=r"^pooling='tokenizer' applies only to backend='contextual', but backend='static'$"):
        Options(pooling="tokenizer").validate()


def test_a_new_preset_on_resolved_options_is_refused_not_ignored():
    resolved = WRDScorer().options
    assert WRDScorer(resolved).options == resolved  # a scorer's options make the same scorer (torchmetrics, Ray)
    with pytest.raises(ValueError, match="preset='sentences' cannot act on options already resolved"):
        WRDScorer(resolved, preset="sentences")


def test_every_bundle_sets_exactly_the_preset_options_of_its_backend(monkeypatch):
    preset_options = {info.name for info in option_info() if info.preset}
    assert preset_options == {"embedding", "variant", "weights", "clip_negative", "layer", "pooling"}
    monkeypatch.setitem(PRESETS["sentences"], "static", {"variant": "wrd"})
    with pytest.raises(AssertionError, match=r"PRESETS\['sentences'\]\['static'\] sets"):
        wrd_score.options._check_declared_choices()


def test_every_surface_documents_the_preset():
    table = wrd_score.options.markdown_table()
    assert "| `preset` | `'identifiers'` |" in table
    assert "| `variant` | preset: identifiers:" in table
    assert "preset (str):" in wrd_score.options.docstring_args()


def test_the_docstring_never_splits_an_embedding_name_across_lines():
    """textwrap broke lines after a hyphen: evaluate's help read "wrd-minilm-cf-morph-" at a line's end and "post:"
    on the next, the name of another shipped file with a stray word after it."""
    from wrd_score.embeddings.store import NAMED_EMBEDDINGS

    lines = wrd_score.options.docstring_args().splitlines()
    assert not [line for line in lines if line.endswith("-")]
    text = " ".join(line.strip() for line in lines)
    for name in NAMED_EMBEDDINGS:
        assert f"{name}:" in text


# --------------------------------------------------------------------------- surfaces
def test_cli_preset_flag(odd_sentences, run_cli):
    code, out, _ = run_cli("score", "--strings", "-c", "get count", "-r", "size", "--preset", "sentences",
                           "--json")
    got = json.loads(out)
    expected = WRDScorer(preset="sentences").score(["get count"], ["size"])
    assert code == 0 and got["f1"] == expected["f1"] and got["signature"] == expected["signature"]
    # An explicit flag wins over the preset.
    _, out, _ = run_cli("score", "--strings", "-c", "get count", "-r", "size", "--preset", "sentences",
                        "--variant", "wrd", "--json")
    assert "variant:wrd" in json.loads(out)["signature"]
    code, _, err = run_cli("score", "--strings", "-c", "a", "-r", "b", "--preset", "code")
    assert code == 2 and "preset must be one of ['identifiers', 'sentences'], got 'code'" in err


def test_cli_and_evaluate_module_refuse_a_tokenizer_with_word_pieces(run_cli, repo):
    # The contextual preset='sentences' pools nothing: its --tokenizer was silently ignored.
    code, _, err = run_cli("score", "--strings", "-c", "a", "-r", "b", "--backend", "contextual", "--preset",
                           "sentences", "--tokenizer", "words")
    assert code == 2 and "--tokenizer='words' has no effect with --pooling='wordpiece'" in err
    evaluate = pytest.importorskip("evaluate")
    metric = evaluate.load(str(repo / "wrdscore.py"))
    with pytest.raises(ValueError, match=WORDPIECE_TOKENIZER):
        metric.compute(predictions=["a"], references=["b"], backend="contextual", pooling="wordpiece",
                       tokenizer="identifier")


def test_evaluate_module_preset(odd_sentences, repo):
    evaluate = pytest.importorskip("evaluate")
    metric = evaluate.load(str(repo / "wrdscore.py"))
    out = metric.compute(predictions=["get count"], references=["size"], preset="sentences")
    assert out == WRDScorer(preset="sentences").score(["get count"], ["size"])
    with pytest.raises(ValueError, match="preset must be one of"):
        metric.compute(predictions=["a"], references=["b"], preset="code")


# --------------------------------------------------------------------------- weights="corpus-idf"


# --------------------------------------------------------------------------- benchmarks/choose_presets.py
@pytest.fixture(scope="module")
def chooser(benchmark_script):
    with benchmark_script("choose_presets") as module:
        yield module


def _row(chooser, name, own, other, fixed=True):
    # own: F1 per IdBench set; other: F1 on STS-B dev (arrays against the human scores of _sets()).
    row = {"embedding": "e", "variant": name, "weights": "norm", "fixed": fixed}
    human = _sets(chooser)
    for (set_name, (_, _, h)), f1 in zip(human.items(), list(own) + [other]):
        row[set_name], row["f1:" + set_name] = float(chooser.spearmanr(f1, h)[0]), np.asarray(f1)
    return row


def _sets(chooser):
    h = np.arange(60.0)
    return {name: ([], [], h) for name, _, _ in chooser.SETS}


def test_choose_presets_keeps_the_best_unless_a_tie_is_reliably_better_elsewhere(chooser):
    h = np.arange(60.0)
    noise = np.random.default_rng(0).normal(size=(8, 60))
    good, same, bad = h + 3 * noise[0], h + 3 * noise[1] + 0.01, noise[2]
    # "a" is best on IdBench, "b" ties there and is far better on STS-B dev: identifiers takes "b".
    a = _row(chooser, "a", [good, good, good], bad)
    b = _row(chooser, "b", [same, same, same], good)
    chosen, tie = chooser.choose([a, b], _sets(chooser), "identifiers")
    assert chosen is b and [row for row, _, _ in tie] == [a, b]
    # Clearly worse on IdBench: no tie, the best stays whatever STS-B dev says.
    c = _row(chooser, "c", [bad, bad, bad], good)
    assert chooser.choose([a, c], _sets(chooser), "identifiers")[0] is a
    # Refs-fitted IDF (not the same score in any call) is never chosen, even when best.
    d = _row(chooser, "d", [h, h, h], h, fixed=False)
    assert chooser.choose([a, d], _sets(chooser), "identifiers")[0] is a


def test_choose_presets_refuses_what_ties_rouge_on_the_other_data(chooser):
    # "a" is best on IdBench but only level with ROUGE-1 on STS-B dev: the identifiers default skips it.
    h = np.arange(60.0)
    noise = np.random.default_rng(1).normal(size=(4, 60))
    good, fair = h + 3 * noise[0], h + 30 * noise[1]
    a = _row(chooser, "a", [good, good, good], fair)
    b = _row(chooser, "b", [fair, fair, fair], good)
    rouge = _row(chooser, "ROUGE-1", [noise[2]] * 3, fair)
    assert chooser.choose([a, b], _sets(chooser), "identifiers")[0] is a
    assert chooser.choose([a, b], _sets(chooser), "identifiers", rouge=rouge)[0] is b


def test_choose_presets_scores_the_fixed_table_only_where_the_file_has_one(chooser, with_table, df_embedding,
                                                                          tmp_path):
    sets = {"STS-B dev": (["get count", "set color", "size", "get name"], ["size", "color", "get size", "name"],
                          np.array([0.2, 0.5, 0.7, 0.9]))}
    rows = {(r["variant"], r["weights"]): r for r in chooser.grid(with_table, sets)}
    assert rows["wrd", "corpus-idf"]["STS-B dev"] is not None and not rows["wrd", "idf"]["fixed"]
    plain = df_embedding.write(tmp_path / "plain.npz", df=None)
    rows = {(r["variant"], r["weights"]): r for r in chooser.grid(plain, sets)}
    assert rows["wrd", "corpus-idf"]["STS-B dev"] is None and rows["wrd", "norm"]["STS-B dev"] is not None


def test_sharded_corpus_idf_merges_into_one_run(with_table, tmp_path, run_cli):
    cands, refs = tmp_path / "c.txt", tmp_path / "r.txt"
    cands.write_text("get count\nset color\nsize\nlist\n", encoding="utf-8")
    refs.write_text("get size\ncolor\nget size\nget name\n", encoding="utf-8")
    flags = ["-c", str(cands), "-r", str(refs), "--embedding", with_table, "--weights", "norm*corpus-idf"]
    code, one_run, err = run_cli("score", *flags, "--json")
    assert code == 0, err
    paths = []
    for k in (1, 2, 3):
        paths.append(str(tmp_path / f"shard{k}.json"))
        code, _, err = run_cli("score", *flags, "--shard", f"{k}/3", "-o", paths[-1])
        assert code == 0, err
    code, merged, err = run_cli("merge", *paths)
    assert code == 0, err
    assert merged == one_run and "idf:emb" in one_run


@pytest.mark.parametrize("embedding", ["wrd-java-default", "wrd-minilm-distilled"])
def test_another_embedding_without_given_weights_gets_norm_masses(embedding):
    # The bundles' norm*corpus-idf needs the default file's table: another embedding must still score.
    scorer = WRDScorer(embedding=embedding)
    assert scorer.options.weights == "norm" and "|weights:norm|" in scorer.signature()
    assert scorer.score(["get count"], ["size"])["f1"][0] > 0
    assert WRDScorer(embedding=embedding, weights="uniform").options.weights == "uniform"
    assert WRDScorer(embedding="default").options.weights == PRESETS["identifiers"]["static"]["weights"]
    # The 0.2.0 file is another embedding under either preset (0.3.0): its table is used only when asked for.
    assert WRDScorer(embedding="wrd-minilm-code", preset="sentences").options.weights == "norm"
    assert WRDScorer(embedding="wrd-minilm-code", weights="norm*corpus-idf").score(["get count"], ["size"])["f1"][0] > 0


# --------------------------------------------------------------------------- the sentences file (issue 31)
def test_the_sentences_preset_scores_with_its_own_file_and_pins_it():
    from wrd_score.embeddings import file_sha256, shipped_path

    bundle = PRESETS["sentences"]["static"]
    assert bundle["embedding"] == "wrd-minilm-sentences" != PRESETS["identifiers"]["static"]["embedding"]
    scorer = WRDScorer(preset="sentences")
    checksum = file_sha256(shipped_path("wrd-minilm-sentences.npz"))
    assert f"|emb:wrd-minilm-sentences@sha256:{checksum[:12]}|" in scorer.signature()
    assert f"|weights:{bundle['weights']}|" in scorer.signature() and "|variant:wrd|" in scorer.signature()
    pairs = (["A man is playing a guitar.", "getCount"], ["Someone plays the guitar.", "size"])
    assert scorer.score(*pairs)["f1"] != WRDScorer().score(*pairs)["f1"]  # not the identifiers file
    assert scorer.score(*pairs) == WRDScorer(**bundle).score(*pairs)


def test_the_sentences_file_under_the_other_embedding_rule():
    # Named explicitly under the identifiers preset it is "another embedding": masses not given are norm,
    # the sentences bundle's own masses, so both ways of asking for it give one score and one signature.
    by_name = WRDScorer(embedding="wrd-minilm-sentences")
    assert by_name.options.weights == OTHER_EMBEDDING_WEIGHTS == PRESETS["sentences"]["static"]["weights"]
    assert by_name.signature() == WRDScorer(preset="sentences").signature()
    # The identifiers file under the sentences preset: another embedding too, norm masses (its table unused).
    other = WRDScorer(preset="sentences", embedding="default")
    assert other.options.weights == "norm" and "emb:wrd-minilm-cf-morph-post-d125@" in other.signature()
    assert WRDScorer(preset="sentences", embedding="default", weights="norm*corpus-idf").score(
        ["get count"], ["size"])["f1"][0] > 0


# ------------------------------------------------- option kinds read from the type itself (issue 33, item 6)
from dataclasses import dataclass as _dataclass  # noqa: E402
from typing import Literal, Optional, Union  # noqa: E402

from wrd_score.options import option_field  # noqa: E402


@_dataclass(frozen=True)
class _Spelled:
    """The same kinds written every way Python allows (this module has no ``from __future__ import
    annotations``: the types are objects, as a library user's dataclass may hold them)."""

    a: Optional[str] = option_field(None, "Optional[str]")
    b: str | None = option_field(None, "PEP 604")
    c: Union[str, None] = option_field(None, "Union with None")
    d: Literal["x", "y"] = option_field("x", "Literal", values={"x": "", "y": ""})
    e: Optional[Literal["x", "y"]] = option_field(None, "Optional Literal", values={"x": "", "y": ""})
    f: int | None = option_field(None, "PEP 604 int")
    g: Union[int, str, None] = option_field(None, "int, str or None")
    h: bool = option_field(False, "bool")
    i: "Optional[float]" = option_field(None, "a string annotation of an unknown kind")


def test_option_kinds_are_read_from_the_type_not_its_spelling():
    """`str | None` once fell outside the table keyed on the annotation's text; every spelling of one type
    is now one kind, and a type options cannot hold is a clear error naming it."""
    from wrd_score.options import _kind

    kinds = {name: _kind(hint) for name, hint in {
        "a": Optional[str], "b": str | None, "c": Union[str, None], "d": Literal["x", "y"],
        "e": Optional[Literal["x", "y"]], "f": int | None, "g": Union[int, str, None], "h": bool}.items()}
    assert {kinds[n].spelling for n in "abce"} == {"Optional[str]"} and kinds["d"].spelling == "str"
    assert kinds["f"].spelling == "Optional[int]" and kinds["g"].spelling == "Optional[Union[int, str]]"
    assert kinds["h"].spelling == "bool"
    assert kinds["b"].parse("text") == "text" and kinds["f"].parse("7") == 7 and kinds["g"].parse("4,5") == "4,5"
    with pytest.raises(TypeError, match=r"an option cannot be of type typing.Optional\[float\]"):
        option_info(of=_Spelled)
    with pytest.raises(TypeError, match="Literal must hold values of one type"):
        _kind(Literal["x", 1])


def test_option_info_reads_every_spelling_of_a_dataclass():
    from wrd_score.options import _field_kinds

    @_dataclass(frozen=True)
    class Spelled:
        a: Optional[str] = option_field(None, "a")
        b: str | None = option_field(None, "b")
        d: Literal["x", "y"] = option_field("x", "d", values={"x": "", "y": ""})
        f: int | None = option_field(None, "f")

    infos = {info.name: info for info in option_info(of=Spelled)}
    assert {name: info.type for name, info in infos.items()} == {
        "a": "Optional[str]", "b": "Optional[str]", "d": "str", "f": "Optional[int]"}
    assert infos["b"].parse("abc") == "abc" and infos["f"].parse("12") == 12
    with pytest.raises(ValueError, match="f must be an integer, got 'x'"):
        infos["f"].parse("x")
    assert _field_kinds(Options)["variant"].spelling == "Optional[str]"


def test_no_option_describes_two_defaults():
    """Red-team finding: `--tokenizer` read "(default: 'identifier'; ...) ... Default: None." (also --num-threads,
    --max-length, --stride): None means "resolved later", and the help already says to what."""
    from wrd_score.options import option_info

    for info in option_info():
        text = info.describe()
        assert not ("(default" in text and "Default: None" in text), (info.name, text)


def test_negative_cosines_are_kept_for_the_identifiers_file_only():
    """0.6.0: the identifiers bundle keeps negative cosines for its own file (the rule's choice, docs/tuning.md);
    every other bundle, another embedding (a shipped file by its name too: 0.5.x's default) and the BERTScore sibling
    clip. 0.7.0's default file by its name is clipped too; 0.6.0's default is its file with clip_negative=False."""
    from wrd_score.embeddings import shipped_path
    from wrd_score.metrics.bertscore import bertscore

    assert Options().validate().clip_negative is False
    assert Options(embedding="default").validate().clip_negative is False
    assert Options(embedding=shipped_path()).validate().clip_negative is False  # the file is the name "default"
    assert Options(embedding="wrd-minilm-cf-morph-post").validate().clip_negative is True
    assert Options(embedding="wrd-minilm-cf-morph-post-d125").validate().clip_negative is True
    assert Options(embedding="wrd-minilm-distilled").validate().clip_negative is True
    assert Options(preset="sentences").validate().clip_negative is True
    assert Options(backend="contextual").validate().clip_negative is True
    assert Options(clip_negative=True).validate().clip_negative is True
    # The file by its name is 0.5.x's default: same scores as the default with clipping asked for.
    pairs = (["processType", "getCount"], ["testOfCollectionNotNull", "setCount"])
    old = WRDScorer(embedding="wrd-minilm-cf-morph-post").score(*pairs)
    assert "clip:yes" in old["signature"] and "emb:wrd-minilm-cf-morph-post@sha256:4a345f4a7139" in old["signature"]
    named = WRDScorer(embedding="wrd-minilm-cf-morph-post-d125").score(*pairs)
    assert named == WRDScorer(clip_negative=True).score(*pairs) and "clip:yes" in named["signature"]
    v060 = WRDScorer(embedding="wrd-minilm-cf-morph-post", clip_negative=False).score(*pairs)
    assert "clip:no" in v060["signature"] and v060["f1"] != WRDScorer().score(*pairs)["f1"]
    new = WRDScorer().score(*pairs)
    assert "clip:no" in new["signature"] and new["f1"][0] < 0 <= old["f1"][0]
    assert "clip:yes" in bertscore(*pairs)["signature"]
    assert bertscore(*pairs) == bertscore(*pairs, clip_negative=True)
