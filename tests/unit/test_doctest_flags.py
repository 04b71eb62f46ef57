"""Doctest flags and directives: every example is judged by us and by the oracle.

The oracle is stdlib ``doctest.DocTestRunner`` with pytest's own output checker
(``_pytest.doctest._get_checker``), exactly what ``pytest --doctest-glob`` runs.
Our side parses the same text with the block grammar, runs it in the worker's
session runner and judges the outcome.
"""

from __future__ import annotations

import doctest
import re
from dataclasses import replace

import pytest
from _pytest.doctest import _get_checker

from sphinx_jaxcheck.expect.doctest_flags import flags_from_names
from sphinx_jaxcheck.expect.grammar import parse_body
from sphinx_jaxcheck.judge.example_verdicts import example_verdicts
from sphinx_jaxcheck.judge.matching import PytestOutputChecker, adopt_written_precision
from sphinx_jaxcheck.kinds import judge
from sphinx_jaxcheck.model import Block, BlockOptions, PageExamples, Status
from sphinx_jaxcheck.worker.runner import SessionRunner

# (flags, doctest text): each case once as written; the cases pass and fail in both ways.
CASES: list[tuple[str, str]] = [
    ("", ">>> 1 + 1\n2\n"),
    ("", ">>> 1 + 1\n3\n"),
    ("", ">>> print('a   b')\na b\n"),
    ("NORMALIZE_WHITESPACE", ">>> print('a   b')\na b\n"),
    ("NORMALIZE_WHITESPACE", ">>> print('a   b')  # doctest: -NORMALIZE_WHITESPACE\na b\n"),
    ("", ">>> print('a   b')  # doctest: +NORMALIZE_WHITESPACE\na b\n"),
    ("", ">>> list(range(20))\n[0, 1, ..., 19]\n"),
    ("ELLIPSIS", ">>> list(range(20))\n[0, 1, ..., 19]\n"),
    ("", ">>> list(range(20))  # doctest: +ELLIPSIS\n[0, 1, ..., 19]\n"),
    ("", ">>> print('[1, ..., 3]')\n[1, ..., 3]\n"),
    ("", ">>> 3.14159\n3.14\n"),
    ("NUMBER", ">>> 3.14159\n3.14\n"),
    ("NUMBER", ">>> 3.15159\n3.14\n"),
    ("NUMBER", ">>> 1234.5\n1.2e3\n"),
    ("NUMBER", ">>> 1534.5\n1.2e3\n"),
    ("NUMBER", ">>> [1.0049, 2.0]\n[1.00, 2.]\n"),
    ("NUMBER", ">>> [1.0049, 2.0, 3.0]\n[1.00, 2.]\n"),
    ("NUMBER", ">>> 17\n17.0\n"),
    ("NUMBER", ">>> float('nan')\nnan\n"),
    ("", ">>> 3.14159  # doctest: +NUMBER\n3.14\n"),
    ("NUMBER", ">>> 3.14159  # doctest: -NUMBER\n3.14\n"),
    ("", ">>> print(repr('x'))\nu'x'\n"),
    ("ALLOW_UNICODE", ">>> print(repr('x'))\nu'x'\n"),
    ("", ">>> b'x'\n'x'\n"),
    ("ALLOW_BYTES", ">>> b'x'\n'x'\n"),
    (
        "",
        (
            ">>> int('x')\n"
            "Traceback (most recent call last):\n"
            "ValueError: invalid literal for int() with base 10: 'x'\n"
        ),
    ),
    ("", ">>> int('x')\nTraceback (most recent call last):\n  ...\nValueError: something else\n"),
    (
        "IGNORE_EXCEPTION_DETAIL",
        ">>> int('x')\nTraceback (most recent call last):\nValueError: something else\n",
    ),
    (
        "",
        (
            ">>> int('x')  # doctest: +IGNORE_EXCEPTION_DETAIL\n"
            "Traceback (most recent call last):\n"
            "builtins.ValueError: other\n"
        ),
    ),
    (
        "",
        (
            ">>> int('x')  # doctest: +IGNORE_EXCEPTION_DETAIL\n"
            "Traceback (most recent call last):\n"
            "TypeError: other\n"
        ),
    ),
    ("", ">>> int('x')\n0\n"),
    ("", ">>> print('a')\n>>> print('b')\nb\n"),
    ("", ">>> print('')\n<BLANKLINE>\n"),
    ("DONT_ACCEPT_BLANKLINE", ">>> print('')\n<BLANKLINE>\n"),
    ("", ">>> True\n1\n"),
    ("DONT_ACCEPT_TRUE_FOR_1", ">>> True\n1\n"),
    ("", ">>> raise SystemExit('bye')  # doctest: +SKIP\nnever compared\n"),
    ("SKIP", ">>> 1 + 1\n3\n"),
    ("", ">>> print('x', end='')\nx\n"),
    ("", ">>> x = [1,\n...      2]\n>>> x\n[1, 2]\n"),
    ("", ">>> def f(\n...     a): return a\n>>> f(2)\n2\n"),
    (
        "",
        (
            ">>> 1/0  # doctest: +ELLIPSIS\n"
            "Traceback (most recent call last):\n"
            "ZeroDivisionError: division...\n"
        ),
    ),
    (
        "NORMALIZE_WHITESPACE",
        ">>> (1111111111, 2222222222,\n...  3333333333)\n(1111111111,\n 2222222222, 3333333333)\n",
    ),
]


