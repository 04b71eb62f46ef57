"""Regenerate stale expectations in the sources: Drift -> rewritten file, or a refusal.

Only the lines of expectations that drifted change, as minimal hunks: expected
lines that still match (``...`` lines too) are kept byte for byte. Quotes and
citations are never rewritten here.

Update writes only what it can show to be right: every drifted session runs a
second time and an output that does not reproduce exactly is refused, as are
outputs holding control characters; what may be rewritten at all, before that
second run, is decided in :mod:`.places` (a check's advice follows the same
decision). A page's own ``>>>`` example gets its output as
doctest compares it (``<BLANKLINE>`` for a blank line, the spaces ending a line
kept), and a line closing a Markdown fence, which doctest read as output, is
never dropped. Each edited block is parsed again before writing and must read
back as the output it was given. Files are written at their real
path (through symlinks), outside the source folder only when allowed; a file
reached through several includes gets each identical edit once, and refuses
edits that differ; a text file ``jaxcheck_doctest_files`` names is written
wherever it is. Docstring examples are written into their ``.py`` file when
it is the project's own (:mod:`.checkout`) and the lines written are the
docstring's one to one (:mod:`.python_literals`); the file is read again
before it is written, and each edited docstring must hold exactly those lines.
Before anything is written, the documents that read an edited page are read again
by their reader, with the new texts (:mod:`.reread`): each must hold the same
blocks at the same places, the rewritten ones accepting their new outputs, or
those edits are left out. What is left is written all or none: if one file
changed since it was read, no file is written.
"""

from __future__ import annotations

import difflib
import doctest
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from ..errors import JaxcheckError, WorkerStartError
from ..expect.docstrings import docstring_of
from ..expect.grammar import ParsedBody, parse_body
from ..expect.markdown_pages import Fence, find_fences
from ..judge.matching import example_passes, spoofed_output, texts_match
from ..judge.notebooks import written_text
from ..judge.verdict import rules_of
from ..model import (
    Block,
    CellOutput,
    Drift,
    Expectation,
    ExpectationKind,
    SessionKey,
    Verdict,
)
from .alignment import AlignmentTooLargeError, Steps, refreshed_lines
from .checkout import is_python_file
from .digests import digest
from .docstrings import PythonSource, docstring_prefixes, literal_of, read_back, read_python
from .edits import (
    Edit,
    FileChangedError,
    SourceText,
    apply_edits,
    parse_source,
    render_source,
    write_atomically,
)
from .notebooks import line_edit, rewritten_outputs
from .places import CellPlace, Places, Rewritten
from .python_literals import Literal, new_lines_problem
from .refusals import reproduction_problem, unwritable_characters
from .reread import Planned, Reread, read_back_problems

BLANKLINE = "<BLANKLINE>"
# Checks these documents' blocks again in fresh worker processes (no cache): a verdict per block.
Rerun = Callable[[Mapping[str, Sequence[Block]]], Mapping[str, Sequence[Verdict]]]
_FENCE = re.compile(r"^\s*(`{3,}|~{3,}|:{3,})\s*\{jaxcheck\}")
_OPTION = re.compile(r"^\s*:[\w-]+:")


class CannotRewriteError(JaxcheckError, Exception):
    """This drift needs a human: the message says why and where."""


@dataclass
class UpdateReport:
    """What an update did (or, with ``dry_run``, would do)."""

    diffs: dict[str, str] = field(default_factory=dict)  # path -> unified diff
    written: list[str] = field(default_factory=list)
    rewritten: int = 0  # expectations rewritten
    rewritten_at: set[tuple[str, int]] = field(default_factory=set)  # (path, reported line)
    refused: list[tuple[str, int, str]] = field(default_factory=list)  # path, line, why


