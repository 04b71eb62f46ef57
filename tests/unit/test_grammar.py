"""The comment grammar (guide/blocks), on plain strings."""

from __future__ import annotations

import doctest

import pytest

from sphinx_jaxcheck.expect.grammar import parse_body
from sphinx_jaxcheck.model import ExpectationKind


def parse(text: str):  # type: ignore[no-untyped-def]
    return parse_body(text.strip("\n").split("\n"))


def test_trailing_block_strips_hash_space_and_keeps_indentation_after_it() -> None:
    parsed = parse(
        """
print(x)

# { lambda ; a:f32[]. let
#     b:f32[] = sin a
#
#   in (b,) }
"""
    )
    (trailing,) = parsed.expectations
    assert trailing.kind is ExpectationKind.TRAILING
    assert trailing.expected == (
        "{ lambda ; a:f32[]. let",
        "    b:f32[] = sin a",
        "",
        "  in (b,) }",
    )
    assert (trailing.first, trailing.stop) == (2, 6)


def test_inline_comment_on_print_is_an_expectation_but_not_on_other_statements() -> None:
    parsed = parse(
        """
y = 1  # just a comment
print(y)  # 1
show(y)  # shapes disagree
"""
    )
    assert [(e.kind, e.expected, e.statement_line) for e in parsed.expectations] == [
        (ExpectationKind.INLINE, ("1",), 2)
    ]
    assert parsed.inline_prints == ((2, 2),)


def test_inline_comment_on_last_line_of_a_multiline_print() -> None:
    parsed = parse(
        """
print(
    1 + 1,
)  # 2
"""
    )
    assert parsed.inline_prints == ((1, 3),)
    assert parsed.expectations[0].statement_line == 1
    assert parsed.expectations[0].first == 2


def test_commented_repl_statements_run_after_body_with_continuations() -> None:
    parsed = parse(
        """
x = 2
# before
# >>> def double(v):
# ...     return 2 * v
# >>> double(x)
# 4
"""
    )
    kinds = [(e.kind, e.expected) for e in parsed.expectations]
    assert kinds == [
        (ExpectationKind.TRAILING, ("before",)),
        (ExpectationKind.REPL, ()),
        (ExpectationKind.REPL, ("4",)),
    ]
    assert [e.source for e in parsed.examples] == [
        "def double(v):\n    return 2 * v\n",
        "double(x)\n",
    ]
    assert [e.line for e in parsed.examples] == [3, 5]


def test_plain_doctest_body_uses_doctest_parsing() -> None:
    parsed = parse(
        """
>>> 1 + 1
2
>>> print('a\\n\\nb')
a
<BLANKLINE>
b
"""
    )
    assert [(e.kind, e.expected, e.first, e.stop) for e in parsed.expectations] == [
        (ExpectationKind.DOCTEST, ("2",), 1, 2),
        (ExpectationKind.DOCTEST, ("a", "", "b"), 3, 6),
    ]
    assert parsed.code == ""


def test_comment_inside_a_string_at_the_end_is_not_an_expectation() -> None:
    parsed = parse('s = """\n# not output\n"""\nprint(s)')
    assert parsed.expectations == ()


def test_indented_comment_lines_do_not_form_the_trailing_block() -> None:
    parsed = parse("def f():\n    return 1\n    # commented out")
    assert parsed.expectations == ()


def test_block_without_expectations_is_still_run() -> None:
    parsed = parse("x = 1\nprint(x)")
    assert parsed.expectations == () and parsed.error is None
    assert "print(x)" in parsed.code


def test_syntax_error_names_the_block_line() -> None:
    parsed = parse("x = 1\nprint(x\n# 1")
    assert parsed.error is not None and "line 2" in parsed.error


def test_only_comments_and_empty_bodies_are_errors() -> None:
    assert "only comments" in (parse("# 1\n# 2").error or "")
    assert "empty" in (parse("").error or "")


