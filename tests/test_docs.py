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
    # generated block (tools/sync_readme.py), docs/validation.md links to it.
    import importlib.util

    summary = (ROOT / "docs" / "validation-summary.md").read_text(encoding="utf-8")
    assert "| **WRDScore, defaults**" in summary and "tools/validation_tables.sh" in summary
    spec = importlib.util.spec_from_file_location("sync_readme", ROOT / "tools" / "sync_readme.py")
    sync = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sync)
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert sync.synced(readme) == readme, "README.md is stale: run python tools/sync_readme.py"
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
