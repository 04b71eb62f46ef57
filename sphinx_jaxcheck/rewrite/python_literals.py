"""Which lines of a Python file are the text of a docstring one to one, for ``jaxcheck update``.

A docstring's examples are rewritten in its ``.py`` file only where each file
line between the quotes is the docstring's line, character for character: the
string literal is plain or raw (no f-string, no bytes), triple-quoted, the
whole of its expression (not joined to another literal, formatted with ``%``
or ``.format``, or changed by a method), and the lines written hold no escape
sequence (a backslash in a plain literal) and no closing quotes. What is
found here is the string token, read with :mod:`tokenize`; after the edit the
file is read again and each edited literal must hold exactly the lines
written, with the indentation Python strips from docstrings unchanged. Pure.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass, replace

from .edits import Edit

# Tokens that continue an expression past a line end without ending the statement.
_SKIPPED = (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)
_FSTRING_START = getattr(tokenize, "FSTRING_START", None)  # Python 3.12 on
_FSTRING_END = getattr(tokenize, "FSTRING_END", None)
_PROBLEM_OPERATORS = {
    "%": "formatted with `%`",
    "+": "joined to another string with `+`",
    "*": "repeated with `*`",
    "[": "cut with `[...]`",
}


@dataclass(frozen=True)
class Literal:
    """A string literal of a file that spans lines, and why its lines are not its text, if so."""

    first: int  # 0-based index of the line of its opening quotes
    last: int  # 0-based index of the line of its closing quotes
    column: int  # where its prefix starts on the first line
    prefix: str  # lower case: "", "r", "u", "f", "rb", ...
    quotes: str  # the closing quotes: '\"\"\"', "'''", '"' or "'"
    problem: str = ""  # what makes it no docstring's text as written ("": nothing)

    @property
    def raw(self) -> bool:
        """Backslashes stand for themselves in it."""
        return "r" in self.prefix


def literals(text: str) -> list[Literal]:
    """The string literals of Python source text that span more than one line, in file order.

    Raises :class:`SyntaxError` (or :class:`tokenize.TokenError`) when the text is no Python.
    """
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    significant = [t for t in tokens if t.type not in _SKIPPED]
    found = []
    opened: list[int] = []  # f-string starts (Python 3.12 on), innermost last
    for at, token in enumerate(significant):
        if token.type == _FSTRING_START:
            opened.append(at)
            continue
        if token.type == _FSTRING_END and opened:
            start = opened.pop()
            if not opened:
                found.append(_literal(significant, start, at))
            continue
        if token.type == tokenize.STRING and not opened:
            found.append(_literal(significant, at, at))
    return [literal for literal in found if literal.last > literal.first]


def _literal(tokens: Sequence[tokenize.TokenInfo], start: int, stop: int) -> Literal:
    """The literal made of tokens ``start..stop`` (one STRING, or an f-string's pieces)."""
    first, last = tokens[start], tokens[stop]
    opening = first.string
    prefix = opening[: len(opening) - len(opening.lstrip("rRbBuUfF"))].lower()
    body = opening[len(prefix) :]
    quotes = body[:3] if body[:3] in ('"""', "'''") else body[:1]
    literal = Literal(
        first.start[0] - 1, last.end[0] - 1, first.start[1], prefix, quotes or last.string[-1:]
    )
    problem = _prefix_problem(literal) or _context_problem(tokens, start, stop)
    return replace(literal, problem=problem) if problem else literal


def _prefix_problem(literal: Literal) -> str:
    line = literal.first + 1
    if "f" in literal.prefix:
        return f"the docstring is an f-string (line {line}), made when the module runs"
    if "b" in literal.prefix:
        return f"the text is a bytes literal (line {line}), not a docstring"
    if len(literal.quotes) != 3:
        return f"the docstring is a single-quoted string continued with backslashes (line {line})"
    return ""


def _context_problem(tokens: Sequence[tokenize.TokenInfo], start: int, stop: int) -> str:
    """Why the literal is not the whole value it stands for: what is done to it, or ""."""
    before = tokens[start - 1] if start else None
    after = tokens[stop + 1] if stop + 1 < len(tokens) else None
    line = tokens[start].start[0]
    near = [t for t in (before, after) if t is not None]
    if any(t.type == tokenize.STRING or t.type == _FSTRING_END for t in near):
        return f"the docstring is joined from several string literals (line {line})"
    if after is not None and after.type == tokenize.OP and after.string == ".":
        name = tokens[stop + 2].string if stop + 2 < len(tokens) else ""
        done = "formatted with `.format()`" if name == "format" else f"changed by `.{name}()`"
        return f"the docstring is {done} (line {line})"
    for token in near:
        if token.type == tokenize.OP and token.string in _PROBLEM_OPERATORS:
            if token is before and token.string == "[":
                continue  # an item of a list: the literal itself is whole
            done = _PROBLEM_OPERATORS[token.string]
            return f"the docstring is {done} (line {line})"
    return ""


def literal_holding(found: Sequence[Literal], first: int, last: int) -> Literal | None:
    """The literal whose lines include file lines ``first..last`` (0-based), if one does."""
    return next((lit for lit in found if lit.first <= first and last <= lit.last), None)


def escape_problem(lines: Sequence[str], first: int, literal: Literal) -> str | None:
    """Why these file lines (from 0-based ``first``) are not docstring text as written: an
    escape sequence in a plain literal. None when they are."""
    if literal.raw:
        return None
    for number, line in enumerate(lines, start=first + 1):
        at = line.find("\\")
        if at >= 0:
            return (
                f"line {number} holds the escape sequence {line[at : at + 2]!r}, so the "
                "docstring's line is not the file's; rewrite this expectation by hand"
            )
    return None


def range_problem(start: int, stop: int, literal: Literal) -> str | None:
    """Why file lines ``start:stop`` (0-based; empty: an insertion before ``start``) cannot be
    replaced by lines of the literal's text (they hold its quotes), or None."""
    if start <= literal.first:
        return (
            f"the example starts on the line of the docstring's opening quotes (line "
            f"{literal.first + 1}); move it to a line of its own, or rewrite this expectation "
            "by hand"
        )
    if stop > literal.last:
        return (
            f"the output ends on the line of the docstring's closing quotes (line "
            f"{literal.last + 1}); put the quotes on a line of their own, or rewrite this "
            "expectation by hand"
        )
    return None


def new_lines_problem(new: Sequence[str], literal: Literal) -> str | None:
    """Why these new file lines would not be read as the same lines of the literal, or None."""
    for line in new:
        if literal.quotes in line:
            return (
                f"the new output line {line.strip()!r} holds {literal.quotes}, which would end "
                "the docstring; rewrite this expectation by hand"
            )
        if "\\" in line and not literal.raw:
            return (
                f"the new output line {line.strip()!r} holds a backslash, which the docstring "
                "would read as an escape sequence; rewrite this expectation by hand (or make "
                'the docstring raw, r"""...""")'
            )
        if literal.raw and line.endswith("\\"):
            return (
                f"the new output line {line.strip()!r} ends with a backslash, which a raw "
                "docstring cannot hold before its line end as written; rewrite this "
                "expectation by hand"
            )
    return None


def string_values(text: str) -> dict[tuple[int, int], str]:
    """The value of each plain or raw string literal of Python source text, by the 0-based
    line and the column it starts at (empty when the text is no Python)."""
    found = {}
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (SyntaxError, tokenize.TokenError):
        return {}
    for token in tokens:
        if token.type != tokenize.STRING:
            continue
        try:
            value = ast.literal_eval(token.string)
        except (SyntaxError, ValueError):  # an f-string (before Python 3.12)
            continue
        if isinstance(value, str):
            found[token.start[0] - 1, token.start[1]] = value
    return found


def literal_with_lines(
    lines: Sequence[str], found: Sequence[Literal], wanted: Sequence[str]
) -> Literal | None:
    """The first literal whose file lines hold ``wanted`` (a docstring's lines, dedented) in
    a row, each as written but for its indentation; None when none does.

    For a docstring whose text is no literal of its file: the literal it is made from.
    """
    shape = [line.strip() for line in wanted]
    for literal in found:
        held = [line.strip() for line in lines[literal.first : literal.last + 1]]
        if any(held[at : at + len(shape)] == shape for at in range(len(held) - len(shape) + 1)):
            return literal
    return None


def read_back_problem(
    value: str | None, written: str | None, literal: Literal, edits: Sequence[Edit]
) -> str | None:
    """Why the edited literal, whose value is now ``written`` (its old value: ``value``), does
    not hold its old text with the edited lines replaced by the new ones exactly, or would
    lose the indentation Python strips from it; None when it holds them."""
    expected = None if value is None else value.split("\n")
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        if expected is not None:
            expected[edit.start - literal.first : edit.stop - literal.first] = list(edit.lines)
    if value is None or written is None or expected is None or written != "\n".join(expected):
        return (
            f"written into the file, the docstring at line {literal.first + 1} would not "
            "hold the new lines exactly; rewrite this expectation by hand"
        )
    if _margin(written) != _margin(value):
        return (
            f"written into the file, the new lines would change the indentation Python strips "
            f"from the docstring at line {literal.first + 1}; rewrite this expectation by hand"
        )
    return None


def _margin(value: str) -> int:
    """The indentation :func:`inspect.cleandoc` (and Python 3.13's compiler) strips from the
    lines after a docstring's first."""
    lines = [line for line in value.split("\n")[1:] if line.strip()]
    return min((len(line) - len(line.lstrip()) for line in lines), default=0)
