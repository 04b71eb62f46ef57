"""What the block grammar reads from a body, compared whole: every expectation and error.

Comments found by the fast line scan and by tokenize alike, inline prints among
several statements on a line, ``# >>>`` statements as doctest reads them,
syntax errors pointing at their line, and doctest bodies that cannot run.
"""

from __future__ import annotations

import doctest

import pytest

from sphinx_jaxcheck.expect.doctest_flags import flag_names
from sphinx_jaxcheck.expect.grammar import parse_body, parse_doctest
from sphinx_jaxcheck.model import Example, Expectation, ExpectationKind
from sphinx_jaxcheck.worker.runner import SessionRunner

TRAILING, INLINE, REPL, DOCTEST = (
    ExpectationKind.TRAILING,
    ExpectationKind.INLINE,
    ExpectationKind.REPL,
    ExpectationKind.DOCTEST,
)


def inline_comments(*body: str) -> list[tuple[int, int, str]]:
    """(statement line, comment column, expected text) of each inline print the grammar finds."""
    parsed = parse_body(body)
    assert parsed.error is None, parsed.error
    return [
        (e.statement_line, e.comment_column, e.expected[0])
        for e in parsed.expectations
        if e.kind is INLINE
    ]


@pytest.mark.parametrize(
    "line",
    [
        "print('#', \"it's\")  # 2",
        'print("\\"", "#")  # 1',
        "print(rb'#', b'\\\\')  # 3",
        "print(f'{1}#')  # 4",
        "print(1)# 5",
    ],
)
def test_a_comment_is_found_after_strings_holding_hashes_and_escapes(line: str) -> None:
    column = line.rindex("#")
    assert inline_comments(line) == [(1, column, line[-1])]


def test_comments_are_the_same_when_tokenize_reads_them() -> None:
    # Triple quotes and line continuations send the grammar to tokenize.
    body = (
        's = """a',
        "# not a comment",
        '"""',
        "x = 1 + \\",
        "    2",
        "print(s)  # s",
        "print(x)  # 3",
        "",
        "# a",
        "# # b",
    )
    parsed = parse_body(body)
    assert parsed.error is None
    assert parsed.expectations == (
        Expectation(INLINE, ("s",), first=5, stop=6, statement_line=6, comment_column=10),
        Expectation(INLINE, ("3",), first=6, stop=7, statement_line=7, comment_column=10),
        Expectation(TRAILING, ("a", "# b"), first=8, stop=10, statement_line=9),
    )
    assert parsed.inline_prints == ((6, 6), (7, 7))


def test_a_name_with_capital_x_is_not_a_quote() -> None:
    assert inline_comments("X = 1", "print(X)  # X") == [(2, 10, "X")]


def test_only_the_last_statement_on_a_line_takes_its_comment() -> None:
    assert inline_comments(
        "x = 1; print(x)  # 1", "print(2); y = 3  # 2", "for i in [4]: print(i)  # 4"
    ) == [
        (1, 17, "1"),
        (3, 24, "4"),
    ]
    # A print without a comment does not stop the search for later ones.
    assert inline_comments("print(0)", "print(1)  # 1") == [(2, 10, "1")]
    assert inline_comments("if True: print(1); print(2)  # 2") == [(1, 29, "2")]


def test_trailing_comments_keep_their_text_exactly() -> None:
    parsed = parse_body(("print('a  ')", "", "#a  ", "#", "# >>> 1", "#  2"))
    assert parsed.expectations[0] == Expectation(
        TRAILING, ("a  ", ""), first=2, stop=4, statement_line=3
    )
    assert parsed.expectations[1].expected == (" 2",)


