"""The plain report of a run: its typed records, and how a run becomes one.

A run is first turned into one :class:`Report` (the JSON document of
``--format json``); every format is rendered from it (``formats``, ``junit``),
so a report read back from JSON (``jaxcheck merge``) prints exactly as the run
did. Pure of Sphinx.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NotRequired, Protocol, TypedDict

from ..judge.example_verdicts import ExampleVerdict, all_examples, describe_examples
from ..model import Block, Status, Subtype, Verdict
from .findings import Finding
from .printable import printable


class Recorded(Protocol):
    """What a block's record asks of its kind (every kind's rules give it: the callers pass
    :func:`..kinds.rules_of`, which this stage, under it, does not import)."""

    def cell(self) -> int | None:
        """Its index in its notebook's ``cells`` list, when it is a notebook's cell (None:
        it is none)."""

    def ran_without(self) -> str:
        """The lines it ran without, as they change the environment ("": it ran whole)."""


class BlockRecord(TypedDict):
    """One block and its verdict."""

    document: str
    name: str  # the block's label
    session: str  # "" for the document's default session
    path: str  # relative to the current folder
    line: int  # the first line of its code
    status: str  # a Status value
    seconds: float
    reason: NotRequired[str]  # why a skipped block did not run (its limits exclude this JAX)
    cell: NotRequired[int]  # a notebook cell's index in the notebook's ``cells`` list
    after: NotRequired[str]  # a cell that failed after this earlier cell of its notebook did
    # A verified cell of which some image, stored or shown, was not compared (absent: none).
    images_not_compared: NotRequired[bool]
    # A cell that ran without its lines that change the environment: those lines, in words.
    left_out: NotRequired[str]


class CellRecord(TypedDict):
    """One code cell of a notebook and its verdict."""

    path: str
    cell: int  # its index in the notebook's ``cells`` list
    line: int  # the line of the file its source starts on
    status: str
    reason: NotRequired[str]  # why it did not run (its notebook is excluded from execution)
    after: NotRequired[str]  # it failed after this earlier cell of its notebook did
    images_not_compared: NotRequired[bool]  # verified, but some image of it was not compared
    left_out: NotRequired[str]  # the lines it ran without, as they change the environment


class NotRunRecord(TypedDict):
    """A notebook none of whose cells ran, and why."""

    path: str
    cells: int
    reason: str


class ExampleRecord(TypedDict):
    """One ``>>>`` example and how it fared (the fields of an ExampleVerdict)."""

    path: str
    line: int
    block: str
    status: str
    docstring: NotRequired[str]  # the docstring it is in, as collected or shown: ``pkg.mod.f``


class FindingRecord(TypedDict):
    """One open problem."""

    path: str
    line: int
    subtype: str  # a Subtype value
    drift: bool
    updatable: NotRequired[bool]  # drift ``jaxcheck update`` may rewrite (absent: it may not)
    refusal: NotRequired[str]  # a drift's it may not: why
    document: str
    block: str | None  # the label of its block; None for citations, quotes, unreadable files
    message: str  # printable: no terminal sequences, nothing XML 1.0 cannot hold


class RunRecord(TypedDict, total=False):
    """What was checked and how: reports of shards merge only when these agree."""

    sourcedir: str  # as the command line named it
    update: str  # the command line that accepts this run's new outputs
    documents: str  # a digest of the blocks read
    jax: str
    configuration: str  # a digest of everything that decides a verdict
    shard: str | None  # "K/N", or None for a full run
    split: str | None  # the digest of the split of sessions over the shards
    doctests_like: str  # whose doctest rules the summary names ("": it names none)
    # Every file the sessions of this run depended on besides their code, with its digest as
    # they used it: shards merge only when they saw the same content of the files they share.
    depended: dict[str, str]


class Report(TypedDict):
    """The plain report: every block, every example, every open finding, the summary."""

    blocks: list[BlockRecord]  # the ``jaxcheck`` blocks and the notebooks' code cells
    # The pages' (and docstrings') own ``>>>`` examples, one record per group run
    # together (a doctest paragraph or code block, a sphinx.ext.doctest directive).
    example_groups: list[BlockRecord]
    examples: list[ExampleRecord]
    cells: NotRequired[list[CellRecord]]  # the notebooks' code cells (also among the blocks)
    findings: list[FindingRecord]
    unchecked_examples: int  # the pages' own ``>>>`` examples left unchecked
    unchecked_cells: NotRequired[int]  # the notebooks' code cells left unchecked
    # The notebooks not run at all (excluded from execution, or for another platform).
    not_run_notebooks: NotRequired[list[NotRunRecord]]
    not_run_cells: NotRequired[int]  # their code cells
    # By page that exclude_patterns leaves out: its ``>>>`` examples, none checked.
    excluded_examples: NotRequired[dict[str, int]]
    # By package: the examples of its docstrings that pages show, not run (not the project's).
    foreign_examples: NotRequired[dict[str, int]]
    # Sessions that ran but could not be cached: [document, "file:line: why"], one per session.
    uncached: NotRequired[list[list[str]]]
    # Sessions cached by assumption (jaxcheck_cache_assume) though they learned something the
    # cache cannot follow: [document, "file:line: why"], one per session.
    assumed: NotRequired[list[list[str]]]
    summary: str
    run: RunRecord


def relative(path: str) -> str:
    """``path`` relative to the current folder, as reports print it."""
    try:
        return os.path.relpath(path)
    except ValueError:
        return path


def checked_summary(
    checked: Sequence[tuple[Block, Verdict]],
    read: Sequence[Finding],
    jax_version: str,
    kinds: Callable[[Block], Recorded],
    **more: Any,
) -> str:
    """The one-line summary of these blocks with their verdicts (:func:`summary_line`, whose
    other arguments ``more`` gives): what a front-end's check counts from its blocks
    (``kinds``: a block's kind's rules)."""
    return summary_line(
        [verdict.status for block, verdict in checked if not block.doctest_style],
        read,
        jax_version,
        all_examples(checked),
        not_run_notebooks=notebooks_not_run(
            block_record(b, verdict, kinds(b)) for b, verdict in checked
        ),
        failed_after=sum(1 for b, verdict in checked if verdict.after and not b.doctest_style),
        images_not_compared=sum(1 for _, verdict in checked if verdict.images_not_compared),
        **more,
    )


def summary_line(
    statuses: Iterable[Status],
    read: Sequence[Finding | FindingRecord],
    jax_version: str,
    examples: Iterable[ExampleVerdict] = (),
    unchecked_examples: int = 0,
    doctests_like: str = "",
    uncached: Sequence[tuple[str, str]] = (),
    excluded_examples: Mapping[str, int] | None = None,
    failing_warnings: int = 0,
    unchecked_cells: int = 0,
    not_run_notebooks: Sequence[NotRunRecord] = (),
    foreign_examples: Mapping[str, int] | None = None,
    failed_after: int = 0,
    images_not_compared: int = 0,
    assumed: Sequence[tuple[str, str]] = (),
) -> str:
    """The one-line summary: blocks by status, problems found while reading, the JAX
    version, examples, results that could not be cached, warnings that fail the check.

    ``statuses`` are the ``jaxcheck`` blocks' (the ``>>>`` examples are counted apart).

    ``read`` holds the findings not tied to a block (citations, quotes, names,
    encoding, settings); ``unchecked_examples`` counts the pages' own examples left unchecked,
    ``unchecked_cells`` the notebooks' code cells (``jaxcheck_notebooks = "report"``),
    ``excluded_examples`` those of each page the build leaves out (``exclude_patterns``),
    ``not_run_notebooks`` the notebooks none of whose cells ran, with why,
    ``foreign_examples`` by package those of other packages' docstrings that pages show;
    ``failed_after`` counts, apart from the other failures, the notebook cells among
    ``statuses`` that failed after an earlier cell of their notebook failed, and
    ``images_not_compared`` the verified ones of which some image was not compared.
    ``doctests_like`` names whose rules found the examples; given, it is said even
    when there are none. ``uncached`` says why each session that ran was not cached:
    (document, its block's file and line and why); the summary names the first.
    ``assumed`` says, in the same form, why each session cached by assumption
    (``jaxcheck_cache_assume``) could not be cached by proof.
    ``failing_warnings`` counts the build's warnings when any warning fails the check
    (``jaxcheck_fail_on_warnings = "any"``).
    """
    counts = dict.fromkeys(Status, 0)
    for status in statuses:
        counts[status] += 1
    kinds = [
        (f.subtype, f.is_drift) if isinstance(f, Finding) else (Subtype(f["subtype"]), f["drift"])
        for f in read
    ]
    stale_quotes = sum(1 for subtype, drift in kinds if drift and subtype is Subtype.CITATION)
    unknown_names = sum(1 for subtype, _ in kinds if subtype is Subtype.NAME)
    unknown_settings = sum(1 for subtype, _ in kinds if subtype is Subtype.SETTING)
    failed_imports = sum(1 for subtype, _ in kinds if subtype is Subtype.DROPPED)
    parts = [
        f"{counts[Status.VERIFIED] - images_not_compared} verified",
        *([f"{images_not_compared} verified (images not compared)"] if images_not_compared else []),
        f"{counts[Status.STALE]} stale",
        f"{counts[Status.FAILED] - failed_after} failed",
    ]
    if failed_after:
        parts.append(f"{failed_after} failed after an earlier cell of their notebook")
    if counts[Status.NOT_COMPARED]:
        parts.append(f"{counts[Status.NOT_COMPARED]} not compared")
    if counts[Status.SKIPPED]:
        parts.append(f"{counts[Status.SKIPPED]} skipped")
    if counts[Status.OTHER_SHARD]:
        parts.append(f"{counts[Status.OTHER_SHARD]} on other shards")
    # Found while reading, said after the first counts: each kind only when there is one, so
    # a summary holds the same parts whatever else a run found.
    other = len(read) - stale_quotes - unknown_names - unknown_settings - failed_imports
    problems = "".join(
        f", {count} {kind}"
        for count, kind in (
            (stale_quotes, "stale quote(s)"),
            (unknown_names, "unknown name(s)"),
            (unknown_settings, "unknown setting(s)"),
            (failed_imports, "failed autodoc import(s)"),
            (other, "other problem(s)"),
        )
        if count
    )
    total = sum(counts.values())
    described = describe_examples(examples)
    rules = f"doctests like {doctests_like}: " if doctests_like else ""
    jax = f" (jax {jax_version or '?'})"
    if described and not total:
        # Only examples: counted in the progress's words, which name no blocks then.
        line = f"jaxcheck: {rules}{described}{problems}{jax}"
        rules = ""
    else:
        line = f"jaxcheck: {total} block(s): " + ", ".join(parts) + problems + jax
        if described:
            line += f"; {rules}{described}"
            rules = ""
    if unchecked_examples:
        line += (
            f"; {rules}{unchecked_examples} `>>>` example(s) of the pages were not checked: set "
            'jaxcheck_doctests = "check" in conf.py to check them'
        )
    elif rules:
        line += f"; {rules}0 `>>>` example(s)"
    if unchecked_cells:
        line += (
            f"; {unchecked_cells} notebook cell(s) were not checked: set "
            'jaxcheck_notebooks = "check" in conf.py to check them'
        )
    if not_run_notebooks:
        shown = ", ".join(f"{n['path']} ({n['reason']})" for n in not_run_notebooks[:NOT_RUN_SHOWN])
        more = len(not_run_notebooks) - NOT_RUN_SHOWN
        line += (
            f"; {sum(n['cells'] for n in not_run_notebooks)} notebook cell(s) in "
            f"{len(not_run_notebooks)} notebook(s) were not run: {shown}"
            + (f" and {more} more" if more > 0 else "")
        )
    if excluded_examples:
        pages = sorted(excluded_examples)
        shown = ", ".join(pages[:3]) + (f" and {len(pages) - 3} more" if len(pages) > 3 else "")
        line += (
            f"; {sum(excluded_examples.values())} `>>>` example(s) in {len(pages)} page(s) that "
            f"exclude_patterns leaves out were not checked ({shown}): take the pages out of "
            "exclude_patterns to check them"
        )
    if foreign_examples:
        packages = sorted(foreign_examples)
        line += (
            f"; {sum(foreign_examples.values())} `>>>` example(s) of docstrings from other "
            f"packages ({', '.join(packages)}) that pages show were not run: add "
            f"{', '.join(map(repr, packages))} to jaxcheck_docstring_packages to check them"
        )
    if uncached:
        line += (
            f"; {len(uncached)} session(s) ran but were not cached, so the next build runs them "
            f"again; the first: {uncached[0][1]}"
        )
    if assumed:
        line += (
            f"; {len(assumed)} session(s) cached by assumption, not proof "
            "(jaxcheck_cache_assume): a change to what they learned by a route the cache cannot "
            f"follow does not run them again; the first: {assumed[0][1]}"
        )
    if failing_warnings:
        line += (
            f"; {failing_warnings} warning(s), which fail the check "
            '(jaxcheck_fail_on_warnings = "any", as sphinx-build -W)'
        )
    return line


NOT_RUN_SHOWN = 3  # notebooks not run that a summary names; the text report names each


def notebooks_not_run(blocks: Iterable[BlockRecord]) -> list[NotRunRecord]:
    """The notebooks none of whose code cells ran, each with the one reason all its cells
    give (excluded from execution, or for a platform the workers lack), by path."""
    reasons: dict[str, set[str]] = {}
    cells: dict[str, int] = {}
    for block in blocks:
        if "cell" in block:
            skipped = block["status"] == Status.SKIPPED.value
            reasons.setdefault(block["path"], set()).add(block.get("reason", "") if skipped else "")
            cells[block["path"]] = cells.get(block["path"], 0) + 1
    return [
        {"path": path, "cells": cells[path], "reason": why}
        for path, found in sorted(reasons.items())
        if len(found) == 1 and (why := next(iter(found)))
    ]


def build_report(
    checked: Sequence[tuple[Block, Verdict]],
    findings: Sequence[Finding],
    *,
    kinds: Callable[[Block], Recorded],
    summary: str,
    unchecked_examples: int = 0,
    unchecked_cells: int = 0,
    excluded_examples: Mapping[str, int] | None = None,
    foreign_examples: Mapping[str, int] | None = None,
    uncached: Sequence[tuple[str, str]] = (),
    assumed: Sequence[tuple[str, str]] = (),
    run: RunRecord | None = None,
) -> Report:
    """The plain report of a run: every block and group of examples with its status, every
    open finding, the summary.

    A finding of a block names it (``"block"``); the others (citations,
    quotes, unreadable files) have ``"block": null``. ``run`` says what was
    checked and how (documents, JAX, configuration, shard); merging needs it. ``kinds``
    gives a block's kind's rules.
    """
    blocks = [block_record(b, v, kinds(b)) for b, v in checked if not b.doctest_style]
    not_run = notebooks_not_run(blocks)
    return {
        "blocks": blocks,
        "example_groups": [block_record(b, v, kinds(b)) for b, v in checked if b.doctest_style],
        "examples": sorted(
            (_example_record(e) for e in all_examples(checked)),
            key=lambda e: (e["path"], e["line"]),
        ),
        "cells": cells_of(blocks),
        "findings": [finding_record(f) for f in findings],
        "unchecked_examples": unchecked_examples,
        "unchecked_cells": unchecked_cells,
        "not_run_notebooks": not_run,
        "not_run_cells": sum(n["cells"] for n in not_run),
        "excluded_examples": dict(excluded_examples or {}),
        "foreign_examples": dict(foreign_examples or {}),
        "uncached": [[document, why] for document, why in uncached],
        "assumed": [[document, why] for document, why in assumed],
        "summary": summary,
        "run": run.copy() if run else {},
    }


def _example_record(example: ExampleVerdict) -> ExampleRecord:
    record: ExampleRecord = {
        "path": relative(example.path),
        "line": example.line,
        "block": example.block,
        "status": example.status,
    }
    if example.docstring is not None:
        record["docstring"] = example.docstring
    return record


def block_record(block: Block, verdict: Verdict, kind: Recorded) -> BlockRecord:
    """One block and its verdict, as reports hold it (``kind``: its kind's rules)."""
    record: BlockRecord = {
        "document": block.docname,
        "name": block.label,
        "session": block.options.session or "",
        "path": relative(block.path),
        "line": block.body_line,
        "status": verdict.status.value,
        "seconds": round(verdict.seconds, 3),
    }
    if verdict.reason:
        record["reason"] = verdict.reason
    cell = kind.cell()
    if cell is not None:
        record["cell"] = cell
    left_out = kind.ran_without()
    if left_out:
        record["left_out"] = left_out
    if verdict.after:
        record["after"] = verdict.after
    if verdict.images_not_compared:
        record["images_not_compared"] = True
    return record


def cells_of(blocks: Iterable[BlockRecord]) -> list[CellRecord]:
    """The notebooks' code cells among these blocks."""
    found: list[CellRecord] = []
    for b in blocks:
        if "cell" in b:
            cell: CellRecord = {
                "path": b["path"],
                "cell": b["cell"],
                "line": b["line"],
                "status": b["status"],
            }
            if "reason" in b:
                cell["reason"] = b["reason"]
            if "after" in b:
                cell["after"] = b["after"]
            if b.get("images_not_compared"):
                cell["images_not_compared"] = True
            if "left_out" in b:
                cell["left_out"] = b["left_out"]
            found.append(cell)
    return found


def finding_record(finding: Finding) -> FindingRecord:
    """A finding as reports hold it."""
    record: FindingRecord = {
        "path": relative(finding.path),
        "line": finding.line,
        "subtype": finding.subtype.value,
        "drift": finding.is_drift,
        "updatable": finding.updatable,
        "document": finding.docname,
        "block": finding.block,
        # Every report shows a block's output escaped: no terminal sequences, nothing
        # XML 1.0 cannot hold.
        "message": printable(finding.message),
    }
    if finding.refusal:
        record["refusal"] = printable(finding.refusal)
    return record