def oracle(flag_names: str, text: str) -> int:
    """How many examples fail under pytest's doctest runner."""
    flags = flags_from_names(flag_names.split())
    test = doctest.DocTestParser().get_doctest(text, {}, "case", "case.txt", 0)
    runner = doctest.DocTestRunner(checker=_get_checker(), optionflags=flags, verbose=False)
    return runner.run(test, out=lambda _: None).failed


def ours(flag_names: str, text: str) -> tuple[Status, int]:
    """Our verdict on the same text, and how many examples drifted."""
    body = text.rstrip("\n").split("\n")
    parsed = parse_body(body, doctest_flags=flags_from_names(flag_names.split()))
    assert parsed.error is None, parsed.error
    block = Block(
        "case",
        0,
        "case.txt",
        1,
        tuple(body),
        BlockOptions(),
        parsed.expectations,
        parsed.program("<case>"),
        kind=PageExamples(),
    )
    outcome = SessionRunner().run(parsed.program("<case>"))
    verdict = judge(block, outcome)
    return verdict.status, len(verdict.drifts)


@pytest.mark.parametrize(
    ("flags", "text"), CASES, ids=[f"{i}-{f or 'none'}" for i, (f, _) in enumerate(CASES)]
)
def test_each_example_gets_pytests_verdict(flags: str, text: str) -> None:
    failed = oracle(flags, text)
    status, drifted = ours(flags, text)
    assert drifted == failed
    assert (status is Status.STALE) == (failed > 0)


def test_the_cases_pass_and_fail_under_the_oracle() -> None:
    verdicts = [oracle(flags, text) > 0 for flags, text in CASES]
    assert any(verdicts) and not all(verdicts)


def test_skipped_examples_never_run_and_count_as_skipped() -> None:
    body = [">>> raise SystemExit('would stop')  # doctest: +SKIP", "nothing"]
    parsed = parse_body(body)
    assert parsed.program("<skip>").examples == ()
    assert [e.skip for e in parsed.expectations] == [True]
    block = Block(
        "d",
        0,
        "d.txt",
        1,
        tuple(body),
        BlockOptions(),
        parsed.expectations,
        parsed.program("<skip>"),
        kind=PageExamples(),
    )
    assert judge(block, SessionRunner().run(parsed.program("<skip>"))).status is Status.SKIPPED


def test_an_ipython_magic_is_a_syntax_problem_naming_it() -> None:
    parsed = parse_body([">>> x = 1", ">>> %time x + 1", "2"])
    assert parsed.error is not None and "`%time` is an IPython magic" in parsed.error
    assert parsed.error_line == 2
    skipped = parse_body([">>> %time x + 1  # doctest: +SKIP", "2"])
    assert skipped.error is None


WANT_GOT = [
    ("3.14\n", "3.14159\n"),
    ("3.14\n", "3.15\n"),
    ("[1., 2.5e-3]\n", "[1.2, 0.0025001]\n"),
    ("[1., 2.5e-3]\n", "[0.2, 0.0025001]\n"),
    ("1e3 and 2\n", "1100.0 and 2\n"),
    ("1e3 and 2\n", "1600.0 and 2\n"),
    ("x = 2.\n", "x = 2.9\n"),
    ("inf\n", "inf\n"),
    ("u'a' b'c'\n", "'a' 'c'\n"),
]


@pytest.mark.parametrize(
    "names", ["NUMBER", "ALLOW_UNICODE", "ALLOW_BYTES", "NUMBER ALLOW_UNICODE ALLOW_BYTES"]
)
@pytest.mark.parametrize(("want", "got"), WANT_GOT)
def test_checker_agrees_with_pytests(names: str, want: str, got: str) -> None:
    flags = flags_from_names(names.split())
    assert PytestOutputChecker().check_output(want, got, flags) == _get_checker().check_output(
        want, got, flags
    )


def test_number_adopts_only_close_numbers() -> None:
    assert adopt_written_precision("[1.00, 2.]", "[1.0049, 2.7]") == "[1.00, 2.]"
    assert adopt_written_precision("[1.00, 2.]", "[1.02, 3.7]") == "[1.02, 3.7]"
    assert adopt_written_precision("1.0", "1.0 2.0") == "1.0 2.0"  # counts differ: unchanged


