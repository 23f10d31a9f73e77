"""Regenerate the README's generated blocks: ``python tools/sync_readme.py`` (``--check``: only report).

* the options table, from the option metadata (:func:`wrd_score.options.markdown_table`);
* the validation summary, from ``docs/validation-summary.md`` (the one copy the app shows too).
"""
import re
import sys
from pathlib import Path

from wrd_score.options import with_options_table

ROOT = Path(__file__).resolve().parents[1]
SUMMARY = ("<!-- validation-summary:start -->", "<!-- validation-summary:end -->")


def synced(readme: str) -> str:
    """The README text with both generated blocks rewritten."""
    text = with_options_table(readme)
    start, end = SUMMARY
    head, rest = text.split(start)
    _, tail = rest.split(end)
    summary = (ROOT / "docs" / "validation-summary.md").read_text(encoding="utf-8").strip()
    # The README links from the repository root, the summary from docs/.
    summary = re.sub(r"\]\((?!https?:|/|#|docs/)([^)]+\.md(?:#[^)]*)?)\)", r"](docs/\1)", summary)
    return f"{head}{start}\n{summary}\n{end}{tail}"


def main() -> int:
    path = ROOT / "README.md"
    text = path.read_text(encoding="utf-8")
    new = synced(text)
    if "--check" in sys.argv[1:]:
        print("README.md is up to date" if new == text else "README.md is stale: run python tools/sync_readme.py")
        return int(new != text)
    path.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
