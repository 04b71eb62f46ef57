"""sphinx.ext.doctest's groups as its builder gathers them (expect/doctest_directives.py)."""

from __future__ import annotations

import math

from sphinx_jaxcheck.expect import doctest_directives
from sphinx_jaxcheck.expect.doctest_directives import AT_ITS_LINE, FIRST, LAST, blocks_of

# Not a class of tests, whatever its name.
Item = doctest_directives.TestItem


def item(kind: str, groups: str, first: int, *lines: str) -> doctest_directives.TestItem:
    return Item(kind, tuple(groups.split(",")), first, lines)


def gathered(
    items: list[doctest_directives.TestItem], **given: object
) -> list[tuple[str | None, int, int, float]]:
    """(session, when, first line, position) of each block, in the order made."""
    placed = blocks_of(
        items, docname="doc", path="/doc.rst", flags=0, timeout=60.0, digest="", **given
    )  # type: ignore[arg-type]
    return [(p.block.options.session, p.when, p.block.body_line, p.position) for p in placed]


def test_star_joins_only_the_groups_that_exist_after_their_own_tests() -> None:
    items = [
        item("doctest", "*", 3, ">>> 1", "1"),
        item("doctest", "g1", 7, ">>> 2", "2"),
    ]
    assert gathered(items, groups=()) == [
        ("doctest group g1", AT_ITS_LINE, 7, 7),
        ("doctest group g1", AT_ITS_LINE, 3, math.inf),
    ]
    assert gathered(items[:1], groups=()) == []  # no group: nothing runs
    # Under pytest's rules the page's own namespace always exists.
    assert gathered(items[:1]) == [(None, AT_ITS_LINE, 3, math.inf)]


def test_the_latest_testoutput_of_a_testcode_is_its_output() -> None:
    items = [
        item("testcode", "default", 3, "print(1)"),
        item("testoutput", "default", 7, "2"),
        item("testoutput", "default", 11, "1"),
        item("testoutput", "other", 15, "1"),  # no testcode in its group: no test
    ]
    placed = blocks_of(items, docname="doc", path="/doc.rst", flags=0, timeout=60.0, digest="")
    (test,) = [p.block for p in placed]
    assert test.expectations[0].want == "1\n" and test.body[-1] == "1"


def test_global_setup_runs_first_and_global_cleanup_last_in_every_group() -> None:
    setup = Item("testsetup", ("*",), 2, ("import math",), path="/conf.py", name="setup")
    cleanup = Item("testcleanup", ("*",), 5, ("del math",), path="/conf.py", name="cleanup")
    items = [
        item("testsetup", "g1", 3, "x = 1"),
        item("doctest", "g1", 6, ">>> x", "1"),
        item("doctest", "default", 9, ">>> 1", "1"),
    ]
    placed = blocks_of(
        items,
        docname="doc",
        path="/doc.rst",
        flags=0,
        timeout=60.0,
        digest="",
        groups=(),
        global_setup=setup,
        global_cleanup=cleanup,
    )
    made = [(p.block.options.session, p.when, p.block.label) for p in placed]
    assert made == [
        ("doctest group g1", FIRST, "setup"),
        ("doctest group g1", FIRST, "doc.rst:3"),
        ("doctest group g1", LAST, "cleanup"),
        ("doctest group g1", AT_ITS_LINE, "doc.rst:6"),
        (None, FIRST, "setup"),
        (None, LAST, "cleanup"),
        (None, AT_ITS_LINE, "doc.rst:9"),
    ]
    assert placed[0].block.path == "/conf.py"


def test_a_test_whose_text_is_written_nowhere_is_reported_at_one_line_and_never_rewritten() -> None:
    made = Item("testcode", ("default",), 4, ("x = 1", "print(x)"), placed=False)
    (placed,) = blocks_of([made], docname="doc", path="/doc.rst", flags=0, timeout=60.0, digest="")
    assert not placed.block.placed
    assert placed.block.file_line(2) == 4
    assert "is not written in doc.rst as it runs" in placed.block.update_refusal
