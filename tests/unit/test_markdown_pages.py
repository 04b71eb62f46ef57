"""A plain Markdown page read into blocks (expect/markdown_pages.py): its Python fences, each
with the expected outputs its comments write, and its ``>>>`` examples outside them."""

from __future__ import annotations

from sphinx_jaxcheck.expect.markdown_pages import find_fences, page_blocks
from sphinx_jaxcheck.model import (
    ExpectationKind,
    MarkdownFence,
    OutputMode,
    PageExamples,
    Subtype,
)

PAGE = """\
# Units

```python
length = 2
print(length * length)  # 4
```

!!! Example

    ```python
    print(length)
    # 2
    ```

```bash
pip install quax
```

>>> length + 1
3

```py
print("no expectation")
```
"""


def blocks(text: str) -> list:
    return page_blocks(text, docname="units", path="/docs/units.md", flags=0, timeout=60, digest="")


def test_each_python_fence_is_a_block_and_the_examples_outside_them_another() -> None:
    found = blocks(PAGE)
    assert [(b.index, b.body_line, type(b.kind)) for b in found] == [
        (0, 4, MarkdownFence),
        (1, 11, MarkdownFence),
        (2, 19, PageExamples),
        (3, 23, MarkdownFence),
    ]
    assert {b.session_key for b in found} == {("units", "")}  # one session per page
    # A fence is named by its page's file and the line its code starts at, as reports name
    # the page's own examples; not by its place among the page's blocks.
    assert [b.label for b in found] == ["units.md:4", "units.md:11", "units.md:19", "units.md:23"]


def test_a_fence_in_an_admonition_is_read_without_its_indentation() -> None:
    fence = blocks(PAGE)[1]
    assert fence.body == ("print(length)", "# 2")
    (trailing,) = fence.expectations
    assert (trailing.kind, trailing.expected) == (ExpectationKind.TRAILING, ("2",))


def test_an_inline_comment_after_a_print_is_its_expected_output() -> None:
    (inline,) = blocks(PAGE)[0].expectations
    assert (inline.kind, inline.expected, inline.statement_line) == (
        ExpectationKind.INLINE,
        ("4",),
        2,
    )


def test_a_fence_that_expects_nothing_runs_without_its_output_compared() -> None:
    quiet = blocks(PAGE)[3]
    assert quiet.expectations == ()
    assert quiet.options.output is OutputMode.IGNORE


def test_an_html_comment_above_a_fence_skips_it_or_sets_its_limits() -> None:
    text = (
        "<!-- jaxcheck: skip -->\n```python\nraise SystemExit\n```\n\n"
        "<!-- jaxcheck: jax-version >=0.5 -->\n<!-- jaxcheck: timeout 30 -->\n"
        "```python\nprint(1)  # 1\n```\n"
    )
    skipped, limited = blocks(text)
    assert skipped.options.output is OutputMode.SKIP
    assert limited.options.limits.jax_version == ">=0.5"
    assert limited.options.timeout == 30
    assert limited.error is None


def test_a_bad_setting_fails_its_fence_at_the_comments_line() -> None:
    text = "# Page\n\n<!-- jaxcheck: skip-it -->\n```python\nprint(1)  # 1\n```\n"
    (block,) = blocks(text)
    assert block.error_subtype is Subtype.OPTION
    assert block.file_line(block.error_line) == 3
    assert block.error.startswith("not run: <!-- jaxcheck: skip-it --> is no setting; expected")
    wrong = blocks("<!-- jaxcheck: timeout soon -->\n```python\npass\n```\n")[0]
    assert wrong.error == (
        "not run: <!-- jaxcheck: timeout soon -->: 'soon' is not a number of seconds greater "
        "than 0, e.g. 300"
    )


def test_a_fence_never_closed_fails_at_its_opening_line() -> None:
    (block,) = blocks("# Page\n\n```python\nprint(1)\n\nMore prose.\n")
    assert block.file_line(block.error_line) == 3
    assert "opened at line 3 is never closed" in (block.error or "")


def test_a_doctest_in_a_python_fence_is_the_fences_and_not_counted_twice() -> None:
    (block,) = blocks("```python\n>>> 1 + 1\n2\n```\n")
    assert isinstance(block.kind, MarkdownFence)
    assert [e.kind for e in block.expectations] == [ExpectationKind.DOCTEST]


def test_fences_follow_commonmark() -> None:
    lines = [
        "````markdown",
        "```python",
        "not a fence of its own",
        "```",
        "````",
        "``` `inline` ```",
        "~~~{.python .numberLines}",
        "x = 1",
        "~~~",
    ]
    found = find_fences(lines)
    assert [(f.opening, f.info, f.closing, f.is_python) for f in found] == [
        (1, "markdown", 5, False),
        (7, "{.python .numberLines}", 9, True),
    ]
