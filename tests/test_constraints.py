"""The constraint builder (wrd_score.constraints) on tiny inputs: mining, WordNet, merging, the held-out split."""
import gzip

import pytest

from wrd_score.constraints import (Constraint, MethodRow, build_triplets, co_declarations, merge_constraints,
                                   method_rows, mined_antonyms, morphological_antonyms, read_constraints, read_triplets,
                                   same_stem,
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


def test_morphology_pairs_a_word_with_its_negating_prefix_only():
    vocabulary = {"valid", "invalid", "lock", "unlock", "serialize", "deserialize", "it", "unit", "known", "unknown",
                  "Valid", "un", "unlocked"}
    pairs = {c.pair for c in morphological_antonyms(vocabulary)}
    assert pairs == {("invalid", "valid"), ("lock", "unlock"), ("deserialize", "serialize"), ("known", "unknown")}
    assert all(c.relation == "antonym" and c.source == "morphology" for c in morphological_antonyms(vocabulary))
    # only words the code uses (known), and a shorter stem when asked
    known = {"lock", "unlock", "valid"}
    assert {c.pair for c in morphological_antonyms(vocabulary, known=known)} == {("lock", "unlock")}
    assert ("it", "unit") in {c.pair for c in morphological_antonyms(vocabulary, min_stem=2)}
    with pytest.raises(ValueError, match="prefixes"):
        morphological_antonyms(vocabulary, prefixes=["un", "-"])
    with pytest.raises(ValueError, match="min_stem"):
        morphological_antonyms(vocabulary, min_stem=0)


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


# ------------------------------------------------------------------------------------------ hostile parameters
@pytest.mark.parametrize("kwargs, message", [({"min_files": 0}, "min_files"), ({"min_repos": -3}, "min_repos"),
                                             ({"min_dice": 7.0}, "min_dice"), ({"min_dice": float("nan")}, "min_dice")])
def test_mining_thresholds_are_checked(kwargs, message):
    with pytest.raises(ValueError, match=message):
        mined_antonyms(co_declarations(ROWS), {"get", "set"}, **kwargs)


def test_split_and_triplet_parameters_are_checked():
    words = [("get", "fetch", "set")]
    for kwargs, message in (({"fraction": 1.0}, "fraction"), ({"fraction": float("nan")}, "fraction"),
                            ({"seed": -1}, "seed"), ({"seed": 1.5}, "seed")):
        with pytest.raises(ValueError, match=message):
            split_constraints(CONSTRAINTS, words, **kwargs)
    for per_triple in (0, 10**9, True):
        with pytest.raises(ValueError, match="per_triple"):
            build_triplets(words, co_declarations(ROWS), per_triple=per_triple)


def test_constraints_files_are_read_with_bounded_lines_and_count(tmp_path, monkeypatch):
    from wrd_score import constraints as module
    from wrd_score.files import MAX_LINE_BYTES

    path = tmp_path / "c.tsv"
    path.write_text("relation\tword1\tword2\tsource\nantonym\tget\t" + "x" * (MAX_LINE_BYTES + 10))
    with pytest.raises(ValueError, match="line 2: longer than"):
        read_constraints(str(path))
    write_constraints(str(path), CONSTRAINTS)
    monkeypatch.setattr(module, "MAX_CONSTRAINTS", 2)
    with pytest.raises(ValueError, match="more than 2 constraints"):
        read_constraints(str(path))


@pytest.mark.parametrize("argv, flag", [
    (["--min-code-cosine", "0.5"], "--min-code-cosine"),   # no --code-space: ignored
    (["--per-triple", "5"], "--per-triple"),                # no --triplets: ignored
    (["--dev-fraction", "0.3"], "--dev-fraction"),
    (["--seed", "3"], "--seed"),
    (["--min-dice", "7"], "--min-dice"),
    (["--min-files", "-3"], "--min-files"),
    (["--senses", "0"], "--senses"),
])
def test_cli_constraints_refuses_ignored_and_bad_options(tmp_path, capsys, argv, flag):
    from wrd_score.cli import main

    methods = tmp_path / "m.tsv"
    methods.write_text("repo\tpath\tname\tis_test_path\nr\ta.java\tgetX\t0\n")
    out = tmp_path / "c.tsv"
    assert main(["constraints", "-o", str(out), "--vocabulary", "wrd-minilm-distilled", "--methods", str(methods),
                 *argv]) == 2
    assert flag in capsys.readouterr().err
    assert not out.exists()


def test_cli_constraints_writes_the_morphology_file_apart(tmp_path, capsys):
    from wrd_score.cli import main

    methods = tmp_path / "m.tsv"
    methods.write_text("repo\tpath\tname\tis_test_path\n" + "".join(
        f"r\tF{k}.java\t{verb}Lock{k}\t0\n" for k in range(5) for verb in ("lock", "unlock", "get")))
    out, morph = tmp_path / "c.tsv", tmp_path / "morph.tsv"
    assert main(["constraints", "-o", str(out), "--vocabulary", "wrd-minilm-distilled", "--methods", str(methods),
                 "--morphology", str(morph)]) == 0
    assert {c.pair for c in read_constraints(str(morph))} == {("lock", "unlock")}   # the only code words it pairs
    assert ("lock", "unlock") not in {c.pair for c in read_constraints(str(out)) if c.source == "morphology"}
    assert "1 antonyms of a negating prefix" in capsys.readouterr().out


@pytest.mark.parametrize("outputs, message", [
    (["-o", "{m}"], "output '{m}' is also the --methods input"),             # the corpus would be overwritten
    (["-o", "{c}", "--morphology", "{c}"], "--morphology and -o name the same file"),
    (["-o", "{c}", "--train-output", "{t}", "--triplets", "{c}"], "--triplets and -o name the same file"),
])
def test_cli_constraints_refuses_outputs_on_an_input_or_on_each_other(tmp_path, capsys, outputs, message):
    from wrd_score.cli import main

    methods = tmp_path / "m.tsv"
    methods.write_text("repo\tpath\tname\tis_test_path\nr\ta.java\tgetX\t0\n")
    before = methods.read_bytes()
    paths = {"m": str(methods), "c": str(tmp_path / "c.tsv"), "t": str(tmp_path / "t.tsv")}
    argv = [a.format(**paths) for a in outputs]
    assert main(["constraints", "--vocabulary", "wrd-minilm-distilled", "--methods", str(methods), *argv]) == 2
    assert message.format(**paths) in capsys.readouterr().err
    assert methods.read_bytes() == before and not (tmp_path / "c.tsv").exists()
