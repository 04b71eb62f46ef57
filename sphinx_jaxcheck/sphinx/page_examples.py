"""A page's own ``>>>`` examples, checked where they stand (``jaxcheck_doctests``).

When a document has been read (``doctree-read``), its examples are found by
the rules ``jaxcheck_doctests_like`` names. pytest's: its source text is
searched as ``pytest --doctest-glob`` searches it (:mod:`..expect.page_examples`),
less what ``jaxcheck`` blocks hold, plus the docstrings autodoc brought in and
sphinx.ext.doctest's directives. sphinx.ext.doctest's: the nodes its builder
tests (:mod:`.doctree_tests`). With ``"check"`` each group of examples becomes
a block of the document's session, in document order among the ``jaxcheck``
blocks, and the node that shows it is wrapped so it renders with its verdict;
a node holding examples that will not run renders saying so. With
``"report"`` they are only counted, for the summary.
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
from ..expect.doctest_directives import DEFAULT_GROUP, FIRST, IN_PLACE, LAST, Placed, blocks_of
from ..expect.grammar import parse_body
from ..expect.page_examples import Region, find_regions
from ..judge.example_verdicts import example_verdicts
from ..model import Block, BlockOptions, Subtype
from ..rewrite.edits import file_digest
from .doctree_tests import find_tests, global_code
from .domain import JaxcheckDomain, domain_of
from .example_markers import TextExamples, mark_nodes
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
    if found is None:
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
            # Placed at its file lines: update writes there when the file and literal allow.
            block = _block(
                docname,
                doc.path,
                replace(region, first=doc.line + region.first - 1),
                settings,
                digest,
                above,
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
    lines = text.splitlines()
    shown: dict[str, Docstring] = env.temp_data.get(DOCSTRINGS, {})  # type: ignore[assignment]
    like_sphinx = settings.doctests_like == "sphinx.ext.doctest"
    found = find_tests(
        doctree,
        path=path,
        lines=lines,
        docname=docname,
        docstrings=shown,
        doctest_blocks=_doctest_blocks_group(app) if like_sphinx else None,
    )
    for finding in found.findings:
        domain.add_finding(docname, finding)
    items = found.tests
    regions: list[Region] = []
    noted: dict[str, Docstring] = {}  # under sphinx.ext.doctest's rules, docstring nodes are tests
    if not like_sphinx:
        own = [b for b in domain.blocks(docname) if b.path == path]
        taken = [(b.body_line, b.body_line + max(len(b.body), 1) - 1) for b in own]
        held = [*(i for i, _ in items), *found.held]  # the tests' own lines, run or not
        taken += [(i.first, i.last) for i in held if i.placed and not i.path]
        regions = find_regions(text, taken)
        root = os.path.dirname(os.path.abspath(app.confdir))
        noted = {name: doc for name, doc in shown.items() if is_own(doc.path, root)}
    if not regions and not items and not noted and not found.not_run:
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
        groups=() if like_sphinx else (DEFAULT_GROUP,),
        global_setup=global_code(app, "testsetup") if like_sphinx else None,
        global_cleanup=global_code(app, "testcleanup") if like_sphinx else None,
    )
    if settings.doctests == "report":  # the examples checking would run, counted
        domain.per_document(UNCHECKED)[docname] = [
            sum(len(example_verdicts(p.block, None)) for p in placed)
        ]
        return
    merged = _merge(domain, docname, path, placed)
    mark_nodes(
        doctree,
        docname,
        merged,
        {id(item): node for item, node in items},
        found.not_run,
        None if like_sphinx else TextExamples(lines, shown, frozenset(noted)),
    )


def _doctest_blocks_group(app: Sphinx) -> str | None:
    """The group of bare ``>>>`` paragraphs, None when they are not tested (as
    ``doctest_test_doctest_blocks`` says: its default is ``"default"``)."""
    group = getattr(app.config, "doctest_test_doctest_blocks", "default")
    return group if isinstance(group, str) and group else None


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


def unchecked_examples(domain: JaxcheckDomain) -> int:
    """How many examples ``"report"`` found and left unchecked."""
    return sum(sum(counts) for counts in domain.per_document(UNCHECKED).values())
