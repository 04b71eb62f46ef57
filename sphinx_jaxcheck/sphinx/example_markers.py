"""Which rendered node shows which block of examples, so each carries its own verdict.

A test found in the doctree (sphinx.ext.doctest's rules, its directives)
knows its node. An example group found in a page's or a docstring's text
(pytest's rules) belongs to the code block or doctest block whose own text,
found in the same file (:mod:`..expect.node_lines`), holds the group's first
``>>>`` line: a Python file's line is compared with a Python file's line, a
page's with a page's, never with a line counted inside a docstring. A node
holding examples that will not run is marked with why, never left to look
checked. Each such node is wrapped in a ``jaxcheck_block`` that renders the
markers (see :mod:`.rendering`).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from docutils import nodes

from ..expect.docstrings import Docstring
from ..expect.doctest_directives import Scheduled
from ..expect.node_lines import locate, node_lines
from .compat import first_line
from .doctree_tests import DOCSTRING_OF, NOT_IN_DOC, is_test_node, source_of
from .nodes import jaxcheck_block

Span = tuple[str, int, int]  # file, first and last 1-based line of a node's text in it


@dataclass(frozen=True)
class TextExamples:
    """Under pytest's rules: where to find the groups of examples read from text."""

    lines: list[str]  # the page's
    # The docstrings autodoc brought in (all checked), by the names its nodes may give them.
    docstrings: dict[str, Docstring]
    # Docstrings shown but not checked, by documented name: why (another package's).
    unchecked: dict[str, str] = field(default_factory=dict)


def mark_nodes(
    doctree: nodes.document,
    docname: str,
    scheduled: Sequence[Scheduled],
    shown: dict[int, nodes.Element],
    not_run: Sequence[tuple[nodes.Element, str]],
    text: TextExamples | None,
) -> None:
    """Wrap each node showing examples so it renders the verdicts of its blocks.

    ``shown`` maps each test (by id) to its node, ``not_run`` names nodes
    whose tests will not run, and why; ``text`` finds the nodes of groups of
    examples read from text (None: every block is a test with its node).
    """
    page = str(doctree.get("source") or "")
    spans = _spans(doctree, text, page) if text is not None else []
    blocks_of_node: dict[int, tuple[nodes.Element, list[int]]] = {}
    for item in scheduled:
        node = shown.get(id(item.shown)) if item.shown is not None else _holding(spans, item)
        if node is None or isinstance(node, nodes.comment):
            continue  # not shown (setup code, a hidden test, a comment): nothing to mark
        blocks_of_node.setdefault(id(node), (node, []))[1].append(item.block.index)
    for node, indices in blocks_of_node.values():
        _wrap(node, jaxcheck_block(docname=docname, index=indices[0], indices=indices))
    reasons = {id(node): (node, why) for node, why in not_run}
    for node, _span in spans:
        why = _why_not_run(node, text) if text is not None else ""
        if why and id(node) not in reasons:
            reasons[id(node)] = (node, why)
    for node, why in reasons.values():
        if not isinstance(node, nodes.comment) and id(node) not in blocks_of_node:
            _wrap(node, jaxcheck_block(docname=docname, index=-1, reason=why))


def _wrap(node: nodes.Element, wrapper: jaxcheck_block) -> None:
    wrapper["hidden"] = False
    node.replace_self(wrapper)
    wrapper += node


def _spans(
    doctree: nodes.document, text: TextExamples, path: str
) -> list[tuple[nodes.Element, Span]]:
    """Every code or doctest block that may show examples, with where its text stands."""
    page = os.path.abspath(path)
    found: list[tuple[nodes.Element, Span]] = []
    searched_from: dict[tuple[str, int], int] = {}
    for node in doctree.findall(_may_show_examples):
        assert isinstance(node, nodes.Element)
        source = source_of(node)
        shown = node_lines(node.astext())
        if DOCSTRING_OF in source:
            docstring = text.docstrings.get(source.rsplit(DOCSTRING_OF, 1)[1])
            if docstring is None:
                found.append((node, ("", 0, 0)))  # shown, but placed nowhere
                continue
            if docstring.unplaced:  # its blocks are all at the page line that shows it
                found.append((node, (docstring.path, docstring.line, docstring.line)))
                continue
            file, file_lines, line = docstring.path, docstring.text.split("\n"), 1
            offset = docstring.line - 1
        elif os.path.abspath(source or path) == page:
            file, file_lines, offset, line = page, text.lines, 0, first_line(node) or 1
        else:
            continue  # an included file: pytest reads it, if at all, as a file of its own
        key = (source, line)
        index = locate(file_lines, shown, searched_from.get(key, line - 1))
        if index is None:
            found.append((node, ("", 0, 0)))
            continue
        searched_from[key] = index + 1
        found.append((node, (file, offset + index + 1, offset + index + len(shown))))
    return found


def _may_show_examples(node: nodes.Node) -> bool:
    if not isinstance(node, (nodes.literal_block, nodes.doctest_block)) or is_test_node(node):
        return False
    parent = node.parent
    while parent is not None:
        if isinstance(parent, jaxcheck_block):
            return False  # a jaxcheck block's own code: it renders its verdict itself
        parent = parent.parent
    return True


def _holding(spans: list[tuple[nodes.Element, Span]], item: Scheduled) -> nodes.Element | None:
    """The node whose text holds the first line of this group of examples."""
    block = item.block
    where = os.path.abspath(block.path)
    for node, (file, first, last) in spans:
        if file and os.path.abspath(file) == where and first <= block.body_line <= last:
            return node
    return None


def _why_not_run(node: nodes.Element, text: TextExamples) -> str:
    """Why the docstring examples this node shows are not checked ("": they are, or it
    shows none)."""
    source = source_of(node)
    if DOCSTRING_OF not in source or not any(
        line.lstrip().startswith(">>>") for line in node.astext().split("\n")
    ):
        return ""
    name = source.rsplit(DOCSTRING_OF, 1)[1]
    if name in text.docstrings:
        return ""
    return text.unchecked.get(name, NOT_IN_DOC)