@dataclass(frozen=True)
class _FilePlan:
    """What update would write into one file: the edits kept (changing it or not)."""

    path: str
    data: bytes  # as the build read it
    source: SourceText  # the same, line by line
    planned: tuple[Planned, ...]

    @property
    def changing(self) -> list[Edit]:
        """The edits that change the file, each once."""
        edits = dict.fromkeys(plan.edit for plan in self.planned)
        return [e for e in edits if self.source.lines[e.start : e.stop] != e.lines]

    @property
    def new_data(self) -> bytes:
        """The file as update would write it."""
        return render_source(apply_edits(self.source, self.changing))

    @property
    def places(self) -> set[tuple[str, int]]:
        """The expectations it rewrites (or finds right), by file and reported line."""
        return {(p.block.path, p.drift.line) for p in self.planned}

    def without(self, dropped: Sequence[Planned]) -> _FilePlan:
        """This plan less some edits."""
        return replace(self, planned=tuple(p for p in self.planned if p not in dropped))


def update_sources(
    checked: Iterable[tuple[Block, Verdict]],
    *,
    kinds: Callable[[Block], Rewritten],
    rerun: Rerun,
    dry_run: bool = False,
    root: str | None = None,
    allow_outside: bool = False,
    step_limit: int | None = None,
    reread: Reread | None = None,
) -> UpdateReport:
    """Rewrite every drifted expectation of these blocks that a second run confirms.

    ``root`` is the source folder: files whose real path lies outside it are
    written only with ``allow_outside``, but for Python files, which are written
    only inside the checkout that holds ``root`` (whatever ``allow_outside`` says).
    ``reread`` reads the documents again as they would read with the new texts: the edits
    of a block a document does not read back as planned are left out, and every edit of the
    files it reads when the difference is in no rewritten block (see :mod:`.reread`). Every
    adapter passes it; without it only each block is read again (as the unit tests do).
    ``kinds`` gives a block's kind's rules: where its rewrite goes, and how it is made.
    """
    checked = list(checked)
    places = Places(root, edit_problem, kinds, allow_outside=allow_outside)
    report = UpdateReport()
    candidates = []
    for block, drift in [(block, d) for block, verdict in checked for d in verdict.drifts]:
        why = places.refusal(block, drift)
        if why:
            report.refused.append((block.path, drift.line, f"block {block.label!r}: {why}"))
        else:
            candidates.append((block, drift))
    # Only what passed every other test is run again (a second run costs a fresh worker).
    second = (
        _run_again(checked, {block.session_key for block, _ in candidates}, rerun)
        if candidates
        else {}
    )
    by_file: dict[str, list[tuple[Block, Drift]]] = {}
    for block, drift in candidates:
        why = (
            second
            if isinstance(second, str)
            else reproduction_problem(drift, second.get((block.docname, block.index)))
        )
        if why is not None:
            report.refused.append((block.path, drift.line, f"block {block.label!r}: {why}"))
            continue
        by_file.setdefault(os.path.realpath(block.path), []).append((block, drift))
    copies: dict[str, dict[int, list[Block]]] = {}
    for block, _ in checked:
        copies.setdefault(os.path.realpath(block.path), {}).setdefault(block.body_line, []).append(
            block
        )
    files: dict[str, _FilePlan] = {}
    fresh = {(block.docname, block.index): verdict.outputs for block, verdict in checked}
    for real, drifts in sorted(by_file.items()):
        try:
            # One file holds blocks of one kind: a notebook's cells, or blocks of text.
            cells = [(block, drift, kinds(block).outputs_place()) for block, drift in drifts]
            if cells[0][2] is not None:
                planned_file = _plan_notebook(real, cells, fresh, report)
            else:
                planned_file = _plan_file(real, drifts, copies[real], report, step_limit)
        except (ValueError, OSError) as error:  # one file's trouble never stops the others
            report.refused.append((real, drifts[0][1].line, f"cannot update this file: {error}"))
            continue
        if planned_file is not None:
            files[real] = planned_file
    if reread is not None:
        _read_back_documents(files, reread, report, kinds)
    _write(files, report, dry_run)
    return report


