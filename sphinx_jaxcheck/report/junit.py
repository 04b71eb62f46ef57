"""The report as JUnit XML (``--junit FILE``), the test report CI systems read."""

from __future__ import annotations

from xml.etree import ElementTree

from ..model import Status
from .records import FindingRecord, Report


def write_junit(path: str, report: Report) -> None:
    """One test case per block and per group of ``>>>`` examples (and per problem not tied
    to either), JUnit XML as CI systems read it.

    Blocks run on another shard are left out: their shard's report has them.
    """
    suite = ElementTree.Element("testsuite", name="jaxcheck")
    tests = failures = skipped = 0
    by_block: dict[tuple[str, str], list[FindingRecord]] = {}
    for finding in report["findings"]:
        if finding["block"] is not None:
            by_block.setdefault((finding["document"], finding["block"]), []).append(finding)
    for block in [*report["blocks"], *report.get("example_groups", [])]:
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
        if block.get("after"):
            # No finding of its own: the earlier cell's lists it.
            failures += 1
            ElementTree.SubElement(
                case,
                "failure",
                type="after",
                message=f"failed after {block['after']} failed (its finding lists this cell)",
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