def test_commented_statements_read_as_doctest_reads_them() -> None:
    body = (
        "x = 1",
        "# >>> for i in [1]:",
        "# ...     print(i,",
        "# ...           i)  # doctest: +SKIP",
        "# 1 1",
        "# >>> print('a\\n\\nb')",
        "# a",
        "#",
        "# b",
        "# >>> 1/0",
        "# Traceback (most recent call last):",
        "# ZeroDivisionError: division by zero",
        "# >>> print('...x')",
        "# ...x",
    )
    parsed = parse_body(body, doctest_flags=doctest.ELLIPSIS)
    assert parsed.error is None
    loop, blank, raising, dots = parsed.expectations[1:]
    assert parsed.expectations[0] == Expectation(TRAILING, (), first=1, stop=1, statement_line=2)
    source = "for i in [1]:\n    print(i,\n          i)  # doctest: +SKIP\n"
    assert loop == Expectation(
        REPL,
        ("1 1",),
        first=4,
        stop=5,
        statement_line=2,
        source=source,
        want="1 1\n",
        optionflags=doctest.ELLIPSIS | doctest.SKIP,
        skip=True,
    )
    assert blank == Expectation(
        REPL,
        ("a", "", "b"),
        first=6,
        stop=9,
        statement_line=6,
        source="print('a\\n\\nb')\n",
        want="a\n<BLANKLINE>\nb\n",
        optionflags=doctest.ELLIPSIS,
    )
    assert (
        raising.exc_msg == "ZeroDivisionError: division by zero\n"
        and raising.want
        == "Traceback (most recent call last):\nZeroDivisionError: division by zero\n"
    )
    # doctest cannot parse '...x' as output: the block's own rules judge it.
    assert dots == Expectation(
        REPL,
        ("...x",),
        first=13,
        stop=14,
        statement_line=13,
        source="print('...x')\n",
        optionflags=doctest.ELLIPSIS,
    )
    assert parsed.examples == (
        Example("print('a\\n\\nb')\n", line=6),
        Example("1/0\n", line=10),
        Example("print('...x')\n", line=13),
    )


@pytest.mark.parametrize(
    ("body", "message", "line"),
    [
        (
            ("print(1)", "x = (", "print(2)"),
            "line 2 of the block is not valid Python: '(' was never closed: 'x = ('",
            2,
        ),
        (
            ("x = 1 +", "print(2)"),
            "line 1 of the block is not valid Python: invalid syntax: 'x = 1 +'",
            1,
        ),
        (
            ("print(1)", "  return 2"),
            "line 2 of the block is not valid Python: unexpected indent: 'return 2'",
            2,
        ),
        (
            ("print(1)", "return 2"),
            "line 2 of the block is not valid Python: 'return' outside function: 'return 2'",
            2,
        ),
        ((), "the block is empty: expected Python code to run", 1),
        (("", "  "), "the block is empty: expected Python code to run", 1),
        (
            ("    # only a comment", "# 1"),
            "the block holds only comments, so there is nothing to run: expected Python code "
            "before the expected-output comments (or `# >>> ` statements)",
            1,
        ),
    ],
)
def test_a_body_that_cannot_run_says_why_at_its_line(
    body: tuple[str, ...], message: str, line: int
) -> None:
    parsed = parse_body(body)
    assert (parsed.error, parsed.error_line) == (message, line)
    assert parsed.expectations == () and (parsed.code, parsed.examples) == ("", ())


def test_annotations_in_blocks_are_checked_as_plain_python() -> None:
    # Under ``from __future__ import annotations`` a walrus in an annotation would be an error.
    parsed = parse_body(
        ("def f() -> (x := int): pass", "print(f.__annotations__)  # {'return': <class 'int'>}")
    )
    assert parsed.error is None
    outcome = SessionRunner().run(parsed.program("<b>"))
    assert outcome.exception is None and outcome.inline == ((2, "{'return': <class 'int'>}\n"),)


def test_blocks_and_examples_run_with_annotations_evaluated() -> None:
    body = (
        "def f(x: int): pass",
        "print(f.__annotations__)  # {'x': <class 'int'>}",
        "",
        "# >>> def g(y: float): pass",
        "# >>> g.__annotations__",
        "# {'y': <class 'float'>}",
    )
    outcome = SessionRunner().run(parse_body(body).program("<b>"))
    assert outcome.inline == ((2, "{'x': <class 'int'>}\n"),)
    assert outcome.examples == ("", "{'y': <class 'float'>}\n")