@pytest.mark.parametrize(
    ("body", "line", "message"),
    [
        (
            (">>> x = 1", ">>>y"),
            2,
            "line 2 of the docstring for block lacks blank after >>>: '>>>y'",
        ),
        (
            ("  >>> x = 1", " 2"),
            2,
            "line 2 of the docstring for block has inconsistent leading whitespace: '2'",
        ),
        (
            (">>> print(1)", "1", "", ">>> if 1:", "...print(2)"),
            5,
            "line 5 of the docstring for block lacks blank after ...: '...print(2)'",
        ),
    ],
)
def test_a_doctest_that_cannot_be_parsed_names_its_line(
    body: tuple[str, ...], line: int, message: str
) -> None:
    parsed = parse_body(body)
    assert (parsed.error, parsed.error_line) == (f"the doctest cannot be parsed: {message}", line)


def test_doctest_examples_keep_their_source_want_flags_and_lines() -> None:
    body = (
        ">>> %time x  # doctest: +SKIP",
        "1",
        ">>> print(2)",
        "<BLANKLINE>",
        "2",
        ">>> 1/0",
        "Traceback (most recent call last):",
        "ZeroDivisionError: division by zero",
    )
    parsed = parse_body(body)
    skipped, printed, raised = parsed.expectations
    assert (
        skipped.skip,
        skipped.optionflags,
        skipped.statement_line,
        skipped.first,
        skipped.stop,
    ) == (True, doctest.SKIP, 1, 1, 2)
    assert (
        skipped.source == "%time x  # doctest: +SKIP\n"
        and skipped.want == "1\n"
        and skipped.expected == ("1",)
    )
    assert (
        printed.skip,
        printed.optionflags,
        printed.statement_line,
        printed.first,
        printed.stop,
    ) == (False, 0, 3, 3, 5)
    assert (
        printed.expected == ("", "2")
        and printed.want == "<BLANKLINE>\n2\n"
        and printed.exc_msg is None
    )
    assert raised.exc_msg == "ZeroDivisionError: division by zero\n" and raised.source == "1/0\n"
    # The skipped example never runs; the others run, each at its own line.
    assert [(e.source, e.line) for e in parsed.examples] == [("print(2)\n", 3), ("1/0\n", 6)]


def test_an_ipython_magic_that_would_run_is_bad_input_at_its_line() -> None:
    parsed = parse_body((">>> x = 1", ">>> !ls", "a"))
    assert parsed.error_line == 2
    assert parsed.error is not None and parsed.error.startswith("line 2: `!ls` is an IPython magic")


def test_the_fast_comment_scan_reads_plain_lines_and_defers_the_rest() -> None:
    from sphinx_jaxcheck.expect.grammar import _scan_comments

    code = "x = 'a#b'  # c\nprint(\"#\", 'q\\'#')  # 1\ny = 2\nz = '#'"
    assert _scan_comments(code) == {1: (11, "# c"), 2: (20, "# 1")}
    assert _scan_comments("#\n  # two\n") == {1: (0, "#"), 2: (2, "# two")}
    # Where only tokenize can tell: f-strings, triple quotes, continued lines, open strings, CR.
    for hard in (
        "s = f'{x}'  # c",
        "s = rb'x' + F'{y}'  # c",
        's = """a"""  # c',
        "x = 1 + \\\n2  # c",
        "s = 'open  # c",
        "a = 1\r# c",
    ):
        assert _scan_comments(hard) is None, hard
    assert _scan_comments("s = br'#'  # c") == {1: (11, "# c")}


def test_a_bare_continuation_line_belongs_to_the_example_source() -> None:
    body = (
        ">>> f()  # doctest: +SKIP",
        "...",
        "Traceback (most recent call last):",
        "TypeError: x",
        ">>> 2",
        "2",
    )
    traceback, two = parse_body(body).expectations
    assert (traceback.first, traceback.stop) == (2, 4)
    assert (two.first, two.stop) == (5, 6)
