"""The blocks of README.md and docs/ that ``tools/docs.py`` checks: what each shows and which command made it.

Kinds (``tools/docs.py`` has the rules): ``Run`` re-runs a cheap command on every check; ``Record`` holds an
expensive command's output to the signatures of its configurations; ``History`` is a stamped record of a past
release; ``Prose`` quotes other blocks; ``Quote`` quotes an outside source; ``Figure`` is an image signed in its
metadata.  A page marks each block with ``<!-- docs:ID -->`` ... ``<!-- /docs:ID -->``.
"""
from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Mapping, Sequence, Tuple

from docs import DATA, ROOT, Figure, History, Prose, Quote, Record, Run, Runner, fence, shown, validate_configs

BLOCKS: List = []


def add(block):
    BLOCKS.append(block)
    return block


def histories(page: str, rows: Sequence[Tuple[str, str, str]]) -> None:
    """History blocks of one page: (id, the release that measured it, the commit that published its numbers)."""
    for block_id, version, commit in rows:
        add(History(block_id, page, version=version, commit=commit))


def wrd(**options) -> Tuple[str, Mapping]:
    """A WRDScore configuration (``validate`` spec syntax) with options given as keywords."""
    return "wrdscore", options


def spec(text: str, **options) -> Tuple[str, Mapping]:
    return text, options


def output_of(command: str, setup: str = "", info: str = "sh", stderr: bool = False):
    """A Run renderer: ``command`` in a fence, then what it prints."""
    return lambda run: shown(command, run.sh(command, setup, stderr=stderr), info)


def script_configs(script: str, name: str = "*.md") -> List[Tuple[str, Mapping]]:
    """The metric configurations of every ``wrdscore validate`` command a shell script runs (those writing the
    output file ``name``), read by running the script with ``WRDZ`` set to a stand-in that records its arguments
    instead of scoring (no data is read)."""
    folder = Path(tempfile.mkdtemp(prefix="wrdscore-docs-argv-"))
    stub = folder / "argv"
    stub.write_text(f'#!{sys.executable}\nimport json, sys\nprint(json.dumps(sys.argv[1:]))\n', encoding="utf-8")
    stub.chmod(0o755)
    subprocess.run(["bash", str(ROOT / script), str(folder / "out")], cwd=ROOT, check=True, capture_output=True,
                   env={"WRDZ": str(stub), "PATH": "/usr/bin:/bin"})
    out: List[Tuple[str, Mapping]] = []
    for path in sorted((folder / "out").glob(name)):
        for line in path.read_text(encoding="utf-8").splitlines():
            for config in validate_configs(json.loads(line)):
                if config not in out:
                    out.append(config)
    return out


#: The folder each script wrote in this process: the blocks of one script (three tables of one validation run)
#: take their files from one run of it, not one run each (15 minutes a run).
_SCRIPT_RUNS: Dict[str, Path] = {}


def script_output(script: str, name: str):
    """A Record producer: run ``bash SCRIPT OUT`` (once per process) and take ``OUT/NAME`` (what one
    ``wrdscore validate`` wrote)."""
    def produce(run: Runner) -> str:
        if script not in _SCRIPT_RUNS:
            folder = Path(tempfile.mkdtemp(prefix="wrdscore-docs-out-"))
            run.sh(f"bash {shlex.quote(script)} {shlex.quote(str(folder))}", cwd=ROOT, timeout=7200)
            _SCRIPT_RUNS[script] = folder
        return (_SCRIPT_RUNS[script] / name).read_text(encoding="utf-8")
    return produce


# ================================================================================================ docs/cli.md
CLI_FILES = ("printf '%s\\n' getCount size '' run toString isEmpty closeQuietly > cands.txt\n"
             "printf '%s\\n' get_count getSize x execute 'as string' empty close > refs.txt\n"
             "cp refs.txt perfect.txt")

add(Run("cli-summary", "docs/cli.md", "wrdscore score -c cands.txt -r refs.txt",
        render=output_of("wrdscore score -c cands.txt -r refs.txt", CLI_FILES)))


def _per_example(run: Runner) -> str:
    commands = ("wrdscore score -c cands.txt -r refs.txt --per-example --digits 4 -o scores.tsv\n"
                "python -c \"import pandas as pd; print(pd.read_csv('scores.tsv', sep='\\t'))\"")
    printed = run.sh(commands.replace("\n", " > /dev/null\n", 1), CLI_FILES)
    return shown(commands, printed)


add(Run("cli-per-example", "docs/cli.md", "wrdscore score ... --per-example --digits 4 -o scores.tsv",
        render=_per_example))
add(Run("cli-confidence", "docs/cli.md", "wrdscore score -c cands.txt -r refs.txt --confidence --digits 4",
        render=output_of("wrdscore score -c cands.txt -r refs.txt --confidence --digits 4", CLI_FILES)))
add(Run("cli-paired-bs", "docs/cli.md",
        "wrdscore score -c cands.txt -c perfect.txt -c cands.txt -r refs.txt --paired-bs --digits 4",
        render=output_of("wrdscore score -c cands.txt -c perfect.txt -c cands.txt -r refs.txt --paired-bs --digits 4",
                         CLI_FILES)))


def _paired_ar(run: Runner) -> str:
    shown = "wrdscore score -c cands.txt -c perfect.txt -c cands.txt -r refs.txt --paired-ar --digits 4"
    # The p-value read from --json (which keeps every digit: --digits is for the text output shown).
    systems = json.loads(run.sh(shown.replace(" --digits 4", " --json"), CLI_FILES))["systems"]
    p = next(s["p_value"] for s in systems if s["system"] == "perfect.txt")
    return (f"On the 7 examples above `--paired-ar` tries all 2^7 = 128 swaps: p = {p:.4f} for `perfect.txt` "
            f"(`{shown}`).")


