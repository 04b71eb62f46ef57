"""Split the sessions of one docs set over N machines, and merge their reports back into one.

Pure of Sphinx. The split is deterministic: every shard computes it from the
same sessions and the same remembered durations, so each session runs on
exactly one shard. ``merge`` checks that the reports belong together and
rebuilds the report one full run would have printed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..atomic import replace_file
from ..cache.size import DURATIONS_FILE
from ..errors import ShardError
from ..judge.example_verdicts import ExampleVerdict
from ..model import Block, SessionKey, Status, Verdict
from ..report.formats import Report, summary_line


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"K/N"`` with 1 <= K <= N."""
        index, slash, count = str(text).partition("/")
        if not (slash and index.strip().isdigit() and count.strip().isdigit()):
            raise ShardError(f"shard {text!r} is not of the form K/N, e.g. 1/3")
        shard = cls(int(index), int(count))
        if not 1 <= shard.index <= shard.count:
            raise ShardError(f"shard {text!r}: K must be between 1 and N")
        return shard

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def session_name(key: SessionKey) -> str:
    """How durations name a session: the document, and ``::name`` for a named session."""
    docname, session = key
    return f"{docname}::{session}" if session else docname


def split(
    sessions: Sequence[SessionKey], durations: Mapping[str, float], count: int
) -> dict[SessionKey, int]:
    """The shard (1-based) of every session, balancing the remembered durations.

    Longest first, each onto the shard with the least work so far (ties: the
    lowest number). A session without a remembered duration counts as the mean
    of those known; with none known, every session weighs the same.
    """
    known = [durations[session_name(k)] for k in sessions if session_name(k) in durations]
    default = sum(known) / len(known) if known else 1.0
    weight = {key: durations.get(session_name(key), default) for key in sessions}
    loads = [0.0] * count
    assignment: dict[SessionKey, int] = {}
    for key in sorted(sessions, key=lambda k: (-weight[k], k)):
        shard = min(range(count), key=lambda n: (loads[n], n))
        loads[shard] += weight[key]
        assignment[key] = shard + 1
    return assignment


def split_digest(assignment: Mapping[SessionKey, int]) -> str:
    """A digest of a split: shards that computed the same split have the same digest."""
    payload = json.dumps(sorted([list(key), shard] for key, shard in assignment.items()))
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def load_durations(directory: str | os.PathLike[str]) -> dict[str, float]:
    """The remembered duration of each session, in seconds (empty when none are)."""
    try:
        text = (Path(directory) / DURATIONS_FILE).read_text("utf-8")
    except (OSError, ValueError):
        return {}
    durations: dict[str, float] = {}
    for line in text.splitlines():
        name, tab, seconds = line.rpartition("\t")
        with contextlib.suppress(ValueError):
            if tab and math.isfinite(float(seconds)):
                durations[name] = float(seconds)
    return durations


def save_durations(directory: str | os.PathLike[str], durations: Mapping[str, float]) -> None:
    """Remember these durations (added to those already known); atomic.

    One ``session<TAB>seconds`` line per session, sorted: easy to read, and
    apart from the cached outcomes (``*.json``).
    """
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    merged = {**load_durations(folder), **durations}
    lines = "".join(f"{name}\t{seconds:.3f}\n" for name, seconds in sorted(merged.items()))
    replace_file(folder / DURATIONS_FILE, lines.encode("utf-8"))


def session_durations(
    documents: Mapping[str, Sequence[Block]], verdicts: Mapping[str, Sequence[Verdict]]
) -> dict[str, float]:
    """The seconds each session took (as run, or as the cache remembers it)."""
    durations: dict[str, float] = {}
    for docname, blocks in documents.items():
        for block, verdict in zip(blocks, verdicts.get(docname, ()), strict=False):
            if verdict.status is not Status.SKIPPED:
                name = session_name(block.session_key)
                durations[name] = durations.get(name, 0.0) + verdict.seconds
    return durations


def report_durations(report: Report) -> dict[str, float]:
    """Session durations measured in a report (blocks run on another shard left out)."""
    durations: dict[str, float] = {}
    for block in report["blocks"]:
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
    """The report of one full run, from the reports of its shards (``(file name, report)`` pairs)."""
    if not reports:
        raise ShardError("no reports to merge")
    runs = []
    for name, report in reports:
        run = report.get("run") or {}
        if not run.get("shard"):
            raise ShardError(
                f"{name} is not the report of a shard: make each with "
                "`jaxcheck check --shard K/N --format json`"
            )
        runs.append((name, run, Shard.parse(run["shard"])))
    first_name, first_run, first_shard = runs[0]
    for key, what in _SAME:
        for name, run, _ in runs[1:]:
            if run.get(key) != first_run.get(key):
                raise ShardError(
                    f"{first_name} and {name} were made from {what}: "
                    f"{first_run.get(key)!r} and {run.get(key)!r}; merge only the shards of one run"
                )
    seen: dict[int, str] = {}
    for name, _run, shard in runs:
        if shard.count != first_shard.count:
            raise ShardError(
                f"{first_name} is shard {first_shard} but {name} is shard {shard}: the counts differ"
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


def _combine(reports: Sequence[Report], run: Mapping[str, Any]) -> Report:
    blocks: list[dict[str, Any]] = []
    read = [f for f in reports[0]["findings"] if f["block"] is None]
    findings = list(read)
    examples: list[dict[str, Any]] = []
    for position, block in enumerate(reports[0]["blocks"]):
        owners = [r for r in reports if r["blocks"][position]["status"] != Status.OTHER_SHARD.value]
        if len(owners) != 1:
            raise ShardError(
                f"block {block['name']!r} of {block['document']} was checked by {len(owners)} shards, "
                "expected exactly one"
            )
        owner = owners[0]
        blocks.append(owner["blocks"][position])
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
    statuses = [Status(b["status"]) for b in blocks]
    unchecked = int(reports[0].get("unchecked_examples", 0))
    summary = summary_line(
        statuses, read, str(run.get("jax", "?")), [ExampleVerdict(**e) for e in examples], unchecked
    )
    return {
        **reports[0],
        "blocks": blocks,
        "examples": examples,
        "findings": findings,
        "summary": summary,
        "run": {**run, "shard": None, "split": None},
    }
