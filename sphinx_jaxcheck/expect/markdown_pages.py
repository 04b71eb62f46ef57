"""The blocks of a plain Markdown page (an MkDocs page): its Python fences and ``>>>`` examples.

No directive marks a block here: every fence whose info string names Python
(```` ```python ````, ```` ```py ````, ```` ```python3 ````, or a first class
``{.python}`` as pymdownx.superfences writes it) is one, its expected outputs
written as comments by the grammar of a ``jaxcheck`` block (:mod:`.grammar`).
The fences of a page run in order as one session, as the blocks of a Sphinx
page share one namespace. A fence that expects nothing runs and must not
raise; what it prints is not compared (a tutorial prints freely). The
``>>>`` examples outside those fences are found as ``pytest --doctest-glob``
finds them (:mod:`.page_examples`).

A fence is configured by HTML comments on the lines right above it, which
MkDocs renders as nothing and every Markdown reader accepts (an attribute in
the info string needs a plugin to be read, and breaks some of them)::

    <!-- jaxcheck: skip -->
    <!-- jaxcheck: jax-version >=0.5 -->

``skip`` leaves the fence unrun; ``jax-version``, ``platforms`` and
``timeout`` mean what they mean for ``>>>`` examples (:mod:`.example_comments`).
Pure: no Sphinx, no MkDocs, nothing runs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..model import Block, BlockOptions, MarkdownFence, OutputMode, Subtype
from .example_comments import comment_options
from .grammar import parse_body
from .page_examples import find_regions, region_block

PYTHON_INFO = ("python", "py", "python3")
SKIP = "skip"
_OPENING = re.compile(r"^(?P<indent>[ \t]*)(?P<run>`{3,}|~{3,})(?P<info>.*)$")
_SETTING = re.compile(r"^\s*<!--\s*jaxcheck:\s*(?P<text>.*?)\s*-->\s*$")
_KNOWN = (
    "`<!-- jaxcheck: skip -->`, `<!-- jaxcheck: jax-version SPEC -->`, "
    "`<!-- jaxcheck: platforms cpu|gpu|tpu -->` or `<!-- jaxcheck: timeout SECONDS -->`"
)


@dataclass(frozen=True)
class Fence:
    """A fenced code block of a page: 1-based file lines, the body dedented by the fence's
    own indentation (as CommonMark reads it inside a list item or an admonition)."""

    opening: int  # the line of the opening fence
    run: str  # its backticks or tildes, which a closing fence repeats at least
    info: str  # its info string, stripped
    body: tuple[str, ...]
    closing: int | None  # the line of the closing fence; None: it runs to the end of the file

    @property
    def body_line(self) -> int:
        """The file line of the body's first line."""
        return self.opening + 1

    @property
    def last(self) -> int:
        """The last file line it holds (its closing fence, or the file's last line)."""
        return self.closing if self.closing is not None else self.opening + len(self.body)

    @property
    def is_python(self) -> bool:
        """Whether its info string names Python (``python``, ``py``, ``{.python ...}``)."""
        words = self.info.strip("{}").split()
        return bool(words) and words[0].lstrip(".").lower() in PYTHON_INFO


def find_fences(lines: Sequence[str]) -> list[Fence]:
    """Every fenced code block of a page's lines, in order."""
    fences = []
    number = 0  # the index of the line read next
    while number < len(lines):
        found = _OPENING.match(lines[number])
        number += 1
        if not found or (found["run"][0] == "`" and "`" in found["info"]):
            continue  # backticks in the info string: inline code, no fence (CommonMark)
        opening, run = number, found["run"]
        indent = len(found["indent"].expandtabs())
        body: list[str] = []
        closing = None
        while number < len(lines) and closing is None:
            line = lines[number]
            number += 1
            stripped = line.strip()
            if stripped.startswith(run) and stripped == run[0] * len(stripped):
                closing = number  # the same character, at least as many times, alone
            else:
                body.append(_dedent(line, indent))
        fences.append(Fence(opening, run, found["info"].strip(), tuple(body), closing))
    return fences


