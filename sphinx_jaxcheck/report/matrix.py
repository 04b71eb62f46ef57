"""The compatibility matrix: one row per block, one column per JAX version.

``jaxcheck matrix`` checks the docs once per interpreter and gathers the
verdicts here; the result is printed (text, JSON, Markdown) and saved as JSON,
which the ``jaxcheck-matrix`` directive renders. Pure: no Sphinx.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from ..atomic import replace_file
from ..model import Block, Status, Verdict

FAILING = (Status.STALE.value, Status.FAILED.value)


@dataclass(frozen=True)
class Row:
    """One block and its status under each version."""

    name: str
    document: str
    path: str  # relative to the source folder, with forward slashes
    line: int  # the block's first line of code
    digest: str  # of the block's code, to tell a matrix older than the page
    status: tuple[tuple[str, str], ...]  # (version, status)

    def status_in(self, version: str) -> str | None:
        """The status under ``version``, or None when the block was not there."""
        return dict(self.status).get(version)


@dataclass(frozen=True)
class Matrix:
    """The versions (oldest first) and the rows (in document order)."""

    versions: tuple[str, ...]
    rows: tuple[Row, ...]

    def failing(self) -> list[tuple[Row, str]]:
        """Every (row, version) where the block drifts or fails."""
        return [(row, v) for row in self.rows for v in self.versions if row.status_in(v) in FAILING]


def block_digest(block: Block) -> str:
    """What a matrix row remembers of a block's code."""
    return hashlib.sha256("\n".join(block.body).encode()).hexdigest()[:16]


def column_names(versions: Sequence[str]) -> list[str]:
    """One distinct column name per run: its jax version, numbered when two runs share one."""
    names: list[str] = []
    for version in versions:
        name, n = version, 2
        while name in names:
            name, n = f"{version} ({n})", n + 1
        names.append(name)
    return names


def build_matrix(
    runs: Sequence[tuple[str, Iterable[tuple[Block, Verdict]]]], sourcedir: str
) -> Matrix:
    """The matrix of several runs of the same docs: (column name, checked blocks) each."""
    statuses: dict[tuple[str, int], dict[str, str]] = {}
    blocks: dict[tuple[str, int], Block] = {}
    for column, checked in runs:
        for block, verdict in checked:
            key = (block.docname, block.index)
            blocks.setdefault(key, block)
            statuses.setdefault(key, {})[column] = verdict.status.value
    versions = sorted((column for column, _ in runs), key=_version_order)
    rows = tuple(
        Row(
            name=block.label,
            document=block.docname,
            path=Path(os.path.relpath(block.path, sourcedir)).as_posix(),
            line=block.body_line,
            digest=block_digest(block),
            status=tuple((v, statuses[key][v]) for v in versions if v in statuses[key]),
        )
        for key, block in blocks.items()
    )
    return Matrix(tuple(versions), rows)


def _version_order(column: str) -> tuple[int, Version | str, str]:
    version = column.split(" ", 1)[0]
    try:
        return (0, Version(version), column)
    except InvalidVersion:
        return (1, version, column)


def to_json(matrix: Matrix) -> dict[str, Any]:
    """
    ``{"versions": [...], "blocks": [{"name", "path", "line", "status": {version: status}}]}``.
    """
    return {
        "versions": list(matrix.versions),
        "blocks": [
            {
                "name": row.name,
                "document": row.document,
                "path": row.path,
                "line": row.line,
                "digest": row.digest,
                "status": dict(row.status),
            }
            for row in matrix.rows
        ],
    }


def from_json(data: dict[str, Any]) -> Matrix:
    """The inverse of :func:`to_json`; KeyError, TypeError or ValueError when malformed."""
    versions = tuple(str(v) for v in data["versions"])
    rows = tuple(
        Row(
            name=str(item["name"]),
            document=str(item["document"]),
            path=str(item["path"]),
            line=int(item["line"]),
            digest=str(item["digest"]),
            status=tuple((str(v), str(s)) for v, s in dict(item["status"]).items()),
        )
        for item in data["blocks"]
    )
    return Matrix(versions, rows)


def _table(matrix: Matrix) -> list[list[str]]:
    """The header and one row of cells per block."""
    header = ["block", "where", *matrix.versions]
    return [header] + [
        [row.name, f"{row.path}:{row.line}", *(row.status_in(v) or "-" for v in matrix.versions)]
        for row in matrix.rows
    ]


def text_table(matrix: Matrix) -> str:
    """A table of aligned columns, for a terminal."""
    table = _table(matrix)
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    return (
        "\n".join(
            "  ".join(cell.ljust(width) for cell, width in zip(cells, widths, strict=True)).rstrip()
            for cells in table
        )
        + "\n"
    )


def json_document(matrix: Matrix) -> str:
    """The matrix as :func:`to_json` holds it: what ``jaxcheck matrix`` saves for the directive."""
    return json.dumps(to_json(matrix), indent=2) + "\n"


def markdown_table(matrix: Matrix) -> str:
    """A Markdown (GitHub) table."""
    header, *table = _table(matrix)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_markdown_cell(c) for c in cells) + " |" for cells in table]
    return "\n".join(lines) + "\n"


def _markdown_cell(text: str) -> str:
    return text.replace("|", "\\|")


# ``jaxcheck matrix --format``: each format's name and renderer, in the order ``--help`` lists them.
MATRIX_RENDERERS: dict[str, Callable[[Matrix], str]] = {
    "text": text_table,
    "json": json_document,
    "markdown": markdown_table,
}


def format_matrix(matrix: Matrix, style: str) -> str:
    """The matrix in the format named ``style`` (a key of :data:`MATRIX_RENDERERS`)."""
    return MATRIX_RENDERERS[style](matrix)


def matrix_file(sourcedir: str | os.PathLike[str]) -> Path:
    """Where ``jaxcheck matrix`` saves the last matrix of a project, for the directive."""
    return Path(sourcedir) / "_build" / "jaxcheck" / "matrix.json"


def save_matrix(matrix: Matrix, sourcedir: str | os.PathLike[str]) -> Path:
    """Write the matrix beside the project's other jaxcheck files, atomically."""
    path = matrix_file(sourcedir)
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_file(path, json_document(matrix).encode("utf-8"), mode=0o644)
    return path