def _run_again(
    checked: list[tuple[Block, Verdict]], keys: set[SessionKey], rerun: Rerun
) -> dict[tuple[str, int], Verdict] | str:
    """Verdicts of a second run of these sessions (by docname and block index), or why there
    are none."""
    documents: dict[str, list[Block]] = {}
    for block, _ in checked:
        if block.session_key in keys:
            documents.setdefault(block.docname, []).append(block)
    try:
        verdicts = rerun(documents)
    except WorkerStartError as error:
        return f"the sessions could not run a second time ({error}), so no new output is proven"
    return {
        (block.docname, block.index): verdict
        for docname, blocks in documents.items()
        for block, verdict in zip(blocks, verdicts.get(docname, ()), strict=False)
    }


def _plan_file(
    path: str,
    drifts: list[tuple[Block, Drift]],
    copies: Mapping[int, list[Block]],
    report: UpdateReport,
    step_limit: int | None,
) -> _FilePlan | None:
    """What to write into one file (None: nothing), every edit proven inside its block."""
    data = _as_checked(path, drifts, report)
    if data is None:
        return None
    try:
        source = parse_source(data)
    except UnicodeDecodeError as error:
        report.refused.append((path, 1, f"not UTF-8 ({error}); cannot rewrite it safely"))
        return None
    python = read_python(data) if is_python_file(path) else None
    if isinstance(python, str):
        report.refused.extend((b.path, d.line, f"block {b.label!r}: {python}") for b, d in drifts)
        return None
    planned: list[Planned] = []
    for block, drift in drifts:
        try:
            literal = None if python is None else literal_of(python, block)
            if isinstance(literal, str):
                raise CannotRewriteError(literal)
            steps = Steps(step_limit) if step_limit else Steps()
            planned.append(plan_edit(source, block, drift, steps, literal))
        except CannotRewriteError as why:
            report.refused.append((block.path, drift.line, f"block {block.label!r}: {why}"))
    planned = _read_back(source, planned, report)
    edits = _merge(planned, copies, report)
    if python is not None:
        edits = _docstrings_read_back(source, edits, python, planned, report)
    plan = _FilePlan(path, data, source, tuple(p for p in planned if p.edit in edits))
    if not plan.changing:
        report.rewritten_at |= plan.places
        return None
    return plan


def _as_checked(path: str, drifts: list[tuple[Block, Drift]], report: UpdateReport) -> bytes | None:
    """The file's bytes, when they are those its blocks were read from (else None, refused)."""
    first_line = drifts[0][1].line
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        report.refused.append((path, first_line, f"cannot read the file: {error}"))
        return None
    if {block.file_digest for block, _ in drifts} != {digest(data)}:
        report.refused.append(
            (path, first_line, "the file changed since it was checked; run the update again")
        )
        return None
    return data


def _plan_notebook(
    path: str,
    cells: list[tuple[Block, Drift, CellPlace | None]],
    fresh: Mapping[tuple[str, int], tuple[CellOutput, ...]],
    report: UpdateReport,
) -> _FilePlan | None:
    """The drifted cells of one notebook given the outputs of their run, each an edit of the
    lines of its ``outputs`` value (see :mod:`.notebooks`), each written where its kind says
    (``cells``: every cell's drift, and its place)."""
    drifts = [(block, drift) for block, drift, _ in cells]
    data = _as_checked(path, drifts, report)
    if data is None:
        return None
    source = parse_source(data)
    placed = [(block, drift, place) for block, drift, place in cells if place is not None]
    planned = []
    if not path.endswith(".ipynb"):  # a text notebook: each cell's output block
        for block, drift, place in placed:
            assert place.written is not None  # its drift is of its output block
            start = place.written_line - 1
            lines = tuple(written_text(fresh[block.docname, block.index]))
            edit = Edit(start, start + len(place.written), lines)
            planned.append(Planned(block, drift, edit, 0, 0, ()))
        return _FilePlan(path, data, source, tuple(planned))
    text = "\n".join(source.lines)
    outputs = {place.cell: fresh[block.docname, block.index] for block, _, place in placed}
    new = rewritten_outputs(text, outputs)  # ValueError: refused, the file left alone
    for block, drift, place in placed:
        alone = rewritten_outputs(text, {place.cell: outputs[place.cell]})
        start, stop, new_lines = line_edit(text, alone)
        planned.append(Planned(block, drift, Edit(start, stop, tuple(new_lines)), 0, 0, ()))
    plan = _FilePlan(path, data, source, tuple(planned))
    if "\n".join(apply_edits(source, plan.changing).lines) != new:
        raise ValueError("the cells' edits overlap")
    return plan


