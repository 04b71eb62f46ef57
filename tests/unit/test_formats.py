"""The report formats come from one registry, which the command line offers as its choices."""

from __future__ import annotations

import json

import pytest

from sphinx_jaxcheck.cli import parser
from sphinx_jaxcheck.report.formats import RENDERERS, render
from sphinx_jaxcheck.report.matrix import MATRIX_RENDERERS, Matrix, Row, format_matrix
from sphinx_jaxcheck.report.records import BlockRecord, Report

REPORT: Report = {
    "blocks": [
        {
            "document": "index",
            "name": "first",
            "session": "",
            "path": "index.md",
            "line": 4,
            "status": "stale",
            "seconds": 0.25,
        }
    ],
    "example_groups": [],
    "examples": [],
    "findings": [
        {
            "path": "index.md",
            "line": 7,
            "subtype": "drift",
            "drift": True,
            "updatable": True,
            "document": "index",
            "block": "first",
            "message": "block 'first': the output of this print is stale:\n-1\n+2",
        }
    ],
    "unchecked_examples": 0,
    "summary": "jaxcheck: 1 block(s): 0 verified, 1 stale, 0 failed (jax 0.10.2)",
    "run": {"sourcedir": "docs", "update": "jaxcheck update docs/index.md"},
}


@pytest.mark.parametrize("command", [["check"], ["merge", "shard.json"]])
def test_check_and_merge_offer_exactly_the_registered_formats(command: list[str]) -> None:
    for name in RENDERERS:
        assert parser().parse_args([*command, "--format", name]).format == name
    with pytest.raises(SystemExit) as refused:
        parser().parse_args([*command, "--format", "no-such-format"])
    assert refused.value.code == 2
    assert parser().parse_args(command).format == next(iter(RENDERERS)) == "text"


def test_matrix_offers_exactly_the_registered_formats() -> None:
    for name in MATRIX_RENDERERS:
        args = parser().parse_args(["matrix", "--python", "python3", "--format", name])
        assert args.format == name
    with pytest.raises(SystemExit):
        parser().parse_args(["matrix", "--python", "python3", "--format", "no-such-format"])


def test_every_format_renders_the_report_and_json_is_the_report_itself() -> None:
    assert json.loads(render(REPORT, "json", False)) == REPORT
    text = render(REPORT, "text", False)
    assert text.startswith("index.md:7: drift: block 'first'")
    assert text.endswith("Accept the new outputs with: jaxcheck update docs/index.md\n")
    assert render(REPORT, "github", False) == (
        "::error file=index.md,line=7,title=jaxcheck drift::block 'first': the output of this "
        "print is stale:%0A-1%0A+2\n" + REPORT["summary"] + "\n"
    )


def test_text_suggests_update_only_where_it_can_act_and_else_says_why_it_cannot() -> None:
    refused = {**REPORT["findings"][0], "updatable": False, "refusal": "the file is elsewhere"}
    assert render({**REPORT, "findings": [refused]}, "text", False).endswith(
        f"{REPORT['summary']}\n\n"
        "jaxcheck update rewrites none of the 1 stale output(s): the file is elsewhere\n"
    )
    other = {**refused, "line": 9, "refusal": "the example is marked `+SKIP`"}
    assert render({**REPORT, "findings": [refused, other]}, "text", False).endswith(
        "jaxcheck update rewrites none of the 2 stale output(s): each one says why\n"
    )
    older: Report = {**REPORT, "run": {"sourcedir": "docs"}}  # a report made before "update"
    assert render(older, "text", False).endswith(
        "Accept the new outputs with: jaxcheck update docs\n"
    )


def test_every_matrix_format_renders_each_block_under_each_version() -> None:
    matrix = Matrix(
        ("0.4.35", "0.10.2"),
        (Row("a|b", "index", "index.md", 3, "d", (("0.4.35", "stale"), ("0.10.2", "verified"))),),
    )
    assert format_matrix(matrix, "text").splitlines() == [
        "block  where       0.4.35  0.10.2",
        "a|b    index.md:3  stale   verified",
    ]
    assert format_matrix(matrix, "markdown").splitlines()[2] == (
        "| a\\|b | index.md:3 | stale | verified |"
    )
    assert json.loads(format_matrix(matrix, "json"))["blocks"][0]["status"] == {
        "0.4.35": "stale",
        "0.10.2": "verified",
    }


def test_the_text_report_names_the_first_blocks_not_compared_and_counts_the_rest() -> None:
    block = REPORT["blocks"][0]
    ran: list[BlockRecord] = [
        {**block, "status": "not compared", "path": "nb.ipynb", "line": 10 * n, "cell": n}
        for n in range(1, 8)
    ]
    text = render({**REPORT, "blocks": [block, *ran]}, "text", False)
    assert (
        "not compared (ran, with nothing to compare): nb.ipynb:10 (cell 1), nb.ipynb:20 (cell 2), "
        "nb.ipynb:30 (cell 3), nb.ipynb:40 (cell 4), nb.ipynb:50 (cell 5) and 2 more\n"
    ) in text
    assert "not compared" not in render(REPORT, "text", False)