add(Run("cli-paired-ar", "docs/cli.md", "wrdscore score ... --paired-ar --digits 4", render=_paired_ar))

SACREBLEU_IDENTICAL = '''from sacrebleu.metrics import CHRF
from sacrebleu.significance import PairedTest

hyps = ["the cat sat on the mat", "a dog barked loudly", "it rains in paris", "hello world", "the quick brown fox"] * 20
refs = [["the cat sat on a mat", "dog barks loudly", "it is raining in paris", "hello world", "a quick brown fox"] * 20]
_, scores = PairedTest([("base", hyps), ("same", hyps)], {"chrF": CHRF()}, refs, test_type="bs", n_samples=1000)()
print(scores["chrF2"][1].p_value)'''


def _sacrebleu_identical(run: Runner) -> str:
    printed = run.sh("python - <<'PY'\n" + SACREBLEU_IDENTICAL + "\nPY")
    return fence(SACREBLEU_IDENTICAL + f"  # {printed}", "python")


add(Run("cli-sacrebleu-identical", "docs/cli.md", "python (sacreBLEU's PairedTest)", render=_sacrebleu_identical))

P_VALUE_FORMAT = """from wrd_score.stats import format_p_value
print(format_p_value(1 / 1001), format_p_value(1 / 100001), format_p_value(1 / 100001, 3), sep="   ")"""
add(Run("cli-p-value-format", "docs/cli.md", "python -c 'from wrd_score.stats import format_p_value; ...'",
        render=lambda run: shown(P_VALUE_FORMAT, run.sh("python - <<'PY'\n" + P_VALUE_FORMAT + "\nPY"), "python")))


# ================================================================================================ docs/integrations.md
EXPLAIN = '''import wrd_score
fig = wrd_score.plot_alignment("get count", "size")   # a matplotlib Figure: cosines and flow side by side
fig.savefig("pair.png")
detail = wrd_score.WRDScorer().explain("get count", "size")
print(detail)
print(detail.to_pandas())                             # one row per token pair: tokens, masses, cosine, flow'''

add(Run("integrations-explain", "docs/integrations.md", "python (WRDScorer.explain)",
        render=lambda run: fence(EXPLAIN, "python") + "\n" + fence(run.sh("python - <<'PY'\n" + EXPLAIN + "\nPY"))))


def _show(candidate: str, reference: str, path: str):
    command = f"wrdscore show -c {shlex.quote(candidate)} -r {shlex.quote(reference)} -o {path}"
    return dict(command=command, path=path, configs=[wrd()],
                produce=lambda run: run.sh(command, cwd=ROOT))


add(Figure("show-get-count-size", "docs/integrations.md", **_show("get count", "size", "docs/images/show_get_count_size.png")))
add(Figure("show-long-identifiers", "docs/integrations.md",
           **_show("createBufferedOutputStreamWriterForFileNameAndOpenItInAppendModeWhenFlagIsTrue",
                   "openFileOutputStreamWithBufferOfThisSizeAndCharacterEncodingForWritingTextLinesToDisk",
                   "docs/images/show_long_identifiers.png")))


# ================================================================================================ docs/backends.md
SCRIPTS = [("获取计数", "获取数量", True), ("获取计数", "设置大小", True), ("की", "कि", False), ("को", "के", False),
           ("กิน", "กัน", True)]


def _scripts(run: Runner) -> str:
    code = ("import json, warnings, wrd_score\n"
            "from wrd_score.backends.static import NoVectorWarning\n"
            "rows = []\n"
            f"for p, r, exact in {SCRIPTS!r}:\n"
            "    with warnings.catch_warnings(record=True) as seen:\n"
            "        warnings.simplefilter('always')\n"
            "        f1 = wrd_score.score([p], [r])['f1'][0]\n"
            "    warned = [str(w.message) for w in seen if issubclass(w.category, NoVectorWarning)]\n"
            "    rows.append([f1, warned[0].split(' distinct')[0] if warned else '',\n"
            "                 wrd_score.score([p], [r], oov='exact')['f1'][0] if exact else None])\n"
            "print(json.dumps(rows))")
    rows = json.loads(run.sh("python - <<'PY'\n" + code + "\nPY"))
    lines = ["| pair | F1, default | F1, `oov=\"exact\"` |", "|---|---:|---:|"]
    for (p, r, _), (f1, warned, exact) in zip(SCRIPTS, rows):
        note = f" (warns: {warned} distinct tokens without a vector)" if warned else ""
        lines.append(f"| `{p}` / `{r}` | {f1:.4f}{note} | {'' if exact is None else f'{exact:.4f}'} |")
    return "\n".join(lines) + ("\n\n(`python -c \"import wrd_score; print(wrd_score.score(['กิน'], ['กัน'], oov='exact')"
                               "['f1'])\"`, and likewise for each row; the warning is a `NoVectorWarning`.)")


add(Run("backends-scripts", "docs/backends.md", "python -c \"import wrd_score; print(wrd_score.score([...], [...]))\"",
        render=_scripts))


def _oov(run: Runner) -> str:
    code = ("import wrd_score\n"
            "print(wrd_score.score(['numElts'], ['numElements'])['f1'][0],"
            " wrd_score.score(['numElts'], ['numElements'], oov='exact')['f1'][0])")
    auto, exact = map(float, run.sh("python - <<'PY'\n" + code + "\nPY").split())
    return (f"For example F1(`numElts`, `numElements`) is {auto:.3f} with the default `oov=\"auto\"` and {exact:.3f} "
            "with `oov=\"exact\"` (`python -c \"import wrd_score; print(wrd_score.score(['numElts'], ['numElements'], "
            "oov='exact'))\"`).")


