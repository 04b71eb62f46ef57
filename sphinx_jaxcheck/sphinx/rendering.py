"""Render checked blocks at write time: the code, plus a marker for its verdict.

A post-transform replaces each ``jaxcheck_block`` by standard nodes, so every
builder (html, latex, text, man, epub, ...) can write it. HTML gets a discreet
"verified" line, or a visible stale/failed marker with the actual output in a
collapsible; other formats show only stale or failed blocks' actual output.
"""

from __future__ import annotations

import html
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

from ..model import Status, Verdict
from .assets import add_stylesheet
from .domain import domain_of
from .nodes import jaxcheck_block

CSS_FILE = "jaxcheck.css"


def setup_rendering(app: Sphinx) -> None:
    """Register the node, the post-transform and the stylesheet."""
    app.add_node(jaxcheck_block)
    app.add_post_transform(RenderVerdicts)
    add_stylesheet(app, CSS_FILE)


class RenderVerdicts(SphinxPostTransform):
    """Replace every ``jaxcheck_block`` with its code and a verdict marker."""

    default_priority = 200

    def run(self, **kwargs: Any) -> None:
        domain = domain_of(self.env)
        version = domain.data.get("jax_version") or "?"
        is_html = self.env._builder_cls.format == "html"
        for node in list(self.document.findall(jaxcheck_block)):
            if node.get("hidden"):
                node.parent.remove(node)
                continue
            verdict = domain.verdict(node["docname"], node["index"])
            status = verdict.status if verdict else Status.SKIPPED
            container = nodes.container(classes=["jaxcheck-block", f"jaxcheck-{status.slug}"])
            container.extend(node.children)
            if is_html:
                # Not for the search index: what a block printed is no content of the
                # page, and indexing a long line of it is slow.
                container += nodes.raw(
                    "", _html_marker(verdict, version), format="html", classes=["no-search"]
                )
            elif verdict is not None and status in (Status.DRIFT, Status.ERROR):
                container.extend(_plain_marker(verdict, version))
            node.replace_self(container)


def _html_marker(verdict: Verdict | None, version: str) -> str:
    jax = f"jax {html.escape(version)}"
    if verdict is not None and verdict.reason:
        return (
            '<div class="jaxcheck-status jaxcheck-status-skipped">'
            f"not run · {html.escape(verdict.reason)}</div>"
        )
    if verdict is None or verdict.status is Status.SKIPPED:
        return f'<div class="jaxcheck-status jaxcheck-status-skipped">skipped · {jax}</div>'
    if verdict.status is Status.OTHER_SHARD:
        return (
            '<div class="jaxcheck-status jaxcheck-status-skipped">'
            f"checked on another shard · {jax}</div>"
        )
    if verdict.status is Status.VERIFIED:
        return (
            '<div class="jaxcheck-status jaxcheck-status-verified" '
            f'title="The output shown was checked against {jax} when these docs were built">'
            f'<span class="jaxcheck-mark">✓ verified</span> · {jax}</div>'
        )
    if verdict.status is Status.UNCHECKED:
        return (
            '<div class="jaxcheck-status jaxcheck-status-not-compared">'
            f"ran · {jax} · not compared</div>"
        )
    if verdict.status is Status.DRIFT:
        return (
            '<details class="jaxcheck-status jaxcheck-status-stale">'
            f'<summary><span class="jaxcheck-mark">⚠ stale</span>: with {jax} this block '
            "prints something else (show)</summary>"
            f"<pre>{html.escape(verdict.actual_text)}</pre></details>"
        )
    message = "\n".join(p.message for p in verdict.problems)
    return (
        '<details class="jaxcheck-status jaxcheck-status-failed">'
        f'<summary><span class="jaxcheck-mark">✗ failed</span> with {jax} (show)</summary>'
        f"<pre>{html.escape(message)}</pre></details>"
    )


def _plain_marker(verdict: Verdict, version: str) -> list[nodes.Node]:
    if verdict.status is Status.DRIFT:
        title, text = f"Stale: with jax {version} this block prints:", verdict.actual_text
    else:
        title = f"Failed with jax {version}:"
        text = "\n".join(p.message for p in verdict.problems)
    return [nodes.paragraph(title, title), nodes.literal_block(text, text)]
