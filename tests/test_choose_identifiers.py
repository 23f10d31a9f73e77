"""benchmarks/choose_identifiers.py's rule 0: only a file that carries the three steps issue 30 asks for
(counter-fitting, verb masses with a weight above 0, negation) may become the identifiers default. The grid decides a
shipped default, so the eligibility it reads from the build commands must be right, and ``choose`` must honour it.
"""
from __future__ import annotations


import numpy as np
import pytest


@pytest.fixture(scope="module")
def bench(benchmark_script):
    with benchmark_script("choose_identifiers") as module:
        yield module


def test_rule_0_reads_the_three_steps_from_each_build_command(bench):
    eligible = sorted(set(bench.FILES) - set(bench.INCOMPLETE))
    assert "distilled+cf(repel)+verbs(0.5)+morph" in eligible and "code+cf(g0.3)+verbs" in eligible
    assert bench.INCOMPLETE["distilled+cf(repel)+neg+morph"] == "not eligible: no verb masses"   # --verb-weight 0
    assert bench.INCOMPLETE["code+cf"] == "not eligible: no verb masses, no negation"
    assert bench.INCOMPLETE["distilled+verbs"] == "not eligible: no counter-fitting"
    assert bench.INCOMPLETE["wrd-minilm-distilled"].endswith("no counter-fitting, no verb masses, no negation")
    for label in eligible:
        command = bench.FILES[label][0]
        assert all(flag in command for flag in ("--constraints", "--verbs", "--negation"))
        assert "--verb-weight 0 " not in command


class _Dev:
    """A dev set whose value is the mean score; every paired difference is inside the noise."""

    kind = "identifiers"

    def __init__(self, name):
        self.name = name

    def value(self, scores):
        return float(np.mean(scores))

    def paired(self, a, b, n_boot=1000):
        return float(np.mean(a) - np.mean(b)), 1.0


def test_choose_skips_an_ineligible_file_however_well_it_ranks(bench):
    dev = [_Dev("one"), _Dev("two")]
    cands = [bench.Candidate(f"{label}/wrd/norm", label, "wrd", "norm", 3, 1) for label in ("best", "second")]
    scores = {"best/wrd/norm": {"one": np.ones(3), "two": np.ones(3)},
              "second/wrd/norm": {"one": np.full(3, 0.5), "two": np.full(3, 0.5)}}
    rouge = {"one": np.zeros(3), "two": np.zeros(3)}
    assert bench.choose(cands, scores, dev, rouge, "best/wrd/norm")["chosen"].label == "best/wrd/norm"
    result = bench.choose(cands, scores, dev, rouge, "best/wrd/norm", ineligible={"best": "not eligible: no negation"})
    assert result["chosen"].label == "second/wrd/norm"
    assert result["why"]["best/wrd/norm"] == "not eligible: no negation"


def test_post_specialised_candidates_are_their_recipes_plus_the_map(bench):
    """0.5.0's grid adds the map to the two eligible recipes that led 0.4.0's rule: one step more each, nothing else
    in the command changed, and the recipe it is compared with is one of the grid's candidates."""
    def without_map_and_name(command):
        return command.replace(" --post-specialize linear", "").rsplit(" --name ", 1)[0]

    for recipe in ("distilled+cf(repel)+verbs(0.5)+morph", "distilled+cf+verbs+df+morph"):
        command, steps = bench.FILES[recipe + "+post"]
        base_command, base_steps = bench.FILES[recipe]
        assert steps == base_steps + 1 and recipe + "+post" not in bench.INCOMPLETE
        assert "--post-specialize linear" in command
        assert without_map_and_name(command) == without_map_and_name(base_command)
    assert bench.RECIPE_04.split("/")[0] in bench.FILES


def test_the_shipped_default_records_the_map_it_was_built_with():
    from wrd_score.embeddings import load_embedding

    meta = load_embedding("default").meta["specialize"]
    assert meta["post_specialize"]["method"].startswith("linear") and meta["post_specialize"]["mapped"] > 0
    assert "--post-specialize linear" in meta["command"] and meta["counterfit"]["k_synonym"] == 0.0


