"""The constraint builder (wrd_score.constraints) on tiny inputs: mining, WordNet, merging, the held-out split."""
import gzip

import pytest

from wrd_score.constraints import (Constraint, MethodRow, build_triplets, co_declarations, merge_constraints,
                                   method_rows, mined_antonyms, read_constraints, read_triplets, same_stem,
                                   split_constraints, triplet_words, write_constraints, write_triplets)

CONSTRAINTS = [Constraint("antonym", "get", "set", "java"), Constraint("synonym", "get", "fetch", "wordnet"),
               Constraint("antonym", "start", "stop", "wordnet")]


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
