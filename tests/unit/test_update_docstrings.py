"""``jaxcheck update`` on docstring examples in ``.py`` files, on hand-built outcomes.

The blocks are made as the docstring collectors make them (a region of
examples, dedented, at its file line); the outputs are made up, not run.
Each refusal names one reason, and never advises ``--allow-outside``.
"""

from __future__ import annotations

import ast
import doctest
from dataclasses import replace
from pathlib import Path

import pytest

from sphinx_jaxcheck.expect.grammar import parse_body
from sphinx_jaxcheck.expect.page_examples import find_regions
from sphinx_jaxcheck.kinds import judge, rules_of
from sphinx_jaxcheck.model import Block, BlockOptions, DocstringExamples, Outcome
from sphinx_jaxcheck.rewrite.checkout import checkout_of
from sphinx_jaxcheck.rewrite.edits import Edit, digest
from sphinx_jaxcheck.rewrite.python_literals import Literal, literals, read_back_problem
from sphinx_jaxcheck.rewrite.update import UpdateReport, describe, update_sources

FUNCTION = 'def f(x):\n    """Add one.\n\n    >>> f(1)\n    3\n    """\n    return x + 1\n'
FIXED = FUNCTION.replace("    3\n", "    2\n")


def checkout(tmp_path: Path) -> Path:
    """A project checkout: a ``.git`` folder, the package and the docs folder."""
    (tmp_path / ".git").mkdir(parents=True)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "docs").mkdir()
    return tmp_path


def blocks_of(path: Path) -> list[Block]:
    """The blocks of a Python file's examples, a region of a literal each, at the file line of
    its first line: as the docstring collectors make them."""
    data = path.read_bytes()
    literals = [
        node
        for node in ast.walk(ast.parse(data))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and ">>>" in node.value
    ]
    blocks = []
    for node in sorted(literals, key=lambda node: node.lineno):
        for region in find_regions(node.value):
            parsed = parse_body(region.lines, doctest_flags=doctest.ELLIPSIS, doctest_only=True)
            blocks.append(
                Block(
                    "api",
                    len(blocks),
                    str(path),
                    node.lineno + region.first - 1,
                    region.lines,
                    BlockOptions(),
                    parsed.expectations,
                    parsed.program("<doctest>"),
                    parsed.error,
                    digest(data),
                    kind=DocstringExamples(),
                )
            )
    return blocks


def updated(
    path: Path,
    outputs: tuple[str, ...],
    *,
    root: Path | None = None,
    dry_run: bool = False,
    allow_outside: bool = False,
) -> UpdateReport:
    """Judge the file's first block on ``outputs`` (one per example), then update it."""
    block = blocks_of(path)[0]
    outcome = Outcome(examples=outputs)

    def rerun(documents):  # type: ignore[no-untyped-def]
        return {doc: [judge(b, outcome) for b in blocks] for doc, blocks in documents.items()}

    return update_sources(
        [(block, judge(block, outcome))],
        kinds=rules_of,
        rerun=rerun,
        root=None if root is None else str(root),
        dry_run=dry_run,
        allow_outside=allow_outside,
    )


def module(tmp_path: Path, text: str, name: str = "mod.py") -> Path:
    path = checkout(tmp_path) / "pkg" / name
    path.write_bytes(text.encode())
    return path


def refusal(report: UpdateReport) -> str:
    """The one refusal of an update, checked to be the only thing it did."""
    (refused,) = report.refused
    assert report.rewritten == 0 and not report.diffs and not report.written
    assert "allow-outside" not in refused[2] and "does not rewrite Python" not in refused[2]
    return refused[2]


# -- what is rewritten -----------------------------------------------------------------------


def test_a_plain_docstring_output_is_rewritten_in_the_checkout(tmp_path: Path) -> None:
    path = module(tmp_path, FUNCTION)
    report = updated(path, ("2\n",), root=tmp_path / "docs")
    assert path.read_text() == FIXED
    assert report.rewritten == 1 and report.written == [str(path)] and not report.refused
    assert report.rewritten_at == {(str(path), 4)}
    again = updated(path, ("2\n",), root=tmp_path / "docs")
    assert path.read_text() == FIXED and not again.diffs and not again.refused


