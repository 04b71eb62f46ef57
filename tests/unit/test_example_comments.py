"""The ``# jaxcheck:`` comments of ``>>>`` examples: what each states, and a clear problem at
its line for each bad one (no builds)."""

from __future__ import annotations

import pytest

from sphinx_jaxcheck.expect import doctest_directives
from sphinx_jaxcheck.expect.docstrings import Docstring, docstring_blocks
from sphinx_jaxcheck.expect.example_comments import comment_directive, comment_options, seconds
from sphinx_jaxcheck.expect.page_examples import find_regions, region_block
from sphinx_jaxcheck.model import Limits, Subtype


def test_a_comment_line_names_a_directive_and_its_value() -> None:
    assert comment_directive("# jaxcheck: jax-version <0.5") == ("jax-version", "<0.5")
    assert comment_directive("   #jaxcheck:platforms gpu, tpu  ") == ("platforms", "gpu, tpu")
    assert comment_directive(">>> # jaxcheck: platforms gpu") == ("platforms", "gpu")
    assert comment_directive("... # jaxcheck: timeout 300") == ("timeout", "300")
    assert comment_directive("# just a comment") is None
    assert comment_directive("x = 1  # jaxcheck: platforms gpu") is None


def test_the_comments_state_limits_and_a_timeout() -> None:
    found, problems = comment_options(
        [
            "# jaxcheck: jax-version >=0.7,<0.9",
            "x = 1",
            "# jaxcheck: platforms gpu",
            ">>> # jaxcheck: timeout 2.5",
        ]
    )
    assert problems == []
    assert (found.limits, found.timeout) == (Limits(">=0.7,<0.9", ("gpu",)), 2.5)
    found, _ = comment_options([">>> 1 + 1", "2"])
    assert (found.limits, found.timeout) == (Limits(), None)


@pytest.mark.parametrize("written", ["0", "-5", "nan", "inf", "soon", "", "5 s"])
def test_a_timeout_is_a_positive_finite_number_of_seconds(written: str) -> None:
    with pytest.raises(ValueError):
        seconds(written)


def test_each_bad_comment_is_a_problem_at_its_line_naming_what_was_expected() -> None:
    _, problems = comment_options(
        [
            "# jaxcheck: jax-version soon",
            "# jaxcheck: backend gpu",
            "# jaxcheck: platforms npu",
            ">>> # jaxcheck: timeout 0",
        ]
    )
    assert problems == [
        (
            1,
            (
                "`# jaxcheck: jax-version`: 'soon' is not a PEP 440 version specifier, "
                "e.g. <0.5 or >=0.7,<0.9"
            ),
        ),
        (
            2,
            (
                "unknown directive '# jaxcheck: backend gpu'; expected "
                "`# jaxcheck: jax-version SPEC`, `# jaxcheck: platforms cpu|gpu|tpu` "
                "or `# jaxcheck: timeout SECONDS`"
            ),
        ),
        (3, "`# jaxcheck: platforms`: 'npu' is not some of cpu, gpu, tpu, e.g. gpu or cpu, gpu"),
        (4, "`# jaxcheck: timeout`: '0' is not a number of seconds greater than 0, e.g. 300"),
    ]


PAGE = """\
Text.

>>> # jaxcheck: timeout 300
>>> import time
>>> time.sleep(0)

Other examples.

>>> 1 + 1
2
"""


def test_a_timeout_comment_holds_for_its_group_of_page_examples_only() -> None:
    lines = PAGE.splitlines()
    slow, quick = (
        region_block(
            "page",
            "/p.md",
            region,
            flags=0,
            timeout=7.0,
            digest="",
            above=lines[: region.first - 1],
        )
        for region in find_regions(PAGE)
    )
    assert (slow.options.timeout, slow.program.timeout) == (300.0, 300.0)
    assert (quick.options.timeout, quick.program.timeout) == (None, 7.0)


def test_a_timeout_comment_holds_for_a_docstrings_group_of_examples() -> None:
    text = "Init a large model.\n\n>>> # jaxcheck: timeout 900\n>>> x = 1\n>>> x\n1\n"
    (block,) = docstring_blocks(
        Docstring("pkg.f", "pkg", text, "/pkg.py", 10), docname="i", flags=0, timeout=7, digest=""
    )
    assert block.program.timeout == 900.0
    bad = text.replace("900", "ninety")
    (refused,) = docstring_blocks(
        Docstring("pkg.f", "pkg", bad, "/pkg.py", 10), docname="i", flags=0, timeout=7, digest=""
    )
    assert refused.error_subtype is Subtype.OPTION
    assert refused.file_line(refused.error_line) == 10 + 2  # the comment's own file line
    assert "'ninety' is not a number of seconds" in (refused.error or "")


def test_a_timeout_comment_holds_for_a_sphinx_doctest_test_it_stands_in() -> None:
    Item = doctest_directives.TestItem
    items = [
        Item("doctest", ("default",), 3, (">>> # jaxcheck: timeout 120", ">>> 1", "1")),
        Item("testcode", ("default",), 8, ("# jaxcheck: timeout 30", "print(1)")),
        Item("testoutput", ("default",), 11, ("1",)),
        Item("doctest", ("default",), 14, (">>> 2", "2")),
        Item("doctest", ("g",), 17, (">>> # jaxcheck: timeout never", ">>> 3", "3")),
    ]
    made = doctest_directives.blocks_of(
        items, docname="doc", path="/doc.rst", flags=0, timeout=7.0, digest="", groups=()
    )
    timeouts = [(s.block.body_line, s.block.program.timeout, s.block.error) for s in made]
    assert timeouts[:3] == [(3, 120.0, None), (8, 30.0, None), (14, 7.0, None)]
    line, _, error = timeouts[3]
    assert line == 17 and "`# jaxcheck: timeout`: 'never' is not" in (error or "")
