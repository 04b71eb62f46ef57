"""``sphinx.ext.doctest``'s directives as blocks: ``doctest``, ``testcode``/``testoutput``,
``testsetup``/``testcleanup``.

The semantics are that extension's: each group is a namespace of its own
(``default`` is the page's own session, shared with its other examples and
blocks); a group's ``testsetup`` code runs before its tests and its
``testcleanup`` code after them; a ``testoutput`` is the expected output of
the group's latest ``testcode``, which runs as one snippet of several
statements; ``*`` puts a directive into every group of the page. Directive
``:options:`` apply before each example's own ``# doctest:`` directives.
Pure: the Sphinx adapter reads the directives' nodes into :class:`TestItem`.
"""

from __future__ import annotations

import doctest
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..model import Block, BlockOptions, Example, Expectation, ExpectationKind, Program
from .doctest_flags import apply_directives
from .grammar import parse_body

DEFAULT_GROUP = "default"
ALL_GROUPS = "*"
# Where a block goes among the page's blocks: setup first, cleanup last.
FIRST, IN_PLACE, LAST = 0, 1, 2
_EXCEPTION = re.compile(
    r"^Traceback \((?:most recent call last|innermost last)\):\s*$.*?^(?P<msg>\w+.*)",
    re.MULTILINE | re.DOTALL,
)


@dataclass(frozen=True)
class TestItem:
    """One directive as written: its kind, groups, and content lines in the file."""

    kind: str  # doctest, testcode, testoutput, testsetup, testcleanup
    groups: tuple[str, ...]
    first: int  # 1-based file line of the first content line
    lines: tuple[str, ...]  # the content lines as in the file (indentation kept)
    options: tuple[tuple[int, bool], ...] = ()
    hidden: bool = False

    @property
    def last(self) -> int:
        """The 1-based file line of its last content line."""
        return self.first + max(len(self.lines), 1) - 1


@dataclass(frozen=True)
class Placed:
    """A block to add to the page, and where it goes (FIRST, IN_PLACE or LAST)."""

    block: Block
    place: int
    shown: TestItem | None = None  # the directive whose rendering carries its marker
    order: float | None = None  # its position among the page's lines, when not its own first line

    @property
    def position(self) -> float:
        """Where it runs among the page's lines."""
        return self.block.body_line if self.order is None else self.order


def session_of(group: str) -> str | None:
    """The ``:session:`` a group runs in: the page's own for ``default``."""
    return None if group == DEFAULT_GROUP else f"doctest group {group}"


def blocks_of(
    items: Sequence[TestItem], *, docname: str, path: str, flags: int, timeout: float, digest: str
) -> list[Placed]:
    """The blocks the directives of one page stand for, in page order."""
    named = {g for item in items for g in item.groups if g != ALL_GROUPS}
    placed: list[Placed] = []
    waiting: dict[str, TestItem] = {}  # group -> its latest testcode without output
    for item in items:
        groups = sorted(named | {DEFAULT_GROUP}) if ALL_GROUPS in item.groups else list(item.groups)
        for group in groups:
            made = _one(
                item, group, waiting, docname=docname, path=path, flags=flags, timeout=timeout
            )
            placed.extend(Placed(_finish(b, digest), place, shown) for b, place, shown in made)
    for group, code in waiting.items():  # testcode without testoutput: expects no output
        block = _testcode(
            code, None, group, docname=docname, path=path, flags=flags, timeout=timeout
        )
        placed.append(Placed(_finish(block, digest), IN_PLACE, code))
    return placed


def _finish(block: Block, digest: str) -> Block:
    return replace(block, file_digest=digest)