def test_name_caps_bind_only_above_the_cap_and_only_names_are_rescored(bench):
    """``--name-masses`` (docs/tuning.md, *Masses for names only*): a cap at the largest norm gives the norm masses'
    scores bit for bit (the idf-table route measures the masses, not the mechanism), a lower cap moves a name whose
    rare word outweighs its common one, and a sentence dev set keeps its norm twin's scores, not rescored."""
    from wrd_score import WRDScorer

    preds, refs = ["allObjects", "getCount", "newWriter"], ["wholeObjects", "size", "freshWriter"]
    by_idf = WRDScorer(weights="idf")
    want = np.asarray(WRDScorer().score(preds, refs)["f1"])
    largest = bench.largest_norm(by_idf)
    same = np.asarray(by_idf.score(preds, refs, idf=bench.name_cap_table(largest)(by_idf, preds + refs))["f1"])
    assert same.tobytes() == want.tobytes()
    capped = np.asarray(by_idf.score(preds, refs, idf=bench.name_cap_table(0.25 * largest)(by_idf, preds + refs))["f1"])
    assert capped[0] > want[0] and capped[1] == want[1]  # whole's norm is capped; get's and count's are below the cap

    class Dev(_Dev):
        def __init__(self, name, kind, texts):
            super().__init__(name)
            self.kind, self.texts = kind, texts

        def pairs(self):
            return self.texts

    names = Dev("names", "identifiers", (preds, refs))
    sentences = Dev("sentences", "sentences", (["a man plays"], ["someone plays music"]))
    cand = bench.Candidate("default/wrd/norm", "default", "wrd", "norm", 6, 1)
    scores = {cand.label: {"names": want, "sentences": np.array([0.5])}}
    added = bench.name_mass_candidates([cand], scores, [names, sentences])
    assert [c.label for c in added] == [f"default/wrd/norm, names capped at {s:.2f} x max norm" for s in bench.NAME_CAPS]
    assert all(c.complexity == cand.complexity + 1 for c in added)
    assert all(scores[c.label]["sentences"] is scores[cand.label]["sentences"] for c in added)
    mixed = Dev("mixed", "sentences", (["a man plays"], ["getCount"]))
    with pytest.raises(ValueError, match="mixed: 1 of 2 texts are one identifier"):
        bench.name_mass_candidates([cand], scores, [mixed])


def test_unclipped_candidates_keep_negative_cosines_and_their_steps(bench):
    """``--clip`` (docs/tuning.md, *Negative cosines kept*): each candidate's twin scores with clip_negative=False,
    counts the same steps, and its label names the change (the report matches twins by it)."""
    from wrd_score import WRDScorer

    class Dev(_Dev):
        def pairs(self):
            return ["processType", "getCount"], ["testOfCollectionNotNull", "setCount"]

    dev = Dev("names")
    cand = bench.Candidate("default/wrd/norm", "default", "wrd", "norm", 6, 1)
    scores = {}
    (twin,) = bench.unclipped_candidates([cand], scores, [dev])
    assert twin.label == "default/wrd/norm, cosines unclipped" and not twin.clip
    assert twin.complexity == cand.complexity
    want = WRDScorer(clip_negative=False).score(*dev.pairs())["f1"]
    assert scores[twin.label]["names"].tolist() == want and want[0] < 0  # a negative F1: clipping is off


def test_the_shipped_default_is_the_command_that_delta_prints(bench):
    """0.7.0 (``--delta``): the default file is the chosen recipe rebuilt from every constraint at the chosen δ, and
    its recorded command is the one the script prints for the choice (output path aside)."""
    import re

    from wrd_score.embeddings import load_embedding

    with_delta = bench
    meta = load_embedding("default").meta["specialize"]
    chosen = with_delta.Candidate(with_delta.RECIPE_05 + ", cosines unclipped, delta 1.25", "x", "wrd", "norm", 6, 1,
                                  clip=False)
    printed = with_delta.delta_ship_command(chosen, "OUT", "wrd-minilm-cf-morph-post-d125")
    assert re.sub(r" -o \S+", " -o OUT", meta["command"]) == printed
    assert meta["counterfit"]["delta"] == 1.25 and "--dtype int8" in printed and "all.tsv" in printed
    # without a delta in the label: the grid's δ, no --delta
    plain = with_delta.Candidate(with_delta.RECIPE_05, "x", "wrd", "norm", 5, 1)
    assert "--delta" not in with_delta.delta_ship_command(plain, "OUT", "name")


def test_delta_candidates_are_counter_fitted_files_one_step_more_and_unclipped(bench, monkeypatch, tmp_path):
    """Every counter-fitted grid file gets a twin per δ, built by its own command plus ``--delta`` (one step more), and
    each grid candidate on it is scored unclipped; files without counter-fitting get none."""
    built = []
    monkeypatch.setattr("subprocess.run", lambda words, **kw: built.append(words))
    files = bench.delta_files(tmp_path)
    counter_fitted = [k for k, (c, _) in bench.FILES.items() if c is not None and "--constraints" in c]
    assert sorted(files) == sorted(bench.delta_label(k, d) for k in counter_fitted for d in bench.DELTAS)
    assert len(built) == len(files)
    for words in built:
        at = words.index("--delta")
        origin_name = words[words.index("--name") + 1]
        assert float(words[at + 1]) in bench.DELTAS and origin_name.endswith("+delta" + words[at + 1])
    monkeypatch.setattr(bench, "delta_files", lambda workdir: files)
    grid = [bench.Candidate(k + "/wrd/norm", "f", "wrd", "norm", bench.FILES[k][1], 1) for k in ("code+verbs",
                                                                                              counter_fitted[0])]
    scores = {}
    added = bench.delta_candidates(grid, tmp_path, lambda c: {"seen": c.clip}, scores)
    assert [c.label for c in added] == [f"{counter_fitted[0]}/wrd/norm, cosines unclipped, delta {d:g}"
                                        for d in bench.DELTAS]
    assert all(not c.clip and c.complexity == grid[1].complexity + 1 for c in added)
    assert all(scores[c.label] == {"seen": False} for c in added)