def test_dry_run_prints_the_diff_and_writes_nothing(tmp_path: Path) -> None:
    path = module(tmp_path, FUNCTION)
    report = updated(path, ("2\n",), root=tmp_path / "docs", dry_run=True)
    assert path.read_text() == FUNCTION and not report.written
    assert "-    3\n+    2\n" in report.diffs[str(path)]
    (summary,) = describe(report, dry_run=True)
    assert summary == "jaxcheck update: would rewrite 1 expectation(s) in 1 file(s)"


def test_line_endings_a_bom_and_a_missing_last_newline_are_kept(tmp_path: Path) -> None:
    text = "\ufeff" + FUNCTION.replace("\n", "\r\n").removesuffix("\r\n")
    path = module(tmp_path, text)
    updated(path, ("2\n",), root=tmp_path / "docs")
    assert path.read_bytes() == ("\ufeff" + FIXED.replace("\n", "\r\n")).removesuffix(
        "\r\n"
    ).encode("utf-8")


def test_new_lines_take_the_docstring_indentation_and_kept_lines_their_bytes(
    tmp_path: Path,
) -> None:
    text = (
        "class C:\n"
        "    def m(self):\n"
        '        """Lines.\n\n'
        "        >>> show()\n"
        "        a ...\n"
        "          b\n"
        "        stale\n"
        '        """\n'
    )
    path = module(tmp_path, text)
    updated(path, ("a 1\n  b\nnew\n  c\n",), root=tmp_path / "docs")
    assert path.read_text() == text.replace("        stale\n", "        new\n          c\n")


def test_a_raw_docstring_takes_an_output_with_backslashes(tmp_path: Path) -> None:
    text = 'def f():\n    r"""Path.\n\n    >>> print(f())\n    a/b\n    """\n'
    path = module(tmp_path, text)
    updated(path, ("a\\b\n",), root=tmp_path / "docs")
    assert path.read_text() == text.replace("    a/b\n", "    a\\b\n")


def test_a_docstring_assigned_to_doc_is_rewritten(tmp_path: Path) -> None:
    text = (
        'import functools\n\ng = functools.partial(int)\ng.__doc__ = """Int.\n\n>>> g("3")\n'
        '4\n"""\n'
    )
    path = module(tmp_path, text)
    updated(path, ("3\n",), root=tmp_path / "docs")
    assert path.read_text() == text.replace("\n4\n", "\n3\n")


def test_a_checkout_is_found_as_git_finds_it(tmp_path: Path) -> None:
    (tmp_path / "project" / "docs" / "api").mkdir(parents=True)
    (tmp_path / "project" / ".git").write_text("gitdir: /elsewhere/.git/worktrees/project\n")
    assert checkout_of(str(tmp_path / "project" / "docs" / "api")) == str(tmp_path / "project")


# -- what is refused, one reason each --------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            'def f():\n    """Tab.\n\n    >>> print("a\\\\tb")\n    a\\\\tc\n    """\n',
            "line 5 holds the escape sequence '\\\\\\\\'",
        ),
        ('D = """Doc %s.\n\n>>> 1 + 1\n3\n""" % ()\n', "formatted with `%`"),
        ('D = """Doc.\n\n>>> 1 + 1\n3\n""".format()\n', "formatted with `.format()`"),
        ('D = """Doc.\n\n>>> 1 + 1\n3\n""".strip()\n', "changed by `.strip()`"),
        ('D = ("""Doc.\n\n>>> 1 + 1\n3\n"""\n    """More.""")\n', "joined from several string"),
        ('D = """Doc.\n\n>>> 1 + 1\n3\n""" + X\n', "joined to another string with `+`"),
        ('f.__doc__ = f"""Doc.\n\n>>> 1 + 1\n3\n"""\n', "is an f-string"),
        ('def f():\n    """Doc.\n\n    >>> 1 + 1\n    3"""\n', "closing quotes (line 5)"),
    ],
    ids=["escape", "percent", "format", "method", "implicit", "plus", "f-string", "closing"],
)
def test_a_docstring_whose_lines_are_not_the_file_s_is_refused_once(
    tmp_path: Path, text: str, reason: str
) -> None:
    path = module(tmp_path, text)
    why = refusal(updated(path, ("2\n",), root=tmp_path / "docs"))
    assert reason in why, why
    assert path.read_text() == text


