"""``jaxcheck-matrix``: the last compatibility matrix (``jaxcheck matrix``) as a table.

A page that shows the matrix vouches for it: a shown block that is stale or
failed under some version, a block changed since the matrix was made, or a
missing matrix, is a ``jaxcheck.matrix`` finding, found again in every build
(``env-updated``) against the matrix file as it is then, so every builder
(``jaxcheck check`` too) reports it and fails on it. Like the status table,
the table is filled in at write time and its pages are rewritten on every
build, so it always shows the file as it is now.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective

from ..model import Status, Subtype
from ..report.findings import Finding
from .compat import source_info, source_path
from .domain import MATRIX_PAGES, JaxcheckDomain, domain_of
from .stages import EnvUpdated
from .status_page import link_to_block, note_table_page, setup_project_table, table_row

if TYPE_CHECKING:
    from ..report.matrix import Matrix

# ..report.matrix is imported where a page has a matrix table: most pages have none.

MARKS = {
    Status.VERIFIED.value: "✓ verified",
    Status.STALE.value: "⚠ stale",
    Status.FAILED.value: "✗ failed",
    Status.NOT_COMPARED.value: "ran, not compared",
    Status.SKIPPED.value: "skipped",
}


class jaxcheck_matrix_table(nodes.General, nodes.Element):  # type: ignore[misc]
    """Placeholder for the matrix; replaced at write time."""


def setup_matrix_page(app: Sphinx) -> None:
    """Register the directive, its placeholder and the rewrite-every-build rule; find what
    the tables cannot vouch for after the check (before the findings are reported)."""
    setup_project_table(
        app,
        "jaxcheck-matrix",
        MatrixDirective,
        jaxcheck_matrix_table,
        FillMatrixTable,
        MATRIX_PAGES,
    )
    app.connect("env-updated", _find_problems, priority=EnvUpdated.MATRIX)


class MatrixDirective(SphinxDirective):
    """Every block's status under each JAX version of the last ``jaxcheck matrix``."""

    has_content = False
    option_spec: ClassVar[dict[str, Any]] = {"page": directives.flag}

    def run(self) -> list[nodes.Node]:
        source, line = source_info(self)
        note_table_page(self, MATRIX_PAGES, ("page" in self.options, source, line))
        placeholder = jaxcheck_matrix_table(page="page" in self.options)
        self.set_source_info(placeholder)
        return [placeholder]


class FillMatrixTable(SphinxPostTransform):
    """Read the saved matrix; build the table (its problems are findings, see
    :func:`matrix_findings`)."""

    default_priority = 5

    def run(self, **kwargs: Any) -> None:
        for placeholder in list(self.document.findall(jaxcheck_matrix_table)):
            placeholder.replace_self(self._table(placeholder))

    def _table(self, placeholder: jaxcheck_matrix_table) -> list[nodes.Node]:
        from ..report.matrix import matrix_file

        here = self.env.docname
        matrix, _ = read_matrix(matrix_file(self.env.srcdir))
        if matrix is None:
            return [nodes.paragraph(text="No compatibility matrix yet.")]
        rows = [row for row in matrix.rows if row.document == here or not placeholder["page"]]
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
        titles = ["Block", *(f"jax {v}" for v in matrix.versions)]
        head += table_row([nodes.Text(t) for t in titles])
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
            body += table_row(cells)
        group += body
        return [table]


def _find_problems(app: Sphinx, env: BuildEnvironment) -> list[str]:
    domain = domain_of(env)
    domain.build.matrix_findings = matrix_findings(domain, Path(app.srcdir))
    return []


def matrix_findings(domain: JaxcheckDomain, srcdir: Path) -> list[Finding]:
    """What each matrix table of the documents in scope cannot vouch for, against the saved
    matrix as it is now."""
    found: list[Finding] = []
    tables = domain.per_document(MATRIX_PAGES)
    if not any(tables.get(docname) and domain.in_scope(docname) for docname in tables):
        return found  # no table to vouch for: the matrix file is not even read
    from ..report.matrix import matrix_file

    path = matrix_file(srcdir)
    matrix, problem = read_matrix(path)
    for docname in sorted(tables):
        if not domain.in_scope(docname):
            continue
        for page_only, source, line in tables[docname]:
            where = (source or str(source_path(domain.env, docname)), line, docname)
            if matrix is None:
                found.append(_finding(problem, *where))
                continue
            page = docname if page_only else None
            found += _problems(domain, matrix, srcdir, page, docname)
    return found


def read_matrix(path: Path) -> tuple[Matrix | None, str]:
    """The saved matrix, or None and what is wrong with it."""
    from ..report.matrix import from_json

    try:
        return from_json(json.loads(path.read_text(encoding="utf-8"))), ""
    except FileNotFoundError:
        return None, (
            f"no compatibility matrix at {path}: run `jaxcheck matrix SOURCEDIR --python PATH` "
            "before building, to check the docs with another interpreter's JAX"
        )
    except (OSError, KeyError, TypeError, ValueError) as error:
        return None, (
            f"the compatibility matrix {path} cannot be read ({error}): run `jaxcheck matrix` again"
        )


def _problems(
    domain: JaxcheckDomain, matrix: Matrix, srcdir: Path, page: str | None, docname: str
) -> list[Finding]:
    """What one table (of one page's blocks, or of every block) cannot vouch for."""
    from ..report.matrix import FAILING, block_digest

    current = {
        (block.docname, block.label): block
        for doc in domain.documents_with_blocks()
        if page is None or doc == page
        for block in domain.blocks(doc)
    }
    found = []
    for row in (row for row in matrix.rows if page is None or row.document == page):
        block = current.pop((row.document, row.name), None)
        where = (
            (block.path, block.body_line, docname)
            if block
            else (str(srcdir / row.path), row.line, docname)
        )
        if block is None or block_digest(block) != row.digest:
            message = (
                f"block {row.name!r} changed since the last `jaxcheck matrix`, which this "
                "table shows: run it again"
            )
            found.append(_finding(message, *where))
            continue
        for version in matrix.versions:
            if row.status_in(version) in FAILING:
                message = (
                    f"block {row.name!r} is {row.status_in(version)} with jax "
                    f"{version} in the last `jaxcheck matrix`"
                )
                found.append(_finding(message, *where))
    for block in current.values():
        message = (
            f"block {block.label!r} is not in the last `jaxcheck matrix`, which this table "
            "shows: run it again"
        )
        found.append(_finding(message, block.path, block.body_line, docname))
    return found


def _finding(message: str, path: str, line: int, docname: str) -> Finding:
    return Finding(Subtype.MATRIX, message, path, line, docname)