def names_of(flags: int) -> tuple[str, ...]:
    """The flag names set in ``flags`` (single-bit names only, in name order)."""
    return tuple(
        name
        for name, bit in sorted(doctest.OPTIONFLAGS_BY_NAME.items())
        if bit & (bit - 1) == 0 and flags & bit
    )


def test_flag_names_round_trip_and_unknown_names_are_named() -> None:
    flags = flags_from_names(["NUMBER", "ELLIPSIS"])
    assert set(names_of(flags)) == {"NUMBER", "ELLIPSIS"}
    with pytest.raises(
        ValueError,
        match=re.escape("'ELIPSIS' is not a doctest option flag; did you mean ELLIPSIS?"),
    ):
        flags_from_names(["ELIPSIS"])


@pytest.mark.parametrize(
    ("directive", "hint"),
    [
        ("+ELIPSIS", "did you mean +ELLIPSIS?"),
        ("-NORMALISE_WHITESPACE", "did you mean -NORMALIZE_WHITESPACE?"),
        ("+ignore_exception_detail", "did you mean +IGNORE_EXCEPTION_DETAIL?"),
    ],
)
def test_a_misspelt_directive_is_told_the_flag_it_likely_means(directive: str, hint: str) -> None:
    parsed = parse_body((">>> x = 1", f">>> print('abc')  # doctest: {directive}", "a..."))
    assert parsed.error == (
        "the doctest cannot be parsed: line 2 of the doctest for block has an invalid option: "
        f"{directive!r}; {hint}"
    )
    assert parsed.error_line == 2


def test_a_directive_like_no_flag_is_told_every_flag() -> None:
    parsed = parse_body((">>> 1  # doctest: +BOGUS", "1"))
    assert parsed.error is not None
    assert parsed.error.endswith(
        "invalid option: '+BOGUS'; expected one of "
        + ", ".join(sorted(doctest.OPTIONFLAGS_BY_NAME))
    )


def test_a_replaced_flag_changes_the_verdict() -> None:
    """The same example flips with NUMBER, so the flags really reach the judge."""
    body = [">>> 3.14159", "3.14"]
    strict = parse_body(body)
    loose = parse_body(body, doctest_flags=flags_from_names(["NUMBER"]))
    block = Block(
        "d",
        0,
        "d.txt",
        1,
        tuple(body),
        BlockOptions(),
        strict.expectations,
        strict.program("<n>"),
        kind=PageExamples(),
    )
    outcome = SessionRunner().run(strict.program("<n>"))
    assert judge(block, outcome).status is Status.STALE
    assert judge(replace(block, expectations=loose.expectations), outcome).status is Status.VERIFIED


def block_verdict(body: list[str], flag_names: str = "") -> tuple[Status, list[str]]:
    """A ``jaxcheck`` block's verdict and its examples' statuses (ELLIPSIS always on in blocks)."""
    flags = doctest.ELLIPSIS | flags_from_names(flag_names.split())
    parsed = parse_body(body, doctest_flags=flags)
    assert parsed.error is None, parsed.error
    block = Block(
        "d",
        0,
        "d.md",
        1,
        tuple(body),
        BlockOptions(),
        parsed.expectations,
        parsed.program("<block>"),
    )
    verdict = judge(block, SessionRunner().run(parsed.program("<block>")))
    return verdict.status, [e.status for e in example_verdicts(block, verdict)]


@pytest.mark.parametrize(
    ("flags", "text"), CASES, ids=[f"{i}-{f or 'none'}" for i, (f, _) in enumerate(CASES)]
)
def test_a_plain_doctest_block_passes_whatever_doctest_passes(flags: str, text: str) -> None:
    """In a block, flags add to the block's own rules: never stricter than doctest with ELLIPSIS."""
    status, _ = block_verdict(text.rstrip("\n").split("\n"), flags)
    if oracle(f"{flags} ELLIPSIS", text) == 0:
        assert status in (Status.VERIFIED, Status.SKIPPED)


def test_directives_hold_in_commented_repl_statements_too() -> None:
    body = [
        "import math",
        "# >>> raise SystemExit('never run')  # doctest: +SKIP",
        "# >>> math.pi  # doctest: +NUMBER",
        "# 3.14",
        "# >>> print('a    b')  # doctest: +NORMALIZE_WHITESPACE",
        "# a b",
        "# >>> math.e",
        "# 2.72",
    ]
    status, examples = block_verdict(body)
    assert examples == ["skipped", "verified", "verified", "stale"]
    assert status is Status.STALE
    status, examples = block_verdict(body, "NUMBER")
    assert examples == ["skipped", "verified", "verified", "verified"]
