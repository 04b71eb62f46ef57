"""Render checked blocks at write time: the code, plus a marker for its verdict.

A post-transform replaces each ``jaxcheck_block`` by standard nodes, so every
builder (html, latex, text, man, epub, ...) can write it. HTML gets a discreet
"verified" line, or a visible stale/failed marker with the actual output in a
collapsible; other formats show only stale or failed blocks' actual output.
"""

from __future__ import annotations

import html
from typing import Any, TypeGuard

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

from ..kinds import rules_of
from ..kinds.scripts import ScriptRules
from ..model import Block, Status, Verdict
from ..report.printable import printable
from .assets import add_stylesheet
from .domain import domain_of
from .nodes import jaxcheck_block
from .notebook_outputs import replace_outputs
from .stages import BuilderInited

CSS_FILE = "jaxcheck.css"


def setup_rendering(app: Sphinx) -> None:
    """Register the node, the post-transform for the builder's format and the stylesheet."""
    app.add_node(jaxcheck_block)
    app.connect("builder-inited", _add_renderer, priority=BuilderInited.RENDERERS)
    add_stylesheet(app, CSS_FILE)


def _add_renderer(app: Sphinx) -> None:
    # Chosen once the builder is known: a transform has no public way to ask for it.
    app.add_post_transform(RenderVerdictsAsHtml if app.builder.format == "html" else RenderVerdicts)


class RenderVerdicts(SphinxPostTransform):
    """Replace every ``jaxcheck_block`` with its code and a verdict marker."""

    default_priority = 200
    #: Whether the builder writes HTML (markers with a collapsible), or plain nodes.
    html = False

    def run(self, **kwargs: Any) -> None:
        domain = domain_of(self.env)
        version = domain.build.jax_version or "?"
        is_html = self.html
        by_document: dict[str, dict[int, Block]] = {}  # once per document, not once per node
        for node in list(self.document.findall(jaxcheck_block)):
            if node.get("hidden"):
                node.parent.remove(node)
                continue
            docname = node["docname"]
            shown: list[tuple[Block | None, Verdict | None, Status]]
            if node.get("reason"):  # examples shown here that do not run
                shown = [(None, None, Status.SKIPPED)]
            else:
                shown = []
                for index in node.get("indices") or [node["index"]]:
                    where, number = domain.checked_at(docname, index)
                    if where not in by_document:
                        by_document[where] = {b.index: b for b in domain.blocks(where)}
                    verdict = domain.verdict(where, number)
                    status = verdict.status if verdict else Status.SKIPPED
                    shown.append((by_document[where].get(number), verdict, status))
            worst = max((status for _, _, status in shown), key=_RANK.index)
            for block, verdict, _ in shown:
                if block is not None and rules_of(block).shows_its_outputs() and _ran(verdict):
                    for cell in node.children:  # MyST-NB's container of the cell
                        if isinstance(cell, nodes.Element):
                            replace_outputs(cell, verdict.outputs, is_html, str(self.env.srcdir))
            container = nodes.container(classes=["jaxcheck-block", f"jaxcheck-{worst.slug}"])
            container.extend(node.children)
            for block, verdict, status in shown:
                if node.get("reason"):
                    marker = _not_run_marker(f"not run · {node['reason']}")
                elif is_html:
                    marker = _html_marker(verdict, version, block)
                else:
                    if verdict is not None and status in (Status.STALE, Status.FAILED):
                        container.extend(_plain_marker(verdict, version))
                    continue
                if is_html:
                    # Not for the search index: what a block printed is no content of the
                    # page, and indexing a long line of it is slow.
                    container += nodes.raw("", marker, format="html", classes=["no-search"])
            node.replace_self(container)


class RenderVerdictsAsHtml(RenderVerdicts):
    """The same for HTML builders."""

    html = True


def _ran(verdict: Verdict | None) -> TypeGuard[Verdict]:
    """Whether a cell ran to its end (its page then shows what it showed); one that did not
    (skipped, refused, timed out, crashed) keeps showing what its notebook stores."""
    if verdict is None:
        return False
    ran = (Status.VERIFIED, Status.STALE, Status.NOT_COMPARED)
    return verdict.status in ran or (verdict.status is Status.FAILED and bool(verdict.outputs))


