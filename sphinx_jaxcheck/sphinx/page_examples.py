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

import doctest
import inspect
import sys
from dataclasses import replace
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

from ..config import Settings
from ..expect.docstrings import Docstring, docstring_blocks
from ..expect.doctest_directives import (
    AT_ITS_LINE,
    DEFAULT_GROUP,
    FIRST,
    LAST,
    Scheduled,
    blocks_of,
)
from ..expect.page_examples import Region, find_regions, region_block
from ..judge.example_verdicts import example_verdicts
from ..model import Block
from ..rewrite.digests import file_digest
from ..worker.docstring_places import place_docstring
from .compat import docstring_source_name, doctest_blocks_group, source_path
from .doctree_tests import documented_at, find_tests, global_code
from .domain import BLOCKS, FOREIGN_EXAMPLES, UNCHECKED_EXAMPLES, JaxcheckDomain, domain_of
from .example_markers import TextExamples, mark_nodes
from .notebooks import is_notebook
from .settings import settings_of
from .stages import BuilderInited, DoctreeRead

# In the domain's data: the examples of jaxcheck_doctest_files that "report" counted, each build.
DOCSTRINGS = "jaxcheck_docstrings"  # in temp_data: docstrings autodoc brought into this page
# In temp_data: the docstrings of other packages autodoc brought into this page, not run (by
# documented name: the package and the number of examples); per document, the same counts.
FOREIGN = "jaxcheck_foreign_docstrings"
UNPLACED = "its text is not a string literal of the file it comes from"


def setup_page_examples(app: Sphinx) -> None:
    """Find the examples of every document once it has been read.

    sphinx.ext.doctest's directives are registered here (they are Sphinx's own
    classes) unless that extension is loaded, which registers them itself:
    either way their nodes are read the same, so a project switches by
    removing it from ``extensions`` or keeping it.
    """
    app.connect("doctree-read", _find_examples, priority=DoctreeRead.PAGE_EXAMPLES)
    app.connect("builder-inited", _follow_autodoc, priority=BuilderInited.AUTODOC)
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
    text = getattr(obj, "__doc__", None)
    if not isinstance(text, str) or ">>>" not in text:
        return
    module = module_of(obj, name)
    settings = settings_of(app.config)
    package = foreign_package(module, name, settings)
    if package and settings.doctests_like != "sphinx.ext.doctest":
        # make doctest tests every doctest block of a page; pytest only the project's modules
        foreign: dict[str, tuple[str, int]] = app.env.temp_data.setdefault(FOREIGN, {})  # type: ignore[assignment]
        foreign.setdefault(name, (package, len(doctest.DocTestParser().get_examples(text))))
        return
    near = [sys.modules[m] for m in (module, getattr(obj, "__module__", None)) if m in sys.modules]
    place = place_docstring(obj, text, near)
    noted: dict[str, Docstring] = app.env.temp_data.setdefault(DOCSTRINGS, {})  # type: ignore[assignment]
    # The nodes showing it name it otherwise when it is re-exported: haiku.with_rng's name
    # haiku._src.base.with_rng.
    shown_as = docstring_source_name(obj, name)
    shown_as = "" if shown_as == name else shown_as
    if place is None:  # reported where the page shows it (path and line are the page's)
        found = Docstring(name, module, text, "", 0, unplaced=UNPLACED, shown_as=shown_as)
    else:
        found = Docstring(name, module, text, place.path, place.line, shown_as=shown_as)
    noted.setdefault(name, found)


def foreign_package(module: str, name: str, settings: Settings) -> str:
    """The top-level package of ``module`` when it is none of the project's, else "".

    The project's are the packages of the names its pages document (``jax`` for
    ``jax.numpy.load``), of ``jaxcheck_doctest_modules``, and ``jaxcheck_docstring_packages``:
    ``jax.numpy.load`` is NumPy's own function, whose docstring pytest never runs for JAX.
    """
    package = module.partition(".")[0]
    own = {name.partition(".")[0]}
    own.update(
        m.partition(".")[0] for m in (*settings.doctest_modules, *settings.docstring_packages)
    )
    return "" if not package or package in own else package


