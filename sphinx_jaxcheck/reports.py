"""Findings as people and CI systems read them: text, GitHub annotations, JSON, JUnit XML."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from typing import TextIO
from xml.etree import ElementTree

from .examples import all_examples
from .findings import Finding
from .model import Block, Status, Verdict
from .sessions import findings_of

FORMATS = ("text", "github", "json")
RED, GREEN, CYAN, BOLD, RESET = "\x1b[31m", "\x1b[32m", "\x1b[36m", "\x1b[1m", "\x1b[0m"


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


def _relative(path: str) -> str:
    try:
        return os.path.relpath(path)
    except ValueError:
        return path


def format_findings(
    findings: Sequence[Finding],
    style: str,
    colour: bool,
    *,
    summary: str,
    sourcedir: str,
    checked: Sequence[tuple[Block, Verdict]] = (),
) -> str:
    """All findings and the summary, in one of :data:`FORMATS`."""
    if style == "json":
        return json.dumps(
            {
                "blocks": [
                    {
                        "document": block.docname,
                        "name": block.label,
                        "path": _relative(block.path),
                        "line": block.body_line,
                        "status": verdict.status.value,
                        "seconds": round(verdict.seconds, 3),
                    }
                    for block, verdict in checked
                ],
                "examples": [
                    {"path": _relative(e.path), "line": e.line, "block": e.block, "status": e.status}
                    for e in all_examples(checked)
                ],
                "findings": [
                    {
                        "path": _relative(f.path),
                        "line": f.line,
                        "subtype": f.subtype.value,
                        "drift": f.is_drift,
                        "document": f.docname,
                        "message": f.message,
                    }
                    for f in findings
                ],
                "summary": summary,
            },
            indent=2,
        ) + "\n"
    if style == "github":
        lines = [
            f"::error file={_github_escape(_relative(f.path), True)},line={f.line},"
            f"title=jaxcheck {f.subtype.value}::{_github_escape(f.message, False)}"
            for f in findings
        ]
        return "\n".join([*lines, summary]) + "\n"
    parts = []
    for f in findings:
        header = f"{_relative(f.path)}:{f.line}: {f.subtype.value}: "
        body = colour_diff(f.message + "\n") if colour else f.message + "\n"
        parts.append((BOLD + header + RESET if colour else header) + body)
    parts.append(summary + "\n")
    if any(f.is_drift and f.subtype.value == "drift" for f in findings):
        parts.append(f"Accept the new outputs with: jaxcheck update {sourcedir}\n")
    return "\n".join(parts)


def _github_escape(text: str, is_property: bool) -> str:
    """Workflow-command escaping: %, CR and LF always; also : and , in properties."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if is_property:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def write_junit(path: str, checked: Iterable[tuple[Block, Verdict]], other: Iterable[Finding]) -> None:
    """One test case per block (and per citation problem), JUnit XML as CI systems read it."""
    suite = ElementTree.Element("testsuite", name="jaxcheck")
    tests = failures = skipped = 0
    for block, verdict in checked:
        tests += 1
        case = ElementTree.SubElement(
            suite, "testcase", classname=block.docname, name=block.label,
            file=_relative(block.path), line=str(block.body_line), time=f"{verdict.seconds:.3f}",
        )
        if verdict.status is Status.SKIPPED:
            skipped += 1
            ElementTree.SubElement(case, "skipped")
        for finding in findings_of(block, verdict):
            failures += 1
            failure = ElementTree.SubElement(
                case, "failure", type=finding.subtype.value, message=finding.message.split("\n", 1)[0]
            )
            failure.text = f"{_relative(finding.path)}:{finding.line}\n{finding.message}"
    for finding in other:
        tests += 1
        failures += 1
        case = ElementTree.SubElement(
            suite, "testcase", classname=finding.docname, name=f"{finding.subtype.value} at line {finding.line}",
            file=_relative(finding.path), line=str(finding.line),
        )
        failure = ElementTree.SubElement(case, "failure", type=finding.subtype.value, message=finding.message.split("\n", 1)[0])
        failure.text = finding.message
    suite.set("tests", str(tests))
    suite.set("failures", str(failures))
    suite.set("skipped", str(skipped))
    ElementTree.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)