add(Run("backends-oov", "docs/backends.md", "python -c \"...score(['numElts'], ['numElements'], oov=...)\"",
        render=_oov))
add(Run("backends-contextual-signature", "docs/backends.md", "WRDScorer(backend='contextual').signature()",
        render=lambda run: "  `" + run.sh("python -c \"from wrd_score import WRDScorer; "
                                          "print(WRDScorer(backend='contextual').signature())\"") + "` (the default)."))


def _rouge_split(run: Runner) -> str:
    code = ("from wrd_score.metrics import compare\n"
            "print(compare(['isEmpty'], ['empty'], metrics=('rouge1',))['rouge1'][0],"
            " compare(['isEmpty'], ['empty'], metrics=('rouge1',), rouge_split_identifiers=True)['rouge1'][0])")
    plain, split = map(float, run.sh("python - <<'PY'\n" + code + "\nPY").split())
    return (f"`isEmpty` against `empty`: ROUGE-1 {plain:.3f} by default, {split:.3f} with `rouge_split_identifiers=True` "
            "(`wrdscore compare -c isEmpty -r empty --metrics rouge1 --rouge-split-identifiers`).")


add(Run("backends-rouge-split", "docs/backends.md", "wrdscore compare -c isEmpty -r empty --metrics rouge1",
        render=_rouge_split))
add(Run("backends-side-by-side", "docs/backends.md", "python benchmarks/side_by_side.py",
        render=lambda run: "A few pairs side by side (`python benchmarks/side_by_side.py`):\n"
                           + run.sh(f"python {ROOT}/benchmarks/side_by_side.py")))


def _baselines(run: Runner) -> str:
    entries = json.loads((ROOT / "embeddings" / "baselines.json").read_text(encoding="utf-8"))["baselines"]
    rows = sorted(entries.values(), key=lambda e: e["command"])
    lines = [f"The shipped `embeddings/baselines.json` holds {len(rows)} entries, made by exactly these commands "
             "(each entry records its command, corpus sha256, library version and date):", "", "```bash"]
    lines += [e["command"] for e in rows]
    lines += ["```", "", "| signature of the configuration (without version) | b precision | b recall | b F1 | pairs | "
              "made with |", "|---|---:|---:|---:|---:|---|"]
    for key, e in sorted(entries.items(), key=lambda kv: kv[1]["command"]):
        lines.append(f"| `{key}` | {e['precision']:.3f} | {e['recall']:.3f} | {e['f1']:.3f} | {e['n_pairs']:,} | "
                     f"{e['wrdscore_version']} |")
    sems = [e[k] for e in rows for k in ("precision_sem", "recall_sem", "f1_sem")]
    lines += ["", f"(standard errors of these means are {min(sems):.3f}-{max(sems):.3f}, stored as `*_sem`; read from "
              "the file by `python tools/docs.py`.) Any other configuration needs its own `wrdscore baseline` run."]
    return "\n".join(lines)


add(Run("backends-baselines", "docs/backends.md", "embeddings/baselines.json", render=_baselines))
add(Run("backends-method-name-metrics", "docs/backends.md",
        "wrdscore compare ... --metrics subtoken-f1,exact-match,chrf",
        render=output_of("printf '%s\\n' getCount setSize '<UNK>' getName > preds.txt\n"
                         "printf '%s\\n' get_count getSize size nameOf > refs.txt\n"
                         "wrdscore compare -c preds.txt -r refs.txt --metrics subtoken-f1,exact-match,chrf")))
INT8 = "python benchmarks/int8_storage.py embeddings/wrd-minilm-code.npz"
add(Record("backends-int8", "docs/backends.md", INT8, data=["idbench/idbench_large.tsv", "stsb/stsb_dev.tsv"],
           configs=[wrd(embedding="embeddings/wrd-minilm-code.npz", weights="norm*corpus-idf")],
           produce=lambda run: shown(INT8, run.sh(INT8, cwd=ROOT, timeout=3600), "bash")))
add(Prose("backends-side-by-side-prose", "docs/backends.md", cites=["backends-side-by-side"]))
add(History("backends-layer-history", "docs/backends.md", version="0.1.0", commit="6cfd7ac",
            command="WRDScorer(backend=\"contextual\", layer=L, pooling=P) on STS-B dev"))


# ================================================================================================ README.md
README_PYTHON = '''# once per environment, and again after an upgrade, in a shell: wrdscore install-evaluate-module
import evaluate
wrdscore = evaluate.load("wrdscore")  # the installed module by the bare name, offline; also evaluate.load("wrdscore.py")
result = wrdscore.compute(predictions=["get count"], references=["size"])

import wrd_score                                       # the library, without evaluate
wrd_score.score(["get count"], [["size", "length"]])   # several references per prediction
scorer = wrd_score.WRDScorer(variant="paper")          # configure once, score many times
scorer.explain("get count", "size")                    # tokens, cosines, masses and the flow matrix'''


