"""A page's own ``>>>`` examples, checked where they stand (``jaxcheck_doctests``).

When a document has been read (``doctree-read``), its source text is searched
for examples as ``pytest --doctest-glob`` finds them (:mod:`..native`), less
those inside ``jaxcheck`` blocks. With ``"check"`` each group of examples
becomes a block of the document's session, in document order among the
``jaxcheck`` blocks, and the code block that shows it is wrapped so it renders
with its verdict. With ``"report"`` they are only counted, for the summary.
"""

from __future__ import annotations

from dataclasses import replace

from docutils import nodes
from sphinx.application import Sphinx

from ..config import Settings
from ..grammar import parse_body
from ..model import Block, BlockOptions
from ..native import Region, count_examples, find_regions
from .block_directive import file_digest
from .domain import JaxcheckDomain
from .nodes import jaxcheck_block
from .settings import settings_of

UNCHECKED = "unchecked_examples"


def setup_native_examples(app: Sphinx) -> None:
    """Find the examples of every document once it has been read."""
    app.connect("doctree-read", _find_examples)


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
    domain = env.get_domain("jaxcheck")
    assert isinstance(domain, JaxcheckDomain)
    own = [b for b in domain.blocks(docname) if b.path == path]
    taken = [(b.body_line, b.body_line + max(len(b.body), 1) - 1) for b in own]
    regions = find_regions(text, taken)
    if not regions:
        return
    if settings.doctests == "report":
        domain.per_document(UNCHECKED)[docname] = [count_examples(regions)]
        return
    added = [_block(docname, path, region, settings) for region in regions]
    _merge(domain, docname, path, added)
    _wrap_code_blocks(doctree, added)


def _block(docname: str, path: str, region: Region, settings: Settings) -> Block:
    parsed = parse_body(
        region.lines,
        filename=f"<{docname}:{region.first}>",
        timeout=settings.timeout,
        doctest_flags=settings.doctest_optionflags,
        doctest_only=True,
    )
    return Block(
        docname=docname,
        index=-1,  # numbered when merged into the document's blocks
        path=path,
        body_line=region.first,
        body=region.lines,
        options=BlockOptions(),
        expectations=parsed.expectations,
        program=parsed.program,
        error=parsed.error,
        file_digest=file_digest(path),
        error_line=parsed.error_line,
        native=True,
    )


def _merge(domain: JaxcheckDomain, docname: str, path: str, added: list[Block]) -> None:
    """Put the examples among the document's blocks in the order the page shows them.

    Blocks keep their numbers (rendered nodes refer to them); examples get the
    next ones. Blocks from included files stay where the include put them.
    """
    blocks = domain.blocks(docname)
    pending = list(added)
    merged: list[Block] = []
    number = len(blocks)
    for block in blocks:
        while pending and block.path == path and pending[0].body_line < block.body_line:
            merged.append(replace(pending.pop(0), index=number))
            number += 1
        merged.append(block)
    for block in pending:
        merged.append(replace(block, index=number))
        number += 1
    domain.per_document("blocks")[docname] = merged
    added[:] = [b for b in merged if b.native]


def _wrap_code_blocks(doctree: nodes.document, added: list[Block]) -> None:
    """Wrap the code block showing each group of examples, so it renders with its verdict."""
    shown = [
        node for node in doctree.findall(nodes.literal_block)
        if not _inside_jaxcheck_block(node)
    ]
    shown += [node for node in doctree.findall(nodes.doctest_block)]
    used: set[int] = set()
    for block in added:
        first = next((line.strip() for line in block.body if line.strip()), "")
        candidates = [
            node for node in shown
            if id(node) not in used and first in node.astext() and node.parent is not None
        ]
        if not candidates:
            continue  # in a comment, or not shown at all: checked, nothing to mark
        node = min(candidates, key=lambda n: abs((n.line or 0) - block.body_line))
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

