"""Whether the pages update would write read back, document by document, as the build read them
with the new expected outputs: ``jaxcheck update``'s last test before it writes.

An edit is proven inside its block (:mod:`.update` parses the block again), but
whether a page still holds its blocks is a matter of the whole page as its
reader reads it: a line that closes a fence, the cut of an ``include``, what a
reader drops from the end of a line. So the documents that read an edited file
are read again by the reader itself (the caller's :data:`Reread`: a read-only
Sphinx build whose files read as the new texts), and here the two readings are
compared: each document must hold the same blocks, in the same order, at the
same places (moved only by the lines the edits add or remove), with the same
bodies but for the lines written, the same statements, and each rewritten
expectation must accept the output it was rewritten for, by the rule the check
applies. Pure.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from ..judge.verdict import accepts
from ..model import Block, Drift, Expectation
from .checkout import is_python_file
from .edits import Edit


@dataclass(frozen=True)
class Planned:
    """One edit of a file, the drift it repairs, and the block line texts it leaves."""

    block: Block
    drift: Drift
    edit: Edit
    body_first: int  # body lines replaced: body_first:body_stop
    body_stop: int
    body_lines: tuple[str, ...]
    output: tuple[str, ...] = ()  # the output lines written, as the example prints them


@dataclass(frozen=True)
class Reading:
    """The documents that read an edited file: their blocks as the build read them, and as
    they read with the new texts."""

    before: Mapping[str, Sequence[Block]]  # docname -> blocks, in document order
    after: Mapping[str, Sequence[Block]]
    files: Mapping[str, frozenset[str]]  # docname -> real paths of the files it reads
    problem: str = ""  # why the documents could not be read again (then none is proven)
    problems: Mapping[str, str] = field(default_factory=dict)  # docname -> why not read again


# Reads the documents that read these files again, each file (by real path) as these bytes.
Reread = Callable[[Mapping[str, bytes]], Reading]


@dataclass(frozen=True)
class Blame:
    """Edits a document does not read back as planned: those of the block whose first body
    line is ``body_line`` in the file at real path ``path``, or (None) all of the file's."""

    path: str
    body_line: int | None
    why: str


def read_back_problems(
    reading: Reading, planned: Sequence[Planned], texts: Mapping[str, bytes]
) -> list[Blame]:
    """What the documents do not read back as planned, each with the first reason found for
    it (the block it was found in, when that block was rewritten; else every edited file the
    document reads); empty when every document reads back."""
    edits: dict[str, set[Edit]] = {}
    at: dict[tuple[str, int], list[Planned]] = {}
    for plan in planned:
        real = os.path.realpath(plan.block.path)
        edits.setdefault(real, set()).add(plan.edit)
        at.setdefault((real, plan.block.body_line), []).append(plan)
    blamed: dict[tuple[str, int | None], str] = {}
    planning = _Planning(edits, at, frozenset(texts))
    for docname in sorted({*reading.before, *reading.after, *reading.problems}):
        problem = reading.problems.get(docname) or reading.problem
        found: tuple[str, tuple[str, int] | None] | None
        if problem:
            why = f"document {docname!r} could not be read again ({problem}), so nothing is proven"
            found = (why, None)
        else:
            found = _difference(
                docname, reading.before.get(docname, ()), reading.after.get(docname, ()), planning
            )
        if found is None:
            continue
        why, place = found
        if place is not None and place in at:
            blamed.setdefault(place, why)
            continue
        reads = reading.files.get(docname, frozenset()) & texts.keys()
        for real in sorted(reads or texts):  # a document that reads none: blame every file
            blamed.setdefault((real, None), why)
    return [Blame(path, line, why) for (path, line), why in blamed.items()]


@dataclass(frozen=True)
class _Planning:
    edits: Mapping[str, set[Edit]]  # real path -> its edits
    at: Mapping[tuple[str, int], list[Planned]]  # (real path, first body line) -> plans
    changed: frozenset[str]  # real paths read with new texts

    def moved(self, real: str, line: int) -> int:
        """Where the first body line ``line`` (1-based) of a block stands once the file is
        edited: moved by the edits above it, not by the block's own."""
        own = {p.edit for p in self.at.get((real, line), ())}
        return line + sum(
            len(e.lines) - (e.stop - e.start)
            for e in self.edits.get(real, ())
            if e.stop < line and e not in own
        )


