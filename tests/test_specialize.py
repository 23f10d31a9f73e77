"""Counter-fitting, role-aware verb norms and the negation direction (wrd_score.specialize), and the constraint
builder (wrd_score.constraints), on tiny inputs."""
import gzip
import hashlib
import json

import numpy as np
import pytest

from wrd_score.cli import main
from wrd_score.constraints import (Constraint, co_declarations, merge_constraints, mined_antonyms, read_constraints,
                                   read_triplets, split_constraints, triplet_words, build_triplets, write_constraints,
                                   write_triplets, MethodRow, method_rows, same_stem)
from wrd_score.embeddings import StaticEmbedding
from wrd_score.specialize import NEGATORS, counter_fit, negation_rows, specialize_file, verb_norms, verb_shares


def _cos(v, i, j):
    return float(v[i] @ v[j] / np.linalg.norm(v[i]) / np.linalg.norm(v[j]))


@pytest.fixture()
def space():
    rng = np.random.default_rng(0)
    base = rng.normal(size=(1, 16))
    words = ["get", "set", "fetch", "start", "begin", "stop", "count", "size", "fetched", "other"]
    vectors = base + 0.6 * rng.normal(size=(len(words), 16))  # one shared direction: every cosine is high
    vectors[words.index("fetched")] = vectors[words.index("fetch")] + 0.05 * rng.normal(size=16)
    vectors[words.index("other")] = rng.normal(size=16)  # far from the rest: no one's neighbour
    vectors *= rng.uniform(0.5, 3.0, size=(len(words), 1))
    return words, vectors


CONSTRAINTS = [Constraint("antonym", "get", "set", "java"), Constraint("synonym", "get", "fetch", "wordnet"),
               Constraint("antonym", "start", "stop", "wordnet")]


def test_counter_fitting_repels_antonyms_attracts_synonyms_and_keeps_norms(space):
    words, vectors = space
    i = {w: k for k, w in enumerate(words)}
    before_ant, before_syn = _cos(vectors, i["get"], i["set"]), _cos(vectors, i["get"], i["fetch"])
    assert before_ant > 0.5
    fitted, stats = counter_fit(words, vectors, CONSTRAINTS, iterations=60)
    assert _cos(fitted, i["get"], i["set"]) <= 1e-6 and _cos(fitted, i["start"], i["stop"]) <= 1e-6
    assert _cos(fitted, i["get"], i["fetch"]) > max(before_syn, 0.9)
    # the norm is the mass: only directions move
    np.testing.assert_allclose(np.linalg.norm(fitted, axis=1), np.linalg.norm(vectors, axis=1), rtol=1e-12)
    # a word in no constraint and no constrained word's neighbourhood does not move at all
    assert np.array_equal(fitted[i["other"]], vectors[i["other"]])
    assert stats.antonyms == 2 and stats.synonyms == 1 and stats.antonyms_apart == 1.0


def test_vector_space_preservation_keeps_a_close_neighbour_close(space):
    words, vectors = space
    i = {w: k for k, w in enumerate(words)}
    before = _cos(vectors, i["fetch"], i["fetched"])
    assert before > 0.8  # within rho = 0.2 of each other
    with_vsp, stats = counter_fit(words, vectors, CONSTRAINTS, iterations=60)
    without, _ = counter_fit(words, vectors, CONSTRAINTS, iterations=60, rho=0.0)
    assert stats.neighbour_pairs >= 1
    assert _cos(with_vsp, i["fetch"], i["fetched"]) > _cos(without, i["fetch"], i["fetched"])
    assert _cos(with_vsp, i["fetch"], i["fetched"]) >= before - 0.05


def test_counter_fitting_is_deterministic_to_the_bit(space):
    words, vectors = space
    a, _ = counter_fit(words, vectors, CONSTRAINTS)
    b, _ = counter_fit(words, vectors, list(reversed(CONSTRAINTS)))  # the order of the constraints does not matter
    assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("kwargs, message", [({"delta": -1}, "delta"), ({"iterations": 1.5}, "iterations"),
                                             ({"k_vsp": float("nan")}, "k_vsp")])
def test_bad_parameters_name_the_argument(space, kwargs, message):
    with pytest.raises(ValueError, match=message):
        counter_fit(*space, CONSTRAINTS, **kwargs)


