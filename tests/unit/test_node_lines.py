"""Finding a node's text among its file's lines (expect/node_lines.py)."""

from __future__ import annotations

from sphinx_jaxcheck.expect.node_lines import locate, node_lines

PAGE = [
    ".. codediff::",
    "",
    "   import math",
    "   x = math.floor(2.5)",
    "   ---",
    "   import math",
    "   x = math.ceil(2.5)",
    "   print(x)",
]


def test_every_line_must_match_not_only_the_first() -> None:
    right = ("import math", "x = math.ceil(2.5)", "print(x)")
    assert locate(PAGE, right) == 5
    assert locate(PAGE, ("import math", "x = math.floor(2.5)")) == 2
    assert locate(PAGE, ("import math", "y = 1")) is None  # written nowhere


def test_the_search_starts_where_asked() -> None:
    assert locate(PAGE, ("import math",), 3) == 5
    assert locate(PAGE, ("import math",), 6) is None


def test_indentation_tabs_and_trailing_blanks_are_read_as_docutils_reads_them() -> None:
    lines = ["\t>>> 1  ", "\t1", "", "\t\t>>> 2"]
    assert locate(lines, (">>> 1", "1")) == 0
    assert locate(lines, (">>> 1", "1", "", "        >>> 2")) == 0  # inner indentation kept
    assert locate(lines, (">>> 1", "1", "", ">>> 2")) is None


def test_a_nodes_text_loses_the_blank_lines_around_it() -> None:
    assert node_lines("\n>>> 1\n1\n\n") == (">>> 1", "1")
    assert node_lines("") == ()
