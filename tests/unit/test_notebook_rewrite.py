"""Rewriting a notebook's stored outputs: only the cells given change, written as nbformat
writes them, every other byte kept (rewrite/notebooks.py; guide/notebooks)."""

from __future__ import annotations

import json

import nbformat
import pytest
from notebooks import code, display, error, markdown, notebook_text, result, stderr, stdout

from sphinx_jaxcheck.expect.notebooks import cell_spans, read_notebook
from sphinx_jaxcheck.model import CellOutput
from sphinx_jaxcheck.rewrite.notebooks import line_edit, rewritten_outputs

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9aw"
    "AAAABJRU5ErkJggg==\n"
)


def every_kind() -> str:
    return notebook_text(
        markdown("# All kinds"),
        code("x = 1", count=1),
        code("print('a'); x", stdout("a\nb\n"), result("1", 2), count=2),
        code(
            "show()",
            stderr("warned\n"),
            display("<Figure size 640x480 with 1 Axes>", **{"image/png": PNG}),
            count=3,
        ),
        code("1/0", error("ZeroDivisionError", "division by zero"), count=4),
        code("{'a': 1}", result("{'a': 1}", 5, **{"application/json": {"a": 1}}), count=5),
        code("never run", count=None),
    )


def test_rewriting_every_cell_with_what_it_stores_gives_the_same_bytes() -> None:
    text = every_kind()
    cells = read_notebook(text).cells
    stored = {cell.index: cell.stored for cell in cells if cell.stored is not None}
    assert len(stored) == 5  # every cell but the one never run
    assert rewritten_outputs(text, stored) == text


def test_only_the_outputs_of_the_cells_given_change_and_the_notebook_stays_valid() -> None:
    text = every_kind()
    new = rewritten_outputs(
        text,
        {
            2: (
                CellOutput("stream", "stdout", "a\nc\n"),
                CellOutput("execute_result", "", "1", (("text/plain", "1"),)),
            ),
            4: (CellOutput("stream", "stdout", "no error now\n"),),
        },
    )
    nbformat.validate(nbformat.reads(new, as_version=4))
    old_cells, new_cells = json.loads(text)["cells"], json.loads(new)["cells"]
    for index, (was, now) in enumerate(zip(old_cells, new_cells, strict=True)):
        if index in (2, 4):
            assert {k: v for k, v in was.items() if k != "outputs"} == {
                k: v for k, v in now.items() if k != "outputs"
            }
        else:
            assert was == now
    assert new_cells[2]["outputs"][0]["text"] == ["a\n", "c\n"]
    assert new_cells[2]["outputs"][1]["execution_count"] == 2  # the stored result's count
    assert new_cells[4]["outputs"] == [
        {"name": "stdout", "output_type": "stream", "text": ["no error now\n"]}
    ]
    # Line for line: the lines of the cell's outputs value, nothing else.
    alone = rewritten_outputs(text, {4: (CellOutput("stream", "stdout", "no error now\n"),)})
    start, stop, lines = line_edit(text, alone)
    span = cell_spans(text)[4]["outputs"]
    first, last = text.count("\n", 0, span.start), text.count("\n", 0, span.stop)
    assert first <= start and stop <= last + 1
    assert lines == [
        '     "name": "stdout",',
        '     "output_type": "stream",',
        '     "text": [',
        '      "no error now\\n"',
    ]


def test_an_indent_of_two_spaces_is_kept() -> None:
    node = json.loads(notebook_text(code("print(1)", stdout("1\n"))))
    text = json.dumps(node, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    new = rewritten_outputs(text, {0: (CellOutput("stream", "stdout", "2\n"),)})
    node["cells"][0]["outputs"][0]["text"] = ["2\n"]
    assert new == json.dumps(node, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_a_cell_without_outputs_to_replace_is_refused() -> None:
    text = notebook_text(markdown("text only"))
    with pytest.raises(ValueError, match="cell 0 holds no outputs"):
        rewritten_outputs(text, {0: (CellOutput("stream", "stdout", "x\n"),)})


def test_line_edit_names_the_lines_that_differ() -> None:
    assert line_edit("a\nb\nc\nd", "a\nB\nB2\nd") == (1, 3, ["B", "B2"])
    assert line_edit("a\nb", "a\nb") == (2, 2, [])


def test_outputs_in_the_order_ipython_gives_their_types_read_back_as_written() -> None:
    text = notebook_text(code("rich()", display("<Table>", **{"text/html": "<table/>"})))
    shown = CellOutput(
        "display_data", "", "<New>", (("text/plain", "<New>"), ("text/html", "<b>new</b>"))
    )
    new = rewritten_outputs(text, {0: (shown,)})
    assert json.loads(new)["cells"][0]["outputs"][0]["data"] == {
        "text/html": ["<b>new</b>"],
        "text/plain": ["<New>"],
    }
