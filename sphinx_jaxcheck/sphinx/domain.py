"""Per-document jaxcheck state kept in Sphinx's environment.

Like ``sphinx.ext.todo``: everything is stored per docname, dropped when a
document is re-read (``clear_doc``) and merged back from parallel readers
(``merge_domaindata``), so incremental and ``-j N`` builds see the same state.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence, Set
from typing import Any, ClassVar

from sphinx.domains import Domain
from sphinx.environment import BuildEnvironment

from ..model import Block, Verdict
from ..report.findings import Finding, Refusal, findings_of, in_report_order
from ..rewrite.places import Places
from ..worker.dependencies import Dependencies
from .settings import settings_of, unknown_settings

# Keys of per-document dictionaries; other features add their own here.
PER_DOCUMENT = (
    "blocks",
    "verdicts",
    "findings",
    "citations",
    "cards",
    "unchecked_examples",
    "unchecked_cells",
    "foreign_examples",
    "used",
    "uncached",
    "assumed",
    "read_from",
    "jaxcheck-status-pages",
    "jaxcheck-matrix-pages",
    "doctest-modules-own",
    "doctest-modules-set-aside",
    "doctest-modules-checked-at",
    "compiled",
)


# In the data, not per document: what the matrix tables cannot vouch for, found again in
# every build (``sphinx/matrix_page``), against the matrix file as it is then.
FINDINGS_OF_TABLES = "matrix_findings"


class JaxcheckDomain(Domain):
    """Holds blocks, their verdicts, citations, Q&A cards and findings per document."""

    name = "jaxcheck"
    label = "jaxcheck"
    data_version = 2  # 2: what sessions used, as Dependencies
    initial_data: ClassVar[dict[str, Any]] = {key: {} for key in PER_DOCUMENT} | {"fingerprint": ""}
    # The documents this build checks and reports on (None: every one). Set by
    # the jaxcheck builder when given files; not kept in the environment.
    scope: frozenset[str] | None = None

    def in_scope(self, docname: str) -> bool:
        """Whether this build checks and reports on ``docname``."""
        return self.scope is None or docname in self.scope

    def per_document(self, key: str) -> dict[str, list[Any]]:
        """The ``{docname: [...]}`` store for one kind of item."""
        store: dict[str, list[Any]] = self.data.setdefault(key, {})
        return store

    # -- blocks and verdicts ----------------------------------------------------

    def add_block(self, block: Block) -> None:
        """Remember a block read from its document (in document order)."""
        self.per_document("blocks").setdefault(block.docname, []).append(block)

    def blocks(self, docname: str) -> list[Block]:
        """The blocks of a document, in document order."""
        return list(self.per_document("blocks").get(docname, []))

    def documents_with_blocks(self) -> list[str]:
        """Every document that has at least one block."""
        return sorted(doc for doc, blocks in self.per_document("blocks").items() if blocks)

    def set_verdicts(self, docname: str, verdicts: list[Verdict]) -> None:
        """Store the verdicts of a document's blocks (same order as its blocks)."""
        self.per_document("verdicts")[docname] = verdicts

    def verdict(self, docname: str, index: int) -> Verdict | None:
        """The verdict on one block (by its number), once it has been checked."""
        verdicts = self.per_document("verdicts").get(docname, [])
        blocks = self.per_document("blocks").get(docname, [])
        if index < min(len(verdicts), len(blocks)) and blocks[index].index == index:
            usual: Verdict = verdicts[index]  # numbered in document order: the usual case
            return usual
        # A page's own examples are numbered after its blocks but run among them.
        return next((v for b, v in zip(blocks, verdicts, strict=False) if b.index == index), None)

    def checked_at(self, docname: str, index: int) -> tuple[str, int]:
        """Where the block a page's node shows is checked: its own place, or the block that
        checks it (a docstring runs once: where ``jaxcheck_doctest_modules`` collects it, else
        on the first page showing it)."""
        for page_index, where, number in self.per_document("doctest-modules-checked-at").get(
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
        verdicts = self.per_document("verdicts")
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
        self.data.setdefault("used", {})[docname] = used
        self.per_document("uncached")[docname] = list(uncached)
        self.per_document("assumed")[docname] = list(assumed)

    def used(self) -> dict[str, Dependencies]:
        """By document: what its sessions depended on besides their code."""
        found: dict[str, Dependencies] = self.data.setdefault("used", {})
        return found

    def uncached(self) -> list[tuple[str, str]]:
        """Why sessions of documents in scope that ran could not be cached: (docname, why)."""
        return [
            (doc, why)
            for doc, reasons in sorted(self.per_document("uncached").items())
            if self.in_scope(doc)
            for why in sorted(reasons)
        ]

    def assumed(self) -> list[tuple[str, str]]:
        """The sessions of documents in scope cached by assumption (``jaxcheck_cache_assume``),
        ran or reused: (docname, why, at its block)."""
        return [
            (doc, why)
            for doc, reasons in sorted(self.per_document("assumed").items())
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
        self.per_document("findings").setdefault(docname, []).append(finding)

    def read_findings(self) -> Iterator[Finding]:
        """Every problem recorded while reading documents in scope, in document order, after
        those of the configuration (``jaxcheck_*`` names that are no setting), then those of
        the matrix tables."""
        yield from unknown_settings(self.env.config)
        for docname in sorted(self.per_document("findings")):
            if self.in_scope(docname):
                yield from self.per_document("findings")[docname]
        yield from self.data.get(FINDINGS_OF_TABLES, [])

    def all_findings(self) -> Iterator[Finding]:
        """Every problem still open: from reading, and from verdicts (less what update fixed),
        document by document in the order of their lines."""
        rewritten = self.data.get("rewritten", set())
        found = list(self.read_findings())
        refusal = self.update_refusal()
        for block, verdict in self.checked_blocks():
            found.extend(
                finding
                for finding in findings_of(block, verdict, refusal)
                if not (finding.is_drift and (finding.path, finding.line) in rewritten)
            )
        yield from in_report_order(found)

    def update_refusal(self) -> Refusal:
        """Why ``jaxcheck update`` would refuse a drift before running it again, as update
        itself decides for this source folder and its settings (None: it would go on)."""
        settings = settings_of(self.env.config)
        return Places(str(self.env.srcdir), allow_outside=settings.update_allow_outside).refusal

    # -- Sphinx's protocol ------------------------------------------------------

    def clear_doc(self, docname: str) -> None:
        for key in PER_DOCUMENT:
            self.per_document(key).pop(docname, None)

    def merge_domaindata(self, docnames: Set[str], otherdata: dict[str, Any]) -> None:
        for key in PER_DOCUMENT:
            mine = self.per_document(key)
            for docname, items in otherdata.get(key, {}).items():
                if docname in docnames:
                    mine[docname] = items

    def resolve_any_xref(self, *args: Any, **kwargs: Any) -> list[Any]:
        return []


def domain_of(env: BuildEnvironment) -> JaxcheckDomain:
    """Our domain in this environment."""
    domain = env.get_domain("jaxcheck")
    assert isinstance(domain, JaxcheckDomain)
    return domain
