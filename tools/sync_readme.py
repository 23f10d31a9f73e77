"""Regenerate the README's options table: ``python tools/sync_readme.py`` (``--check``: only report).

The table comes from the option metadata (:func:`wrd_score.options.markdown_table`).  The README's other generated
blocks (the validation summary, the examples) are ``tools/docs.py``'s, which also runs this:
``python tools/docs.py --update`` regenerates everything.
"""
import re
import sys
from pathlib import Path

from wrd_score.options import with_options_table

ROOT = Path(__file__).resolve().parents[1]


def synced(readme: str) -> str:
    """The README text with its options table rewritten."""
    return with_options_table(readme)


def summary_for_readme() -> str:
    """``docs/validation-summary.md`` (the one copy the app shows too) with its links made relative to the root."""
    summary = (ROOT / "docs" / "validation-summary.md").read_text(encoding="utf-8")
    summary = re.sub(r"<!-- /?docs:[\w.+-]+ -->\n", "", summary).strip()
    # The README links from the repository root, the summary from docs/.
    return re.sub(r"\]\((?!https?:|/|#|docs/)([^)]+\.md(?:#[^)]*)?)\)", r"](docs/\1)", summary)


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