# From best to worst: a node showing several blocks is classed by its worst.
_RANK = (
    Status.VERIFIED,
    Status.NOT_COMPARED,
    Status.OTHER_SHARD,
    Status.SKIPPED,
    Status.STALE,
    Status.FAILED,
)


def _not_run_marker(text: str) -> str:
    return (
        '<div class="jaxcheck-status jaxcheck-status-skipped jaxcheck-status-not-run">'
        f"{html.escape(text)}</div>"
    )


def _left_out(block: Block | None) -> str:
    """For a notebook cell run without its lines that change the environment: those lines,
    as a marker's last part (HTML)."""
    left_out = rules_of(block).ran_without() if block is not None else ""
    if not left_out:
        return ""
    return f" · ran without {html.escape(left_out)} (changes the environment)"


def _html_marker(verdict: Verdict | None, version: str, block: Block | None = None) -> str:
    jax = f"jax {html.escape(version)}"
    # Which block the marker speaks for, as reports name it.
    named = f' data-jaxcheck-block="{html.escape(block.label)}"' if block else ""
    if verdict is not None and verdict.reason:
        return (
            f'<div class="jaxcheck-status jaxcheck-status-skipped"{named}>'
            f"not run · {html.escape(verdict.reason)}</div>"
        )
    if verdict is None or verdict.status is Status.SKIPPED:
        return f'<div class="jaxcheck-status jaxcheck-status-skipped"{named}>skipped · {jax}</div>'
    if verdict.status is Status.OTHER_SHARD:
        return (
            f'<div class="jaxcheck-status jaxcheck-status-skipped"{named}>'
            f"checked on another shard · {jax}</div>"
        )
    if verdict.status is Status.VERIFIED:
        # Never "verified" alone over an example that did not run.
        skipped = sum(1 for e in block.expectations if e.skip) if block else 0
        unrun = f" · {skipped} example(s) skipped (+SKIP)" if skipped else ""
        if verdict.images_not_compared:
            unrun += " · images not compared"
        unrun += _left_out(block)
        return (
            f'<div class="jaxcheck-status jaxcheck-status-verified"{named} '
            f'title="The output shown was checked against {jax} when these docs were built">'
            f'<span class="jaxcheck-mark">✓ verified</span> · {jax}{unrun}</div>'
        )
    if verdict.status is Status.NOT_COMPARED:
        return (
            f'<div class="jaxcheck-status jaxcheck-status-not-compared"{named}>'
            f"ran · {jax} · not compared{_left_out(block)}</div>"
        )
    if verdict.status is Status.STALE:
        # A notebook cell's page shows what it showed: the marker shows how that differs.
        rules = rules_of(block) if block is not None else ScriptRules()
        does, shown = rules.stale_shown(verdict)
        return (
            f'<details class="jaxcheck-status jaxcheck-status-stale"{named}>'
            f'<summary><span class="jaxcheck-mark">⚠ stale</span>: with {jax} this '
            f"{html.escape(does)}</summary>"
            f"<pre>{html.escape(printable(shown))}</pre></details>"
        )
    message = "\n".join(p.message for p in verdict.problems)
    after = f" after {html.escape(verdict.after)} failed" if verdict.after else ""
    return (
        f'<details class="jaxcheck-status jaxcheck-status-failed"{named}>'
        f'<summary><span class="jaxcheck-mark">✗ failed</span> with {jax}{after} (show)</summary>'
        f"<pre>{html.escape(printable(message))}</pre></details>"
    )


def _plain_marker(verdict: Verdict, version: str) -> list[nodes.Node]:
    if verdict.status is Status.STALE:
        title, text = f"Stale: with jax {version} this block prints:", verdict.actual_text
    else:
        title = f"Failed with jax {version}:"
        text = "\n".join(p.message for p in verdict.problems)
    # As in reports: a control character or a lone surrogate shows as its escape (no output
    # format can hold a surrogate, and a terminal escape is no text).
    text = printable(text)
    return [nodes.paragraph(title, title), nodes.literal_block(text, text)]