def _readme_python(run: Runner) -> str:
    code = README_PYTHON.split("\n\n")[0] + "\nprint(json.dumps(result))"
    # The step the first comment names, then the bare name, offline, with evaluate's modules cache in the fresh
    # folder (the reader's own cache is left alone).
    env = "HF_MODULES_CACHE=$PWD/hf-modules HF_HUB_OFFLINE=1"
    result = json.loads(run.sh(f"{env} wrdscore install-evaluate-module >/dev/null && {env} python - 2>/dev/null <<'PY'\n"
                               "import json\n" + code + "\nPY").strip().splitlines()[-1])
    shown_keys = ", ".join(f"'{k}': {[round(x, 4) for x in v] if k != 'best_reference' else v}"
                           for k, v in result.items() if isinstance(v, list))
    comment = f"# {{{shown_keys}, ..., 'signature': '{result['signature'][:result['signature'].index('|', 20)]}|...'}}"
    first, rest = README_PYTHON.split("\n\n")
    return fence(first + "\n" + comment + "\n\n" + rest, "python")


add(Run("readme-python", "README.md", "wrdscore.compute(...)", render=_readme_python))
add(Run("readme-examples", "README.md", 'wrdscore score -c "get count" -r size; python benchmarks/paper_examples.py',
        render=lambda run: (
            'The first command of *How to Use* (`wrdscore score -c "get count" -r size`) prints one line, the signature '
            "and\nthe mean precision, recall and F1:\n\n" + fence(run.sh('wrdscore score -c "get count" -r size'))
            + "\n\nThe paper's ten distinct examples of section 4, all with ROUGE-1 = 0, scored with the defaults "
            "(`python benchmarks/paper_examples.py`,\nwhich needs `pip install \".[siblings]\"` for ROUGE-1, prints "
            "this). The default was chosen on human-rated data, not on these\nexamples; the paper's own numbers come "
            "from the author's unpublished SVD embedding.\n\n" + run.sh(f"python {ROOT}/benchmarks/paper_examples.py"))))
add(Quote("readme-paper-values", "README.md", source="the paper, section 4 and its human evaluation "
                                                     "(../shared/papers/wrdscore_paper.txt)"))


def _readme_summary(run: Runner) -> str:
    sys.path.insert(0, str(ROOT / "tools"))
    from sync_readme import summary_for_readme

    return summary_for_readme()


add(Run("readme-validation-summary", "README.md", "docs/validation-summary.md", render=_readme_summary))
add(Prose("readme-limitations", "README.md", cites=["readme-examples", "validation-summary"], configs=[wrd()],
          command="python benchmarks/speed.py --quick --stream-pairs 0 --repeat 7 (the cost bullet)"))


# ================================================================================================ docs/validation-summary.md
add(Record("validation-summary", "docs/validation-summary.md",
           "bash tools/validation_static.sh; bash tools/validation_tables.sh (rows assembled by hand)",
           configs=lambda: script_configs("tools/validation_static.sh") + script_configs("tools/validation_tables.sh"),
           data=["idbench/idbench_small.tsv", "idbench/idbench_medium.tsv", "idbench/idbench_large.tsv",
                 "stsb/stsb_test.tsv"]))


add(Quote("validation-external-0.2.0", "docs/validation-summary.md",
          source="issue 30: an external check of 0.2.0 on human-rated data kept outside the repository"))
# ================================================================================================ docs/validation.md
IDBENCH = ["idbench/idbench_small.tsv", "idbench/idbench_medium.tsv", "idbench/idbench_large.tsv"]
STSB_DEV, STSB_TEST = ["stsb/stsb_dev.tsv"], ["stsb/stsb_test.tsv"]


def _table(name: str, script: str, output: str, data: Sequence[str]) -> Record:
    return Record(name, "docs/validation.md", f"bash {script}", data=data,
                  configs=lambda: script_configs(script, output), produce=script_output(script, output))


add(_table("validation-idbench-similarity", "tools/validation_tables.sh", "idbench-similarity.md", IDBENCH))
add(_table("validation-idbench-relatedness", "tools/validation_tables.sh", "idbench-relatedness.md", IDBENCH))
add(_table("validation-stsb-test", "tools/validation_tables.sh", "stsb-test.md", STSB_TEST))
add(_table("validation-literature-stsb-test", "tools/literature_tables.sh", "stsb-test.md", STSB_TEST))
add(_table("validation-literature-idbench-similarity", "tools/literature_tables.sh", "idbench-similarity.md", IDBENCH))
add(Prose("validation-tables-rows", "docs/validation.md", configs=[]))  # configs set below (they need the script)
add(Prose("validation-literature-rows", "docs/validation.md"))
add(Prose("validation-literature-prose", "docs/validation.md",
          cites=["validation-literature-stsb-test", "validation-literature-idbench-similarity"]))
add(Prose("validation-presets", "docs/validation.md", cites=["presets-sentences-choice", "presets-contextual",
                                                             "presets-contextual-test", "validation-idbench-similarity"]))
# 0.2.0's aims and figures: the record of that release (0.3.0's aims are in tuning.md, with the choice).
add(History("validation-aims-020", "docs/validation.md", version="0.2.0", commit="3629109",
            command="bash tools/validation_tables.sh; python benchmarks/paper_examples.py"))
add(History("validation-aims-011", "docs/validation.md", version="0.1.0", commit="cf636df",
            command="wrdscore validate (the commands of the full tables, then)"))
add(Prose("validation-defaults", "docs/validation.md",
          cites=["presets-static-choice", "presets-contextual", "tuning-code-semantics", "tuning-static-idbench",
                 "tuning-rescale", "backends-oov", "validation-idbench-similarity", "tuning-clip", "tuning-delta"],
          configs=[wrd()]))
add(History("validation-multi-sentence", "docs/validation.md", version="0.1.0", commit="98afcda",
            command="python benchmarks/sentence_transport.py"))


class _ScriptProse(Prose):
    """Prose describing what a script's commands score: pinned by the signatures of their configurations."""

    def cited(self, ctx):
        self.configs = script_configs(self.command)
        return super().cited(ctx)


