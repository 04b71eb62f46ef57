"""The docstrings mkdocstrings renders on an MkDocs project's pages (``::: dotted.name``), as
blocks checked as ``jaxcheck_doctest_modules`` checks a Sphinx project's docstrings.

A worker collects the docstrings of the module each name lies in (this
process imports none of them): the longest leading part of the name that is a
module. The collection is kept in the cache while every file and folder it read
is unchanged, as a Sphinx project's is. Each docstring the line renders
(:mod:`..expect.mkdocstrings`: the object's and its members') becomes blocks of
the first page that shows it, after the page's own, reported at its ``.py``
file and line (:mod:`..expect.docstrings`); a module's docstrings on a page run
in one session in pytest's order (by name). A name whose module cannot be
imported is a finding at its ``:::`` line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..cache.docstrings import CollectionCache, collection_key, path_digests
from ..config import Settings
from ..expect.docstrings import Docstring, docstring_blocks
from ..expect.mkdocstrings import Shown, renders
from ..model import Block, Subtype
from ..report.findings import Finding
from ..rewrite.digests import file_digest

# Collects the docstrings of one module (and its submodules), as the worker's result says
# (``worker.doctest_modules.collect``), with ``problem`` when the worker gave none.
Collect = Callable[[str], dict[str, Any]]


@dataclass(frozen=True)
class Module:
    """Where a ``:::`` name lies: its module's name and collected docstrings, or why none."""

    name: str
    docstrings: tuple[dict[str, Any], ...] = ()
    problem: str = ""


def cached_collect(
    collect: Collect, cache: CollectionCache | None, fingerprint: str, settings: Settings
) -> Collect:
    """``collect``, its results kept in ``cache`` (and taken from it, as ``settings`` allow)
    while what it read is unchanged; not kept when it used what cannot be checked again (an
    import hook)."""

    def cached(module: str) -> dict[str, Any]:
        key = collection_key(fingerprint, [module], [], settings.filterwarnings)
        found = cache.get(key) if cache and settings.reads_cache else None
        if found is None:
            found = collect(module)
            if cache and "problem" not in found and not found.get("untracked"):
                cache.put(key, found, path_digests(found["files"], found["folders"]))
        return found

    return cached


def module_of(name: str, collect: Collect) -> Module:
    """The module ``name`` lies in: its longest leading part a worker finds as a module."""
    parts = name.split(".")
    why = ""
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        found = collect(candidate)
        if found.get("problem"):
            return Module(
                candidate, problem=f"its docstrings were not collected: {found['problem']}"
            )
        own = [p for p in found.get("problems", ()) if p["module"] == candidate]
        if own and not own[0]["path"]:  # no module of this name: one level up
            why = why or str(own[0]["message"])
            continue
        if own:
            return Module(candidate, problem=f"{candidate} cannot be imported: {own[0]['message']}")
        return Module(candidate, tuple(found.get("docstrings", ())))
    return Module(parts[0], problem=f"{parts[0]} cannot be imported: {why}")


def docstring_documents(
    shown: Mapping[str, Sequence[Shown]],
    pages: Mapping[str, str],
    collect: Collect,
    settings: Settings,
) -> tuple[dict[str, list[Block]], list[Finding]]:
    """The blocks of the docstrings each page (by docname, in page order) renders, each
    docstring on the first page that renders it; and the ``:::`` lines whose module cannot be
    imported, as findings at those lines. ``pages`` gives each page's file."""
    modules: dict[str, Module] = {}
    taken: set[tuple[str, str, int]] = set()
    blocks: dict[str, list[Block]] = {}
    findings = []
    for docname, objects in shown.items():
        page: list[Docstring] = []
        for item in objects:
            if item.problem:
                findings.append(_finding(item.problem, pages[docname], item.line, docname))
                continue
            module = modules.get(item.name) or module_of(item.name, collect)
            modules[item.name] = module
            if module.problem:
                why = (
                    f"`::: {item.name}`: {module.problem}; the examples of its docstrings are "
                    "not checked. Make it importable by the workers' Python (install it, or "
                    "list its folder in mkdocstrings' paths in mkdocs.yml)"
                )
                findings.append(_finding(why, pages[docname], item.line, docname))
                continue
            for found in module.docstrings:
                place = (found["name"], found["path"], found["line"])
                if place not in taken and renders(
                    item, found["name"], found["module"], module.name
                ):
                    taken.add(place)
                    page.append(Docstring.collected(found))
        if page:
            blocks[docname] = _blocks(page, docname, settings)
    return blocks, findings


def _blocks(docstrings: list[Docstring], docname: str, settings: Settings) -> list[Block]:
    """A page's docstring blocks, a module's in pytest's order (by name)."""
    ordered = sorted(docstrings, key=lambda doc: (doc.module, doc.name))
    return [
        block
        for doc in ordered
        for block in docstring_blocks(
            doc,
            docname=docname,
            flags=settings.doctest_optionflags,
            timeout=settings.timeout,
            digest=file_digest(doc.path),
        )
    ]


def _finding(message: str, path: str, line: int, docname: str) -> Finding:
    return Finding(Subtype.DROPPED, message, path, line, docname)
