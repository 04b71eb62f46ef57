"""Rewrite the stored outputs of a notebook's drifted cells, and nothing else.

Each rewritten cell's ``outputs`` value is replaced where it stands in the file's text, so
every other byte stays as it was. The new value is written as nbformat writes a notebook
(its multiline strings split into lines, keys sorted, one space per level, at the depth the
value stands), so a notebook nbformat wrote reads as if Jupyter had saved it. The cells keep
their execution counts (the order a person ran them is theirs); a result's count is its
cell's. The new text must read back as a valid notebook whose rewritten cells hold exactly
the outputs given and whose other cells are unchanged, or nothing is written.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any

import nbformat
from nbformat.v4.rwbase import split_lines

from ..errors import NotebookError
from ..expect.notebooks import cell_spans, read_notebook, stored_output
from ..model import CellOutput


def rewritten_outputs(text: str, outputs: Mapping[int, tuple[CellOutput, ...]]) -> str:
    """The notebook's text with these cells' outputs (by index in ``cells``) replaced;
    ValueError saying why when that cannot be done exactly."""
    spans = cell_spans(text)
    node = nbformat.reads(text, as_version=nbformat.NO_CONVERT)
    pieces: list[str] = []
    at = 0
    for index in sorted(outputs):
        values = spans.get(index)
        if values is None or "outputs" not in values:
            raise ValueError(f"cell {index} holds no outputs to replace")
        span = values["outputs"]
        cell = node.cells[index]
        # A result keeps the count its cell's stored result had (Colab numbers results of
        # cells it stores without a count).
        count = next(
            (o.get("execution_count") for o in cell.get("outputs", ()) if "execution_count" in o),
            cell.get("execution_count"),
        )
        line = text[text.rfind("\n", 0, span.start) + 1 : span.start]
        indent = line[: len(line) - len(line.lstrip())]  # the key's own, three levels deep
        step = len(indent) // 3 if indent and len(indent) % 3 == 0 else 1
        pieces += [text[at : span.start], _written(outputs[index], count, indent, step)]
        at = span.stop
    new = "".join([*pieces, text[at:]])
    _check(text, new, outputs)
    return new


def nbformat_output(output: CellOutput, count: int | None) -> dict[str, Any]:
    """One output as nbformat stores it."""
    if output.output_type == "stream":
        return {"name": output.name, "output_type": "stream", "text": output.text}
    if output.output_type == "error":
        return {
            "ename": output.name,
            "evalue": output.text,
            "output_type": "error",
            "traceback": list(output.traceback),
        }
    data = {mime: json.loads(text) if mime.endswith("json") else text for mime, text in output.data}
    metadata = json.loads(output.metadata) if output.metadata else {}
    written: dict[str, Any] = {
        "data": data,
        "metadata": metadata,
        "output_type": output.output_type,
    }
    if output.output_type == "execute_result":
        written["execution_count"] = count
    return written


def _written(outputs: tuple[CellOutput, ...], count: int | None, indent: str, step: int) -> str:
    """The ``outputs`` value as nbformat writes it, at the depth of ``indent`` (``step`` spaces a
    level: nbformat's one, or the two of a notebook Colab saved)."""
    written = [nbformat.from_dict(nbformat_output(o, count)) for o in outputs]
    cell = nbformat.v4.new_code_cell(outputs=written)
    split = split_lines(copy.deepcopy(nbformat.v4.new_notebook(cells=[cell])))
    value = json.dumps(
        split.cells[0]["outputs"],
        indent=step,
        sort_keys=True,
        separators=(",", ": "),
        ensure_ascii=False,
    )
    return value.replace("\n", "\n" + indent)


def _check(old: str, new: str, outputs: Mapping[int, tuple[CellOutput, ...]]) -> None:
    """The new text is a valid notebook holding what was planned, the rest as it was."""
    before = nbformat.reads(old, as_version=nbformat.NO_CONVERT)
    try:
        node = nbformat.reads(new, as_version=nbformat.NO_CONVERT)
        if _valid(before):  # one that was not (a cell id in a 4.4 notebook) stays as it was
            nbformat.validate(node)
        read_notebook(new)
    except (NotebookError, nbformat.ValidationError, ValueError) as error:
        raise ValueError(f"the rewritten notebook would not be valid ({error})") from error
    for index, (was, now) in enumerate(zip(before.cells, node.cells, strict=True)):
        if index in outputs:
            got = tuple(stored_output(o) for o in now.get("outputs", ()))
            if got != _as_read(outputs[index]):
                raise ValueError(f"cell {index} would not read back with the outputs given")
            was = {k: v for k, v in was.items() if k != "outputs"}
            now = {k: v for k, v in now.items() if k != "outputs"}
        if was != now:
            raise ValueError(f"cell {index} would change beyond its outputs")


def _valid(node: Any) -> bool:
    try:
        nbformat.validate(node)
    except nbformat.ValidationError:
        return False
    return True


def _as_read(outputs: tuple[CellOutput, ...]) -> tuple[CellOutput, ...]:
    """The outputs as reading the written notebook gives them back."""
    return tuple(stored_output(nbformat_output(o, None)) for o in outputs)


def line_edit(old: str, new: str) -> tuple[int, int, list[str]]:
    """The lines of ``old`` that ``new`` replaces (0-based ``start:stop``) and their new text:
    where the two differ, the same lines before and after left out."""
    before, after = old.split("\n"), new.split("\n")
    start = 0
    while start < min(len(before), len(after)) and before[start] == after[start]:
        start += 1
    end_old, end_new = len(before), len(after)
    while end_old > start and end_new > start and before[end_old - 1] == after[end_new - 1]:
        end_old -= 1
        end_new -= 1
    return start, end_old, after[start:end_new]
