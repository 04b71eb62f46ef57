"""Per-document jaxcheck state kept in Sphinx's environment, and what the last build recorded
of the whole project.

Like ``sphinx.ext.todo``: everything is stored per docname, dropped when a
document is re-read (``clear_doc``) and merged back from parallel readers
(``merge_domaindata``), so incremental and ``-j N`` builds see the same state.
Each piece of it is declared once here, with the type of its value, and lives in
the domain's data under its key: plain, picklable values, as Sphinx pickles the
environment and a parallel reader's state.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence, Set
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from sphinx.domains import Domain
from sphinx.environment import BuildEnvironment

from ..kinds import rules_of
from ..model import Block, Drift, Verdict
from ..report.findings import Finding, Refusal, findings_of, in_report_order
from ..rewrite.places import Places
from ..worker.dependencies import Dependencies
from .environment_records import Card, CitedAt, IndexUse
from .settings import settings_of, unknown_settings

if TYPE_CHECKING:
    from ..rewrite.edits import SourceText
    from ..rewrite.python_literals import Literal

T = TypeVar("T")


@dataclass(frozen=True)
class PerDocument(Generic[T]):
    """One piece of what documents hold: ``{docname: T}``, under ``key`` in the domain's data."""

    key: str


# What each document holds; clear_doc and merge_domaindata take every piece of PER_DOCUMENT.
BLOCKS: PerDocument[list[Block]] = PerDocument("blocks")  # in document order
VERDICTS: PerDocument[list[Verdict]] = PerDocument("verdicts")  # once checked: its blocks' own
FINDINGS: PerDocument[list[Finding]] = PerDocument("findings")  # found while reading
CITATIONS: PerDocument[list[CitedAt]] = PerDocument("citations")
CARDS: PerDocument[list[Card | IndexUse]] = PerDocument("cards")
# What jaxcheck_doctests = "report" and jaxcheck_notebooks = "report" counted and left unchecked.
UNCHECKED_EXAMPLES: PerDocument[int] = PerDocument("unchecked_examples")
UNCHECKED_CELLS: PerDocument[int] = PerDocument("unchecked_cells")
# The examples of other packages' docstrings the page shows, not run: [(package, examples)].
FOREIGN_EXAMPLES: PerDocument[list[tuple[str, int]]] = PerDocument("foreign_examples")
# What its sessions depended on besides their code; why any could not be cached, and why any
# is cached by assumption (jaxcheck_cache_assume).
USED: PerDocument[Dependencies] = PerDocument("used")
UNCACHED: PerDocument[list[str]] = PerDocument("uncached")
ASSUMED: PerDocument[list[str]] = PerDocument("assumed")
# What it was read from: [[path, digest]], its own file first (``read_digests``).
READ_FROM: PerDocument[list[list[str]]] = PerDocument("read_from")
# The project tables it shows (``status_page``, ``matrix_page``): rewritten every build.
STATUS_PAGES: PerDocument[list[bool]] = PerDocument("jaxcheck-status-pages")
# Each matrix table: (whether it shows this page's blocks only, its file, its line).
MATRIX_PAGES: PerDocument[list[tuple[bool, str, int]]] = PerDocument("jaxcheck-matrix-pages")
# jaxcheck_doctest_modules (``checking/doctest_modules``). Of the root document's blocks and
# findings, how many are its own: (blocks, findings).
DOCTEST_MODULES_OWN: PerDocument[tuple[int, int]] = PerDocument("doctest-modules-own")
# A page with blocks of docstrings the root checks: its own blocks as read, those set aside
# among them; and for each one set aside, (its number, the document and number of the block
# that checks it).
DOCTEST_MODULES_SET_ASIDE: PerDocument[list[Block]] = PerDocument("doctest-modules-set-aside")
DOCTEST_MODULES_CHECKED_AT: PerDocument[list[tuple[int, str, int]]] = PerDocument(
    "doctest-modules-checked-at"
)
PER_DOCUMENT: tuple[PerDocument[Any], ...] = (
    BLOCKS,
    VERDICTS,
    FINDINGS,
    CITATIONS,
    CARDS,
    UNCHECKED_EXAMPLES,
    UNCHECKED_CELLS,
    FOREIGN_EXAMPLES,
    USED,
    UNCACHED,
    ASSUMED,
    READ_FROM,
    STATUS_PAGES,
    MATRIX_PAGES,
    DOCTEST_MODULES_OWN,
    DOCTEST_MODULES_SET_ASIDE,
    DOCTEST_MODULES_CHECKED_AT,
)


