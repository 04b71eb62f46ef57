"""Docstring examples in their ``.py`` file: which literal holds a block, whether its lines may
be rewritten, the indentation new lines take, and the check of the edited file.

A docstring's block is a run of its lines, less their common indentation, at
the file line where the run stands (:mod:`...expect.docstrings`). Update
writes into it only through :mod:`.python_literals`' rules; a docstring whose
text is no literal of its file is refused, naming the literal it is made from
when one holds its examples (formatted with ``%``, an f-string, ...). Pure.
"""

from __future__ import annotations

import tokenize
from collections.abc import Sequence
from dataclasses import dataclass

from ..model import Block, Expectation
from .edits import Edit, SourceText, apply_edits, parse_source
from .python_literals import (
    Literal,
    escape_problem,
    literal_holding,
    literal_with_lines,
    literals,
    range_problem,
    read_back_problem,
    string_values,
)


@dataclass(frozen=True)
class PythonSource:
    """A Python file's lines (without their endings) and its string literals that span lines."""

    lines: tuple[str, ...]
    literals: tuple[Literal, ...]


def read_python(data: bytes) -> PythonSource | str:
    """A Python file's bytes as :class:`PythonSource`, or why they cannot be read as Python."""
    try:
        lines = parse_source(data).lines
        return PythonSource(lines, tuple(literals("\n".join(lines))))
    except UnicodeDecodeError as error:
        return f"not UTF-8 ({error}); cannot rewrite it safely"
    except (SyntaxError, tokenize.TokenError) as error:
        return f"this Python cannot read the file as Python ({error}); rewrite it by hand"


def literal_of(python: PythonSource, block: Block) -> Literal | str:
    """The literal whose lines are the block's, or why there is none to write into."""
    if not block.placed:
        return made_from(python, block)
    literal = literal_holding(
        python.literals, block.body_line - 1, block.body_line + len(block.body) - 2
    )
    if literal is None:
        return (
            "the example's lines are not all in one string literal of the file, so they are "
            "not a docstring's lines one to one; rewrite this expectation by hand"
        )
    if literal.problem:
        return (
            f"{literal.problem}, so its lines are not the file's one to one; rewrite this "
            "expectation by hand"
        )
    return literal


def made_from(python: PythonSource, block: Block) -> str:
    """Why a docstring that is no literal of its file cannot be rewritten: what was done to
    the literal it is made from, when one holds its examples; else the block's own reason."""
    literal = literal_with_lines(python.lines, python.literals, block.body)
    if literal is None:
        return block.update_refusal or (
            "the docstring's text is not found in the file, so update cannot tell where to "
            "write: edit the example by hand where the docstring is made"
        )
    if literal.problem:
        return f"{literal.problem}, so its text is not the file's: edit the example there by hand"
    return (
        f"the docstring is made from the string literal at line {literal.first + 1}, changed "
        "while the module is imported (its text is not that literal's); edit the example there "
        "by hand"
    )


def docstring_prefixes(
    source: SourceText, block: Block, expectation: Expectation, literal: Literal
) -> list[str] | str:
    """For each body line of a docstring's block, the indentation its file line adds to it
    (what a new line gets); or why the expectation's lines cannot be rewritten.

    Every line of the literal after its first is the docstring's line, so all
    the block's lines there carry the same indentation. The lines rewritten must
    hold no escape sequence and read as the block does.
    """
    start = block.body_line - 1
    first, stop = start + expectation.first, start + expectation.stop
    why = range_problem(first, stop, literal) or escape_problem(
        source.lines[first:stop], first, literal
    )
    if why is not None:
        return why
    statement = expectation.statement_line - 1
    inside = [
        i
        for i, text in enumerate(block.body)
        if text.strip()
        and literal.first < start + i < literal.last
        and escape_problem(source.lines[start + i : start + i + 1], start + i, literal) is None
        and source.lines[start + i].rstrip().endswith(text.rstrip())
    ]
    if not inside:
        return (
            "no line of the example stands between the docstring's quotes on a line of its "
            "own, so a new line has no indentation to follow; rewrite this expectation by hand"
        )
    chosen = statement if statement in inside else inside[0]
    raw, text = source.lines[start + chosen].rstrip(), block.body[chosen].rstrip()
    indent = raw[: len(raw) - len(text)]
    for index in [start + chosen, *range(first, stop)]:
        body = block.body[index - start]
        if body.strip() and (indent.strip() or source.lines[index].rstrip() != indent + body):
            return (
                f"line {index + 1} reads {source.lines[index]!r} in the file, but the docstring "
                f"was read as {body!r} there; rewrite this expectation by hand"
            )
    return [indent] * len(block.body)


def read_back(
    source: SourceText, edits: Sequence[Edit], found: Sequence[Literal]
) -> dict[Edit, str]:
    """The edits whose literal, in the file as it would be written, would not hold exactly the
    lines written (or would lose the indentation Python strips from it), with the reason."""
    old = string_values("\n".join(source.lines))
    new = string_values("\n".join(apply_edits(source, edits).lines))
    by_literal: dict[Literal | None, list[Edit]] = {}
    for edit in edits:  # every edit lies inside one literal (docstring_prefixes saw to it)
        by_literal.setdefault(literal_holding(found, edit.start, edit.start), []).append(edit)
    refused: dict[Edit, str] = {}
    for literal, own in by_literal.items():
        why: str | None = "the edit is in no string literal of the file"
        if literal is not None:
            # Edits above the literal move it down by the lines they add.
            moved = sum(len(e.lines) - (e.stop - e.start) for e in edits if e.stop <= literal.first)
            why = read_back_problem(
                old.get((literal.first, literal.column)),
                new.get((literal.first + moved, literal.column)),
                literal,
                own,
            )
        if why is not None:
            refused.update(dict.fromkeys(own, why))
    return refused