BLOCKS[:] = [b for b in BLOCKS if b.id not in ("validation-tables-rows", "validation-literature-rows")]
add(_ScriptProse("validation-tables-rows", "docs/validation.md", "tools/validation_tables.sh"))
add(_ScriptProse("validation-literature-rows", "docs/validation.md", "tools/literature_tables.sh"))


# ================================================================================================ docs/presets.md
def _bundles(run: Runner) -> str:
    code = ("from wrd_score.options import PRESETS, DEFAULT_PRESET\n"
            "from wrd_score.embeddings.store import _SHIPPED_FILES\n"
            "rows = ['| preset | backend | embedding | variant | weights | clip_negative | layer | pooling |', '|---|---|---|---|---|---|---|---|']\n"
            "for preset, backends in PRESETS.items():\n"
            "    name = f'`{preset}`' + (' (default)' if preset == DEFAULT_PRESET else '')\n"
            "    for backend, v in backends.items():\n"
            "        emb = f\"`{v['embedding']}` (`{_SHIPPED_FILES.get(v['embedding'], v['embedding'])}`)\" if 'embedding' in v else '–'\n"
            "        rows.append(f\"| {name} | {backend} | {emb} | `{v['variant']}` | `{v['weights']}` | `{v['clip_negative']}` | \"\n"
            "                    f\"{'`%s`' % v['layer'] if 'layer' in v else '–'} | {'`%s`' % v['pooling'] if 'pooling' in v else '–'} |\")\n"
            "print('\\n'.join(rows))")
    return run.sh("python - <<'PY'\n" + code + "\nPY")


add(Run("presets-bundles", "docs/presets.md", "wrd_score.options.PRESETS", render=_bundles))


def _df_tables(run: Runner) -> str:
    code = ("from wrd_score.embeddings.store import _SHIPPED_FILES, load_embedding\n"
            "for name, file in _SHIPPED_FILES.items():\n"
            "    e = load_embedding(name)\n"
            "    table = e.df_table\n"
            "    print(name, file, 'none' if table is None else f'{e.df_documents} {len(table)}')")
    lines = []
    for line in run.sh("python - <<'PY'\n" + code + "\nPY").splitlines():
        name, file, *rest = line.split()
        lines.append(f"  * `{name}` (`{file}`): " + ("no table" if rest == ["none"] else
                                                      f"a table of {int(rest[0]):,} documents and {int(rest[1]):,} tokens"))
    return "\n".join(lines) + "\n\n  (read from the files by `StaticEmbedding.df_table` / `.df_documents`.)"


add(Run("presets-df-tables", "docs/presets.md", "load_embedding(name).df_table", render=_df_tables))
add(Prose("presets-bundles-prose", "docs/presets.md",
          cites=["presets-bundles", "presets-static-choice", "tuning-clip", "tuning-delta"]))
add(Prose("presets-rule", "docs/presets.md", cites=["presets-static-choice"]))
add(History("presets-static-011", "docs/presets.md", version="0.1.1", commit="db68dff",
            command="python benchmarks/choose_presets.py wrd-minilm-distilled"))
add(History("presets-contextual", "docs/presets.md", version="0.1.1", commit="db68dff",
            command="python benchmarks/tune_contextual.py --presets"))
PRESETS_TEST = ("wrdscore validate ../shared/data/stsb/stsb_test.tsv --human-range 0 5 "
                "--reference-metric WRDScore-MiniLM-sentences \\\n  --quiet --no-files \\\n"
                "  -m wrdscore:backend=contextual,preset=sentences,label=WRDScore-MiniLM-sentences \\\n"
                "  -m wrdscore:backend=contextual,label=WRDScore-MiniLM-identifiers \\\n"
                "  -m bertscore:backend=contextual,label=BERTScore-MiniLM")
add(Record("presets-contextual-test", "docs/presets.md", PRESETS_TEST.replace("\\\n", ""), data=STSB_TEST,
           produce=lambda run: fence(PRESETS_TEST, "bash") + "\n\n" + run.sh(PRESETS_TEST, cwd=ROOT, timeout=7200)))
add(Prose("presets-contextual-test-prose", "docs/presets.md", cites=["presets-contextual-test", "tuning-contextual"]))
add(History("presets-probe-history", "docs/presets.md", version="0.1.1", commit="fc48a9e",
            command="python benchmarks/choose_presets.py /tmp/probe-default-df.npz"))
# The 0.2.0 static choice: its "default" is the file now named wrd-minilm-code (0.3.0 chose the identifiers bundle
# by benchmarks/choose_identifiers.py and the sentences one by benchmarks/choose_sentences.py).
add(History("presets-static-choice", "docs/presets.md", version="0.2.0", commit="fd63573",
            command="python benchmarks/choose_presets.py default"))
add(Prose("presets-static-choice-prose", "docs/presets.md",
          cites=["presets-static-choice", "validation-summary"]))
add(History("presets-020-order", "docs/presets.md", version="0.2.0", commit="3629109",
            command="wrdscore validate stsb_test.tsv (the identifiers bundle without the guard)"))


# ================================================================================================ docs/tuning.md
# Every grid here chose a default of an earlier release: history, each stamped with the release that measured it
# (the commit that first published its numbers).
add(History("tuning-identifiers-030", "docs/tuning.md", version="0.3.0", commit="7cebb04",
            command="python benchmarks/choose_identifiers.py"))
# Measured for 0.3.0 after its choice (an experiment; issue 30), against 0.3.0's recipe: its record.
add(History("tuning-identifiers-generalise", "docs/tuning.md", version="0.3.0", commit="1630669",
            command="python benchmarks/post_specialize.py --workdir WORK --methods linear procrustes mlp --learn-from "
                    "all antonyms --mined rule wordnet"))
