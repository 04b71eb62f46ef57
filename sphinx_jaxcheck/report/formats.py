"""The formats ``jaxcheck check --format`` and ``jaxcheck merge --format`` print a report in.

:data:`RENDERERS` maps each format's name to the function that renders a
:class:`~.records.Report`; the command line takes its choices from it. A new
format is a function here (or in a module of its own) and its entry in
:data:`RENDERERS`. Cheap to import: the argument parser reads it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..model import Status
from .colour import BOLD, RESET, colour_diff

if TYPE_CHECKING:
    from .records import BlockRecord, FindingRecord, Report

# A report, and whether to colour it, to the text printed.
Renderer = Callable[["Report", bool], str]


def format_finding(finding: FindingRecord, colour: bool) -> str:
    """One finding as the text report prints it: ``file:line: subtype: message`` and its diff."""
    header = f"{finding['path']}:{finding['line']}: {finding['subtype']}: "
    body = colour_diff(finding["message"] + "\n") if colour else finding["message"] + "\n"
    return (BOLD + header + RESET if colour else header) + body


def text(report: Report, colour: bool) -> str:
    """For people: one entry per problem with its diff, skipped blocks, the summary, the
    next step."""
    findings = report["findings"]
    parts = [format_finding(f, colour) for f in findings]
    # Not problems, but say why they did not run: a notebook none of whose cells ran once,
    # other blocks (whose limits exclude this JAX) each.
    not_run = {n["path"]: n for n in report.get("not_run_notebooks", [])}
    named = set()
    for b in [*report["blocks"], *report.get("example_groups", [])]:
        notebook = not_run.get(b["path"]) if "cell" in b else None
        if notebook is not None and b["path"] not in named:
            named.add(b["path"])
            parts.append(
                f"{b['path']}:{b['line']}: not run: {notebook['cells']} cell(s): "
                f"{notebook['reason']}\n"
            )
        elif notebook is None and b.get("reason") and "cell" in b:
            parts.append(f"{b['path']}:{b['line']}: not run: {b['name']}: {b['reason']}\n")
        elif notebook is None and b.get("reason"):
            parts.append(f"{b['path']}:{b['line']}: skipped: block {b['name']!r}: {b['reason']}\n")
    for b in report["blocks"]:
        if "left_out" in b:
            parts.append(_left_out(b))
    not_compared = [
        b
        for b in report["blocks"]
        if b["status"] == Status.NOT_COMPARED.value and "left_out" not in b
    ]
    if not_compared:
        parts.append(f"not compared (ran, with nothing to compare): {_named(not_compared)}\n")
    unseen = [b for b in report["blocks"] if b.get("images_not_compared")]
    if unseen:
        parts.append(
            f"images not compared (verified by their text alone): {_named(unseen)}; "
            'jaxcheck_notebook_images = "rms" in conf.py compares them by their pixels\n'
        )
    parts.append(report["summary"] + "\n")
    stale = [f for f in findings if f["drift"] and f.get("block") is not None]  # not quotes
    if any(f.get("updatable") for f in stale):  # only where update can act
        run = report["run"]
        update = run.get("update") or f"jaxcheck update {run.get('sourcedir', '.')}"
        parts.append(f"Accept the new outputs with: {update}\n")
    elif stale:
        reasons = {f.get("refusal") for f in stale}
        (why,) = reasons if len(reasons) == 1 and None not in reasons else ("each one says why",)
        parts.append(f"jaxcheck update rewrites none of the {len(stale)} stale output(s): {why}\n")
    return "\n".join(parts)


def _left_out(block: BlockRecord) -> str:
    """The line saying that a notebook cell ran without its lines that change the
    environment, and when what it stores is compared."""
    return (
        f"{block['path']}:{block['line']}: ran without its lines that change the environment: "
        f"{block['name']} ({block['left_out']}); what it stores is compared only when it stores "
        "no output (else it may hold what they printed); set "
        'jaxcheck_notebooks_environment = "run" in conf.py to run them\n'
    )


NOT_COMPARED_SHOWN = 5  # blocks a line of those not compared names; the JSON lists each


def _named(blocks: list[BlockRecord]) -> str:
    """The first few of these blocks by file and line (a cell with its index), and how many
    more."""
    shown = ", ".join(
        f"{b['path']}:{b['line']}" + (f" (cell {b['cell']})" if "cell" in b else "")
        for b in blocks[:NOT_COMPARED_SHOWN]
    )
    more = len(blocks) - NOT_COMPARED_SHOWN
    return shown + (f" and {more} more" if more > 0 else "")


def github(report: Report, _colour: bool) -> str:
    """GitHub Actions workflow commands: one ``::error`` annotation per problem, then the
    summary."""
    lines = [
        f"::error file={_github_escape(f['path'], True)},line={f['line']},"
        f"title=jaxcheck {f['subtype']}::{_github_escape(f['message'], False)}"
        for f in report["findings"]
    ]
    return "\n".join([*lines, report["summary"]]) + "\n"


def _github_escape(text: str, is_property: bool) -> str:
    """Workflow-command escaping: %, CR and LF always; also : and , in properties."""
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if is_property:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def json_document(report: Report, _colour: bool) -> str:
    """The report itself, as one JSON document (what ``jaxcheck merge`` reads back)."""
    return json.dumps(report, indent=2) + "\n"


# The formats by name, in the order ``--help`` lists them; the first is the default.
RENDERERS: dict[str, Renderer] = {"text": text, "github": github, "json": json_document}


def render(report: Report, style: str, colour: bool) -> str:
    """A report in the format named ``style`` (a key of :data:`RENDERERS`)."""
    return RENDERERS[style](report, colour)
