"""``sphinx.ext.doctest``'s directives as blocks: ``doctest``, ``testcode``/``testoutput``,
``testsetup``/``testcleanup``.

The semantics are that extension's: each group is a namespace of its own
(``default`` is the page's own session, shared with its other examples and
blocks); a group's ``testsetup`` code runs before its tests and its
``testcleanup`` code after them; a ``testoutput`` is the expected output of
the group's latest ``testcode``, which runs as one snippet of several
statements; ``*`` puts a directive into every group the page has, after the
group's own. Directive ``:options:`` apply before each example's own
``# doctest:`` directives. Pure: the Sphinx adapter reads the nodes (of these
directives, of any directive that makes such nodes, of doctest blocks) into
:class:`TestItem`.
"""

from __future__ import annotations

import doctest
import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ..model import (
    Block,
    BlockOptions,
    Example,
    Expectation,
    ExpectationKind,
    GroupCode,
    PageExamples,
    Program,
    Subtype,
)
from .doctest_flags import apply_directives
from .example_comments import comment_options
from .grammar import parse_body

DEFAULT_GROUP = "default"
ALL_GROUPS = "*"
# When a block runs among the page's blocks: setup first, cleanup last.
FIRST, AT_ITS_LINE, LAST = 0, 1, 2
_EXCEPTION = re.compile(
    r"^Traceback \((?:most recent call last|innermost last)\):\s*$.*?^(?P<msg>\w+.*)",
    re.MULTILINE | re.DOTALL,
)


@dataclass(frozen=True)
class TestItem:
    """One test as its node holds it: its kind, groups, and text lines, and where they stand.

    ``lines`` are the node's own text; ``first`` is the file line they start at
    when they are written there (``placed``), else the line to report at.
    ``path`` and ``digest`` are set for a test written in another file than the
    page (a docstring, an included file, conf.py), ``order`` for one whose
    place among the page's lines is not its own line.
    """

    kind: str  # doctest, testcode, testoutput, testsetup, testcleanup
    groups: tuple[str, ...]
    first: int  # 1-based file line of the first line
    lines: tuple[str, ...]  # the text's lines (as written in the file, when placed)
    options: tuple[tuple[int, bool], ...] = ()
    hidden: bool = False
    path: str = ""  # the file it is written in ("": the page's)
    digest: str = ""  # that file's digest ("": the page's)
    placed: bool = True
    order: float | None = None
    name: str = ""  # how reports name its block ("": by file and line)
    refusal: str = ""  # why ``jaxcheck update`` must not rewrite it, if so

    @property
    def last(self) -> int:
        """The 1-based file line of its last content line."""
        return self.first + max(len(self.lines), 1) - 1


@dataclass(frozen=True)
class Scheduled:
    """A block to add to the page, and when it runs among the page's blocks (FIRST, AT_ITS_LINE
    or LAST)."""

    block: Block
    when: int
    shown: TestItem | None = None  # the test whose node carries its marker
    order: float | None = None  # its position among the page's lines, when not its own first line

    @property
    def position(self) -> float:
        """Where it runs among the page's lines."""
        return self.block.body_line if self.order is None else self.order


def session_of(group: str) -> str | None:
    """The ``:session:`` a group runs in: the page's own for ``default``."""
    return None if group == DEFAULT_GROUP else f"doctest group {group}"


@dataclass
class _Group:
    """The tests of one group, as sphinx.ext.doctest's builder gathers them."""

    setup: list[TestItem] = field(default_factory=list)
    tests: list[list[TestItem | None]] = field(default_factory=list)  # [doctest] or [code, output]
    cleanup: list[TestItem] = field(default_factory=list)

    def add(self, item: TestItem, *, prepend: bool = False) -> None:
        if item.kind == "testsetup":
            self.setup.insert(0 if prepend else len(self.setup), item)
        elif item.kind == "testcleanup":
            self.cleanup.append(item)
        elif item.kind == "doctest":
            self.tests.append([item])
        elif item.kind == "testcode":
            self.tests.append([item, None])
        elif item.kind == "testoutput" and self.tests and len(self.tests[-1]) == 2:
            # The output of the group's latest testcode (the last one given wins);
            # an output after a doctest, or before any test, is no test.
            self.tests[-1][1] = item