add(History("tuning-identifiers-040", "docs/tuning.md", version="0.4.0", commit="c7d98e7",
            command="python benchmarks/choose_identifiers.py --workdir WORK --markdown /tmp/identifiers.md --extras "
                    "--test --ship embeddings/wrd-minilm-cf-morph.npz --ship-name wrd-minilm-cf-morph"))
add(History("tuning-identifiers-050", "docs/tuning.md", version="0.5.0", commit="3c267f3",
            command="python benchmarks/choose_identifiers.py --workdir WORK --markdown /tmp/identifiers.md --extras "
                    "--test --ship embeddings/wrd-minilm-cf-morph-post.npz --ship-name wrd-minilm-cf-morph-post"))
# Why the headline pair stays unordered with today's masses: re-run on every check, so it follows the default.
ACCESSOR_BOUND = '''from wrd_score import WRDScorer
scorer = WRDScorer()                                      # the default: identifiers preset
opposite, synonym = scorer.explain("getCount", "setCount"), scorer.explain("getCount", "size")
(m_get, m_count), (c_get, c_count) = synonym.mass_p, synonym.cos[:, 0]
print(f"masses of getCount: get {m_get:.3f}, count {m_count:.3f}; cosines with size: get {c_get:.3f}, count {c_count:.3f}")
print(f"getCount/size    F1 {synonym.f1:.3f} = {m_get:.3f} x {c_get:.3f} + {m_count:.3f} x {c_count:.3f}")
print(f"getCount/setCount F1 {opposite.f1:.3f}")
print(f"size outscores setCount only with cos(count, size) > {(opposite.f1 - m_get * c_get) / m_count:.3f}")'''

add(Run("tuning-accessor-bound", "docs/tuning.md", "python (WRDScorer.explain)",
        render=lambda run: fence(ACCESSOR_BOUND, "python") + "\n" + fence(run.sh("python - <<'PY'\n" + ACCESSOR_BOUND
                                                                                 + "\nPY"))))
# Where the default loses the dev triplets, and what masses that win them cost (issue 30): re-made by --expensive.
TRIPLET_MASSES = "python benchmarks/triplet_masses.py"
add(Record("tuning-triplet-masses", "docs/tuning.md", TRIPLET_MASSES,
           configs=[wrd(), wrd(embedding="wrd-minilm-distilled"), wrd(weights="uniform")],
           data=IDBENCH + STSB_DEV + ["sick/sick_train_trial.tsv"],
           produce=lambda run: run.sh(TRIPLET_MASSES, cwd=ROOT, timeout=1800)))
add(Prose("tuning-triplet-masses-prose", "docs/tuning.md", cites=["tuning-triplet-masses"]))
# Measured with 0.5.1's library on the grid's files (choose_identifiers.py --workdir builds them; long on 2 cores): the
# record of a decision (names keep the norm masses), not re-run for later releases.
add(History("tuning-name-masses", "docs/tuning.md", version="0.5.1", commit="0fdd10b",
            command="python benchmarks/choose_identifiers.py --workdir WORK --name-masses"))
add(Prose("tuning-name-masses-prose", "docs/tuning.md", cites=["tuning-name-masses"]))
# The same grid with negative cosines kept (issue 30): the record of 0.6.0's decision.
add(History("tuning-clip", "docs/tuning.md", version="0.6.0", commit="c4f7d43",
            command="python benchmarks/choose_identifiers.py --workdir WORK --clip --extras --test"))
add(Prose("tuning-clip-prose", "docs/tuning.md", cites=["tuning-clip"]))
# The grid unclipped with antonyms pushed below cosine 0 (issue 30; 0.7.0's default), measured by hand like the above;
# re-signed with --reviewed.
add(Record("tuning-delta", "docs/tuning.md",
           "python benchmarks/choose_identifiers.py --workdir WORK --delta --extras --test "
           "--ship embeddings/wrd-minilm-cf-morph-post-d125.npz --ship-name wrd-minilm-cf-morph-post-d125",
           configs=[wrd(), wrd(embedding="wrd-minilm-cf-morph-post", clip_negative=False),
                    wrd(embedding="wrd-minilm-distilled")],
           data=IDBENCH + STSB_DEV + STSB_TEST + ["sick/sick_train_trial.tsv"]))
add(Prose("tuning-delta-prose", "docs/tuning.md", cites=["tuning-delta"]))
histories("docs/tuning.md", [
        ("tuning-static-idbench", "0.1.0", "6cfd7ac"), ("tuning-contextual-layer", "0.1.0", "4de67cd"),
        ("tuning-stsb-variant", "0.1.0", "4de67cd"), ("tuning-rescale", "0.1.0", "6cfd7ac"),
        ("tuning-contextual", "0.1.0", "9fc1ba2"), ("tuning-contextual-grid", "0.1.0", "9fc1ba2"),
        ("tuning-contextual-probes", "0.1.0", "9fc1ba2"), ("tuning-contextual-chosen", "0.1.0", "9fc1ba2"),
        ("tuning-contextual-test", "0.1.0", "9fc1ba2"), ("tuning-contextual-idbench", "0.1.0", "9fc1ba2"),
        ("tuning-distilled", "0.1.0", "6540291"), ("tuning-distill-grid1", "0.1.0", "dd36b4d"),
        ("tuning-distill-grid2", "0.1.0", "dd36b4d"), ("tuning-distill-grid3", "0.1.0", "dd36b4d"),
        ("tuning-distill-grid4", "0.1.0", "6540291"), ("tuning-presets", "0.1.1", "db68dff"),
        ("tuning-code-semantics", "0.1.1", "e4d0213"), ("tuning-code-chosen", "0.1.1", "e4d0213"),
        ("tuning-code-bundles", "0.1.1", "e4d0213")])


