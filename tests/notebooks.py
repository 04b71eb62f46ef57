"""Notebooks for the tests, made as Jupyter makes them: with nbformat's own constructors and
written by nbformat (indent 1, keys sorted, multiline strings split into lines)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

KERNEL = {"name": "python3", "display_name": "Python 3", "language": "python"}


def code(source: str, *outputs: Any, count: int | None = 1, **metadata: Any) -> Any:
    """A code cell with stored outputs (``count`` None: saved without a run)."""
    return new_code_cell(source, execution_count=count, outputs=list(outputs), metadata=metadata)


def markdown(source: str) -> Any:
    return new_markdown_cell(source)


def stdout(text: str) -> Any:
    return new_output("stream", name="stdout", text=text)


def stderr(text: str) -> Any:
    return new_output("stream", name="stderr", text=text)


def result(text: str, count: int = 1, **data: str) -> Any:
    return new_output("execute_result", data={"text/plain": text, **data}, execution_count=count)


def display(text: str, **data: Any) -> Any:
    return new_output("display_data", data={"text/plain": text, **data})


def error(name: str, message: str) -> Any:
    return new_output("error", ename=name, evalue=message, traceback=[f"{name}: {message}"])


def notebook_text(*cells: Any, **metadata: Any) -> str:
    """A notebook's file text, as nbformat writes it."""
    node = new_notebook(cells=list(cells), metadata={"kernelspec": KERNEL, **metadata})
    return nbformat.writes(node) + "\n"


def write_notebook(path: Path, *cells: Any, **metadata: Any) -> Path:
    path.write_text(notebook_text(*cells, **metadata), encoding="utf-8")
    return path
