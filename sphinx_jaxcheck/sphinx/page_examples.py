"""A page's own ``>>>`` examples, checked where they stand (``jaxcheck_doctests``).

When a document has been read (``doctree-read``), its source text is searched
for examples as ``pytest --doctest-glob`` finds them (:mod:`..expect.page_examples`), less
those inside ``jaxcheck`` blocks. With ``"check"`` each group of examples
becomes a block of the document's session, in document order among the
``jaxcheck`` blocks, and the code block that shows it is wrapped so it renders
with its verdict. With ``"report"`` they are only counted, for the summary.
"""

from __future__ import annotations

import itertools
import os
from dataclasses import replace
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

from ..config import Settings
from ..expect.conditions import limits_from_comments
from ..expect.docstrings import Docstring, docstring_location, is_own
from ..expect.doctest_directives import FIRST, IN_PLACE, LAST, Placed, TestItem, blocks_of
from ..expect.grammar import parse_body
from ..expect.page_examples import Region, count_examples, find_regions
from ..model import Block, BlockOptions, Subtype
from ..report.findings import Finding
from ..rewrite.edits import file_digest
from .domain import JaxcheckDomain, domain_of
from .nodes import jaxcheck_block
from .settings import settings_of

UNCHECKED = "unchecked_examples"
DOCSTRINGS = "jaxcheck_docstrings"  # in temp_data: docstrings autodoc brought into this page


def setup_page_examples(app: Sphinx) -> None:
    """Find the examples of every document once it has been read.

    sphinx.ext.doctest's directives are registered here (they are Sphinx's own
    classes) unless that extension is loaded, which registers them itself:
    either way their nodes are read the same, so a project switches by
    removing it from ``extensions`` or keeping it.
    """
    app.connect("doctree-read", _find_examples)
    app.connect("builder-inited", _follow_autodoc)
    if "sphinx.ext.doctest" not in app.config.extensions:
        from sphinx.ext import doctest as sphinx_doctest

        app.add_directive("testsetup", sphinx_doctest.TestsetupDirective)
        app.add_directive("testcleanup", sphinx_doctest.TestcleanupDirective)
        app.add_directive("doctest", sphinx_doctest.DoctestDirective)
        app.add_directive("testcode", sphinx_doctest.TestcodeDirective)
        app.add_directive("testoutput", sphinx_doctest.TestoutputDirective)


def _follow_autodoc(app: Sphinx) -> None:
    """With autodoc loaded, note the docstrings it brings into each page."""
    if "autodoc-process-docstring" in app.events.events:
        app.connect("autodoc-process-docstring", _note_docstring)


def _note_docstring(
    app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]
) -> None:
    if settings_of(app.config).doctests == "off":
        return
    found = docstring_location(obj)
    if found is None or not is_own(found.path, os.path.dirname(os.path.abspath(app.confdir))):
        return
    noted: dict[str, Docstring] = app.env.temp_data.setdefault(DOCSTRINGS, {})  # type: ignore[assignment]
    noted.setdefault(name, found)


def _docstring_blocks(
    doctree: nodes.document,
    path: str,
    noted: dict[str, Docstring],
    settings: Settings,
    docname: str,
) -> list[Placed]:
    """Blocks for the examples of the docstrings autodoc put into this page.

    They run where the page shows them: after the page's own line that comes
    last before the docstring's first node.
    """
    last_line = 0
    where: dict[str, int] = {}
    for node in doctree.findall(nodes.Element):
        source = node.source or ""
        if source == path and node.line:
            last_line = node.line
        elif ":docstring of " in source:
            where.setdefault(source.rsplit(":docstring of ", 1)[1], last_line)
    placed = []
    for name, doc in noted.items():
        digest = file_digest(doc.path)
        for region in find_regions(doc.text):
            above = doc.text.splitlines()[: region.first - 1]
            block = _block(
                docname,
                doc.path,
                replace(region, first=doc.line + region.first - 1),
                settings,
                digest,
                above,
            )
            block = replace(
                block,
                update_refusal=(
                    f"this example is in a docstring ({name}); jaxcheck update does not rewrite "
                    "Python files: edit the docstring by hand"
                ),
            )
            placed.append(Placed(block, IN_PLACE, order=where.get(name, last_line) + 0.5))
    return placed


