"""A docstring's ``>>>`` examples as blocks: a module's docstrings one session, each in a
namespace of its own, as pytest runs them.

pytest runs each docstring as one doctest, in a copy of the globals of the
module it was collected from, with the conftest's namespace added (here
``jaxcheck_setup``, which runs first), and a module's doctests one after another
in one process. So the docstrings of a module are one session, in the order
given, each of whose programs names its docstring (a fresh namespace each) and
that module. Its examples are reported at the
``.py`` file and line where its text stands (``__doc__`` line ``k`` is file
line ``line + k``), or, when its text is no literal of any file, all at one
line: where a page shows it, or where its object is defined. Pure: no Sphinx.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..model import Block, DocstringExamples
from .page_examples import find_regions, region_block


@dataclass(frozen=True)
class Docstring:
    """A docstring with examples, where it is reported, and the module it runs in."""

    name: str  # as pytest names its doctest: ``jax.numpy.append``
    module: str  # whose globals (a copy) its examples start from; empty: none
    text: str
    path: str
    line: int  # the file line of its first line (unplaced: the line all its examples are at)
    unplaced: str = ""  # why its text cannot be found in a file
    shown_as: str = ""  # the name autodoc's nodes give it, when not ``name``

    @classmethod
    def collected(cls, item: Mapping[str, Any]) -> Docstring:
        """A docstring as the workers' collection gives it (``worker.doctest_modules``)."""
        return cls(
            item["name"],
            item["module"],
            item["text"],
            item["path"],
            item["line"],
            item.get("unplaced", ""),
        )


SESSION_PREFIX = "docstrings of "


def session_of(doc: Docstring) -> str:
    """The ``:session:`` of a docstring's blocks: one per module, as pytest runs a module's
    doctests one after another in one process (a docstring with no module: its own)."""
    return f"{SESSION_PREFIX}{doc.module}" if doc.module else f"docstring {doc.name}"


def docstring_of(block: Block) -> str | None:
    """The name of the docstring (``pkg.mod.func``, as pytest names it) whose examples a block
    checks, or None for a block of a page."""
    return block.program.namespace or None


def docstring_blocks(
    doc: Docstring, *, docname: str, flags: int, timeout: float, digest: str
) -> list[Block]:
    """The blocks that check a docstring's examples, a region each, in one session."""
    lines = doc.text.splitlines()
    blocks = []
    for number, region in enumerate(find_regions(doc.text), 1):
        first = doc.line if doc.unplaced else doc.line + region.first - 1
        block = region_block(
            docname,
            doc.path,
            replace(region, first=first),
            flags=flags,
            timeout=timeout,
            digest=digest,
            above=lines[: region.first - 1],
            filename=f"<doctest {doc.name}>",
        )
        blocks.append(
            replace(
                block,
                # All of an unplaced docstring's examples share one line: named by the docstring.
                options=replace(
                    block.options,
                    session=session_of(doc),
                    name=(doc.name if number == 1 else f"{doc.name} #{number}")
                    if doc.unplaced
                    else "",
                ),
                program=replace(block.program, module_globals=doc.module, namespace=doc.name),
                kind=DocstringExamples(),
                placed=not doc.unplaced,
                update_refusal=_refusal(doc),
            )
        )
    return blocks


def _refusal(doc: Docstring) -> str:
    """Why update must not rewrite these examples ("": update decides by the file and its
    literal)."""
    if doc.unplaced:
        return (
            f"this example is in the docstring of {doc.name}, which is not found in a file "
            f"({doc.unplaced}): edit it by hand where it is made"
        )
    return ""
