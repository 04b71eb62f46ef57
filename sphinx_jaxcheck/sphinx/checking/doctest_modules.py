"""``jaxcheck_doctest_modules``: the docstrings of modules, checked as ``pytest
--doctest-modules`` checks them, whether or not a page shows them; and every docstring
a page shows, checked once, with its module's.

On ``env-updated``, before the check: a worker collects the docstrings
(:mod:`...worker.doctest_modules`; the Sphinx process never imports the
modules), or the collection cache has them while every file and folder that
collecting read is unchanged. Each docstring's examples become blocks of its
module's session (:mod:`...expect.docstrings`), reported at its ``.py`` file and
line, and join the root document's blocks, after that page's own, so they are
checked, reported and cached with the rest. So do the docstrings pages show (autodoc)
that the collection does not hold, each once however many pages show it: a module's
docstrings run in one process in pytest's order (by name), as pytest runs them. The
pages' blocks of them are set aside (kept, to come back when the root no longer checks
them, or is not checked) and their nodes show the verdicts of the root's blocks
(:data:`..domain.DOCTEST_MODULES_CHECKED_AT`). A module that cannot be imported is an
error at its file. The examples of the text files beside the project
(:mod:`.doctest_files`) join the root document's blocks the same way, after the
docstrings'.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from ...cache.docstrings import CollectionCache, collection_key, path_digests
from ...config import Settings
from ...expect.docstrings import Docstring, docstring_blocks, docstring_of
from ...model import Block, Subtype
from ...report.findings import Finding
from ...rewrite.digests import file_digest
from ..domain import (
    BLOCKS,
    DOCTEST_MODULES_CHECKED_AT,
    DOCTEST_MODULES_OWN,
    DOCTEST_MODULES_SET_ASIDE,
    FINDINGS,
    VERDICTS,
    JaxcheckDomain,
    domain_of,
)
from ..interpreter import fingerprint
from ..settings import cache_directory, settings_of, stop
from ..stages import EnvUpdated
from .doctest_files import blocks_of_files
from .read_only import is_read_only
from .workers import early_workers


def setup_doctest_modules(app: Sphinx) -> None:
    """Add the modules' docstrings to what the check runs."""
    app.connect("env-updated", _add, priority=EnvUpdated.DOCSTRINGS)


def _add(app: Sphinx, env: BuildEnvironment) -> list[str]:
    if is_read_only(app):
        return []
    settings = settings_of(app.config)
    domain = domain_of(env)
    root = app.config.root_doc
    domain.build.unchecked_file_examples = 0
    wanted = settings.doctest_modules and settings.doctests != "off"
    if root not in env.found_docs or not domain.in_scope(root):
        _set_aside(domain, root, False)  # the pages checked here check the docstrings
        return []
    files, findings = blocks_of_files(app, root)
    blocks: list[Block] = []
    if wanted:
        collection = _collection(app, settings)
        blocks = _blocks(collection, root, settings)
        findings = [*_problems(collection, root, Path(app.confdir) / "conf.py"), *findings]
    # pytest's order within each module: by the docstrings' names (stable: a docstring's parts
    # stay in order), the pages' with the collected.
    blocks = sorted(
        [*blocks, *_shown_on_pages(domain, root, {p for p in map(_place, blocks) if p})],
        key=lambda block: (block.options.session or "", block.program.namespace),
    )
    if (
        not blocks
        and not files
        and not findings
        and root not in domain.per_document(DOCTEST_MODULES_OWN)
    ):
        _set_aside(domain, root, False)
        return []
    _replace(domain, root, [*blocks, *files], findings)
    _set_aside(domain, root, True)
    return []


def _collection(app: Sphinx, settings: Settings) -> dict[str, Any]:
    """The docstrings of the configured modules: from the cache, or collected in a worker."""
    modules, ignore = settings.doctest_modules, settings.doctest_modules_ignore
    cache = (
        CollectionCache(cache_directory(app.confdir, settings)) if settings.writes_cache else None
    )
    filters = settings.filterwarnings
    key = collection_key(fingerprint(app), modules, ignore, filters)
    found = cache.get(key) if cache and settings.reads_cache else None
    if found is None:
        collected = early_workers(app).collect(modules, ignore, settings.timeout, filters)
        found = (
            {**collected.result, "problem": collected.problem}
            if collected.problem
            else collected.result
        )
        missing = [
            p["module"]
            for p in found.get("problems", ())
            if p["module"] in modules and not p["path"]
        ]
        if missing:
            stop(
                f"configuration error: jaxcheck_doctest_modules names {missing[0]}, which the "
                f"workers' Python cannot import ({_problem_of(found, missing[0])}): install it "
                "there, or put its folder on PYTHONPATH"
            )
        # Not kept when collecting used what cannot be checked again (an import hook).
        if cache and "problem" not in found and not found.get("untracked"):
            cache.put(key, found, path_digests(found["files"], found["folders"]))
    return found


def _problem_of(found: dict[str, Any], module: str) -> str:
    return str(next(p["message"] for p in found["problems"] if p["module"] == module))


def _blocks(collection: dict[str, Any], root: str, settings: Settings) -> list[Block]:
    blocks: list[Block] = []
    for item in collection.get("docstrings", ()):
        doc = Docstring.collected(item)
        found = docstring_blocks(
            doc,
            docname=root,
            flags=settings.doctest_optionflags,
            timeout=settings.timeout,
            digest=file_digest(doc.path),
        )
        blocks += found
    return blocks