def blocks_of(
    items: Sequence[TestItem],
    *,
    docname: str,
    path: str,
    flags: int,
    timeout: float,
    digest: str,
    groups: Sequence[str] = (DEFAULT_GROUP,),
    global_setup: TestItem | None = None,
    global_cleanup: TestItem | None = None,
) -> list[Scheduled]:
    """The blocks the tests of one page stand for, as sphinx.ext.doctest groups them.

    A group exists once a test names it, or when it is in ``groups``; a test
    in ``*`` joins every group that exists, after the group's own tests.
    ``global_setup`` runs first in every group, ``global_cleanup`` last.
    """
    gathered = {name: _Group() for name in groups}
    everywhere = []
    for item in items:
        if ALL_GROUPS in item.groups:
            everywhere.append(item)
            continue
        for name in item.groups:
            gathered.setdefault(name, _Group()).add(item)
    for item in everywhere:
        for group in gathered.values():
            group.add(item)
    for group in gathered.values():
        if global_setup is not None:
            group.add(global_setup, prepend=True)
        if global_cleanup is not None:
            group.add(global_cleanup)
    scheduled: list[Scheduled] = []
    for name, group in gathered.items():
        made = [(item, FIRST) for item in group.setup]
        made += [(item, LAST) for item in group.cleanup]
        for item, when in made:
            scheduled.append(
                _finish(_setup_or_cleanup(item, name, docname, path, timeout), item, digest, when)
            )
        at_end = {id(item) for item in everywhere}
        for test in group.tests:
            code, output = test[0], (test[1] if len(test) == 2 else None)
            assert code is not None
            if code.kind == "doctest":
                block = _doctest(code, name, docname, path, flags, timeout)
            else:
                block = _testcode(
                    code, output, name, docname=docname, path=path, flags=flags, timeout=timeout
                )
            if output is not None and not output.placed:
                block = replace(block, placed=False)
            # As sphinx.ext.doctest runs them: the tests of ``*`` after the group's own.
            order = math.inf if id(code) in at_end else code.order
            scheduled.append(replace(_finish(block, code, digest, AT_ITS_LINE), order=order))
    return scheduled


def _finish(block: Block, item: TestItem, digest: str, when: int) -> Scheduled:
    block = _under_comments(block)
    refusal = item.refusal or block.update_refusal
    if not item.placed:
        refusal = item.refusal or (
            f"this {item.kind}'s text is not written in {os.path.basename(block.path)} as it "
            "runs (another directive made it): edit it by hand where it is written"
        )
    block = replace(
        block,
        path=item.path or block.path,
        file_digest=item.digest or digest,
        placed=item.placed and block.placed,
        update_refusal=refusal,
        options=replace(block.options, name=item.name or None),
    )
    return Scheduled(block, when, item, item.order)


def _under_comments(block: Block) -> Block:
    """The block under the options its ``# jaxcheck:`` comment lines state (its limits, its
    timeout), as a page's examples are; a bad one is an error at its line, and the block does
    not run."""
    stated, problems = comment_options(block.body)
    timeout = stated.timeout or block.program.timeout
    block = replace(
        block,
        options=replace(block.options, limits=stated.limits, timeout=timeout),
        program=replace(block.program, timeout=timeout),
    )
    if problems and block.error is None:
        line, message = problems[0]
        block = replace(
            block, error=f"not run: {message}", error_line=line, error_subtype=Subtype.OPTION
        )
    return block


def _setup_or_cleanup(item: TestItem, group: str, docname: str, path: str, timeout: float) -> Block:
    options = BlockOptions(session=session_of(group), hide=True, timeout=timeout)
    body = _dedented(item.lines)
    code = "\n".join(body) + "\n"
    # As sphinx.ext.doctest: setup and cleanup code must print nothing.
    silent = Expectation(ExpectationKind.TRAILING, (), len(body), len(body), statement_line=1)
    return Block(
        docname,
        -1,
        path,
        item.first,
        body,
        options,
        (silent,),
        Program(code, f"<{docname}:{item.first}>", timeout=timeout),
        kind=GroupCode(setup=item.kind == "testsetup"),
        update_refusal=f"{item.kind} code must print nothing; remove what it prints by hand",
    )


def _doctest(
    item: TestItem, group: str, docname: str, path: str, flags: int, timeout: float
) -> Block:
    options = BlockOptions(session=session_of(group), hide=item.hidden, timeout=timeout)
    body = _dedented(item.lines)
    parsed = parse_body(
        body, doctest_only=True, doctest_flags=apply_directives(flags, dict(item.options))
    )
    return Block(
        docname,
        -1,
        path,
        item.first,
        body,
        options,
        parsed.expectations,
        parsed.program(f"<{docname}:{item.first}>", options),
        error=parsed.error,
        error_line=parsed.error_line,
        kind=PageExamples(),
    )


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
        kind=PageExamples(),
        update_refusal=refusal,
    )
