"""The block statuses the model knows are the ones the guide lists (no builds)."""

from __future__ import annotations

import re
from pathlib import Path

from sphinx_jaxcheck.model import Status

GUIDE = Path(__file__).parents[2] / "demo_docs" / "guide"


def test_the_guide_lists_exactly_these_statuses() -> None:
    text = (GUIDE / "status.md").read_text("utf-8")
    rows = re.findall(r"^\| ([a-z -]+) \| ", text, re.MULTILINE)
    assert [row for row in rows if row != "status"] == [status.value for status in Status]
