"""The records citations and Q&A cards keep in Sphinx's environment: plain, picklable data,
read by the domain that holds them and by the features that write them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where a citation is checked: pages without one never need it
    from ..cite.citation import Citation


@dataclass(frozen=True)
class CitedAt:
    """A citation as kept in the environment: what was checked, and where it was written."""

    citation: Citation
    docname: str
    path: str
    line: int


@dataclass(frozen=True)
class Card:
    """A card as the environment keeps it (plain, picklable data)."""

    docname: str
    anchor: str  # the HTML id
    label: str  # the std-domain label, for :ref:
    question: str
    answer: str  # plain text, for JSON-LD
    line: int


@dataclass(frozen=True)
class IndexUse:
    """Marks a document that shows a ``jaxcheck-qa-index`` (rewritten on every build)."""

    docname: str