# ================================================================================================ docs/benchmarks.md
histories("docs/benchmarks.md", [
        ("benchmarks-speed-intro", "0.2.0", "bd0817b"), ("benchmarks-speed-v010", "0.1.0", "52aa503"),
        ("benchmarks-one-thread", "0.2.0", "bb50845"), ("benchmarks-round2", "0.2.0", "b26e80d"),
        ("benchmarks-round3", "0.2.0", "89a7214"), ("benchmarks-round4", "0.2.0", "f30383b"),
        ("benchmarks-round5-tok", "0.2.0", "cb6955f"), ("benchmarks-round5-vec", "0.2.0", "84914fb"),
        ("benchmarks-round5-simplex", "0.2.0", "ebf9c09"), ("benchmarks-round5-merged", "0.2.0", "bb50845"),
        ("benchmarks-contextual", "0.2.0", "d720208"), ("benchmarks-contextual-cli", "0.2.0", "c190799"),
        ("benchmarks-onnx", "0.2.0", "d720208"), ("benchmarks-streaming-cli", "0.1.0", "5a94844")])
# Issue 33's measurements of the current release: timings, re-measured by hand and re-signed (--reviewed).
add(Record("benchmarks-evaluate-path", "docs/benchmarks.md", "python benchmarks/speed.py --only evaluate --repeat 5",
           configs=[wrd()], data=["java_method_names/java_method_names_by_file.tsv.gz"]))
add(Record("benchmarks-idf-dict", "docs/benchmarks.md", "python benchmarks/idf_dict_cost.py",
           configs=[wrd(weights="idf")]))
add(Record("benchmarks-cost-per-pair", "docs/benchmarks.md", "python benchmarks/speed.py --only cliff --repeat 5",
           configs=[wrd(tokenizer="words")], data=["stsb/stsb_dev.tsv"]))
add(Record("benchmarks-cost-per-pair-without-avx512", "docs/benchmarks.md",
           "python benchmarks/speed.py --only cliff --repeat 5 --without-avx512",
           configs=[wrd(tokenizer="words")], data=["stsb/stsb_dev.tsv"]))
# The one claim about the current release: re-measured when the default's signature moves.
add(Prose("benchmarks-now", "docs/benchmarks.md", cites=["benchmarks-round5-merged"],
          configs=[wrd(), wrd(tokenizer="words")],
          command="python benchmarks/speed.py --quick --stream-pairs 0 --repeat 7"))


# ================================================================================================ docs/distributed.md
histories("docs/distributed.md", [
        ("distributed-identical", "0.1.1", "4d0a3e4"), ("distributed-measured", "0.1.1", "cb72389")])

EVAL_DDP = '''import torch.distributed as dist
from torch.utils.data import DistributedSampler

from wrd_score.integrations.torchmetrics import WRDScore

dist.init_process_group("gloo")  # "nccl" on GPUs
preds = ["getCount", "size", "isEmpty", "run", "toString"]
refs = ["get_count", ["getSize", "length"], "empty", "execute", "as string"]

metric = WRDScore()  # Options as keywords: WRDScore(backend="contextual"), ...
mine = list(DistributedSampler(range(len(preds)), shuffle=False))  # this rank's dataset positions
for start in range(0, len(mine), 2):
    batch = mine[start:start + 2]
    metric.update([preds[i] for i in batch], [refs[i] for i in batch], indexes=batch)
result = metric.compute()  # the same on every rank
if dist.get_rank() == 0:
    print([round(f, 4) for f in result["f1"]], round(result["mean_f1"], 4))
dist.destroy_process_group()'''


def _torchrun(run: Runner) -> str:
    command = "torchrun --nproc-per-node 2 eval_ddp.py"
    setup = "cat > eval_ddp.py <<'PY'\n" + EVAL_DDP + "\nPY"
    printed = run.sh(f"OMP_NUM_THREADS=1 python -m torch.distributed.run --nproc-per-node 2 eval_ddp.py", setup)
    return fence(EVAL_DDP, "python") + "\n\n" + fence(f"$ {command}\n{printed}")


add(Run("distributed-torchrun", "docs/distributed.md", "torchrun --nproc-per-node 2 eval_ddp.py", render=_torchrun))
# Measured by hand (issue 32; minutes to an hour on 2 shared cores): re-measure with the commands the text names, then
# python tools/docs.py --reviewed ID.
add(Record("distributed-static-bits", "docs/distributed.md", "python benchmarks/batch_independence.py --static-only",
           configs=[wrd()], data=STSB_DEV))
# Measured on issue 32's branch (contextual code unchanged since; the tests hold the tolerance on every run).
add(History("distributed-tolerance", "docs/distributed.md", version="0.2.0", commit="d7ea884",
            command="python benchmarks/batch_independence.py --linear-only; --scores-only --envs; --scores-only "
                    "--runtime onnx; --cost-only --cost-texts 1000 --rounds 2 (with and without MKL_CBWR=AUTO,STRICT)"))

RAY_EXAMPLE = '''import ray

import wrd_score.integrations.ray

ray.init()  # or ray.init(address="auto") on a cluster
ds = ray.data.from_items([{"prediction": p, "reference": r} for p, r in
                          [("getCount", ["get_count"]), ("size", ["getSize", "length"]), ("run", ["execute"])]])
result = wrd_score.integrations.ray.score(ds, num_actors=2, map_batch_size=1024)
print([round(f, 4) for f in result["f1"]], round(result["mean_f1"], 4), result["signature"])

# A dataset too large for the driver: keep the scores next to the rows, on shared storage.
# scored, signature = wrd_score.integrations.ray.map_scores(ray.data.read_parquet("s3://bucket/generations/"),
#                                                           num_actors=8, num_gpus=1, backend="contextual")
# scored.write_parquet("s3://bucket/scores/")'''