def foreign_examples(domain: JaxcheckDomain) -> dict[str, int]:
    """By package, the examples of other packages' docstrings that pages show and that were not
    run."""
    counts: dict[str, int] = {}
    for found in domain.per_document(FOREIGN_EXAMPLES).values():
        for package, count in found:
            counts[package] = counts.get(package, 0) + count
    return dict(sorted(counts.items()))


def by_shown_name(docstrings: dict[str, Docstring]) -> dict[str, Docstring]:
    """``docstrings`` (by documented name) by the names autodoc's nodes give them, and by
    their documented names too, for a documenter of another extension that names its nodes
    so. Several names of one object share its nodes' name: the first documented has it."""
    shown: dict[str, Docstring] = {}
    for doc in docstrings.values():
        shown.setdefault(doc.shown_as or doc.name, doc)
    return {**docstrings, **shown}


def module_of(obj: Any, name: str) -> str:
    """The module whose globals pytest runs a docstring in: the one the object says it belongs
    to (its own ``__module__``, as pytest's finder decides), else the longest prefix of the
    documented name that is a module (a partial's ``__module__`` is only its class's)."""
    own = getattr(obj, "__module__", None)
    inherited = not (inspect.isclass(obj) or inspect.isroutine(obj)) and own == getattr(
        type(obj), "__module__", None
    )
    if isinstance(own, str) and own in sys.modules and not inherited:
        return own
    parts = name.split(".")
    prefixes = (".".join(parts[:n]) for n in range(len(parts), 0, -1))
    return next((prefix for prefix in prefixes if prefix in sys.modules), "")


def _docstring_blocks(
    doctree: nodes.document,
    path: str,
    noted: dict[str, Docstring],
    settings: Settings,
    docname: str,
) -> list[Scheduled]:
    """Blocks for the examples of the docstrings autodoc put into this page.

    Each docstring is a session of its own, as pytest runs it, checked where
    the page shows it: after the page's own line that comes last before the
    docstring's first node. Its examples are reported at their file and line
    (an unplaced docstring's, by :func:`placed_on_page`, at the page's).
    """
    where, last_line = _shown_after(doctree, path)
    scheduled = []
    for name, doc in noted.items():
        blocks = docstring_blocks(
            doc,
            docname=docname,
            flags=settings.doctest_optionflags,
            timeout=settings.timeout,
            digest=file_digest(doc.path),
        )
        order = where.get(doc.shown_as or name, where.get(name, last_line)) + 0.5
        scheduled += [Scheduled(block, AT_ITS_LINE, order=order) for block in blocks]
    return scheduled


def _shown_after(doctree: nodes.document, path: str) -> tuple[dict[str, int], int]:
    """For each docstring the page shows, the page's last line before its first node; and the
    page's last line."""
    last_line = 0
    where: dict[str, int] = {}
    for node in doctree.findall(nodes.Element):
        source = node.source or ""
        if source == path and node.line:
            last_line = node.line
        elif ":docstring of " in source:
            where.setdefault(source.rsplit(":docstring of ", 1)[1], last_line)
    return where, last_line


def placed_on_page(
    doctree: nodes.document, lines: list[str], path: str, shown: dict[str, Docstring]
) -> dict[str, Docstring]:
    """``shown`` with each docstring whose text is in no file placed at the page line of the
    autodoc directive that shows it (else the page's last line before its first node)."""
    if not shown:
        return {}  # without walking the doctree
    before, _ = _shown_after(doctree, path)
    placed = {}
    for name, doc in shown.items():
        if doc.unplaced:  # the directive documents it under its documented name
            after = before.get(doc.shown_as or name, before.get(name, 0))
            line = documented_at(lines, name, after)
            doc = replace(doc, path=path, line=max(line, 1))
        placed[name] = doc
    return placed


