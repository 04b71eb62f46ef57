"""``jaxcheck merge``: the reports of the shards of one run, combined into the report of
the full run.

Checks that the reports belong together (same documents, JAX and
configuration, the same split, every shard exactly once) and rebuilds the
report one full run would have printed. Pure of Sphinx.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import ShardError
from ..judge.example_verdicts import ExampleVerdict
from ..model import DURATIONS_FILE, Shard, Status, session_name
from .records import (
    BlockRecord,
    ExampleRecord,
    FindingRecord,
    Report,
    RunRecord,
    cells_of,
    notebooks_not_run,
    summary_line,
)


def report_durations(report: Report) -> dict[str, float]:
    """Session durations measured in a report (blocks run on another shard left out)."""
    durations: dict[str, float] = {}
    for block in [*report["blocks"], *report.get("example_groups", [])]:
        if block["status"] not in (Status.OTHER_SHARD.value, Status.SKIPPED.value):
            name = session_name((block["document"], block.get("session", "")))
            durations[name] = durations.get(name, 0.0) + float(block["seconds"])
    return durations


# What must agree between the shards of one run, and how to name a disagreement.
_SAME = (
    ("documents", "different documents (the docs changed between the shards?)"),
    ("jax", "different JAX versions"),
    (
        "configuration",
        "different configurations (conf.py, jaxcheck_env, Python or the installed packages)",
    ),
)


def merge(reports: Sequence[tuple[str, Report]]) -> Report:
    """The report of one full run, from the reports of its shards (``(file name, report)``
    pairs)."""
    if not reports:
        raise ShardError("no reports to merge")
    runs = []
    for name, report in reports:
        run: RunRecord = report.get("run") or {}
        given = run.get("shard")
        if not given:
            raise ShardError(
                f"{name} is not the report of a shard: make each with "
                "`jaxcheck check --shard K/N --format json`"
            )
        runs.append((name, run, Shard.parse(given)))
    first_name, first_run, first_shard = runs[0]
    for key, what in _SAME:
        for name, run, _ in runs[1:]:
            if run.get(key) != first_run.get(key):
                raise ShardError(
                    f"{first_name} and {name} were made from {what}: "
                    f"{first_run.get(key)!r} and {run.get(key)!r}; merge only the shards of one run"
                )
    for name, run, _ in runs[1:]:
        _refuse_different_inputs(first_name, first_run, name, run)
    seen: dict[int, str] = {}
    for name, _run, shard in runs:
        if shard.count != first_shard.count:
            raise ShardError(
                f"{first_name} is shard {first_shard} but {name} is shard {shard}: "
                "the counts differ"
            )
        if shard.index in seen:
            raise ShardError(f"{seen[shard.index]} and {name} are both shard {shard}")
        seen[shard.index] = name
    missing = [f"{n}/{first_shard.count}" for n in range(1, first_shard.count + 1) if n not in seen]
    if missing:
        raise ShardError(f"the report of shard {', '.join(missing)} is missing")
    for name, run, _ in runs[1:]:
        if run.get("split") != first_run.get("split"):
            raise ShardError(
                f"{first_name} and {name} split the sessions differently (their caches remembered "
                f"different durations): give every shard the same {DURATIONS_FILE}, or none"
            )
    return _combine([report for _, report in reports], first_run)


def _refuse_different_inputs(name: str, run: RunRecord, other: str, theirs: RunRecord) -> None:
    """Refuse shards whose sessions saw different contents of a file both depended on (a
    helper module edited between two shards): neither verdict is the full run's then."""
    mine, others = run.get("depended", {}), theirs.get("depended", {})
    for path in sorted(mine.keys() & others.keys()):
        if mine[path] != others[path]:
            raise ShardError(
                f"{name} and {other} were made with different contents of {path}, which "
                "their sessions depended on (it changed between the shards?); merge only the "
                "shards of one state of the project, or run the shards again"
            )