def _ray(run: Runner) -> str:
    code = RAY_EXAMPLE.replace("ray.init()", "ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)")
    printed = run.sh("RAY_DEDUP_LOGS=0 python - <<'PY'\n" + code + "\nray.shutdown()\nPY")
    return fence(RAY_EXAMPLE, "python") + "\n\n" + fence(printed.splitlines()[-1])


add(Run("distributed-ray-example", "docs/distributed.md", "python (wrd_score.integrations.ray.score)", render=_ray))
SHARDS = '''printf '%s\\n' getCount size '' run toString isEmpty closeQuietly > cands.txt
printf '%s\\n' get_count getSize x execute 'as string' empty close > refs.txt
for k in 1 2 3; do wrdscore score -c cands.txt -r refs.txt --shard $k/3 -o shard$k.json; done
wrdscore merge shard*.json -o scores.json
wrdscore score -c cands.txt -r refs.txt --json | cmp - scores.json && echo identical'''
add(Run("distributed-shards-example", "docs/distributed.md", "wrdscore score --shard K/3; wrdscore merge",
        render=output_of(SHARDS)))
add(Prose("backends-default-prose", "docs/backends.md", cites=["validation-summary", "tuning-distilled"],
          configs=[wrd(), wrd(embedding="wrd-minilm-distilled"), wrd(embedding="wrd-java-default")]))
add(Prose("backends-contextual-options", "docs/backends.md", cites=["benchmarks-onnx"], configs=[wrd(backend="contextual")]))


# ================================================================================================ docs/space.md
def _space_controls(run: Runner) -> str:
    code = ("from wrd_score import space\n"
            "from wrd_score.options import option_info\n"
            "OPTION = {i.name: i for i in option_info()}\n"
            "print('  * Embedding / backend: ' + '; '.join(f'*{k}*' for k in space.EMBEDDINGS)\n"
            "      + ' (the contextual one when the contextual backend is installed).')\n"
            "print('  * Preset: ' + ', '.join(f'`{c}`' for c in OPTION['preset'].choices)\n"
            "      + '; variant and token masses: `' + space.FROM_PRESET + '` or ' + ', '.join(f'`{c}`' for c in OPTION['variant'].choices)\n"
            "      + ' and ' + ', '.join(f'`{c}`' for c in OPTION['weights'].choices) + '.')\n"
            "print(\"  * The literature's metrics beside WRDScore (`space.SIBLING_METRICS`, as the page labels them): \"\n"
            "      + ', '.join(space.metric_label(m, {'backend': 'static'}) for m in space.SIBLING_METRICS) + '.')")
    return run.sh(f"cd {ROOT} && python - <<'PY'\n" + code + "\nPY")


add(Run("space-controls", "docs/space.md", "python -c 'from wrd_score import space; ...'", render=_space_controls))
add(History("space-row-limits", "docs/space.md", version="0.1.0", commit="4de67cd",
            command="the app's file tab, timed by hand"))
add(History("space-first-load", "docs/space.md", version="0.1.1", commit="1f1fa7a",
            command="python benchmarks/app_first_load.py"))


def _app_configs() -> List[Tuple[str, Mapping]]:
    # What the page shows as it opens: WRDScore's defaults and every sibling metric it computes (a metric added
    # to the page changes this list, so the screenshots go stale with it).
    import ast

    text = (ROOT / "wrd_score" / "space.py").read_text(encoding="utf-8")
    siblings = ast.literal_eval(re.search(r"^SIBLING_METRICS = (\([^)]*\))", text, re.M).group(1))
    return [wrd()] + [spec(m) for m in siblings]


for _name, _what in [("app_pair", "the Score a pair tab"), ("app_file_before", "the Score a file tab before an upload"),
                     ("app_file", "the Score a file tab"), ("app_about", "the About tab")]:
    add(Figure(f"figure-{_name.replace('_', '-')}", "docs/space.md", "python tools/screenshots.py",
               path=f"docs/images/{_name}.png", configs=_app_configs))


# ================================================================================================ docs/architecture.md
add(History("architecture-import-times", "docs/architecture.md", version="0.2.0", commit="dc1a4ba",
            command='python -c "import time, wrd_score; t = time.perf_counter(); import gensim; ..."'))


# ================================================================================ the sentences file (issue 31)
SENTENCES_CHOOSE = "python benchmarks/choose_sentences.py wrd-minilm-code embeddings/wrd-minilm-sentences.npz --test"
SENTENCES_CONFIGS = ([wrd(embedding="wrd-minilm-sentences", variant=v, weights=w) for v in ("wrd", "paper")
                      for w in ("norm", "uniform")]
                     + [wrd(embedding="wrd-minilm-code", variant="wrd", weights="norm*corpus-idf"), spec("rouge1")])
# The grids that made and chose 0.3.0's sentences file: the record of that decision (the choice it ends with is
# presets-sentences-choice, re-run for each release).
add(History("tuning-sentences", "docs/tuning.md", version="0.3.0", commit="53bef22", command=SENTENCES_CHOOSE))
add(Record("presets-sentences-choice", "docs/presets.md", SENTENCES_CHOOSE, configs=SENTENCES_CONFIGS,
           data=STSB_DEV + STSB_TEST + IDBENCH + ["sick/sick_train_trial.tsv"]))