def test_verb_norms_give_a_leading_verb_the_weight_of_an_object(space):
    words, vectors = space
    vectors = vectors.copy()
    i = {w: k for k, w in enumerate(words)}
    vectors[i["get"]] *= 0.01 / np.linalg.norm(vectors[i["get"]])  # the SIF-shaped norm of a frequent word
    names = [["get", "count"], ["get", "size"], ["set", "count"], ["get", "count", "size"], ["count"]]
    shares, objects = verb_shares(names, min_names=1)
    assert shares["get"] == 1.0 and shares["count"] == pytest.approx(1 / 4)
    out, reference, grown = verb_norms(words, vectors, shares, objects)
    assert reference in {np.linalg.norm(vectors[i["count"]]), np.linalg.norm(vectors[i["size"]])}
    assert np.linalg.norm(out[i["get"]]) == pytest.approx(reference)
    assert _cos(out, i["get"], i["set"]) == pytest.approx(_cos(vectors, i["get"], i["set"]))  # direction kept
    assert np.array_equal(out[i["other"]], vectors[i["other"]]) and grown >= 1


def test_negation_direction_matches_negations_only():
    rng = np.random.default_rng(1)
    words = ["is", "empty", "not", "no", "has", "value"]
    vectors = rng.normal(size=(1, 12)) + 0.5 * rng.normal(size=(len(words), 12))
    out, changed = negation_rows(words, vectors, NEGATORS, reference=2.0)
    assert changed == ["not", "no"]
    assert _cos(out, 2, 3) == pytest.approx(1.0)
    assert all(_cos(out, 2, k) < 0 for k in (0, 1, 4, 5))
    assert np.linalg.norm(out[2]) >= 2.0


def _tiny_npz(path, space):
    words, vectors = space
    words = words + ["not"]
    vectors = np.vstack([vectors, vectors[:1] * -1])
    emb = StaticEmbedding(words, vectors, name="tiny", df_table={"get": 3, "count": 1}, df_documents=4)
    emb.save(str(path))
    return path


def test_specialize_file_writes_the_same_bytes_twice_and_records_how(space, tmp_path):
    src = _tiny_npz(tmp_path / "tiny.npz", space)
    cons = tmp_path / "c.tsv"
    write_constraints(str(cons), CONSTRAINTS)
    names = tmp_path / "names.txt.gz"
    with gzip.open(names, "wt") as handle:
        handle.write("\n".join(["getCount"] * 3 + ["getSize", "setCount", "count"] * 40) + "\n")
    outs = []
    for k in range(2):
        out = tmp_path / f"out{k}.npz"
        digest = specialize_file(str(src), str(out), {str(cons): read_constraints(str(cons))}, name="tiny-cf",
                                 command="wrdscore specialize ...", verb_corpus=str(names), negators=NEGATORS)
        assert digest == hashlib.sha256(out.read_bytes()).hexdigest()
        outs.append(digest)
    assert outs[0] == outs[1]
    emb = StaticEmbedding.load(str(tmp_path / "out0.npz"))
    record = emb.meta["specialize"]
    assert emb.name == "tiny-cf" and record["command"] == "wrdscore specialize ..."
    assert record["counterfit"]["constraints"][0]["sha256"] == hashlib.sha256(cons.read_bytes()).hexdigest()
    assert record["negation"]["words"] == ["not"] and record["verbs"]["names"] == 4  # distinct names
    assert emb.df_table == {"get": 3, "count": 1} and emb.words == space[0] + ["not"]


def test_cli_specialize(space, tmp_path, capsys):
    src = _tiny_npz(tmp_path / "tiny.npz", space)
    cons = tmp_path / "c.tsv"
    write_constraints(str(cons), CONSTRAINTS)
    out = tmp_path / "cf.npz"
    assert main(["specialize", str(src), "-o", str(out), "--constraints", str(cons), "--name", "cf",
                 "--iterations", "5"]) == 0
    assert "wrote" in capsys.readouterr().out
    meta = StaticEmbedding.load(str(out)).meta["specialize"]
    assert meta["counterfit"]["iterations"] == 5 and meta["command"].startswith("wrdscore specialize")
    with pytest.raises(ValueError, match="verb"):
        specialize_file(str(src), str(tmp_path / "x.npz"), {}, name="x", negators=NEGATORS)


# ------------------------------------------------------------------------------------------ constraints
ROWS = [MethodRow(repo, f"{repo}/F{k}.java", name)
        for repo in ("r1", "r2", "r3") for k in range(4)
        for name in (f"getItem{k}", f"setItem{k}", f"getName{k}", f"setName{k}", f"findUser{repo}{k}",
                     f"getTransformed{k}", f"getTransforming{k}")]


