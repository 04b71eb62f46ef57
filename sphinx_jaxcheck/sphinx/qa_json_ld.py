"""schema.org ``FAQPage`` JSON-LD for HTML pages with Q&A cards.

An answer is HTML made only of the tags Google's FAQ rich results accept
(headings, ``p``, ``br``, lists, ``a``, ``div``, ``b``/``strong``,
``i``/``em``): code and literals become text, links into the site become text,
and jaxcheck's own markup (status markers) is left out.
"""

from __future__ import annotations

import html
import json
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

from .qa_nodes import jaxcheck_qa, jaxcheck_qa_answer, jaxcheck_qa_question, renders_details
from .stages import HtmlPageContext

_LEFT_OUT = (
    nodes.raw,
    nodes.comment,
    nodes.system_message,
    nodes.target,
    nodes.substitution_definition,
)
_TAGS: dict[type[nodes.Node], str] = {
    nodes.paragraph: "p",
    nodes.bullet_list: "ul",
    nodes.enumerated_list: "ol",
    nodes.list_item: "li",
    nodes.strong: "strong",
    nodes.emphasis: "em",
    nodes.rubric: "p",
}


def setup_qa_json_ld(app: Sphinx) -> None:
    """Add the JSON-LD to every HTML page that shows cards."""
    app.connect("html-page-context", _add_faq_json_ld, priority=HtmlPageContext.FAQ_JSON_LD)


def answer_html(node: nodes.Node) -> str:
    """The answer below ``node`` as HTML of allowed tags only (text escaped)."""
    if isinstance(node, nodes.Text):
        return html.escape(str(node), quote=False)
    if isinstance(node, _LEFT_OUT):
        return ""
    assert isinstance(node, nodes.Element)
    if any(c.startswith("jaxcheck-status") for c in node.get("classes", [])):
        return ""
    if isinstance(node, nodes.literal_block | nodes.doctest_block):
        lines = [html.escape(line, quote=False) for line in node.astext().splitlines()]
        return "<p>" + "<br>".join(lines) + "</p>"
    inner = "".join(answer_html(child) for child in node.children)
    uri = node.get("refuri", "") if isinstance(node, nodes.reference) else ""
    if uri.startswith(("https://", "http://")):
        return f'<a href="{html.escape(uri)}">{inner}</a>'
    tag = _TAGS.get(type(node))
    if tag is None and isinstance(node, nodes.Body) and not isinstance(node, nodes.TextElement):
        tag = "div"  # admonitions, containers: keep them apart from their neighbours
    return f"<{tag}>{inner}</{tag}>" if tag else inner


def faq_json_ld(cards: list[tuple[str, str]]) -> str:
    """schema.org FAQPage JSON for ``(question, answer HTML)`` pairs, safe inside ``<script>``."""
    data = {
        "@context": "https://schema.org",
        "@type": "FAQPage",
        "mainEntity": [
            {
                "@type": "Question",
                "name": question,
                "acceptedAnswer": {"@type": "Answer", "text": answer},
            }
            for question, answer in cards
        ],
    }
    # "</script>" would end the script element early and "<!--" confuses HTML parsers:
    # JSON lets us write <, > and & as escapes, so none of them appears literally.
    text = json.dumps(data, ensure_ascii=False, indent=1)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _add_faq_json_ld(
    app: Sphinx,
    _pagename: str,
    _templatename: str,
    _context: dict[str, Any],
    doctree: nodes.document | None,
) -> None:
    if doctree is None or not renders_details(app.builder.name, app.builder.format):
        return
    cards = [_question_and_answer(card) for card in doctree.findall(jaxcheck_qa)]
    if cards:
        # Added during html-page-context, a script belongs to this page only.
        app.add_js_file(None, body=faq_json_ld(cards), type="application/ld+json")


def _question_and_answer(card: jaxcheck_qa) -> tuple[str, str]:
    question = " ".join(
        " ".join(c.astext() for c in card.children if isinstance(c, jaxcheck_qa_question)).split()
    )
    answer = "".join(
        answer_html(child)
        for part in card.children
        if isinstance(part, jaxcheck_qa_answer)
        for child in part.children
    )
    return question, answer