@dataclass
class BuildState:
    """What the last build recorded of the whole project, not of a document (under ``"build"``
    in the domain's data)."""

    # What made the verdicts kept: the workers' fingerprint ("": none yet), the digest of this
    # extension's code, the JAX version ("": not known). Documents are checked again when
    # either of the first two changes (``checking/outdated``).
    fingerprint: str = ""
    extension: str = ""
    jax_version: str = ""
    split: str | None = None  # the digest of a sharded build's split (``checking/shards``)
    # Found again in every build, against the files as they are then.
    rewritten: set[tuple[str, int]] = field(default_factory=set)  # (path, line) update wrote
    unchecked_file_examples: int = 0  # of the files beside the project, under "report"
    excluded_examples: dict[str, int] = field(default_factory=dict)  # {page: examples}
    matrix_findings: list[Finding] = field(default_factory=list)  # what the tables cannot vouch for


class JaxcheckDomain(Domain):
    """Holds blocks, their verdicts, citations, Q&A cards and findings per document."""

    name = "jaxcheck"
    label = "jaxcheck"
    data_version = 3  # 3: typed pieces (an older environment is read again, not misread)
    initial_data: ClassVar[dict[str, Any]] = {p.key: {} for p in PER_DOCUMENT} | {
        "build": BuildState()
    }
    # The documents this build checks and reports on (None: every one). Set by
    # the jaxcheck builder when given files; not kept in the environment.
    scope: frozenset[str] | None = None

    def in_scope(self, docname: str) -> bool:
        """Whether this build checks and reports on ``docname``."""
        return self.scope is None or docname in self.scope

    def per_document(self, piece: PerDocument[T]) -> dict[str, T]:
        """The ``{docname: value}`` store of one piece of what documents hold."""
        store: dict[str, T] = self.data[piece.key]
        return store

    @property
    def build(self) -> BuildState:
        """What the last build recorded of the whole project."""
        state: BuildState = self.data["build"]
        return state

    # -- blocks and verdicts ----------------------------------------------------

    def add_block(self, block: Block) -> None:
        """Remember a block read from its document (in document order)."""
        self.per_document(BLOCKS).setdefault(block.docname, []).append(block)

    def blocks(self, docname: str) -> list[Block]:
        """The blocks of a document, in document order."""
        return list(self.per_document(BLOCKS).get(docname, []))

    def documents_with_blocks(self) -> list[str]:
        """Every document that has at least one block."""
        return sorted(doc for doc, blocks in self.per_document(BLOCKS).items() if blocks)

    def set_verdicts(self, docname: str, verdicts: list[Verdict]) -> None:
        """Store the verdicts of a document's blocks (same order as its blocks)."""
        self.per_document(VERDICTS)[docname] = verdicts

    def verdict(self, docname: str, index: int) -> Verdict | None:
        """The verdict on one block (by its number), once it has been checked."""
        verdicts = self.per_document(VERDICTS).get(docname, [])
        blocks = self.per_document(BLOCKS).get(docname, [])
        if index < min(len(verdicts), len(blocks)) and blocks[index].index == index:
            return verdicts[index]  # numbered in document order: the usual case
        # A page's own examples are numbered after its blocks but run among them.
        return next((v for b, v in zip(blocks, verdicts, strict=False) if b.index == index), None)

    def checked_at(self, docname: str, index: int) -> tuple[str, int]:
        """Where the block a page's node shows is checked: its own place, or the block that
        checks it (a docstring runs once: where ``jaxcheck_doctest_modules`` collects it, else
        on the first page showing it)."""
        for page_index, where, number in self.per_document(DOCTEST_MODULES_CHECKED_AT).get(
            docname, []
        ):
            if page_index == index:
                return where, number
        return docname, index

    def documents_in_scope(self) -> list[str]:
        """The documents with blocks that this build checks and reports on."""
        return [doc for doc in self.documents_with_blocks() if self.in_scope(doc)]

    def unchecked_documents(self) -> list[str]:
        """Documents in scope whose blocks were read but not yet checked."""
        verdicts = self.per_document(VERDICTS)
        return [doc for doc in self.documents_in_scope() if doc not in verdicts]

    def set_used(
        self,
        docname: str,
        used: Dependencies,
        uncached: Sequence[str],
        assumed: Sequence[str] = (),
    ) -> None:
        """Remember what a document's sessions depended on besides their code, as they first
        used it, why any of them could not be cached, and why any is cached by assumption."""
        self.per_document(USED)[docname] = used
        self.per_document(UNCACHED)[docname] = list(uncached)
        self.per_document(ASSUMED)[docname] = list(assumed)

    def used(self) -> dict[str, Dependencies]:
        """By document: what its sessions depended on besides their code."""
        return self.per_document(USED)

    def uncached(self) -> list[tuple[str, str]]:
        """Why sessions of documents in scope that ran could not be cached: (docname, why)."""
        return [
            (doc, why)
            for doc, reasons in sorted(self.per_document(UNCACHED).items())
            if self.in_scope(doc)
            for why in sorted(reasons)
        ]

    def assumed(self) -> list[tuple[str, str]]:
        """The sessions of documents in scope cached by assumption (``jaxcheck_cache_assume``),
        ran or reused: (docname, why, at its block)."""
        return [
            (doc, why)
            for doc, reasons in sorted(self.per_document(ASSUMED).items())
            if self.in_scope(doc)
            for why in sorted(reasons)
        ]

    def checked_blocks(self) -> Iterator[tuple[Block, Verdict]]:
        """Every block in scope that has a verdict, with it, in document order."""
        for docname in self.documents_in_scope():
            for block in self.blocks(docname):
                verdict = self.verdict(docname, block.index)
                if verdict is not None:
                    yield block, verdict

    # -- findings -------------------------------------------------------------

    def add_finding(self, docname: str, finding: Finding) -> None:
        """Record a problem found while reading (options, citations, quotes)."""
        self.per_document(FINDINGS).setdefault(docname, []).append(finding)

    def read_findings(self) -> Iterator[Finding]:
        """Every problem recorded while reading documents in scope, in document order, after
        those of the configuration (``jaxcheck_*`` names that are no setting), then those of
        the matrix tables."""
        yield from unknown_settings(self.env.config)
        for docname in sorted(self.per_document(FINDINGS)):
            if self.in_scope(docname):
                yield from self.per_document(FINDINGS)[docname]
        yield from self.build.matrix_findings

    def all_findings(self) -> Iterator[Finding]:
        """Every problem still open: from reading, and from verdicts (less what update fixed),
        document by document in the order of their lines."""
        rewritten = self.build.rewritten
        found = list(self.read_findings())
        refusal = self.update_refusal()
        for block, verdict in self.checked_blocks():
            found.extend(
                finding
                for finding in findings_of(block, verdict, rules_of(block), refusal)
                if not (finding.is_drift and (finding.path, finding.line) in rewritten)
            )
        yield from in_report_order(found)

    def update_refusal(self) -> Refusal:
        """Why ``jaxcheck update`` would refuse a drift before running it again, as update
        itself decides for this source folder and its settings (None: it would go on)."""
        settings = settings_of(self.env.config)
        root, outside = str(self.env.srcdir), settings.update_allow_outside
        return Places(root, _edit_problem, rules_of, allow_outside=outside).refusal

    # -- Sphinx's protocol ------------------------------------------------------

    def clear_doc(self, docname: str) -> None:
        for piece in PER_DOCUMENT:
            self.per_document(piece).pop(docname, None)

    def merge_domaindata(self, docnames: Set[str], otherdata: dict[str, Any]) -> None:
        for piece in PER_DOCUMENT:
            mine = self.per_document(piece)
            for docname, value in otherdata[piece.key].items():
                if docname in docnames:
                    mine[docname] = value

    def resolve_any_xref(self, *args: Any, **kwargs: Any) -> list[Any]:
        return []


def domain_of(env: BuildEnvironment) -> JaxcheckDomain:
    """Our domain in this environment."""
    domain = env.get_domain("jaxcheck")
    assert isinstance(domain, JaxcheckDomain)
    return domain


def _edit_problem(
    source: SourceText, block: Block, drift: Drift, literal: Literal | None
) -> str | None:
    """Why update's planner refuses the edit of a drift's own lines: imported only when a drift
    is asked about, since it brings nbformat, which a build without drift never needs."""
    from ..rewrite.update import edit_problem

    return edit_problem(source, block, drift, literal)