def _records(report: Report, kind: str) -> list[BlockRecord]:
    """A report's blocks (``kind`` "blocks") or groups of examples ("example_groups")."""
    found: list[BlockRecord] = (
        report["blocks"] if kind == "blocks" else report.get("example_groups", [])
    )
    return found


def _combine(reports: Sequence[Report], run: RunRecord) -> Report:
    read = [f for f in reports[0]["findings"] if f["block"] is None]
    findings: list[FindingRecord] = list(read)
    examples: list[ExampleRecord] = []
    combined: dict[str, list[BlockRecord]] = {"blocks": [], "example_groups": []}
    for kind, records in combined.items():
        for position, block in enumerate(_records(reports[0], kind)):
            owners = [
                r
                for r in reports
                if _records(r, kind)[position]["status"] != Status.OTHER_SHARD.value
            ]
            if len(owners) != 1:
                raise ShardError(
                    f"block {block['name']!r} of {block['document']} was checked by "
                    f"{len(owners)} shards, expected exactly one"
                )
            owner = owners[0]
            records.append(_records(owner, kind)[position])
            examples.extend(
                e
                for e in owner.get("examples", [])
                if (e["block"], e["path"]) == (block["name"], block["path"])
            )
            findings.extend(
                f
                for f in owner["findings"]
                if f["block"] == block["name"] and f["document"] == block["document"]
            )
    # As the full run lists them (findings.in_report_order).
    findings.sort(key=lambda f: (f["document"], f["path"], f["line"]))
    examples.sort(key=lambda e: (e["path"], e["line"]))
    blocks = combined["blocks"]
    statuses = [Status(b["status"]) for b in blocks]
    # Every shard reads every document, so each counts all of them.
    unchecked = int(reports[0].get("unchecked_examples", 0))
    unchecked_cells = int(reports[0].get("unchecked_cells", 0))
    excluded = dict(reports[0].get("excluded_examples", {}))
    foreign = dict(reports[0].get("foreign_examples", {}))
    # Each shard names the sessions it ran; in the order of a full run's summary.
    uncached = sorted({(doc, why) for r in reports for doc, why in r.get("uncached", [])})
    assumed = sorted({(doc, why) for r in reports for doc, why in r.get("assumed", [])})
    not_run = notebooks_not_run(blocks)
    summary = summary_line(
        statuses,
        read,
        str(run.get("jax", "?")),
        [ExampleVerdict(**e) for e in examples],
        unchecked,
        run.get("doctests_like", ""),
        uncached,
        excluded_examples=excluded,
        unchecked_cells=unchecked_cells,
        not_run_notebooks=not_run,
        foreign_examples=foreign,
        failed_after=sum(1 for b in blocks if b.get("after")),
        images_not_compared=sum(1 for b in blocks if b.get("images_not_compared")),
        assumed=assumed,
    )
    return {
        "blocks": blocks,
        "example_groups": combined["example_groups"],
        "examples": examples,
        "cells": cells_of(blocks),
        "findings": findings,
        "unchecked_examples": unchecked,
        "unchecked_cells": unchecked_cells,
        "not_run_notebooks": not_run,
        "not_run_cells": sum(n["cells"] for n in not_run),
        "excluded_examples": excluded,
        "foreign_examples": foreign,
        "uncached": [[doc, why] for doc, why in uncached],
        "assumed": [[doc, why] for doc, why in assumed],
        "summary": summary,
        "run": {**run, "shard": None, "split": None, **_depended(reports)},
    }


def _depended(reports: Sequence[Report]) -> RunRecord:
    """What the sessions of every shard depended on, as the full run lists it (each shard
    names only the files its own sessions read; they agree where they overlap)."""
    if not any("depended" in (r.get("run") or {}) for r in reports):
        return {}
    files = {p: d for r in reports for p, d in (r.get("run") or {}).get("depended", {}).items()}
    return {"depended": dict(sorted(files.items()))}
