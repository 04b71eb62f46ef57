"""Regenerate stale expectations in the sources (SPEC 6): Drift -> rewritten file.

Only the lines of expectations that drifted change, as minimal hunks: expected
lines that still match (``...`` lines too) are kept byte for byte. Quotes and
citations are never rewritten here.
"""

from __future__ import annotations

import difflib
import doctest
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .matching import refreshed_lines
from .model import Block, Drift, ExpectationKind, Verdict
from .rewrite import (
    Edit,
    FileChanged,
    SourceText,
    apply_edits,
    digest,
    parse_source,
    render_source,
    write_atomically,
)
from .verdict import rules_of

BLANKLINE = "<BLANKLINE>"


class CannotRewrite(ValueError):
    """This drift needs a human: the message says why and where."""


@dataclass
class UpdateReport:
    """What an update did (or, with ``dry_run``, would do)."""

    diffs: dict[str, str] = field(default_factory=dict)  # path -> unified diff
    written: list[str] = field(default_factory=list)
    rewritten: int = 0  # expectations rewritten
    rewritten_at: set[tuple[str, int]] = field(default_factory=set)  # (path, reported line)
    refused: list[tuple[str, int, str]] = field(default_factory=list)  # path, line, why


def update_sources(checked: Iterable[tuple[Block, Verdict]], *, dry_run: bool = False) -> UpdateReport:
    """Rewrite every drifted expectation of these blocks in their files."""
    by_path: dict[str, list[tuple[Block, Drift]]] = {}
    for block, verdict in checked:
        for drift in verdict.drifts:
            by_path.setdefault(block.path, []).append((block, drift))
    report = UpdateReport()
    for path, drifts in sorted(by_path.items()):
        _update_file(path, drifts, report, dry_run)
    return report


def _update_file(path: str, drifts: list[tuple[Block, Drift]], report: UpdateReport, dry_run: bool) -> None:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        report.refused.append((path, drifts[0][1].line, f"cannot read the file: {error}"))
        return
    digests = {block.file_digest for block, _ in drifts}
    if digests != {digest(data)}:
        report.refused.append(
            (path, drifts[0][1].line, "the file changed since it was checked; run the update again")
        )
        return
    try:
        source = parse_source(data)
    except UnicodeDecodeError as error:
        report.refused.append((path, 1, f"not UTF-8 ({error}); cannot rewrite it safely"))
        return
    edits, places = [], set()
    for block, drift in drifts:
        try:
            edit = plan_edit(source, block, drift)
        except CannotRewrite as why:
            report.refused.append((path, drift.line, str(why)))
            continue
        places.add((path, drift.line))
        if source.lines[edit.start : edit.stop] != edit.lines:
            edits.append(edit)
    if not edits:
        return
    new_data = render_source(apply_edits(source, edits))
    report.rewritten += len(edits)
    report.diffs[path] = _diff(path, data, new_data)
    if dry_run:
        return
    try:
        write_atomically(path, new_data, digest(data))
        report.written.append(path)
        report.rewritten_at |= places
    except (FileChanged, OSError) as error:
        report.refused.append((path, drifts[0][1].line, str(error)))
        report.rewritten -= len(edits)


def plan_edit(source: SourceText, block: Block, drift: Drift) -> Edit:
    """The edit of file lines that makes one expectation say what really happens."""
    if drift.note:
        raise CannotRewrite(drift.note)
    if block.update_refusal:
        raise CannotRewrite(block.update_refusal)
    expectation = drift.expectation
    start = block.body_line - 1  # file index of body line 0
    prefixes = _prefixes(source, block)
    kept = refreshed_lines(expectation.expected, drift.actual, rules_of(block, expectation))
    if expectation.kind is ExpectationKind.INLINE:
        (text, _), = kept or [("", None)]
        index = expectation.first
        body_line = block.body[index]
        line = prefixes[index] + body_line[: expectation.comment_column] + "# " + text
        return Edit(start + index, start + index + 1, (line.rstrip(),))
    first, stop = expectation.first, expectation.stop
    anchor = first if first < len(block.body) else max(0, first - 1)
    prefix = prefixes[anchor] if first == stop else prefixes[first]
    if expectation.kind is ExpectationKind.DOCTEST:
        indent = _doctest_indent(block, expectation.statement_line)
        # A testoutput directive holds empty lines as they are (DONT_ACCEPT_BLANKLINE).
        blank = "" if expectation.optionflags & doctest.DONT_ACCEPT_BLANKLINE else BLANKLINE
        new = [
            source.lines[start + first + origin] if origin is not None else
            (prefix + indent + (text if text else blank)).rstrip()
            for text, origin in kept
        ]
    else:
        new = [
            source.lines[start + first + origin] if origin is not None else
            (prefix + ("# " + text if text else "#")).rstrip()
            for text, origin in kept
        ]
        repl_follows = any(e.kind is ExpectationKind.REPL for e in block.expectations)
        if not new and expectation.kind is ExpectationKind.TRAILING and not repl_follows:
            # The block now prints nothing: a bare "#" keeps it checked (expects no output).
            new = [(prefix + "#").rstrip()]
    return Edit(start + first, start + stop, tuple(new))


def _prefixes(source: SourceText, block: Block) -> list[str]:
    """For each body line, the file text before it (the block's indentation)."""
    start = block.body_line - 1
    prefixes: list[str] = []
    for offset, body_line in enumerate(block.body):
        index = start + offset
        if index >= len(source.lines):
            raise CannotRewrite(f"block {block.label!r} extends past the end of the file")
        raw = source.lines[index]
        if body_line.strip() and not raw.endswith(body_line) and "\t" in raw:
            raise CannotRewrite(
                f"line {index + 1} holds tabs, which reStructuredText expands to spaces, so "
                "jaxcheck cannot rewrite the block byte for byte; indent it with spaces, or "
                "rewrite this expectation by hand"
            )
        if body_line.strip() and not raw.endswith(body_line):
            raise CannotRewrite(
                f"line {index + 1} does not hold the block line {body_line!r} (tabs, or the file "
                "changed); rewrite this expectation by hand"
            )
        prefixes.append(raw[: len(raw) - len(body_line)] if body_line.strip() else "")
    known = next((p for p in prefixes if p), "")
    # Blank lines carry no indentation; new lines take the block's.
    return [p if p or block.body[i].strip() else known for i, p in enumerate(prefixes)]


def _doctest_indent(block: Block, statement_line: int) -> str:
    line = block.body[statement_line - 1]
    return line[: len(line) - len(line.lstrip())]


def _diff(path: str, old: bytes, new: bytes) -> str:
    name = os.path.relpath(path)
    return "".join(
        difflib.unified_diff(
            old.decode("utf-8", "replace").splitlines(keepends=True),
            new.decode("utf-8", "replace").splitlines(keepends=True),
            f"a/{name}",
            f"b/{name}",
        )
    )


def describe(report: UpdateReport, *, dry_run: bool = False) -> Sequence[str]:
    """Lines that tell a maintainer what the update did (or, with ``dry_run``, would do)."""
    lines = [f"{path}:{line}: cannot update: {why}" for path, line, why in report.refused]
    files = len(report.written) or len(report.diffs)
    done = "would rewrite" if dry_run else "rewrote"
    lines.append(f"jaxcheck update: {done} {report.rewritten} expectation(s) in {files} file(s)")
    return lines
