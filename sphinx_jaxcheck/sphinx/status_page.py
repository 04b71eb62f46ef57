"""``jaxcheck-status``: a table of every block in the project with its verdict.

The table depends on every document, so pages holding it are rewritten on
every build (returned from ``env-updated``) and filled in at write time.
"""

from __future__ import annotations

from typing import Any, TypeVar

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective

from ..judge.example_verdicts import all_examples, describe_examples
from ..model import Status
from ..report.findings import tally
from .domain import STATUS_PAGES, PerDocument, domain_of
from .stages import EnvUpdated

# The status words themselves, with the marks the rendered blocks show.
MARKS = {Status.VERIFIED: "✓ ", Status.STALE: "⚠ ", Status.FAILED: "✗ "}

T = TypeVar("T")


class jaxcheck_status_table(nodes.General, nodes.Element):  # type: ignore[misc]
    """Placeholder for the table; replaced at write time."""


def setup_status_page(app: Sphinx) -> None:
    """Register the directive, its placeholder node and the rewrite-every-build rule."""
    setup_project_table(
        app,
        "jaxcheck-status",
        StatusDirective,
        jaxcheck_status_table,
        FillStatusTable,
        STATUS_PAGES,
    )


def setup_project_table(
    app: Sphinx,
    name: str,
    directive: type[SphinxDirective],
    placeholder: type[nodes.Element],
    fill: type[SphinxPostTransform],
    pages: PerDocument[Any],
) -> None:
    """A directive whose table depends on every document: a placeholder filled at
    write time, on the ``pages`` that hold it, rewritten by every build (see
    :func:`note_table_page`)."""
    app.add_directive(name, directive)
    app.add_node(placeholder)
    app.add_post_transform(fill)

    def pages_with_tables(app: Sphinx, env: BuildEnvironment) -> list[str]:
        return sorted(domain_of(env).per_document(pages))

    app.connect("env-updated", pages_with_tables, priority=EnvUpdated.STATUS_TABLES)


def note_table_page(directive: SphinxDirective, pages: PerDocument[list[T]], table: T) -> None:
    """Remember that the directive's page holds a project table (``table`` says what of it
    there is to remember), to rewrite it every build."""
    domain_of(directive.env).per_document(pages).setdefault(directive.env.docname, []).append(table)


class StatusDirective(SphinxDirective):
    """List every ``jaxcheck`` block of the project, with links and verdicts."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        note_table_page(self, STATUS_PAGES, True)
        return [jaxcheck_status_table()]


class FillStatusTable(SphinxPostTransform):
    """Build the table from the verdicts in the environment (before references resolve)."""

    default_priority = 5

    def run(self, **kwargs: Any) -> None:
        for placeholder in list(self.document.findall(jaxcheck_status_table)):
            placeholder.replace_self(self._table(self.env.docname))

    def _table(self, here: str) -> list[nodes.Node]:
        checked = list(domain_of(self.env).checked_blocks())
        blocks = [verdict for block, verdict in checked if not block.doctest_style]
        counts = tally(blocks)
        summary = ", ".join(f"{counts[s]} {s.value}" for s in Status if counts[s])
        examples = describe_examples(all_examples(checked))
        # As the summary line counts: no word of blocks where only examples ran.
        counted = f"{len(blocks)} block(s)" + (f": {summary}" if blocks else "")
        intro = nodes.paragraph(text=counted if blocks or not examples else "")
        if examples:  # "12 `>>>` example(s): 10 verified, 2 skipped", the prompt as code
            before, prompt, after = examples.split("`", 2)
            before = f"; {before}" if blocks else before
            intro += [nodes.Text(before), nodes.literal(text=prompt), nodes.Text(after)]
        intro += nodes.Text(".")
        table = nodes.table(classes=["jaxcheck-status-table"])
        group = nodes.tgroup(cols=4)
        table += group
        for width in (30, 30, 20, 20):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        head += table_row([nodes.Text(t) for t in ("Block", "Page", "Status", "Seconds")])
        group += head
        body = nodes.tbody()
        for block, verdict in checked:
            target = link_to_block(block.options.name, block.docname, here)
            target += nodes.literal(text=block.label)
            page = addnodes.pending_xref(
                "",
                refdomain="std",
                reftype="doc",
                reftarget="/" + block.docname,
                refexplicit=False,
                refwarn=False,
                refdoc=here,
            )
            page += nodes.inline(text=block.docname)
            label = MARKS.get(verdict.status, "") + verdict.status.value
            if verdict.reason:
                label += f": {verdict.reason}"
            cells = [target, page, nodes.Text(label), nodes.Text(f"{verdict.seconds:.2f}")]
            body += table_row(cells)
        group += body
        return [intro, table]


def link_to_block(name: str | None, docname: str, here: str) -> addnodes.pending_xref:
    """A reference to a block: to its ``:name:`` label, else to its document."""
    if name:
        return addnodes.pending_xref(
            "",
            refdomain="std",
            reftype="ref",
            reftarget=name.lower(),
            refexplicit=True,
            refwarn=False,
            refdoc=here,
        )
    return addnodes.pending_xref(
        "",
        refdomain="std",
        reftype="doc",
        reftarget="/" + docname,
        refexplicit=True,
        refwarn=False,
        refdoc=here,
    )


def table_row(cells: list[nodes.Node]) -> nodes.row:
    """A row of a project table: each cell's content in a paragraph of its own entry."""
    row = nodes.row()
    for content in cells:
        entry = nodes.entry()
        paragraph = nodes.paragraph()
        paragraph += content
        entry += paragraph
        row += entry
    return row