def _read_back_documents(
    files: dict[str, _FilePlan],
    reread: Reread,
    report: UpdateReport,
    kinds: Callable[[Block], Rewritten],
) -> None:
    """Leave out (refused, with the reason) the edits of every block that a document does not
    read back as planned (every edit of the files it reads, when the difference is in no
    rewritten block), until the documents of what is left, read again together, all do.

    Python files are read back on their own (:func:`_docstrings_read_back`): a page shows a
    docstring as its module, imported, holds it.
    """
    while True:
        # A notebook's cells are read from its file, not by a parser: rewritten_outputs
        # read it back itself.
        texts = {
            real: f.new_data
            for real, f in files.items()
            if not is_python_file(real) and kinds(f.planned[0].block).outputs_place() is None
        }
        if not texts:
            return
        planned = [plan for real in texts for plan in files[real].planned]
        blamed = read_back_problems(reread(texts), planned, texts)
        if not blamed:
            return
        for blame in blamed:
            plan = files.get(blame.path)
            if plan is None:
                continue
            dropped = [p for p in plan.planned if blame.body_line in (None, p.block.body_line)]
            for one in dropped:
                why = blame.why
                if blame.body_line is None:
                    why = f"nothing is written to {os.path.basename(blame.path)}: {why}"
                report.refused.append(
                    (one.block.path, one.drift.line, f"block {one.block.label!r}: {why}")
                )
            files[blame.path] = plan = plan.without(dropped)
            if not plan.changing:
                report.rewritten_at |= plan.places
                del files[blame.path]


def _write(files: Mapping[str, _FilePlan], report: UpdateReport, dry_run: bool) -> None:
    """Write every planned file, or (when one changed since it was read) none."""
    for path, plan in sorted(files.items()):
        report.diffs[path] = _diff(path, plan.data, plan.new_data)
    if not dry_run:
        changed = [
            (path, plan) for path, plan in sorted(files.items()) if not _unchanged(path, plan.data)
        ]
        if changed:
            path, plan = changed[0]
            report.refused.append(
                (
                    path,
                    plan.planned[0].drift.line,
                    f"{path} changed since jaxcheck read it; nothing was written, in this file or "
                    "any other. Run the update again to rewrite it from its current text.",
                )
            )
            report.diffs.clear()
            return
    for path, plan in sorted(files.items()):
        if not dry_run:
            try:
                write_atomically(path, plan.new_data, digest(plan.data))
            except (FileChangedError, OSError) as error:
                report.refused.append((path, plan.planned[0].drift.line, str(error)))
                continue
            report.written.append(path)
        report.rewritten += len(plan.changing)
        report.rewritten_at |= plan.places


def _unchanged(path: str, data: bytes) -> bool:
    try:
        with open(path, "rb") as handle:
            return handle.read() == data
    except OSError:
        return False


