"""Nodes of Q&A cards: HTML ``<details>`` for web pages, plain structure elsewhere.

Like sphinx-design's dropdown: the directive builds generic nodes; HTML
builders render them with the visitors below, and a post-transform turns them
into a rubric, the answer and a sources list for every other builder (latex,
text, man, texinfo, epub, …), which then need no visitors of their own.
"""

from __future__ import annotations

from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.writers.html5 import HTML5Translator

from .stages import BuilderInited


class jaxcheck_qa(nodes.General, nodes.Element):  # type: ignore[misc]  # docutils is untyped
    """A card: ``ids`` holds its anchor, ``open`` whether it starts expanded."""


class jaxcheck_qa_question(nodes.General, nodes.TextElement):  # type: ignore[misc]  # docutils is untyped
    """The question (the card's summary), as inline nodes."""


class jaxcheck_qa_answer(nodes.General, nodes.Element):  # type: ignore[misc]  # docutils is untyped
    """The answer: any body elements."""


class jaxcheck_qa_sources(nodes.General, nodes.Element):  # type: ignore[misc]  # docutils is untyped
    """The verified sources: one bullet list of links."""


def setup_qa_nodes(app: Sphinx) -> None:
    """Register the nodes with HTML visitors, and the fallback for other builders."""
    app.add_node(jaxcheck_qa, html=(_visit_qa, _depart_qa))
    app.add_node(jaxcheck_qa_question, html=(_visit_question, _depart_question))
    app.add_node(jaxcheck_qa_answer, html=(_visit_answer, _depart_answer))
    app.add_node(jaxcheck_qa_sources, html=(_visit_sources, _depart_sources))
    app.connect("builder-inited", _add_plain_cards, priority=BuilderInited.PLAIN_CARDS)


def _add_plain_cards(app: Sphinx) -> None:
    # Chosen once the builder is known: a transform has no public way to ask for it.
    if not renders_details(app.builder.name, app.builder.format):
        app.add_post_transform(PlainCards)


def renders_details(builder_name: str, builder_format: str) -> bool:
    """True for builders whose pages show ``<details>`` (not epub: readers ignore it)."""
    return builder_format == "html" and not builder_name.startswith("epub")


# -- HTML -----------------------------------------------------------------------


def _visit_qa(self: HTML5Translator, node: jaxcheck_qa) -> None:
    attributes: dict[str, Any] = {"open": "open"} if node.get("open") else {}
    self.body.append(self.starttag(node, "details", CLASS="jaxcheck-qa", **attributes))


def _depart_qa(self: HTML5Translator, node: jaxcheck_qa) -> None:
    self.body.append("</details>\n")


def _visit_question(self: HTML5Translator, node: jaxcheck_qa_question) -> None:
    self.body.append('<summary class="jaxcheck-qa-question"><span class="jaxcheck-qa-title">')


def _depart_question(self: HTML5Translator, node: jaxcheck_qa_question) -> None:
    self.body.append("</span>")
    ids = node.parent.get("ids", []) if node.parent is not None else []
    if ids:
        # The permalink sits in the summary, like a heading's; clicking it navigates, not toggles.
        self.body.append(
            f'<a class="headerlink jaxcheck-qa-permalink" href="#{ids[0]}" '
            'title="Link to this question">¶</a>'
        )
    self.body.append("</summary>\n")


def _visit_answer(self: HTML5Translator, node: jaxcheck_qa_answer) -> None:
    self.body.append('<div class="jaxcheck-qa-answer">\n')


def _depart_answer(self: HTML5Translator, node: jaxcheck_qa_answer) -> None:
    self.body.append("</div>\n")


def _visit_sources(self: HTML5Translator, node: jaxcheck_qa_sources) -> None:
    self.body.append(
        '<div class="jaxcheck-qa-sources"><p class="jaxcheck-qa-sources-title">Sources</p>\n'
    )


def _depart_sources(self: HTML5Translator, node: jaxcheck_qa_sources) -> None:
    self.body.append("</div>\n")


# -- every other builder ----------------------------------------------------------


class PlainCards(SphinxPostTransform):
    """Turn cards into a rubric (the question), the answer and a "Sources" list.

    Registered only for builders whose pages do not show ``<details>``.
    """

    default_priority = 199

    def run(self, **kwargs: Any) -> None:
        for card in list(self.document.findall(jaxcheck_qa)):
            # parent.replace, not replace_self: that would copy the anchor onto the container too.
            card.parent.replace(card, plain_card(card))


def plain_card(card: jaxcheck_qa) -> nodes.container:
    """The builder-neutral form of a card."""
    plain = nodes.container("", classes=["jaxcheck-qa", *card.get("classes", [])])
    for child in card.children:
        if isinstance(child, jaxcheck_qa_question):
            # A target just before the heading, so :ref: lands on the question
            # (LaTeX writes no label for a rubric's own ids).
            plain += nodes.target("", "", ids=list(card["ids"]))
            plain += nodes.rubric("", "", *child.children)
        elif isinstance(child, jaxcheck_qa_answer):
            plain.extend(child.children)
        elif isinstance(child, jaxcheck_qa_sources):
            plain += nodes.paragraph("", "", nodes.strong("Sources:", "Sources:"))
            plain.extend(child.children)
        else:
            plain += child
    return plain