def _difference(
    docname: str, before: Sequence[Block], after: Sequence[Block], planning: _Planning
) -> tuple[str, tuple[str, int] | None] | None:
    """How the document's blocks read again differ from what update planned, and the block
    (real path, first body line as read before) where the first difference is; or None."""
    head = f"read again as update would write it, document {docname!r}"
    places = [_place(block, planning) for block in before]
    found = [(os.path.realpath(block.path), block.body_line) for block in after]
    for n in range(max(len(before), len(after))):
        if n < len(before) and n < len(after) and places[n] == found[n]:
            why = _block_difference(before[n], after[n], planning)
            if why is not None:
                return f"{head} {why}", (os.path.realpath(before[n].path), before[n].body_line)
            continue
        if n < len(before) and places[n] not in found[n:]:
            return (
                f"{head} would no longer hold block {before[n].label!r} (now at "
                f"{_where(before[n].path, before[n].body_line)}): the page around it would "
                "read differently",
                None,
            )
        extra = after[n] if n < len(after) else after[-1]
        return (
            f"{head} would hold a block it does not hold now, at "
            f"{_where(extra.path, extra.body_line)}: the page around it would read differently",
            None,
        )
    return None


def _place(block: Block, planning: _Planning) -> tuple[str, int]:
    real = os.path.realpath(block.path)
    if real not in planning.changed or is_python_file(real):
        return real, block.body_line
    return real, planning.moved(real, block.body_line)


def _block_difference(before: Block, after: Block, planning: _Planning) -> str | None:
    real = os.path.realpath(before.path)
    plans = planning.at.get((real, before.body_line), []) if real in planning.changed else []
    plans = [p for p in plans if p.block.body == before.body]
    body = list(before.body)
    for plan in sorted(
        {(p.body_first, p.body_stop): p for p in plans}.values(),
        key=lambda p: p.body_first,
        reverse=True,
    ):
        body[plan.body_first : plan.body_stop] = plan.body_lines
    label = f"block {before.label!r}"
    if len(after.expectations) != len(before.expectations) or [
        (e.kind, e.source) for e in after.expectations
    ] != [(e.kind, e.source) for e in before.expectations]:
        return f"would read {label} with other examples or expectations than it has now"
    for index, (old, new) in enumerate(zip(before.expectations, after.expectations, strict=True)):
        why = _expectation_difference(before, after, index, old, new, plans)
        if why is not None:
            return f"{why.replace('BLOCK', label)}; rewrite this expectation by hand"
    if tuple(body) != after.body:
        line = next(
            (n for n, (a, b) in enumerate(zip(body, after.body, strict=False)) if a != b),
            min(len(body), len(after.body)),
        )
        wanted = body[line] if line < len(body) else None
        read = after.body[line] if line < len(after.body) else None
        return (
            f"would read line {line + 1} of {label} ({_where(after.path, after.body_line + line)}) "
            f"as {read!r}, not {wanted!r} as update would write it; rewrite this expectation "
            "by hand"
        )
    if (after.options, after.kind, after.placed, after.error) != (
        before.options,
        before.kind,
        before.placed,
        before.error,
    ):
        problem = f" ({after.error})" if after.error and after.error != before.error else ""
        return f"would read {label} differently{problem}; rewrite this expectation by hand"
    return None


def _expectation_difference(
    before: Block,
    after: Block,
    index: int,
    old: Expectation,
    new: Expectation,
    plans: Sequence[Planned],
) -> str | None:
    """Why the ``index``-th expectation, read again, is not what update planned (``BLOCK``
    stands for the block's name), or None."""
    plan = next((p for p in plans if p.drift.expectation == old), None)
    if plan is None:
        if new.expected == old.expected:
            return None
        return (
            f"would read the expected output of BLOCK at "
            f"{_where(after.path, after.file_line(new.statement_line))} as "
            f"{_shown(new.expected)}, not {_shown(old.expected)} as now"
        )
    if accepts(after, new, plan.drift):
        return None
    written = _shown(plan.output or plan.drift.actual)
    where = _where(after.path, after.file_line(new.statement_line))
    if new.expected == old.expected:
        return (
            f"would still read the expected output of BLOCK as {_shown(new.expected)}, not as "
            f"the new output {written}: the lines update would rewrite ({where}) are not the "
            "ones the document shows (its reader numbers the lines of an included file "
            "from elsewhere, as myst-parser 4 does for an include cut by :start-after:)"
        )
    return (
        f"would read the expected output of BLOCK at {where} as {_shown(new.expected)}, which "
        f"does not accept the output {written} that update would write: the reader does not "
        "keep what update would write there (such as spaces at the end of a line)"
    )


def _where(path: str, line: int) -> str:
    return f"{os.path.basename(path)}:{line}"


def _shown(lines: Sequence[str]) -> str:
    shown = list(lines)
    return repr(shown if len(shown) <= 3 else [*shown[:3], "..."])