def _find_examples(app: Sphinx, doctree: nodes.document) -> None:
    settings = settings_of(app.config)
    if settings.doctests == "off":
        return
    env = app.env
    docname = env.docname
    path = str(source_path(env, docname))
    if is_notebook(env):
        return  # its cells are its blocks (notebooks.py), its text no page of examples
    try:
        with open(path, encoding=app.config.source_encoding) as handle:
            text = handle.read().removeprefix("\ufeff")
    except (OSError, UnicodeDecodeError, LookupError):
        return  # unreadable sources are reported where Sphinx reads them
    domain = domain_of(env)
    lines = text.splitlines()
    shown: dict[str, Docstring] = env.temp_data.get(DOCSTRINGS, {})  # type: ignore[assignment]
    foreign: dict[str, tuple[str, int]] = env.temp_data.get(FOREIGN, {})  # type: ignore[assignment]
    if foreign and settings.doctests == "check":
        domain_of(env).per_document(FOREIGN_EXAMPLES)[docname] = list(foreign.values())
    like_sphinx = settings.doctests_like == "sphinx.ext.doctest"
    found = find_tests(
        doctree,
        path=path,
        lines=lines,
        docname=docname,
        docstrings=by_shown_name(shown),
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
        noted = placed_on_page(doctree, lines, path, shown)
    if not regions and not items and not noted and not found.not_run:
        return
    digest = file_digest(path)
    scheduled = [
        Scheduled(
            _block(docname, path, region, settings, digest, lines[: region.first - 1]), AT_ITS_LINE
        )
        for region in regions
    ]
    scheduled += _docstring_blocks(doctree, path, noted, settings, docname)
    scheduled += blocks_of(
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
        domain.per_document(UNCHECKED_EXAMPLES)[docname] = sum(
            len(example_verdicts(p.block, None)) for p in scheduled
        )
        return
    merged = _merge(domain, docname, path, scheduled)
    mark_nodes(
        doctree,
        docname,
        merged,
        {id(item): node for item, node in items},
        found.not_run,
        None
        if like_sphinx
        else TextExamples(
            lines,
            by_shown_name(noted),
            {name: _foreign_reason(package) for name, (package, _) in foreign.items()},
        ),
    )


def _foreign_reason(package: str) -> str:
    return (
        f"a docstring of {package}, whose examples are not checked here: add {package!r} to "
        "jaxcheck_docstring_packages to check them"
    )


def _doctest_blocks_group(app: Sphinx) -> str | None:
    """The group of bare ``>>>`` paragraphs, None when they are not tested (as
    ``doctest_test_doctest_blocks`` says: its default is ``"default"``)."""
    group = getattr(app.config, "doctest_test_doctest_blocks", "default")
    return doctest_blocks_group(group) if isinstance(group, str) and group else None


def _block(
    docname: str,
    path: str,
    region: Region,
    settings: Settings,
    digest: str,
    above: list[str] | None = None,
) -> Block:
    return region_block(
        docname,
        path,
        region,
        flags=settings.doctest_optionflags,
        timeout=settings.timeout,
        digest=digest,
        above=above or [],
    )


def _merge(
    domain: JaxcheckDomain, docname: str, path: str, added: list[Scheduled]
) -> list[Scheduled]:
    """Put the new blocks among the document's blocks in the order they run.

    Setup blocks first, cleanup blocks last, the rest in page order. Blocks
    keep their numbers (rendered nodes refer to them); new ones get the next
    ones. Blocks from included files stay where the include put them.
    """
    blocks = domain.blocks(docname)
    number = len(blocks)
    numbered: list[Scheduled] = []
    for item in added:
        numbered.append(replace(item, block=replace(item.block, index=number)))
        number += 1
    front = [p.block for p in numbered if p.when == FIRST]
    back = [p.block for p in numbered if p.when == LAST]
    pending = sorted((p for p in numbered if p.when == AT_ITS_LINE), key=lambda p: p.position)
    merged: list[Block] = list(front)
    for block in blocks:
        while pending and block.path == path and pending[0].position < block.body_line:
            merged.append(pending.pop(0).block)
        merged.append(block)
    merged += [p.block for p in pending] + back
    domain.per_document(BLOCKS)[docname] = merged
    return numbered


def unchecked_examples(domain: JaxcheckDomain) -> int:
    """How many examples ``"report"`` found and left unchecked: the pages' and those of the
    files beside the project."""
    pages = sum(domain.per_document(UNCHECKED_EXAMPLES).values())
    return pages + domain.build.unchecked_file_examples