def _merge(
    planned: list[Planned], copies: Mapping[int, list[Block]], report: UpdateReport
) -> list[Edit]:
    """One edit per place: identical edits (a file included twice) once; different ones refused.

    ``copies`` holds, by first body line, every block read from this file: an
    edit is written only when every block read from those lines asks for it (every
    document that includes them; every module a docstring there is collected in).
    """
    by_edit: dict[Edit, list[Planned]] = {}
    for plan in planned:
        by_edit.setdefault(plan.edit, []).append(plan)
    edits = sorted(by_edit, key=lambda e: (e.start, e.stop))
    conflicts: dict[Edit, tuple[Block, str]] = {}
    for n, edit in enumerate(edits):
        for other in edits[n + 1 :]:
            if other.start >= edit.stop and other.start != edit.start:
                break
            mine, theirs = by_edit[edit][0], by_edit[other][0]
            conflicts.setdefault(edit, (theirs.block, f"needs {_shown(theirs)}"))
            conflicts.setdefault(other, (mine.block, f"needs {_shown(mine)}"))
        plan = by_edit[edit][0]
        asking = {(p.block.docname, p.block.index) for p in by_edit[edit]}
        silent = [b for b in copies[plan.block.body_line] if (b.docname, b.index) not in asking]
        if silent and edit not in conflicts:
            reads = (
                "includes it" if silent[0].docname != plan.block.docname else "reads these lines"
            )
            conflicts[edit] = (
                silent[0],
                f"{reads} too and there it needs no such change (its output matches the current "
                "text, or could not be updated)",
            )
    for edit, (peer, why) in conflicts.items():
        for plan in by_edit[edit]:
            block = plan.block
            if peer.docname != block.docname:
                lead = f"block {block.label!r} is included by more than one document"
                what = "make the documents agree"
            else:  # one docstring collected in two modules, say
                lead = (
                    f"the lines of block {block.label!r} are read as more than one block of "
                    f"document {block.docname!r} (as one docstring collected in two modules, "
                    "run in each one's namespace)"
                )
                what = "make the blocks agree"
            report.refused.append(
                (
                    block.path,
                    plan.drift.line,
                    f"{lead}, which disagree: {_who(block, peer)} needs {_shown(plan)}, "
                    f"{_who(peer, block)} {why}; update writes neither: {what}, or rewrite "
                    "the expectation by hand",
                )
            )
    return [edit for edit in edits if edit not in conflicts]


def _who(block: Block, other: Block) -> str:
    """How a refusal names ``block`` beside ``other``: by its document, or (in the same one)
    by its name."""
    if block.docname != other.docname:
        return f"document {block.docname!r}"
    name = docstring_of(block)
    if block.label == other.label and name is not None:
        return f"the docstring {name!r}"
    return f"block {block.label!r}"


def _shown(plan: Planned) -> str:
    lines = list(plan.output or plan.drift.actual)
    return repr(lines if len(lines) <= 3 else [*lines[:3], "..."])


def _docstrings_read_back(
    source: SourceText,
    edits: list[Edit],
    python: PythonSource,
    planned: list[Planned],
    report: UpdateReport,
) -> list[Edit]:
    """Keep the edits of the docstrings that, in the file as it would be written, hold exactly
    the lines written; refuse the others' drifts."""
    refused = read_back(source, edits, python.literals)
    for plan in planned:
        if plan.edit in refused:
            why = refused[plan.edit]
            report.refused.append(
                (plan.block.path, plan.drift.line, f"block {plan.block.label!r}: {why}")
            )
    return [edit for edit in edits if edit not in refused]


