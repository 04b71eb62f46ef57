"""``jaxcheck-matrix``: the last compatibility matrix (``jaxcheck matrix``) as a table.

A page that shows the matrix vouches for it: a shown block that is stale or
failed under some version, a block changed since the matrix was made, or a
missing matrix, is a warning (so ``-W`` fails the build). Like the status
table, the table is filled in at write time and its pages are rewritten on
every build, so it always shows the file as it is now.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from ..model import Status, Subtype
from ..report.matrix import FAILING, Matrix, Row, block_digest, from_json, matrix_file
from .domain import domain_of
from .status_page import link_to_block, note_table_page, setup_project_table

logger = logging.getLogger(__name__)
MARKS = {
    Status.VERIFIED.value: "✓ verified",
    Status.DRIFT.value: "⚠ stale",
    Status.ERROR.value: "✗ failed",
    Status.UNCHECKED.value: "ran, not compared",
    Status.SKIPPED.value: "skipped",
}


class jaxcheck_matrix_table(nodes.General, nodes.Element):  # type: ignore[misc]
    """Placeholder for the matrix; replaced at write time."""


def setup_matrix_page(app: Sphinx) -> None:
    """Register the directive, its placeholder and the rewrite-every-build rule."""
    setup_project_table(
        app, "jaxcheck-matrix", MatrixDirective, jaxcheck_matrix_table, FillMatrixTable
    )


class MatrixDirective(SphinxDirective):
    """Every block's status under each JAX version of the last ``jaxcheck matrix``."""

    has_content = False
    option_spec: ClassVar[dict[str, Any]] = {"page": directives.flag}

    def run(self) -> list[nodes.Node]:
        note_table_page(self)
        placeholder = jaxcheck_matrix_table(page="page" in self.options)
        self.set_source_info(placeholder)
        return [placeholder]


class FillMatrixTable(SphinxPostTransform):
    """Read the saved matrix; build the table; warn about what it cannot vouch for."""

    default_priority = 5

    def run(self, **kwargs: Any) -> None:
        for placeholder in list(self.document.findall(jaxcheck_matrix_table)):
            placeholder.replace_self(self._table(placeholder))

    def _table(self, placeholder: jaxcheck_matrix_table) -> list[nodes.Node]:
        here = self.env.docname
        where = f"{placeholder.source or self.env.doc2path(here)}:{placeholder.line or 0}"
        path = matrix_file(self.env.srcdir)
        matrix = _read(path, where)
        if matrix is None:
            return [nodes.paragraph(text="No compatibility matrix yet.")]
        rows = [row for row in matrix.rows if row.document == here or not placeholder["page"]]
        self._warn_about(matrix, rows, here if placeholder["page"] else None)
        named = {
            (block.docname, block.label): block.options.name
            for docname in {row.document for row in rows}
            for block in domain_of(self.env).blocks(docname)
        }
        # Three narrow columns or more, so that it reads on a phone: each block's name
        # links to it, with where it is written below the name.
        table = nodes.table(classes=["jaxcheck-matrix-table"])
        group = nodes.tgroup(cols=1 + len(matrix.versions))
        table += group
        for width in (40, *(20 for _ in matrix.versions)):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        head += _row([nodes.Text(t) for t in ["Block", *(f"jax {v}" for v in matrix.versions)]])
        group += head
        body = nodes.tbody()
        for row in rows:
            link = link_to_block(named.get((row.document, row.name)), row.document, here)
            link += nodes.Text(row.name)
            # The class outside the link: resolving a reference keeps only its text.
            name = nodes.inline(classes=["jaxcheck-matrix-name"])
            name += link
            block = nodes.inline()
            block += name
            block += nodes.inline(text=f"{row.path}:{row.line}", classes=["jaxcheck-matrix-where"])
            cells: list[nodes.Node] = [block]
            cells += [nodes.Text(MARKS.get(row.status_in(v) or "", "–")) for v in matrix.versions]
            body += _row(cells)
        group += body
        return [table]

    def _warn_about(self, matrix: Matrix, rows: list[Row], page: str | None) -> None:
        domain = domain_of(self.env)
        current = {
            (block.docname, block.label): block
            for docname in domain.documents_with_blocks()
            if page is None or docname == page
            for block in domain.blocks(docname)
        }
        for row in rows:
            block = current.pop((row.document, row.name), None)
            location = (
                f"{block.path if block else row.path}:{block.body_line if block else row.line}"
            )
            if block is None or block_digest(block) != row.digest:
                _warn(
                    f"block {row.name!r} changed since the last `jaxcheck matrix`, which this "
                    "table shows: run it again",
                    location,
                )
                continue
            for version in matrix.versions:
                if row.status_in(version) in FAILING:
                    _warn(
                        f"block {row.name!r} is {row.status_in(version)} with jax "
                        f"{version} in the last `jaxcheck matrix`",
                        location,
                    )
        for block in current.values():
            _warn(
                f"block {block.label!r} is not in the last `jaxcheck matrix`, which this table "
                "shows: run it again",
                f"{block.path}:{block.body_line}",
            )


def _read(path: Path, where: str) -> Matrix | None:
    try:
        return from_json(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        _warn(
            f"no compatibility matrix at {path}: run `jaxcheck matrix SOURCEDIR --python PATH` "
            "before building, to check the docs with another interpreter's JAX",
            where,
        )
    except (OSError, KeyError, TypeError, ValueError) as error:
        _warn(
            f"the compatibility matrix {path} cannot be read ({error}): "
            "run `jaxcheck matrix` again",
            where,
        )
    return None


def _warn(message: str, location: str) -> None:
    logger.warning(message, location=location, type="jaxcheck", subtype=Subtype.MATRIX.value)


def _row(cells: list[nodes.Node]) -> nodes.row:
    row = nodes.row()
    for content in cells:
        entry = nodes.entry()
        paragraph = nodes.paragraph()
        paragraph += content
        entry += paragraph
        row += entry
    return row