def test_an_output_that_would_need_an_escape_is_refused(tmp_path: Path) -> None:
    path = module(tmp_path, FUNCTION)
    why = refusal(updated(path, ("a\\b\n",), root=tmp_path / "docs"))
    assert "holds a backslash, which the docstring would read as an escape sequence" in why


def test_an_output_holding_the_closing_quotes_is_refused(tmp_path: Path) -> None:
    path = module(tmp_path, FUNCTION)
    why = refusal(updated(path, ('x """ y\n',), root=tmp_path / "docs"))
    assert 'holds """, which would end the docstring' in why


def test_a_file_under_site_packages_is_refused_even_inside_the_checkout(tmp_path: Path) -> None:
    folder = checkout(tmp_path) / ".venv" / "lib" / "python3.11" / "site-packages" / "pkg"
    folder.mkdir(parents=True)
    (folder / "mod.py").write_text(FUNCTION)
    why = refusal(updated(folder / "mod.py", ("2\n",), root=tmp_path / "docs"))
    assert "belongs to an installed package (it is under site-packages)" in why


def test_a_file_outside_the_checkout_is_refused_whatever_allow_outside_says(
    tmp_path: Path,
) -> None:
    (tmp_path / "elsewhere").mkdir()
    path = tmp_path / "elsewhere" / "mod.py"
    path.write_text(FUNCTION)
    project = checkout(tmp_path / "project")
    for allow_outside in (False, True):
        why = refusal(updated(path, ("2\n",), root=project / "docs", allow_outside=allow_outside))
        assert f"is outside the project's checkout {project}" in why
    assert path.read_text() == FUNCTION


def test_no_checkout_rewrites_no_python_file(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    path = tmp_path / "mod.py"
    path.write_text(FUNCTION)
    why = refusal(updated(path, ("2\n",), root=tmp_path / "docs"))
    assert "is in no version-control checkout (no .git in it or above it)" in why
    assert path.read_text() == FUNCTION


def test_a_docstring_that_is_no_literal_names_the_literal_it_is_made_from(tmp_path: Path) -> None:
    text = 'def f():\n    return 2\n\n\nf.__doc__ = """F of %s.\n\n>>> f()\n3\n""" % "x"\n'
    path = module(tmp_path, text)
    # As the collectors report it: the examples at the function's line, not placed in the file.
    block = replace(blocks_of(path)[0], body_line=1, placed=False)
    outcome = Outcome(examples=("2\n",))
    report = update_sources(
        [(block, judge(block, outcome))],
        kinds=rules_of,
        rerun=lambda documents: {},
        root=str(tmp_path / "docs"),
    )
    why = refusal(report)
    assert why.endswith(
        "the docstring is formatted with `%` (line 5), so its text is not the file's: edit the "
        "example there by hand"
    )


def test_the_literals_of_a_file_and_what_was_done_to_them() -> None:
    text = (
        '__test__ = {"a": """\n>>> 1\n1\n""", "b": """\n>>> 2\n2\n"""}\n'
        'PIECES = ["""\n>>> 3\n3\n""", 4]\n'
        'CUT = """\n>>> 5\n5\n"""[1:]\n'
        'RAW = rb"""\n>>> 6\n"""\n'
        'ONE = "no line break"\n'
    )
    found = literals(text)
    assert [(lit.first, lit.last, lit.prefix, lit.problem) for lit in found] == [
        (0, 3, "", ""),
        (3, 6, "", ""),
        (7, 10, "", ""),
        (11, 14, "", "the docstring is cut with `[...]` (line 12)"),
        (15, 17, "rb", "the text is a bytes literal (line 16), not a docstring"),
    ]


def test_reading_back_refuses_a_literal_that_would_not_hold_the_lines_written() -> None:
    literal = Literal(first=1, last=5, column=4, prefix="", quotes='"""')
    value = "Doc.\n\n    >>> f()\n    1\n    "
    edit = Edit(4, 5, ("    2",))
    assert read_back_problem(value, "Doc.\n\n    >>> f()\n    2\n    ", literal, [edit]) is None
    assert "would not hold the new lines exactly" in str(
        read_back_problem(value, "Doc.\n\n    >>> f()\n    2\\n    ", literal, [edit])
    )
    shallow = Edit(4, 5, ("  2",))
    assert "change the indentation Python strips" in str(
        read_back_problem(value, "Doc.\n\n    >>> f()\n  2\n    ", literal, [shallow])
    )
