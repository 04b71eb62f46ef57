"""Find the ``>>>`` examples a page already holds, as ``pytest --doctest-glob`` finds them.

Stdlib doctest's parser reads the whole source text, so every example pytest
would run is found: in fences of any language, ``code-block`` directives,
``::`` literal blocks, bare doctest paragraphs, after ordinary code lines, in
comments. Examples that stand together (nothing but blank lines between them)
form one :class:`Region`; each region becomes one block of the document's
session, checked like a ``jaxcheck`` block whose body is a plain doctest. A
text file beside the project (``jaxcheck_doctest_files``) is read the same
way, its regions one session of its own (:func:`file_blocks`).
Pure: no Sphinx here.
"""

from __future__ import annotations

import doctest
import itertools
import os
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..model import Block, FileExamples, PageExamples, Subtype
from .example_comments import comment_options
from .grammar import parse_body, prompt_span


@dataclass(frozen=True)
class Region:
    """Consecutive examples of a page: file lines ``first`` (1-based) on, dedented."""

    first: int
    lines: tuple[str, ...]

    @property
    def last(self) -> int:
        """The 1-based file line of its last line."""
        return self.first + len(self.lines) - 1


def find_regions(text: str, exclude: Sequence[tuple[int, int]] = ()) -> list[Region]:
    """The example regions of a page's source text.

    ``exclude`` holds 1-based inclusive file line ranges whose examples belong
    to someone else (the bodies of ``jaxcheck`` blocks): they are left out.
    """
    lines = text.splitlines()
    try:
        pieces = doctest.DocTestParser().parse(text, "<page>")
    except ValueError:
        pieces = _parse_leniently(text)
    groups: list[list[doctest.Example]] = []
    joinable = False  # may the next example join the current group?
    for piece in pieces:
        if isinstance(piece, str):
            joinable = joinable and not piece.strip()
            continue
        line = piece.lineno + 1
        if any(start <= line <= stop for start, stop in exclude):
            joinable = False
            continue
        if joinable:
            groups[-1].append(piece)
        else:
            groups.append([piece])
        joinable = True
    return [_region(lines, group) for group in groups]


def _parse_leniently(text: str) -> list[str | doctest.Example]:
    """Examples of a page where one is malformed (``>>>x``): each paragraph parsed alone.

    pytest fails the whole file then; here only the malformed paragraph's
    block fails (its body, from the first prompt on, is reported as not a
    valid doctest), and every other example is still checked.
    """
    pieces: list[str | doctest.Example] = []
    offset = 0
    for paragraph in text.split("\n\n"):
        try:
            for piece in doctest.DocTestParser().parse(paragraph, "<page>"):
                if isinstance(piece, doctest.Example):
                    piece.lineno += offset
                pieces.append(piece)
        except ValueError:
            rows = paragraph.split("\n")
            start = next(i for i, row in enumerate(rows) if row.lstrip().startswith(">>>"))
            source = "\n".join(rows[start:]).rstrip("\n") + "\n"
            pieces.append(doctest.Example(source, "", lineno=offset + start))
        pieces.append("\n\n")
        offset += paragraph.count("\n") + 2
    return pieces


def _region(lines: Sequence[str], group: Sequence[doctest.Example]) -> Region:
    start = group[0].lineno
    last = group[-1]
    stop = last.lineno + prompt_span(lines, last.lineno) + last.want.count("\n")
    stop = min(max(stop, start + 1), len(lines))
    chunk = [line.rstrip("\r") for line in lines[start:stop]]
    indent = min(len(line) - len(line.lstrip()) for line in chunk if line.strip())
    body = tuple(line[indent:] if line.strip() else "" for line in chunk)
    return Region(start + 1, body)


def region_block(
    docname: str,
    path: str,
    region: Region,
    *,
    flags: int,
    timeout: float,
    digest: str,
    above: Sequence[str] = (),
    filename: str | None = None,
) -> Block:
    """The block that checks one region: a plain doctest body, under ``flags``.

    ``above`` holds the lines before the region: the ``>>> # jaxcheck:``
    comments right above it (doctest drops comment-only examples) give the
    examples' options too. ``filename`` names the code in tracebacks.
    """
    parsed = parse_body(region.lines, doctest_flags=flags, doctest_only=True)
    # ``>>> # jaxcheck: jax-version <0.5``: the examples' own limits and timeout, as a block's
    # options.
    lead = list(itertools.takewhile(_is_prompted_comment, reversed(above)))[::-1]
    options, problems = comment_options([*lead, *region.lines])
    error, error_line, error_subtype = parsed.error, parsed.error_line, Subtype.SYNTAX
    if problems:
        error_line, message = problems[0]
        error, error_line, error_subtype = (
            f"not run: {message}",
            error_line - len(lead),
            Subtype.OPTION,
        )
    return Block(
        docname=docname,
        index=-1,  # numbered when merged into the document's blocks
        path=path,
        body_line=region.first,
        body=region.lines,
        options=options,
        expectations=parsed.expectations,
        program=parsed.program(
            filename or f"<{docname}:{region.first}>", options, default_timeout=timeout
        ),
        error=error,
        file_digest=digest,
        error_line=error_line,
        error_subtype=error_subtype,
        kind=PageExamples(),
    )


def file_session(name: str) -> str:
    """The ``:session:`` of a text file's blocks (``name``: the file as conf.py's folder sees
    it)."""
    return f"file {name}"


def file_blocks(
    text: str, *, docname: str, path: str, name: str, flags: int, timeout: float, digest: str
) -> list[Block]:
    """The blocks that check a text file's examples, as ``pytest --doctest-glob`` checks them:
    every region of its whole text, in one session of the file's own that runs in the file's
    folder (where ``python -m doctest README.md`` is typically run). ``name`` is how reports
    and the session name the file."""
    lines = text.splitlines()
    blocks = []
    for region in find_regions(text):
        block = region_block(
            docname,
            path,
            region,
            flags=flags,
            timeout=timeout,
            digest=digest,
            above=lines[: region.first - 1],
            filename=f"<{name}:{region.first}>",
        )
        blocks.append(
            replace(
                block,
                options=replace(block.options, session=file_session(name)),
                program=replace(block.program, cwd=os.path.dirname(path)),
                kind=FileExamples(),
            )
        )
    return blocks


def _is_prompted_comment(line: str) -> bool:
    return line.lstrip().startswith(">>>") and line.lstrip()[3:].strip().startswith("#")