def _dedent(line: str, indent: int) -> str:
    """A body line less up to ``indent`` leading spaces."""
    line = line.rstrip("\r")
    spaces = len(line) - len(line.lstrip(" "))
    return line[min(spaces, indent) :]


def page_blocks(
    text: str,
    *,
    docname: str,
    path: str,
    flags: int,
    timeout: float,
    digest: str,
) -> list[Block]:
    """The blocks of a page's text, in page order, numbered from 0: a block per Python fence,
    one per group of ``>>>`` examples outside them (judged as doctest judges them, under
    ``flags``)."""
    lines = text.splitlines()
    fences = [f for f in find_fences(lines) if f.is_python]
    blocks = [_fence_block(f, lines, docname, path, flags, timeout, digest) for f in fences]
    taken = [(f.opening, f.last) for f in fences]
    blocks += [
        region_block(
            docname,
            path,
            region,
            flags=flags,
            timeout=timeout,
            digest=digest,
            above=lines[: region.first - 1],
        )
        for region in find_regions(text, exclude=taken)
    ]
    blocks.sort(key=lambda b: b.body_line)
    return [replace(b, index=n) for n, b in enumerate(blocks)]


def _fence_block(
    fence: Fence,
    lines: Sequence[str],
    docname: str,
    path: str,
    flags: int,
    timeout: float,
    digest: str,
) -> Block:
    """The block of one Python fence: its comments say what it prints."""
    options, problem = fence_options(lines, fence.opening)
    parsed = parse_body(fence.body, doctest_flags=flags)
    if not parsed.expectations and options.output is OutputMode.CHECK:
        # Nothing written to compare with: it only has to run.
        options = replace(options, output=OutputMode.IGNORE)
    error, error_line, subtype = parsed.error, parsed.error_line, Subtype.SYNTAX
    if fence.closing is None:
        opened = lines[fence.opening - 1].strip()
        error = (
            f"the fence {opened!r} opened at line {fence.opening} is never closed, so "
            "everything after it, to the end of the file, became this block; expected a "
            "closing fence line after the block's last line: add it"
        )
        error_line = 0  # the block line of the opening fence
    elif problem is not None:
        line, message = problem
        error, error_line, subtype = f"not run: {message}", line - fence.opening, Subtype.OPTION
    return Block(
        docname=docname,
        index=-1,  # numbered among the page's blocks by page_blocks
        path=path,
        body_line=fence.body_line,
        body=fence.body,
        options=options,
        expectations=parsed.expectations,
        program=parsed.program(f"<{docname}:{fence.body_line}>", options, timeout),
        error=error,
        file_digest=digest,
        error_line=error_line,
        error_subtype=subtype,
        kind=MarkdownFence(),
    )


def fence_options(
    lines: Sequence[str], opening: int
) -> tuple[BlockOptions, tuple[int, str] | None]:
    """The options the ``<!-- jaxcheck: ... -->`` lines right above the fence opened at file
    line ``opening`` give it, and the first bad one (its file line, why), if any."""
    texts: list[str] = []
    for number in range(opening - 1, 0, -1):  # upwards from the line above the fence
        found = _SETTING.match(lines[number - 1])
        if found is None:
            break
        texts.insert(0, found["text"])
    first = opening - len(texts)  # the file line of the first setting
    skip = any(text == SKIP for text in texts)
    options, problems = comment_options(
        ["" if text == SKIP else f"# jaxcheck: {text}" for text in texts]
    )
    if skip:
        options = replace(options, output=OutputMode.SKIP)
    if problems:
        number, message = problems[0]
        shown = lines[first + number - 2].strip()
        if message.startswith("unknown"):
            return options, (first + number - 1, f"{shown} is no setting; expected {_KNOWN}")
        # ``# jaxcheck: timeout`: 'soon' is not ...``: the value's problem, said of the comment.
        return options, (first + number - 1, f"{shown}: {message.split('`: ', 1)[-1]}")
    return options, None
