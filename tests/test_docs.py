"""The documentation's relative links resolve, and the README stays a metric card."""
import re
from pathlib import Path
from typing import Iterator, Set, Tuple

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", ROOT / "SECURITY.md", ROOT / "embeddings" / "README.md",
                *(ROOT / "docs").glob("*.md")])
FENCE = re.compile(r"```.*?```", re.S)


def _slug(heading: str) -> str:
    # GitHub's anchor for a heading: lowercase, punctuation other than - and _ dropped, spaces to dashes.
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(page: Path) -> Set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6}\s+(.*?)\s*$", text, re.M)}


def _relative_links(page: Path) -> Iterator[Tuple[str, Path, str]]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"^[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        yield target, (page.parent / path).resolve() if path else page, anchor


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page):
    broken = []
    for target, path, anchor in _relative_links(page):
        if not path.exists():
            broken.append(f"{target}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
            broken.append(f"{target}: no such heading")
    assert not broken, broken


def test_readme_is_a_metric_card():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    headings = re.findall(r"^(#{1,4} .+)$", FENCE.sub("", text), re.M)
    template = ["# Metric Card for WRDScore", "## Metric Description", "## How to Use", "### Inputs",
                "### Output Values", "#### Values from Popular Papers", "### Examples", "## Limitations and Bias",
                "## Citation", "## Further References"]
    assert [h for h in headings if h in template] == template
    assert text.startswith("---\n") and "\nsdk: gradio\n" in text and "\napp_file: app.py\n" in text
    assert text.count("<!-- options:start -->") == 1 and text.count("<!-- options:end -->") == 1
    assert len(text.splitlines()) <= 300
    for page in (ROOT / "docs").glob("*.md"):
        assert f"](docs/{page.name})" in text, f"README's Further References lack docs/{page.name}"


def test_the_validation_summary_exists_once_and_the_readme_shows_it():
    # One copy, docs/validation-summary.md: the app's About tab shows the file, the README carries it in a
    # generated block (tools/docs.py, block readme-validation-summary), docs/validation.md links to it.
    import importlib.util

    summary = (ROOT / "docs" / "validation-summary.md").read_text(encoding="utf-8")
    assert "| **WRDScore, defaults**" in summary and "tools/validation_tables.sh" in summary
    spec = importlib.util.spec_from_file_location("sync_readme", ROOT / "tools" / "sync_readme.py")
    sync = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sync)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert sync.synced(readme) == readme, "README.md is stale: run python tools/docs.py --update"
    assert sync.summary_for_readme() in readme
    validation = (ROOT / "docs" / "validation.md").read_text(encoding="utf-8")
    assert "(validation-summary.md)" in validation and "| **WRDScore, defaults**" not in validation.split("## Presets")[0]


def test_the_examples_show_what_the_first_command_of_how_to_use_prints(capsys):
    # Issue 23.1: the Examples showed a 3-pair dict for a command that prints one summary line.
    import shlex

    from wrd_score.cli import main

    text = (ROOT / "README.md").read_text(encoding="utf-8")
    how = text[text.index("## How to Use"):text.index("### Inputs")]
    command = re.search(r"```bash\n(?:pip install [^\n]*&& )?(wrdscore [^\n]+)\n```", how).group(1)
    examples = text[text.index("### Examples"):text.index("## Limitations and Bias")]
    shown = re.search(r"The first command of \*How to Use\*.*?```\n(.*?)\n```", examples, re.S).group(1)
    assert main(shlex.split(command)[1:]) == 0
    assert capsys.readouterr().out.strip() == shown.strip()



# ----------------------------------------------------------------------------- docs that cannot go stale (issue 32.2)
@pytest.fixture(scope="module")
def docs_tool():
    import sys

    sys.path.insert(0, str(ROOT / "tools"))
    import docs

    docs.BLOCKS = docs._load_blocks()
    return docs


def test_the_docs_are_current(docs_tool):
    # Every number of the README and docs/ is in a block whose command is re-run (cheap ones), whose configurations
    # the current library signs as recorded (expensive ones), or which is stamped as history; no number outside one.
    report = docs_tool.check()
    assert report.ok, "\n" + report.text()


def _page(tmp_path, text):
    page = tmp_path / "page.md"
    page.write_text(text, encoding="utf-8")
    return page


def _ctx(docs_tool, tmp_path, text, records=None):
    import json

    page = _page(tmp_path, text)
    path = tmp_path / "records.json"
    path.write_text(json.dumps(records or {}), encoding="utf-8")
    return docs_tool.Context(page_list=[page], records=path)


def test_a_run_block_is_stale_when_its_command_prints_something_else(docs_tool, tmp_path):
    block = docs_tool.Run("b", "page.md", render=lambda run: run.sh("echo 0.42"))
    ctx = _ctx(docs_tool, tmp_path, "x\n<!-- docs:b -->\n0.41\n<!-- /docs:b -->\n")
    assert "the command now prints '0.42'" in block.stale(ctx)[0]
    assert block.update(ctx, expensive=False)
    assert "<!-- docs:b -->\n0.42\n<!-- /docs:b -->" in (tmp_path / "page.md").read_text() and not block.stale(ctx)
    failing = docs_tool.Run("b", "page.md", render=lambda run: run.sh("exit 3"))
    assert "its command failed" in failing.stale(ctx)[0]