def _shown_on_pages(
    domain: JaxcheckDomain, root: str, collected: set[tuple[str, int]]
) -> list[Block]:
    """The blocks of the docstrings pages in scope show that the collection does not hold,
    each once (the first page's, by name), as the root's: with the collected, a module's
    docstrings are one session, as pytest runs them. A docstring in no file stays where it is
    shown (it has no place of its own to be found at twice)."""
    aside = domain.per_document(DOCTEST_MODULES_SET_ASIDE)
    own = domain.per_document(DOCTEST_MODULES_OWN)
    found: dict[tuple[str, int], Block] = {}
    for docname in sorted({*domain.documents_with_blocks(), *aside}):
        if not domain.in_scope(docname):
            continue
        current = domain.blocks(docname)
        shown = own[docname][0] if docname == root and root in own else len(current)
        page = os.path.realpath(domain.env.doc2path(docname))
        for block in aside.get(docname) or current[:shown]:
            place = _place(block)
            if place is not None and place not in collected and place[0] != page:
                found.setdefault(place, replace(block, docname=root))
    return list(found.values())


def _place(block: Block) -> tuple[str, int] | None:
    """Where a docstring block's examples start, as a page's blocks of it say too (None: no
    docstring's)."""
    if docstring_of(block) is None:
        return None
    return (os.path.realpath(block.path), block.body_line)


def _set_aside(domain: JaxcheckDomain, root: str, gathered: bool) -> None:
    """Set aside the pages' blocks of the docstrings the root checks (``gathered``: it does,
    else bring every one back), each page's nodes pointing at the root's block; a page whose
    blocks changed is checked again."""
    aside = domain.per_document(DOCTEST_MODULES_SET_ASIDE)
    checked_at = domain.per_document(DOCTEST_MODULES_CHECKED_AT)
    own = domain.per_document(DOCTEST_MODULES_OWN)
    checkers: dict[tuple[str, int], tuple[str, int]] = {}  # place: (docname, number)
    if gathered and root in own:
        for block in domain.blocks(root)[own[root][0] :]:
            found = _place(block)
            if found is not None:
                checkers.setdefault(found, (root, block.index))
    for docname in sorted({*domain.documents_with_blocks(), *aside}):
        current = domain.blocks(docname)
        shown = own[docname][0] if docname == root and root in own else len(current)
        every = aside.pop(docname, None) or current[:shown]  # the page's own, in its order
        checked_at.pop(docname, None)
        kept: list[Block] = []
        moved: list[tuple[int, str, int]] = []
        for block in every:
            place = _place(block)
            if place in checkers and domain.in_scope(docname):
                moved.append((block.index, *checkers[place]))
            else:
                kept.append(block)
        if moved:
            aside[docname] = every
            checked_at[docname] = moved
        if docname == root and root in own:
            own[root] = (len(kept), own[root][1])
        if [*kept, *current[shown:]] != current:
            domain.per_document(BLOCKS)[docname] = [*kept, *current[shown:]]
            domain.per_document(VERDICTS).pop(docname, None)


def _problems(collection: dict[str, Any], root: str, conf: Path) -> list[Finding]:
    """What kept docstrings from being collected, as errors at the module's file."""
    if "problem" in collection:
        return [
            Finding(
                Subtype.ERROR,
                f"the docstrings of jaxcheck_doctest_modules were not collected: "
                f"{collection['problem']}; none of their examples is checked",
                str(conf),
                1,
                root,
            )
        ]
    return [
        Finding(
            Subtype.ERROR,
            f"{problem['module']} cannot be imported, so the examples of its docstrings are not "
            f"checked (jaxcheck_doctest_modules): {problem['message']}. Fix the import, or leave "
            "the module out with jaxcheck_doctest_modules_ignore",
            problem["path"] or str(conf),
            1,
            root,
        )
        for problem in collection.get("problems", ())
    ]


def _replace(
    domain: JaxcheckDomain, root: str, blocks: Sequence[Block], findings: Sequence[Finding]
) -> None:
    """Make these the root document's docstring blocks and problems, after the page's own.

    The document is checked again when they changed (its page's sessions come from the cache).
    """
    own = domain.per_document(DOCTEST_MODULES_OWN)
    ours_before = own.get(root)
    current = domain.blocks(root)
    read = domain.per_document(FINDINGS).get(root, [])
    page_blocks = current[: ours_before[0]] if ours_before else current
    page_findings = read[: ours_before[1]] if ours_before else read
    # After every number of the page's own blocks, those set aside too (nodes refer to them).
    first = len(domain.per_document(DOCTEST_MODULES_SET_ASIDE).get(root) or page_blocks)
    numbered = [replace(block, index=first + n) for n, block in enumerate(blocks)]
    merged = [*page_blocks, *numbered]
    if merged != current:
        domain.per_document(BLOCKS)[root] = merged
        domain.per_document(VERDICTS).pop(root, None)
    domain.per_document(FINDINGS)[root] = [*page_findings, *findings]
    if blocks or findings:
        own[root] = (len(page_blocks), len(page_findings))
    else:
        own.pop(root, None)