def _find_examples(app: Sphinx, doctree: nodes.document) -> None:
    settings = settings_of(app.config)
    if settings.doctests == "off":
        return
    env = app.env
    docname = env.docname
    path = str(env.doc2path(docname))
    try:
        with open(path, encoding=app.config.source_encoding) as handle:
            text = handle.read().removeprefix("\ufeff")
    except (OSError, UnicodeDecodeError, LookupError):
        return  # unreadable sources are reported where Sphinx reads them
    domain = domain_of(env)
    own = [b for b in domain.blocks(docname) if b.path == path]
    taken = [(b.body_line, b.body_line + max(len(b.body), 1) - 1) for b in own]
    lines = text.splitlines()
    items = _test_directives(doctree, path, lines, domain, docname)
    taken += [(item.first, item.last) for item, _ in items]
    regions = find_regions(text, taken)
    noted: dict[str, Docstring] = env.temp_data.get(DOCSTRINGS, {})  # type: ignore[assignment]
    if not regions and not items and not noted:
        return
    if settings.doctests == "report":
        unchecked = count_examples(regions)
        unchecked += sum(
            count_examples(find_regions("\n".join(i.lines)))
            for i, _ in items
            if i.kind == "doctest"
        )
        unchecked += sum(1 for i, _ in items if i.kind == "testcode")
        unchecked += sum(count_examples(find_regions(doc.text)) for doc in noted.values())
        domain.per_document(UNCHECKED)[docname] = [unchecked]
        return
    digest = file_digest(path)
    placed = [
        Placed(_block(docname, path, region, settings, digest, lines[: region.first - 1]), IN_PLACE)
        for region in regions
    ]
    placed += _docstring_blocks(doctree, path, noted, settings, docname)
    placed += blocks_of(
        [item for item, _ in items],
        docname=docname,
        path=path,
        flags=settings.doctest_optionflags,
        timeout=settings.timeout,
        digest=digest,
    )
    merged = _merge(domain, docname, path, placed)
    shown_nodes = {id(item): node for item, node in items}
    _wrap_code_blocks(doctree, merged, shown_nodes)


def _test_directives(
    doctree: nodes.document, path: str, lines: list[str], domain: JaxcheckDomain, docname: str
) -> list[tuple[TestItem, nodes.Element]]:
    """sphinx.ext.doctest's directives of the page, with their nodes, in page order."""
    found: list[tuple[TestItem, nodes.Element]] = []
    for node in doctree.findall(_is_test_node):
        assert isinstance(node, nodes.Element)
        if node.source and os.path.abspath(node.source) != os.path.abspath(path):
            continue  # from an included file: its lines are not this page's
        text = node.get("test") or node.astext()
        content = text.split("\n")
        first = _content_start(lines, node.line or 1, content)
        if first is None:
            continue
        item = TestItem(
            kind=node["testnodetype"],
            groups=tuple(node.get("groups", ["default"])),
            first=first,
            lines=tuple(line.rstrip("\r") for line in lines[first - 1 : first - 1 + len(content)]),
            options=tuple(node.get("options", {}).items()),
            hidden=isinstance(node, nodes.comment),
        )
        if "skipif" in node:
            domain.add_finding(
                docname,
                Finding(
                    Subtype.OPTION,
                    f"{item.kind}: jaxcheck does not evaluate :skipif: (that would run code "
                    "in the Sphinx process), so this directive is not checked; mark its "
                    "examples `# doctest: +SKIP`, or drop the option",
                    path,
                    first,
                    docname,
                ),
            )
            continue
        found.append((item, node))
    return found


def _is_test_node(node: nodes.Node) -> bool:
    return isinstance(node, (nodes.literal_block, nodes.comment)) and "testnodetype" in node


def _content_start(lines: list[str], directive_line: int, content: list[str]) -> int | None:
    """The 1-based file line where a directive's content starts, found by its first line."""
    wanted = next((line.strip() for line in content if line.strip()), None)
    if wanted is None:
        return None
    skipped = next(i for i, line in enumerate(content) if line.strip())
    for index in range(max(directive_line - 1, 0), len(lines)):
        if lines[index].strip() == wanted:
            return index + 1 - skipped
    return None