def plan_edit(
    source: SourceText,
    block: Block,
    drift: Drift,
    steps: Steps | None = None,
    literal: Literal | None = None,
) -> Planned:
    """The edit of file lines that makes one expectation say what really happens.

    Only for drifts :func:`update_sources` found rewritable (no note, no refusal of the block).
    ``literal``: the string literal of a Python file that holds the block (a docstring's).
    """
    expectation = drift.expectation
    start = block.body_line - 1  # file index of body line 0
    if literal is None:
        prefixes = _prefixes(source, block)
    else:
        found = docstring_prefixes(source, block, expectation, literal)
        if isinstance(found, str):
            raise CannotRewriteError(found)
        prefixes = found
    exact = doctest_output(block, drift)
    output = drift.actual if exact is None else exact
    try:
        kept = refreshed_lines(expectation.expected, output, rules_of(block, expectation), steps)
    except AlignmentTooLargeError as error:
        raise CannotRewriteError(
            f"{error} ({len(expectation.expected)} expected lines with `...` against "
            f"{len(output)} actual ones); rewrite this expectation by hand"
        ) from None
    if exact is not None:
        kept = _as_doctest_compares(expectation, kept, exact, drift.printed or "")
    why = unwritable_characters([text for text, origin in kept if origin is None])
    if why is not None:
        raise CannotRewriteError(why)
    if literal is None:
        _keeps_fences(source, start + expectation.first, expectation, kept)
    first, stop = expectation.first, expectation.stop
    if expectation.kind is ExpectationKind.INLINE:
        ((text, _),) = kept  # one line: a drift of any other length carries a note
        body = (block.body[first][: expectation.comment_column] + "# " + text).rstrip()
        return Planned(
            block,
            drift,
            Edit(start + first, start + first + 1, ((prefixes[first] + body).rstrip(),)),
            first,
            first + 1,
            (body,),
        )
    anchor = first if first < len(block.body) else max(0, first - 1)
    prefix = prefixes[anchor] if first == stop else prefixes[first]
    if expectation.kind is ExpectationKind.DOCTEST:
        indent = _doctest_indent(block, expectation.statement_line)
        # A testoutput directive holds empty lines as they are (DONT_ACCEPT_BLANKLINE).
        blank = "" if expectation.optionflags & doctest.DONT_ACCEPT_BLANKLINE else BLANKLINE
        written = [indent + (text if text else blank) for text, _ in kept]
        if exact is None:  # doctest compares the spaces that end a line: keep those it printed
            written = [text.rstrip() for text in written]
    else:
        written = [("# " + text if text else "#").rstrip() for text, _ in kept]
        repl_follows = any(e.kind is ExpectationKind.REPL for e in block.expectations)
        if not kept and expectation.kind is ExpectationKind.TRAILING and not repl_follows:
            # The block now prints nothing: a bare "#" keeps it checked (expects no output).
            kept, written = [("", None)], ["#"]
    lines, body_lines, new = [], [], []
    for (_, origin), text in zip(kept, written, strict=True):
        if origin is None:
            lines.append(prefix + text if exact is not None else (prefix + text).rstrip())
            body_lines.append(text)
            new.append(lines[-1])
        else:  # a kept line keeps its bytes
            lines.append(source.lines[start + first + origin])
            body_lines.append(block.body[first + origin])
    edit = Edit(start + first, start + stop, tuple(lines))
    why = None if literal is None else new_lines_problem(new, literal)
    if why is not None:
        raise CannotRewriteError(why)
    return Planned(block, drift, edit, first, stop, tuple(body_lines), tuple(output))


def edit_problem(
    source: SourceText, block: Block, drift: Drift, literal: Literal | None = None
) -> str | None:
    """Why update's plan refuses the edit of this drift's own lines, whatever a second run
    shows (a line closing a Markdown fence that it would drop or write, characters a page
    cannot hold, ...), or None: the part of :mod:`.places`'s decision that plans the edit."""
    try:
        planned = plan_edit(source, block, drift, literal=literal)
    except CannotRewriteError as why:
        return str(why)
    return _reads_back_wrongly(source, [planned])


def doctest_output(block: Block, drift: Drift) -> tuple[str, ...] | None:
    """The lines a page's own ``>>>`` example printed, as doctest compares them (blank lines at
    the end and spaces at the end of a line kept), when doctest alone judges it and it raised
    nothing; else None (the drift's lines are written)."""
    expectation = drift.expectation
    if (
        not block.doctest_style
        or expectation.kind is not ExpectationKind.DOCTEST
        or drift.printed is None
        or drift.raised is not None
        or expectation.optionflags & doctest.DONT_ACCEPT_BLANKLINE  # a testoutput's
    ):
        return None
    got = spoofed_output(drift.printed)
    return tuple(got[:-1].split("\n")) if got else ()


def _as_doctest_compares(
    expectation: Expectation, kept: list[tuple[str, int | None]], exact: tuple[str, ...], got: str
) -> list[tuple[str, int | None]]:
    """``kept`` if doctest, reading it as the example's expected output, accepts what the
    example printed; else the printed lines themselves, if it accepts those."""
    blank = "" if expectation.optionflags & doctest.DONT_ACCEPT_BLANKLINE else BLANKLINE
    fresh: list[tuple[str, int | None]] = [(line, None) for line in exact]
    for lines in (kept, fresh):
        want = _want_read(expectation.source, [text or blank for text, _ in lines])
        if want is not None and example_passes(want, None, got, None, expectation.optionflags):
            return lines
    raise CannotRewriteError(
        "the new output, written as the example's expected output, would not read back as "
        "what doctest compares; rewrite this expectation by hand"
    )