def _one(
    item: TestItem,
    group: str,
    waiting: dict[str, TestItem],
    *,
    docname: str,
    path: str,
    flags: int,
    timeout: float,
) -> list[tuple[Block, int, TestItem | None]]:
    options = BlockOptions(session=session_of(group), hide=item.hidden, timeout=timeout)
    body = _dedented(item.lines)
    filename = f"<{docname}:{item.first}>"
    if item.kind in ("testsetup", "testcleanup"):
        code = "\n".join(body) + "\n"
        # As sphinx.ext.doctest: setup and cleanup code must print nothing.
        silent = Expectation(ExpectationKind.TRAILING, (), len(body), len(body), statement_line=1)
        block = Block(
            docname,
            -1,
            path,
            item.first,
            body,
            options,
            (silent,),
            Program(code, filename, timeout=timeout),
            page_example=True,
            update_refusal=f"{item.kind} code must print nothing; remove what it prints by hand",
        )
        return [(block, FIRST if item.kind == "testsetup" else LAST, None)]
    if item.kind == "doctest":
        parsed = parse_body(
            body, doctest_only=True, doctest_flags=apply_directives(flags, dict(item.options))
        )
        block = Block(
            docname,
            -1,
            path,
            item.first,
            body,
            options,
            parsed.expectations,
            parsed.program(filename, options),
            error=parsed.error,
            error_line=parsed.error_line,
            page_example=True,
        )
        return [(block, IN_PLACE, item)]
    if item.kind == "testcode":
        made: list[tuple[Block, int, TestItem | None]] = []
        earlier = waiting.pop(group, None)
        if earlier is not None:
            made.append(
                (
                    _testcode(
                        earlier,
                        None,
                        group,
                        docname=docname,
                        path=path,
                        flags=flags,
                        timeout=timeout,
                    ),
                    IN_PLACE,
                    earlier,
                )
            )
        waiting[group] = item
        return made
    # testoutput: the expected output of the group's latest testcode
    code_item = waiting.pop(group, None)
    if code_item is None:
        return []  # as sphinx.ext.doctest: an output without code is not a test
    return [
        (
            _testcode(
                code_item, item, group, docname=docname, path=path, flags=flags, timeout=timeout
            ),
            IN_PLACE,
            code_item,
        )
    ]


def _dedented(lines: Sequence[str]) -> tuple[str, ...]:
    indent = min((len(line) - len(line.lstrip()) for line in lines if line.strip()), default=0)
    return tuple(line[indent:] if line.strip() else "" for line in lines)


def _testcode(
    code: TestItem,
    output: TestItem | None,
    group: str,
    *,
    docname: str,
    path: str,
    flags: int,
    timeout: float,
) -> Block:
    """A ``testcode`` snippet with the ``testoutput`` after it (or none: no output expected).

    The block's body runs from the code's first line to the output's last, so
    ``jaxcheck update`` can rewrite the output's lines in place.
    """
    options = BlockOptions(session=session_of(group), timeout=timeout)
    source = "\n".join(_dedented(code.lines)) + "\n"
    example = Example(source, line=1, mode="exec")
    program = Program("", f"<{docname}:{code.first}>", examples=(example,), timeout=timeout)
    last = output.last if output is not None else code.last
    span_lines = list(code.lines)
    if output is not None:
        span_lines = [""] * (last - code.first + 1)
        span_lines[: len(code.lines)] = code.lines
        span_lines[output.first - code.first : output.first - code.first + len(output.lines)] = (
            output.lines
        )
    body = _dedented(span_lines)
    want_lines = _dedented(output.lines) if output is not None else ()
    want = "\n".join(want_lines).strip("\n")
    want = want + "\n" if want else ""
    found = _EXCEPTION.match(want)
    # As sphinx.ext.doctest: <BLANKLINE> is not needed (nor special) in a testoutput.
    options_given = dict(output.options) if output is not None else {}
    options_given[doctest.DONT_ACCEPT_BLANKLINE] = True
    optionflags = apply_directives(flags, options_given)
    first = (output.first - code.first) if output is not None else len(body)
    expectation = Expectation(
        ExpectationKind.DOCTEST,
        tuple(line for line in want.split("\n")[:-1]) if want else (),
        first=first,
        stop=first + len(want_lines),
        statement_line=1,
        source=source,
        want=want,
        exc_msg=found.group("msg") if found else None,
        optionflags=optionflags,
        skip=bool(optionflags & doctest.SKIP),
    )
    refusal = (
        ""
        if output is not None
        else (
            "this testcode has no testoutput directive to rewrite; add one below it with the output"
        )
    )
    return Block(
        docname,
        -1,
        path,
        code.first,
        body,
        options,
        (expectation,),
        program if not expectation.skip else Program("", program.filename, timeout=timeout),
        page_example=True,
        update_refusal=refusal,
    )