def test_a_record_goes_stale_when_a_default_moves_or_the_version_changes(docs_tool, tmp_path, monkeypatch):
    # What r30/r31 will do: move the default's masses, bump the version. The block must say what changed.
    import wrd_score.scorer
    import wrd_score.options

    block = docs_tool.Record("r", "page.md", "bash make-table.sh", configs=[("wrdscore", {}), ("rouge1", {})])
    ctx = _ctx(docs_tool, tmp_path, "<!-- docs:r -->\n| 0.535 |\n<!-- /docs:r -->\n")
    assert block.stale(ctx) == ["never recorded"]
    block.record(ctx)
    ctx.save()
    assert block.stale(ctx) == []

    def fresh():  # a new check, as after the change
        return docs_tool.Context(page_list=ctx.page_list, records=ctx.records_path)

    presets = wrd_score.options.PRESETS
    static = {**presets["identifiers"]["static"], "weights": "uniform"}
    monkeypatch.setattr(wrd_score.options, "PRESETS", {**presets, "identifiers": {**presets["identifiers"],
                                                                                  "static": static}})
    reasons = block.stale(fresh())
    was = f"weights:{presets['identifiers']['static']['weights']}|"
    assert len(reasons) == 1 and was in reasons[0] and "weights:uniform" in reasons[0]
    monkeypatch.setattr(wrd_score.options, "PRESETS", presets)
    assert block.stale(fresh()) == []
    monkeypatch.setattr(wrd_score.scorer, "__version__", "9.9.9")
    assert "wrdscore:v9.9.9" in block.stale(fresh())[0]


def test_a_record_is_stale_when_its_text_is_edited_by_hand(docs_tool, tmp_path):
    block = docs_tool.Record("r", "page.md", "cmd", configs=[("rouge1", {})])
    ctx = _ctx(docs_tool, tmp_path, "<!-- docs:r -->\n| 0.535 |\n<!-- /docs:r -->\n")
    block.record(ctx)
    _page(tmp_path, "<!-- docs:r -->\n| 0.553 |\n<!-- /docs:r -->\n")
    ctx.refresh()
    assert block.stale(ctx) == ["its text changed since it was recorded (edited by hand?)"]


def test_history_is_stamped_and_held_to_its_text(docs_tool, tmp_path):
    block = docs_tool.History("h", "page.md", version="0.1.0", commit="abc1234", command="python grid.py")
    ctx = _ctx(docs_tool, tmp_path, "<!-- docs:h -->\n| 0.443 |\n<!-- /docs:h -->\n")
    assert any("stamp" in r for r in block.stale(ctx))
    assert block.update(ctx, expensive=False)
    assert ctx.content("h").startswith("> *History: measured by `python grid.py` with wrdscore 0.1.0 (commit abc1234)")
    block.review(ctx)
    assert block.stale(ctx) == []
    _page(tmp_path, (tmp_path / "page.md").read_text().replace("0.443", "0.444"))
    ctx.refresh()
    assert "history is not edited" in block.stale(ctx)[0]


def test_prose_is_stale_when_a_block_it_quotes_changes(docs_tool, tmp_path, monkeypatch):
    table = docs_tool.Run("t", "page.md", render=lambda run: "| 0.5 |")
    prose = docs_tool.Prose("p", "page.md", cites=["t"])
    monkeypatch.setattr(docs_tool, "BLOCKS", {"t": table, "p": prose})
    ctx = _ctx(docs_tool, tmp_path, "<!-- docs:t -->\n| 0.5 |\n<!-- /docs:t -->\n\n"
                                   "<!-- docs:p -->\nWRDScore scores 0.5.\n<!-- /docs:p -->\n")
    assert prose.stale(ctx) == ["never reviewed"]
    prose.review(ctx)
    assert prose.stale(ctx) == []
    _page(tmp_path, (tmp_path / "page.md").read_text().replace("| 0.5 |", "| 0.6 |"))
    ctx.refresh()
    assert "it quotes t, which changed" in prose.stale(ctx)[0]


def test_a_number_or_a_signature_outside_every_block_is_found(docs_tool, tmp_path):
    page = _page(tmp_path, "Scores 0.535 on IdBench (version 0.2.0, Python 3.11, arXiv:2405.19220, level=0.95).\n"
                           "`wrdscore:v0.2.0|variant:wrd` and exactly 1.0.\n"
                           "<!-- docs:b -->\n0.714 `wrdscore:v0.2.0|variant:wrd`\n<!-- /docs:b -->\n")
    assert docs_tool.loose_numbers(page) == [(1, "0.535"), (2, "wrdscore:v0.2.0|variant:wrd`")]


def test_a_figure_carries_the_signature_it_was_drawn_for(docs_tool, tmp_path):
    from wrd_score import WRDScorer
    from wrd_score.plot import show

    path = tmp_path / "pair.png"
    show("get count", "size", str(path))
    assert docs_tool.png_text(path)["Signature"] == WRDScorer().signature()
    block = docs_tool.Figure("f", "page.md", path=str(path), configs=[("wrdscore", {})])
    ctx = _ctx(docs_tool, tmp_path, "")
    assert block.stale(ctx) == []
    docs_tool.set_png_text(path, "Signature", "wrdscore:v0.0.1|variant:paper")
    assert "was drawn for 'wrdscore:v0.0.1|variant:paper'" in block.stale(ctx)[0]
    from PIL import Image

    Image.open(path).load()  # still a valid PNG after the chunk was replaced