def test_a_doctest_that_cannot_run_still_lists_its_examples() -> None:
    body = ("  >>> %time 1", "  1", "  >>> x = 2", "  >>> x")
    for parsed in (parse_body(body), parse_body(body, doctest_only=True)):
        assert parsed.error == (
            "line 1: `%time` is an IPython magic, which plain Python (and so doctest) cannot run: "
            "write the statement without `%time`, or mark the example `# doctest: +SKIP`"
        )
        assert parsed.expectations == (
            Expectation(DOCTEST, (), first=0, stop=0, statement_line=1),
            Expectation(DOCTEST, (), first=2, stop=2, statement_line=3),
            Expectation(DOCTEST, (), first=3, stop=3, statement_line=4),
        )
        assert (parsed.code, parsed.examples) == ("", ())
    # A Python body that fails lists none, prompts in strings or not.
    assert parse_body(("print(1", ">>> 2")).expectations == ()


def test_a_doctest_parse_error_points_at_its_line() -> None:
    parsed = parse_body((">>> x = 1", ">>> if x:", "...print(x)"))
    assert parsed.error_line == 3 and parsed.error is not None
    assert parsed.error.startswith(
        "the doctest cannot be parsed: line 3 of the docstring for block lacks blank after ..."
    )


def test_doctest_continuation_lines_up_to_the_end_belong_to_the_example() -> None:
    expectations, examples = parse_doctest((">>> for i in []:", "...     pass", "..."))
    assert expectations == [
        Expectation(
            DOCTEST, (), first=3, stop=3, statement_line=1, source="for i in []:\n    pass\n"
        )
    ]
    assert examples == (Example("for i in []:\n    pass\n", line=1),)
    expectations, _ = parse_doctest(
        (">>> print(1,", "...       2)", "1 2", ">>> x = 1  # doctest: +SKIP")
    )
    assert [(e.first, e.stop, e.expected, e.optionflags, e.skip) for e in expectations] == [
        (2, 3, ("1 2",), 0, False),
        (4, 4, (), doctest.SKIP, True),
    ]


@pytest.mark.parametrize("quotes", ['"""', "'''"])
def test_hash_lines_inside_a_string_at_the_end_are_not_expectations(quotes: str) -> None:
    parsed = parse_body(("print(1)", f"s = {quotes}", "# in the string", f"# end{quotes}"))
    assert parsed.error is None and parsed.expectations == ()


def test_a_doctest_option_error_points_at_its_line() -> None:
    parsed = parse_body((">>> x = 1", "1", ">>> y = 2  # doctest: +BOGUS"))
    assert (parsed.error, parsed.error_line) == (
        (
            "the doctest cannot be parsed: line 3 of the doctest for block has an "
            "invalid option: '+BOGUS'; expected one of " + ", ".join(flag_names())
        ),
        3,
    )


def test_a_directive_on_any_line_of_a_commented_statement_counts() -> None:
    body = ("x = [1]", "# >>> for i in x:", "# ...     print(i)  # doctest: +SKIP", "# ...", "# 1")
    (_, loop) = parse_body(body).expectations
    assert loop.skip and loop.source == "for i in x:\n    print(i)  # doctest: +SKIP\n\n"


@pytest.mark.parametrize(
    "body",
    [
        ("x = 1", "print(x)", "# 1"),
        ("x = 1", "    # indented note", "print(x)  # 1"),
        ("def f():", "    return 1  # not a print", "print(f())", "# 1"),
        (
            "print(1,",
            "      2)  # 1 2",
        ),
        ('s = """a', "# inside", '"""  # after', "print(s)"),
        ("return 1",),
        ("for x in y:", "    pass", "break"),
        ("x = (1,", "# c", ")", "print(x)", "# (1,)"),
        ("x = 1 +", "# 2"),
        ("# only", "# comments"),
        ("import jax", "", "# >>> print(1)", "# 1"),
        ("print('#')  # #", "print(1); print(2)  # 2"),
    ],
)
def test_a_body_reads_the_same_whether_or_not_its_syntax_tree_is_built(
    body: tuple[str, ...], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without a comment after code on its line, no tree is built: only compiled.
    fast = parse_body(body, doctest_flags=doctest.ELLIPSIS)
    monkeypatch.setattr("sphinx_jaxcheck.expect.grammar._has_comment_after_code", lambda *_: True)
    assert parse_body(body, doctest_flags=doctest.ELLIPSIS) == fast
