"""Q&A cards: ``jaxcheck-qa``, ``jaxcheck-qa-index``, and FAQPage JSON-LD on HTML pages.

A card is a question (summary), an answer (nested content) and the sources it
cites, each checked like a ``jaxsrc`` role. Cards are kept per document in the
environment so that an index can list the questions of every document, also
in incremental and parallel builds.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, ClassVar, cast

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.domains.std import StandardDomain
from sphinx.environment import BuildEnvironment
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util.docutils import SphinxDirective
from sphinx.util.osutil import SEP

from .assets import add_page_script, add_stylesheet
from .citations import check_and_record, citation_link
from .compat import source_info
from .domain import CARDS, domain_of
from .environment_records import Card, IndexUse
from .markup_lines import own_line
from .qa_json_ld import setup_qa_json_ld
from .qa_nodes import (
    jaxcheck_qa,
    jaxcheck_qa_answer,
    jaxcheck_qa_question,
    jaxcheck_qa_sources,
    setup_qa_nodes,
)
from .stages import EnvUpdated

CSS_FILE = "jaxcheck-qa.css"
JS_FILE = "jaxcheck-qa.js"  # opens the card a link points to


def setup_qa(app: Sphinx) -> None:
    """Register the card nodes, both directives, the index, JSON-LD and the stylesheet."""
    setup_qa_nodes(app)
    app.add_node(jaxcheck_qa_index)
    app.add_directive("jaxcheck-qa", QACardDirective)
    app.add_directive("jaxcheck-qa-index", QAIndexDirective)
    app.add_post_transform(ResolveQAIndex)
    app.connect("env-updated", _documents_with_index, priority=EnvUpdated.QA_INDEX)
    setup_qa_json_ld(app)
    add_stylesheet(app, CSS_FILE)
    add_page_script(app, JS_FILE, _shows_cards)


def card_anchor(question: str) -> str:
    """A stable anchor derived from the question's words: ``qa-why-can-i-not-...``."""
    words = re.findall(r"[a-z0-9]+", question.lower())
    anchor = "qa"
    for word in words:
        if len(anchor) + len(word) + 1 > 60:  # long enough to be unique, short enough to share
            break
        anchor += "-" + word
    return anchor


def cards_of(env: BuildEnvironment) -> dict[str, list[Card | IndexUse]]:
    """The ``{docname: [Card | IndexUse, ...]}`` store of the environment."""
    return domain_of(env).per_document(CARDS)


def _split_cites(text: str) -> Iterator[str]:
    """Targets separated by newlines or spaces; ``title <target>`` stays whole."""
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if "<" in line and line.endswith(">"):
            yield line
        else:
            yield from line.split()


class QACardDirective(SphinxDirective):
    """``jaxcheck-qa`` QUESTION, with ``:name:``, ``:cite:``, ``:open:`` and the answer."""

    has_content = True
    required_arguments = 1
    final_argument_whitespace = True
    option_spec: ClassVar[dict[str, Any]] = {
        "name": directives.unchanged_required,
        "cite": directives.unchanged_required,
        "open": directives.flag,
        "class": directives.class_option,
    }

    def run(self) -> list[nodes.Node]:
        question = " ".join(self.arguments[0].split())
        label = nodes.fully_normalize_name(self.options.get("name", "")) or card_anchor(question)
        anchor = self._unique_id(nodes.make_id(label) or card_anchor(question))
        card = jaxcheck_qa(
            "", ids=[anchor], open="open" in self.options, classes=self.options.get("class", [])
        )
        self.set_source_info(card)
        self.state.document.ids[anchor] = card

        title_nodes, messages = self.state.inline_text(question, self.lineno)
        card += jaxcheck_qa_question(question, "", *[_as_text(node) for node in title_nodes])
        cites, content, offset = self._cites_and_answer()
        answer = jaxcheck_qa_answer()
        self.state.nested_parse(content, offset, answer)
        card += answer
        sources = self._sources(cites)
        if sources is not None:
            card += sources

        std = cast(StandardDomain, self.env.get_domain("std"))
        std.note_hyperlink_target(label, self.env.docname, anchor, question)
        cards_of(self.env).setdefault(self.env.docname, []).append(
            Card(self.env.docname, anchor, label, question, answer.astext(), self.lineno)
        )
        return [card, *messages]

    def _unique_id(self, anchor: str) -> str:
        taken, unique, count = self.state.document.ids, anchor, 1
        while unique in taken:
            count += 1
            unique = f"{anchor}-{count}"
        return unique

    def _cites_and_answer(self) -> tuple[str, StringList, int]:
        """The ``:cite:`` text and the answer's lines.

        MyST's ``:key: value`` options end at the first line that does not start
        with ``:``, so the indented continuation lines of a multi-line ``:cite:``
        (as guide/qa-cards shows it) arrive as the first lines of the content; take them back.
        """
        cites, content, offset = self.options.get("cite", ""), self.content, self.content_offset
        if "cite" in self.options:
            taken = 0
            while taken < len(content) and content[taken][:1].isspace() and content[taken].strip():
                taken += 1
            if taken:
                cites += "\n" + "\n".join(line.strip() for line in content[:taken])
                content, offset = content[taken:], offset + taken
        return cites, content, offset

    def _sources(self, written: str) -> jaxcheck_qa_sources | None:
        from ..cite.citation import split_title  # only on pages with cards

        if not written.strip():
            return None
        path, opening = source_info(self)
        items = nodes.bullet_list(classes=["jaxcheck-qa-sources-list"])
        for text in _split_cites(written):
            title, target = split_title(text)
            line = own_line(self.env, path, opening, text, quoted=False)
            citation = check_and_record(self.env, target, path, line)
            # Paths show in full (a suffix may hide which file); dotted names as written.
            location = citation.location
            shown = location.label if location and _is_path(target) else target
            inner: nodes.Node = nodes.Text(title) if title else breakable_literal(shown)
            paragraph = nodes.paragraph(
                "", "", citation_link(citation, inner, classes=["jaxcheck-src"])
            )
            if citation.start is not None and location and location.qualname:
                paragraph += nodes.Text(f", lines {citation.start}-{citation.end}")
            items += nodes.list_item("", paragraph)
        return jaxcheck_qa_sources("", items)