def test_mining_finds_complements_and_not_shared_objects_by_chance():
    counts = co_declarations(ROWS)
    vocabulary = {"get", "set", "find", "transformed", "transforming"}
    found = {c.pair for c, _, _ in mined_antonyms(counts, vocabulary, min_files=10, min_repos=3)}
    assert ("get", "set") in found
    assert not any("find" in pair for pair in found)  # find never shares an object with get here
    assert counts.both[("get", "set")] == 24  # (file, object) units declaring both: 2 objects x 12 files
    # two repos only: below min_repos
    two = co_declarations(r for r in ROWS if r.repo != "r3")
    assert not mined_antonyms(two, vocabulary, min_files=4, min_repos=3)
    assert same_stem("transformed", "transforming")


def test_method_rows_skip_test_files(tmp_path):
    path = tmp_path / "names.tsv.gz"
    with gzip.open(path, "wt") as handle:
        handle.write("repo\tpath\tname\tis_test_path\nr\ta.java\tgetX\t0\nr\tT.java\ttestX\t1\n")
    assert [r.name for r in method_rows(str(path))] == ["getX"]
    assert len(list(method_rows(str(path), include_tests=True))) == 2


def test_merge_keeps_one_relation_per_pair_antonyms_first():
    merged = merge_constraints([Constraint("synonym", "set", "get", "wordnet")],
                               [Constraint("antonym", "get", "set", "java"), Constraint("antonym", "get", "set", "wordnet")])
    assert merged == [Constraint("antonym", "get", "set", "java+wordnet")]


def test_constraints_and_triplets_files_round_trip(tmp_path):
    path = tmp_path / "c.tsv"
    write_constraints(str(path), CONSTRAINTS + CONSTRAINTS)
    assert read_constraints(str(path)) == sorted(set(CONSTRAINTS))
    path.write_text("relation\tword1\tword2\tsource\nopposite\ta\tb\tx\n")
    with pytest.raises(ValueError, match=r"c.tsv:2: relation must be one of"):
        read_constraints(str(path))


def test_split_holds_out_whole_pairs_before_building_triplets(tmp_path):
    constraints = [Constraint("antonym", "get", "set", "java"), Constraint("synonym", "set", "put", "wordnet"),
                   Constraint("antonym", "start", "stop", "wordnet"), Constraint("synonym", "start", "begin", "wordnet"),
                   Constraint("antonym", "open", "close", "wordnet"), Constraint("synonym", "close", "shut", "wordnet"),
                   Constraint("synonym", "big", "large", "wordnet")]
    words = triplet_words(constraints)
    assert ("set", "put", "get") in words and ("start", "begin", "stop") in words
    train, held = split_constraints(constraints, words, fraction=0.5, seed=0)
    again = split_constraints(constraints, words, fraction=0.5, seed=0)
    assert (train, held) == again
    held_pairs = {tuple(sorted((a, o))) for a, _, o in held} | {tuple(sorted((a, s))) for a, s, _ in held}
    assert held and not held_pairs & {c.pair for c in train}
    assert Constraint("synonym", "big", "large", "wordnet") in train  # in no triplet: never held out
    rows = [MethodRow("r", "F.java", n) for n in ("setValue", "putValue", "getValue", "startServer", "stopServer",
                                                  "beginServer", "closeFile", "openFile", "shutFile")]
    triplets = build_triplets(held, co_declarations(rows), per_triple=1)
    assert {t.words for t in triplets} == set(held)
    out = tmp_path / "t.tsv"
    write_triplets(str(out), triplets)
    assert read_triplets(str(out)) == triplets


def test_wordnet_constraints_keep_first_senses_only():
    pytest.importorskip("nltk")
    from wrd_score.constraints import load_wordnet, wordnet_constraints

    try:
        wordnet = load_wordnet()
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    vocabulary = ["open", "close", "shut", "valid", "invalid", "get", "set", "start", "begin", "acquire", "min",
                  "minute", "fetch"]
    found = {(c.relation, c.pair) for c in wordnet_constraints(wordnet, vocabulary)}
    assert ("antonym", ("close", "open")) in found and ("antonym", ("invalid", "valid")) in found
    assert ("synonym", ("begin", "start")) in found and ("synonym", ("close", "shut")) in found
    # rare senses (get/start: sense 12 of get; get/fetch: sense 6) and abbreviations (min/minute) are dropped
    assert not {("synonym", ("get", "start")), ("synonym", ("fetch", "get")), ("synonym", ("min", "minute"))} & found
    assert not any(pair == ("get", "set") for _, pair in found)
