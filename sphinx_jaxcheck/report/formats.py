"""Findings as people and CI systems read them: text, GitHub annotations, JSON, JUnit XML.

A run is first turned into one plain report (the JSON structure of
``--format json``); every other format is rendered from that report, so a
report read back from JSON (``jaxcheck merge``) prints exactly as the run did.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TextIO
from xml.etree import ElementTree

from ..cli.arguments import REPORT_FORMATS
from ..judge.example_verdicts import ExampleVerdict, all_examples, describe_examples
from ..model import Block, Status, Subtype, Verdict
from .findings import Finding, findings_of
from .printable import printable

FORMATS = REPORT_FORMATS
RED, GREEN, CYAN, BOLD, RESET = "\x1b[31m", "\x1b[32m", "\x1b[36m", "\x1b[1m", "\x1b[0m"

Report = dict[str, Any]


def use_colour(stream: TextIO) -> bool:
    """Colour as other tools decide it: ``NO_COLOR``, then ``FORCE_COLOR``, then a terminal."""
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


def colour_diff(diff: str) -> str:
    """A unified diff with removed lines red, added green, hunk headers cyan."""
    out = []
    for line in diff.splitlines(keepends=True):
        if line.startswith(("---", "+++")):
            out.append(BOLD + line.rstrip("\n") + RESET + "\n")
        elif line.startswith("-"):
            out.append(RED + line.rstrip("\n") + RESET + "\n")
        elif line.startswith("+"):
            out.append(GREEN + line.rstrip("\n") + RESET + "\n")
        elif line.startswith("@@"):
            out.append(CYAN + line.rstrip("\n") + RESET + "\n")
        else:
            out.append(line)
    return "".join(out)


def relative(path: str) -> str:
    """``path`` relative to the current folder, as reports print it."""
    try:
        return os.path.relpath(path)
    except ValueError:
        return path


def summary_line(
    statuses: Iterable[Status],
    read: Sequence[Finding | Mapping[str, Any]],
    jax_version: str,
    examples: Iterable[ExampleVerdict] = (),
    unchecked_examples: int = 0,
) -> str:
    """The one-line summary: blocks by status, problems found while reading, the JAX version, examples.

    ``read`` holds the findings not tied to a block (citations, quotes, names,
    encoding); ``unchecked_examples`` counts the pages' own examples left unchecked.
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
    parts = [
        f"{counts[Status.VERIFIED]} verified",
        f"{counts[Status.DRIFT]} stale",
        f"{counts[Status.ERROR]} failed",
    ]
    if counts[Status.UNCHECKED]:
        parts.append(f"{counts[Status.UNCHECKED]} not compared")
    if counts[Status.SKIPPED]:
        parts.append(f"{counts[Status.SKIPPED]} skipped")
    if counts[Status.OTHER_SHARD]:
        parts.append(f"{counts[Status.OTHER_SHARD]} on other shards")
    if read:
        other = len(read) - stale_quotes - unknown_names
        named = f"{unknown_names} unknown name(s), " if unknown_names else ""
        parts.append(f"{stale_quotes} stale quote(s), {named}{other} other problem(s)")
    total = sum(counts.values())
    line = f"jaxcheck: {total} block(s): " + ", ".join(parts) + f" (jax {jax_version or '?'})"
    described = describe_examples(examples)
    if described:
        line += f"; {described}"
    if unchecked_examples:
        line += (
            f"; {unchecked_examples} `>>>` example(s) of the pages were not checked: set "
            'jaxcheck_doctests = "check" in conf.py to check them'
        )
    return line


def build_report(
    checked: Sequence[tuple[Block, Verdict]],
    findings: Sequence[Finding],
    *,
    summary: str,
    unchecked_examples: int = 0,
    run: Mapping[str, Any] | None = None,
) -> Report:
    """The plain report of a run: every block with its status, every open finding, the summary.

    A finding of a block names it (``"block"``); the others (citations,
    quotes, unreadable files) have ``"block": null``. ``run`` says what was
    checked and how (documents, JAX, configuration, shard); merging needs it.
    """
    owner = {
        finding: block.label
        for block, verdict in checked
        for finding in findings_of(block, verdict)
    }
    return {
        "blocks": [
            {
                "document": block.docname,
                "name": block.label,
                "session": block.options.session or "",
                "path": relative(block.path),
                "line": block.body_line,
                "status": verdict.status.value,
                "seconds": round(verdict.seconds, 3),
                **({"reason": verdict.reason} if verdict.reason else {}),
            }
            for block, verdict in checked
        ],
        "examples": [
            {"path": relative(e.path), "line": e.line, "block": e.block, "status": e.status}
            for e in all_examples(checked)
        ],
        "findings": [finding_record(f, owner.get(f)) for f in findings],
        "unchecked_examples": unchecked_examples,
        "summary": summary,
        "run": dict(run or {}),
    }


