"""The guide's shell examples highlight as one reads them: a version is one token.

Pygments' shell lexer reads ``0.4.35`` as the number ``0`` and the text
``.4.35``, so an unquoted version shows its first digit in another colour.
"""

from __future__ import annotations

import re
from itertools import pairwise
from pathlib import Path

from pygments.lexers import BashSessionLexer
from pygments.token import Number, Text

GUIDE = Path(__file__).parents[2] / "demo_docs" / "guide"
CONSOLE = re.compile(r"^```console\n(.*?)^```", re.DOTALL | re.MULTILINE)


def split_versions(session: str) -> list[str]:
    """Each number the lexer ends where a dotted version goes on as plain text."""
    return [
        number + text.split()[0]
        for (kind, number), (after, text) in pairwise(BashSessionLexer().get_tokens(session))
        if kind in Number and after in Text and re.match(r"\.\d", text)
    ]


def test_an_unquoted_version_is_what_is_reported() -> None:
    assert split_versions("$ jaxcheck check --jax-version 0.4.35\n") == ["0.4.35"]
    assert split_versions('$ jaxcheck check --jax-version "0.4.35"\n') == []


def test_no_shell_example_of_the_guide_splits_a_version() -> None:
    found = {
        page.name: split
        for page in sorted(GUIDE.glob("*.md"))
        for session in CONSOLE.findall(page.read_text("utf-8"))
        if (split := split_versions(session))
    }
    assert found == {}, f"quote these versions: {found}"
