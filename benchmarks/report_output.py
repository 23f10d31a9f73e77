"""How a benchmark hands back what it measured: printed, and written whole to ``--markdown FILE`` when asked.

One rule for every benchmark script, so a table pasted into ``docs/`` is byte-for-byte what the script printed,
and an interrupted run leaves no half-written file behind (``wrd_score.files.atomic_write``).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from wrd_score.files import atomic_write  # noqa: E402


def add_markdown_argument(parser: argparse.ArgumentParser, what: str = "tables") -> None:
    """``--markdown FILE``: also write the output there."""
    parser.add_argument("--markdown", default=None, metavar="FILE", help=f"also write the {what} to this file")


def emit(text: str, markdown: Optional[str]) -> int:
    """Print ``text``, and write it to ``markdown`` too when given; the exit status."""
    print(text)
    if markdown:
        with atomic_write(str(markdown)) as handle:
            handle.write(text + "\n")
    return 0