def _want_read(source: str, lines: Sequence[str]) -> str | None:
    """The expected output doctest's parser reads from an example with these output lines
    (None: it would read them as more than one example)."""
    statement = source.rstrip("\n").split("\n")
    text = "\n".join(
        [">>> " + statement[0], *("... " + line for line in statement[1:]), *lines, ""]
    )
    try:
        examples = doctest.DocTestParser().get_examples(text)
    except ValueError:
        return None
    return examples[0].want if len(examples) == 1 else None


def _keeps_fences(
    source: SourceText,
    first: int,
    expectation: Expectation,
    kept: Sequence[tuple[str, int | None]],
) -> None:
    """Refuse an edit that would drop a line closing a Markdown fence (doctest, reading the
    page's text, takes such a line for output when no blank line stands before it)."""
    left = {origin for _, origin in kept}
    for offset in range(len(expectation.expected)):
        if offset in left:
            continue
        opened = _fence_closed_at(source, first + offset)
        if opened is not None:
            line = source.lines[first + offset].strip()
            opening = source.lines[opened].strip()
            raise CannotRewriteError(
                f"line {first + offset + 1} ({line!r}) closes the Markdown fence {opening!r} "
                f"opened at line {opened + 1}, but doctest reads it as a line of this "
                "example's expected output, since no blank line stands before it; update "
                "would delete the fence, and the page after it would become part of this code. "
                f"Put a blank line before line {first + offset + 1}, then run update again"
            )


def _fence_closed_at(source: SourceText, index: int) -> int | None:
    """The index of the line that opens the Markdown fence which line ``index`` closes, or
    None."""
    fence = _fence_around(source, index)
    return fence.opening - 1 if fence is not None and fence.closing == index + 1 else None


def _fence_open_at(source: SourceText, index: int) -> str | None:
    """The fence (its run of backticks or tildes) that line ``index`` stands in, or None."""
    fence = _fence_around(source, index)
    return fence.run if fence is not None else None


def _fence_around(source: SourceText, index: int) -> Fence | None:
    """The Markdown fence whose body or closing line is line ``index``, or None."""
    number = index + 1
    return next((f for f in find_fences(source.lines) if f.opening < number <= f.last), None)


def _read_back(source: SourceText, planned: list[Planned], report: UpdateReport) -> list[Planned]:
    """Keep the edits whose block, parsed again, reads the new output as written."""
    by_block: dict[tuple[str, int], list[Planned]] = {}
    for plan in planned:
        by_block.setdefault((plan.block.docname, plan.block.index), []).append(plan)
    kept: list[Planned] = []
    for plans in by_block.values():
        why = _reads_back_wrongly(source, plans)
        if why is None:
            kept += plans
            continue
        for plan in plans:
            report.refused.append(
                (plan.block.path, plan.drift.line, f"block {plan.block.label!r}: {why}")
            )
    return kept


def _reads_back_wrongly(source: SourceText, plans: list[Planned]) -> str | None:
    block = plans[0].block
    body = list(block.body)
    for plan in sorted(plans, key=lambda p: p.body_first, reverse=True):
        body[plan.body_first : plan.body_stop] = plan.body_lines
    fence = _fence_of(source, block)
    if fence:
        for plan in plans:
            for line in plan.body_lines:
                if re.fullmatch(rf"\s*{re.escape(fence[0])}{{{len(fence)},}}\s*", line):
                    return (
                        f"the new output line {line.strip()!r} would close the Markdown "
                        f"fence {fence!r} of the block"
                    )
    if _read(block, block.body) != [(e.kind, e.source, e.expected) for e in block.expectations]:
        return None  # not a body our grammar alone reads (e.g. a testcode with its testoutput)
    again = _parsed(block, body)
    if again.error is not None:
        return f"with the new output written, the block no longer parses ({again.error})"
    if [(e.kind, e.source) for e in again.expectations] != [
        (e.kind, e.source) for e in block.expectations
    ]:
        return (
            "with the new output written, the block would read differently (new or lost examples)"
        )
    for plan in plans:
        index = block.expectations.index(plan.drift.expectation)
        read = again.expectations[index]
        rules = rules_of(block, plan.drift.expectation)
        if read.kind is not plan.drift.expectation.kind or not texts_match(
            read.expected, plan.drift.actual, rules
        ):
            return (
                "written into the block, the new output would not read back as itself "
                f"(it would read {list(read.expected)[:3]!r})"
            )
    return None