def breakable_literal(text: str) -> nodes.literal:
    """Inline code that a narrow column may break after ``.``, ``_``, ``/`` or ``::``, never
    mid-word.

    The break points are HTML ``<wbr>`` elements; other builders ignore them.
    """
    literal = nodes.literal(text, "")
    for piece in re.split(r"(?<=::)|(?<=[./])(?!:)|(?<=[A-Za-z0-9]_)", text):
        if piece:
            if len(literal):
                literal += nodes.raw("", "<wbr>", format="html")
            literal += nodes.Text(piece)
    return literal


def _is_path(target: str) -> bool:
    return any(mark in target for mark in ("/", "::", "#", ".py"))


# -- the index --------------------------------------------------------------------


class jaxcheck_qa_index(nodes.General, nodes.Element):  # type: ignore[misc]  # docutils is untyped
    """Placeholder for the list of questions; filled once every document is read."""


class QAIndexDirective(SphinxDirective):
    """``jaxcheck-qa-index``: every question of the project, or of ``:doc:`` one document."""

    has_content = False
    option_spec: ClassVar[dict[str, Any]] = {"doc": directives.unchanged_required}

    def run(self) -> list[nodes.Node]:
        node = jaxcheck_qa_index()
        if "doc" in self.options:
            node["doc"] = _docname_join(self.env.docname, self.options["doc"].strip())
        self.set_source_info(node)
        cards_of(self.env).setdefault(self.env.docname, []).append(IndexUse(self.env.docname))
        return [node]


def _docname_join(base: str, name: str) -> str:
    """A ``:doc:`` value as a docname: absolute with a leading ``/``, else relative to ``base``."""
    name = name.removesuffix(".rst").removesuffix(".md")
    if name.startswith("/"):
        return name.lstrip("/")
    folder = base.rpartition(SEP)[0]
    return f"{folder}{SEP}{name}" if folder else name


def document_order(env: BuildEnvironment) -> list[str]:
    """Docnames in reading order: the toctree from the root document, then the rest."""
    order: list[str] = []

    def visit(docname: str) -> None:
        if docname in order:
            return
        order.append(docname)
        for child in env.toctree_includes.get(docname, []):
            visit(child)

    visit(env.config.root_doc)
    return order + sorted(set(env.found_docs) - set(order))


class ResolveQAIndex(SphinxPostTransform):
    """Fill each index with ``:ref:`` links, before Sphinx resolves references."""

    default_priority = 5  # before ReferencesResolver (10)

    def run(self, **kwargs: Any) -> None:
        store = cards_of(self.env)
        for index in list(self.document.findall(jaxcheck_qa_index)):
            wanted = index.get("doc")
            docnames = [wanted] if wanted else document_order(self.env)
            items = nodes.bullet_list(classes=["jaxcheck-qa-index"])
            for docname in docnames:
                for card in store.get(docname, []):
                    if isinstance(card, Card):
                        items += nodes.list_item(
                            "", nodes.paragraph("", "", _ref(card, self.env.docname))
                        )
            if len(items):
                index.replace_self(items)
            else:
                where = f" in {wanted}" if wanted else ""
                index.replace_self(nodes.paragraph("", f"No questions{where}."))


def _ref(card: Card, fromdocname: str) -> addnodes.pending_xref:
    return addnodes.pending_xref(
        "",
        nodes.inline(card.question, card.question, classes=["xref", "std", "std-ref"]),
        refdomain="std",
        reftype="ref",
        reftarget=card.label,
        refexplicit=True,
        refwarn=True,
        refdoc=fromdocname,
    )


def _documents_with_index(app: Sphinx, env: BuildEnvironment) -> list[str]:
    # An index shows cards of other documents: rewrite it whenever anything was built.
    return sorted(
        docname
        for docname, items in cards_of(env).items()
        if any(isinstance(item, IndexUse) for item in items)
    )


# -- HTML ---------------------------------------------------------------------------


def _as_text(node: nodes.Node) -> nodes.Node:
    """A question is text and inline markup, never raw HTML (MyST passes ``<tags>`` through)."""
    if isinstance(node, nodes.raw):
        return nodes.Text(node.astext())
    if isinstance(node, nodes.Element):
        for raw in list(node.findall(nodes.raw)):
            raw.replace_self(nodes.Text(raw.astext()))
    return node


def _shows_cards(doctree: nodes.document) -> bool:
    return any(True for _ in doctree.findall(jaxcheck_qa))
