"""Check one citation of JAX source: resolve its target, verify its quote, link it.

This is the arrow ``citation text --check--> Citation`` that the Sphinx roles,
the Q&A cards and the command line share. Pure: no Sphinx, no jax import.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from .jax_source import Location, SourceIndex, TargetError, index_for
from .pin import Pin, installed
from .quotes import find_quote, quote_diff

# ``title <target>``, as Sphinx roles write an explicit title.
_EXPLICIT = re.compile(r"^(.+?)\s*(?<!\x00)<(.*?)>$", re.DOTALL)


@dataclass(frozen=True)
class Citation:
    """A checked citation: where it points, and whether it holds."""

    target: str  # as written: ``loops.py::_check_carry_type``
    quote: str | None = None  # the quoted text, for ``jaxquote`` / ``jaxcheck-quote``
    location: Location | None = None  # what the target names (None: it names nothing)
    url: str | None = None  # the pinned link to the cited (or quoted) lines
    start: int | None = None  # the lines the link points to
    end: int | None = None
    problem: str | None = None  # why it does not hold; None when it does
    is_drift: bool = False  # a quote that is no longer in the source (vs. a bad target)
    diff: str = ""  # for drift: quote vs. the closest passage

    @property
    def ok(self) -> bool:
        """True when the target exists and the quote (if any) is in it."""
        return self.problem is None


def split_title(text: str) -> tuple[str | None, str]:
    """``"title <target>"`` -> ``("title", "target")``; plain ``"target"`` ->
    ``(None, "target")``."""
    match = _EXPLICIT.match(text.strip())
    if match and match.group(2).strip():
        return match.group(1).strip(), match.group(2).strip()
    return None, text.strip()


@functools.lru_cache(maxsize=1)
def installed_index() -> SourceIndex:
    """The index of the installed jax's source files (built once per process)."""
    root = installed().root
    if root is None:
        raise TargetError("jax is not installed, so no citation can be checked: pip install jax")
    return index_for(root)


def check_citation(
    target: str, pin: Pin, quote: str | None = None, index: SourceIndex | None = None
) -> Citation:
    """Resolve ``target`` in the installed source, verify ``quote`` in it, and link it.

    Never raises for bad input: a target that names nothing, or a quote that is
    not there, comes back as a :class:`Citation` with ``problem`` set.
    """
    try:
        index = index or installed_index()
        location = index.resolve(target)
    except TargetError as error:
        return Citation(target, quote=quote, problem=str(error))
    if quote is None or not quote.strip():
        if quote is not None:
            return Citation(
                target,
                quote=quote,
                location=location,
                problem=f"empty quote of {location.label}: write the quoted text before <{target}>",
            )
        url = pin.link(location.path, location.start, location.end)
        return Citation(
            target, quote=quote, location=location, url=url, start=location.start, end=location.end
        )
    text = index.source(location.path).text
    result = find_quote(text, quote, location.start, location.end)
    if result.found:
        url = pin.link(location.path, result.start, result.end)
        return Citation(
            target, quote=quote, location=location, url=url, start=result.start, end=result.end
        )
    url = pin.link(location.path, location.start, location.end)
    diff = quote_diff(quote, result, location.path)
    where = location.label
    return Citation(
        target,
        quote=quote,
        location=location,
        url=url,
        start=location.start,
        end=location.end,
        problem=(
            f"quote not found in {where} (jax {pin.version or 'installed'}): "
            f"the source no longer says what the docs quote, or never did. "
            f"Closest passage (lines {result.start}-{result.end}, {result.similarity:.0%} alike):\n"
            f"{diff}\n"
            "Fix the quote to match the pinned source (quotes are never rewritten by "
            "`jaxcheck update`)."
        ),
        is_drift=True,
        diff=diff,
    )


def source_lines(location: Location, start: int, end: int, index: SourceIndex | None = None) -> str:
    """Lines ``start``-``end`` of a cited file, as written."""
    index = index or installed_index()
    return "\n".join(index.source(location.path).lines[start - 1 : end])