def finding_record(finding: Finding, block: str | None = None) -> dict[str, Any]:
    """A finding as reports hold it; ``block`` names the block it belongs to, if any."""
    return {
        "path": relative(finding.path),
        "line": finding.line,
        "subtype": finding.subtype.value,
        "drift": finding.is_drift,
        "document": finding.docname,
        "block": block,
        # Every report shows a block's output escaped: no terminal sequences, nothing XML 1.0 cannot hold.
        "message": printable(finding.message),
    }


def format_finding(finding: Mapping[str, Any], colour: bool) -> str:
    """One finding as the text report prints it: ``file:line: subtype: message`` and its diff."""
    header = f"{finding['path']}:{finding['line']}: {finding['subtype']}: "
    body = colour_diff(finding["message"] + "\n") if colour else finding["message"] + "\n"
    return (BOLD + header + RESET if colour else header) + body


def render(report: Report, style: str, colour: bool) -> str:
    """A report in one of :data:`FORMATS`."""
    findings: list[dict[str, Any]] = report["findings"]
    summary: str = report["summary"]
    if style == "json":
        return json.dumps(report, indent=2) + "\n"
    if style == "github":
        lines = [
            f"::error file={_github_escape(f['path'], True)},line={f['line']},"
            f"title=jaxcheck {f['subtype']}::{_github_escape(f['message'], False)}"
            for f in findings
        ]
        return "\n".join([*lines, summary]) + "\n"
    parts = [format_finding(f, colour) for f in findings]
    # Blocks whose limits exclude this JAX: not problems, but say why they did not run.
    parts.extend(
        f"{b['path']}:{b['line']}: skipped: block {b['name']!r}: {b['reason']}\n"
        for b in report["blocks"]
        if b.get("reason")
    )
    parts.append(summary + "\n")
    if any(f["drift"] and Subtype(f["subtype"]) is Subtype.DRIFT for f in findings):
        sourcedir = report.get("run", {}).get("sourcedir", ".")
        parts.append(f"Accept the new outputs with: jaxcheck update {sourcedir}\n")
    return "\n".join(parts)


def _github_escape(text: str, is_property: bool) -> str:
    """Workflow-command escaping: %, CR and LF always; also : and , in properties."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if is_property:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def write_junit(path: str, report: Report) -> None:
    """One test case per block (and per problem not tied to a block), JUnit XML as CI systems read it.

    Blocks run on another shard are left out: their shard's report has them.
    """
    suite = ElementTree.Element("testsuite", name="jaxcheck")
    tests = failures = skipped = 0
    by_block: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for finding in report["findings"]:
        if finding["block"] is not None:
            by_block.setdefault((finding["document"], finding["block"]), []).append(finding)
    for block in report["blocks"]:
        if block["status"] == Status.OTHER_SHARD.value:
            continue
        tests += 1
        case = ElementTree.SubElement(
            suite,
            "testcase",
            classname=block["document"],
            name=block["name"],
            file=block["path"],
            line=str(block["line"]),
            time=f"{block['seconds']:.3f}",
        )
        if block["status"] == Status.SKIPPED.value:
            skipped += 1
            ElementTree.SubElement(
                case, "skipped", message=block.get("reason") or "not run (:output: skip)"
            )
        for finding in by_block.get((block["document"], block["name"]), []):
            failures += 1
            failure = ElementTree.SubElement(
                case,
                "failure",
                type=finding["subtype"],
                message=finding["message"].split("\n", 1)[0],
            )
            failure.text = f"{finding['path']}:{finding['line']}\n{finding['message']}"
    for finding in report["findings"]:
        if finding["block"] is not None:
            continue
        tests += 1
        failures += 1
        case = ElementTree.SubElement(
            suite,
            "testcase",
            classname=finding["document"],
            name=f"{finding['subtype']} at line {finding['line']}",
            file=finding["path"],
            line=str(finding["line"]),
        )
        failure = ElementTree.SubElement(
            case, "failure", type=finding["subtype"], message=finding["message"].split("\n", 1)[0]
        )
        failure.text = finding["message"]
    suite.set("tests", str(tests))
    suite.set("failures", str(failures))
    suite.set("skipped", str(skipped))
    ElementTree.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)