def _parsed(block: Block, body: Sequence[str]) -> ParsedBody:
    return parse_body(body, doctest_only=block.doctest_style)


def _read(block: Block, body: Sequence[str]) -> list[tuple[ExpectationKind, str, tuple[str, ...]]]:
    return [(e.kind, e.source, e.expected) for e in _parsed(block, body).expectations]


def _fence_of(source: SourceText, block: Block) -> str | None:
    """The fence (```` ``` ````, ``~~~``, ``:::``) a Markdown block's body stands in, if any:
    its ``jaxcheck`` directive's, right above it (only option lines, ``:name: x``, and blank
    lines between), or on a Markdown page the fence its first line stands in (a Python or
    ``pycon`` fence of a page, whose ``>>>`` examples doctest reads)."""
    for index in range(min(block.body_line - 2, len(source.lines) - 1), -1, -1):
        line = source.lines[index]
        found = _FENCE.match(line)
        if found:
            return found.group(1)
        if line.strip() and not _OPTION.match(line):
            break
    if os.path.splitext(block.path)[1] == ".md":
        return _fence_open_at(source, block.body_line - 1)
    return None


def _prefixes(source: SourceText, block: Block) -> list[str]:
    """For each body line, the file text before it (the block's indentation)."""
    start = block.body_line - 1
    prefixes: list[str] = []
    for offset, body_line in enumerate(block.body):
        index = start + offset
        if index >= len(source.lines):
            raise CannotRewriteError(f"block {block.label!r} extends past the end of the file")
        raw = source.lines[index].rstrip()  # readers drop trailing whitespace; so do we
        text = body_line.rstrip()
        if text and not raw.endswith(text):
            raise CannotRewriteError(_mismatch(index + 1, source.lines[index], body_line))
        prefixes.append(raw[: len(raw) - len(text)] if text else "")
    known = next((p for p in prefixes if p), "")
    # Blank lines carry no indentation; new lines take the block's.
    return [p if p or block.body[i].strip() else known for i, p in enumerate(prefixes)]


def _mismatch(number: int, raw: str, body_line: str) -> str:
    """Why file line ``number`` does not hold the block line Sphinx read from it."""
    odd = sorted({c for c in raw if c in "\t\v\f"})
    if "\t" in odd:
        return (
            f"line {number} holds tabs, which reStructuredText expands to spaces, so jaxcheck "
            "cannot rewrite the block byte for byte; indent it with spaces, or rewrite this "
            "expectation by hand"
        )
    if odd:
        return (
            f"line {number} holds {', '.join(repr(c) for c in odd)}, which the reader turns into "
            "spaces, so jaxcheck cannot rewrite the block byte for byte; rewrite this "
            "expectation by hand"
        )
    return (
        f"line {number} reads {raw!r} in the file, but the block was read as {body_line!r} "
        "(did a Sphinx extension change the text?); rewrite this expectation by hand"
    )


def _doctest_indent(block: Block, statement_line: int) -> str:
    line = block.body[statement_line - 1]
    return line[: len(line) - len(line.lstrip())]


def _diff(path: str, old: bytes, new: bytes) -> str:
    name = os.path.relpath(path)
    return "".join(
        difflib.unified_diff(
            old.decode().splitlines(keepends=True),  # read as UTF-8 already: no decoding error
            new.decode().splitlines(keepends=True),
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