def _block(
    docname: str,
    path: str,
    region: Region,
    settings: Settings,
    digest: str,
    above: list[str] | None = None,
) -> Block:
    parsed = parse_body(region.lines, doctest_flags=settings.doctest_optionflags, doctest_only=True)
    # ``>>> # jaxcheck: jax-version <0.5``: the examples' own limits, as a block's options.
    # doctest drops comment-only examples, so those right above the region count too.
    lead = list(itertools.takewhile(_is_prompted_comment, reversed(above or [])))[::-1]
    limits, problems = limits_from_comments([*lead, *region.lines])
    error, error_line, error_subtype = parsed.error, parsed.error_line, Subtype.SYNTAX
    if problems:
        error_line, message = problems[0]
        error, error_line, error_subtype = (
            f"not run: {message}",
            error_line - len(lead),
            Subtype.OPTION,
        )
    return Block(
        docname=docname,
        index=-1,  # numbered when merged into the document's blocks
        path=path,
        body_line=region.first,
        body=region.lines,
        options=BlockOptions(limits=limits),
        expectations=parsed.expectations,
        program=parsed.program(f"<{docname}:{region.first}>", default_timeout=settings.timeout),
        error=error,
        file_digest=digest,
        error_line=error_line,
        error_subtype=error_subtype,
        page_example=True,
    )


def _is_prompted_comment(line: str) -> bool:
    return line.lstrip().startswith(">>>") and line.lstrip()[3:].strip().startswith("#")


def _merge(domain: JaxcheckDomain, docname: str, path: str, added: list[Placed]) -> list[Placed]:
    """Put the new blocks among the document's blocks in the order they run.

    Setup blocks first, cleanup blocks last, the rest in page order. Blocks
    keep their numbers (rendered nodes refer to them); new ones get the next
    ones. Blocks from included files stay where the include put them.
    """
    blocks = domain.blocks(docname)
    number = len(blocks)
    numbered: list[Placed] = []
    for item in added:
        numbered.append(replace(item, block=replace(item.block, index=number)))
        number += 1
    front = [p.block for p in numbered if p.place == FIRST]
    back = [p.block for p in numbered if p.place == LAST]
    pending = sorted((p for p in numbered if p.place == IN_PLACE), key=lambda p: p.position)
    merged: list[Block] = list(front)
    for block in blocks:
        while pending and block.path == path and pending[0].position < block.body_line:
            merged.append(pending.pop(0).block)
        merged.append(block)
    merged += [p.block for p in pending] + back
    domain.per_document("blocks")[docname] = merged
    return numbered


def _wrap_code_blocks(
    doctree: nodes.document, placed: list[Placed], shown: dict[int, nodes.Element]
) -> None:
    """Wrap the code block showing each group of examples, so it renders with its verdict."""
    candidates = [
        node
        for node in doctree.findall(nodes.literal_block)
        if not _inside_jaxcheck_block(node) and "testnodetype" not in node
    ]
    candidates += list(doctree.findall(nodes.doctest_block))
    used: set[int] = set()
    for item in placed:
        block = item.block
        if item.shown is not None:
            node = shown.get(id(item.shown))
            if node is None or isinstance(node, nodes.comment) or id(node) in used:
                continue
        elif item.place == IN_PLACE:
            first = next((line.strip() for line in block.body if line.strip()), "")
            matching = [n for n in candidates if id(n) not in used and first in n.astext()]
            if not matching:
                continue  # in a comment, or not shown at all: checked, nothing to mark
            node = min(matching, key=lambda n: abs((n.line or 0) - block.body_line))
        else:
            continue
        used.add(id(node))
        wrapper = jaxcheck_block(docname=block.docname, index=block.index, hidden=False)
        node.replace_self(wrapper)
        wrapper += node


def _inside_jaxcheck_block(node: nodes.Node) -> bool:
    parent = node.parent
    while parent is not None:
        if isinstance(parent, jaxcheck_block):
            return True
        parent = parent.parent
    return False


def unchecked_examples(domain: JaxcheckDomain) -> int:
    """How many examples ``"report"`` found and left unchecked."""
    return sum(sum(counts) for counts in domain.per_document(UNCHECKED).values())
