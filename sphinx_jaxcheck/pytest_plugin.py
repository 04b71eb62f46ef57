"""``pytest --jaxcheck DOCSDIR``: the blocks and citations of a Sphinx project, or the blocks
of an MkDocs project, as pytest items.

Registered through the ``pytest11`` entry point and inert unless a docs folder
is given (``--jaxcheck DOCSDIR``, repeatable, or the ini value
``jaxcheck_docs``). Sphinx reads the docs in the pytest process with the
``dummy`` builder, running nothing; a folder with ``mkdocs.yml`` and no
``conf.py`` is read as ``jaxcheck check`` reads an MkDocs project, with no
Sphinx imported. Items then run their document's sessions with the same
workers, cache and verdicts as a check. A document's items stay
together: under pytest-xdist they go to one worker (by document, also with a
plain ``-n N``), which runs the document's sessions when its first item runs.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .errors import ConfigurationError, JaxcheckError

if TYPE_CHECKING:
    from sphinx.application import Sphinx

    from .mkdocs.check import Checking
    from .mkdocs.documents import Documents
    from .model import Block, Verdict
    from .report.findings import Finding, Refusal
    from .rewrite.update import UpdateReport
    from .run.pool import Workers
    from .sphinx.domain import JaxcheckDomain
    from .sphinx.environment_records import CitedAt

PLUGIN_NAME = "jaxcheck-docs"


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--jaxcheck DOCSDIR``, ``--jaxcheck-update`` and the ini value ``jaxcheck_docs``."""
    group = parser.getgroup("jaxcheck", "docs checked by sphinx-jaxcheck")
    group.addoption(
        "--jaxcheck",
        action="append",
        default=[],
        metavar="DOCSDIR",
        dest="jaxcheck_docs",
        help="check the jaxcheck blocks and citations of the Sphinx project in DOCSDIR (the folder "
        "holding conf.py), or the blocks of the MkDocs project there (mkdocs.yml), as test "
        "items; repeatable",
    )
    group.addoption(
        "--jaxcheck-update",
        action="store_true",
        dest="jaxcheck_update",
        help="rewrite the expected outputs that drifted, as `jaxcheck update` does",
    )
    parser.addini(
        "jaxcheck_docs", type="paths", default=[], help="docs folders to check, as --jaxcheck"
    )


def pytest_configure(config: pytest.Config) -> None:
    """Become active only when docs folders are given."""
    given = [config.invocation_params.dir / folder for folder in config.getoption("jaxcheck_docs")]
    folders = given or [Path(folder) for folder in config.getini("jaxcheck_docs")]
    if folders:
        config.pluginmanager.register(
            DocsPlugin(config, [f.resolve() for f in folders]), PLUGIN_NAME
        )


class ItemFailedError(JaxcheckError, Exception):
    """A problem of an item, already worded as the build reports it."""


class DocsPlugin:
    """The active plugin: adds the docs folders to the collection and schedules their items."""

    def __init__(self, config: pytest.Config, folders: list[Path]) -> None:
        self.config = config
        self.folders = list(dict.fromkeys(folders))
        self.runs: list[DocsRun] = []
        self.worker_notes: list[str] = []  # from xdist workers

    @pytest.hookimpl(wrapper=True)
    def pytest_make_collect_report(
        self, collector: pytest.Collector
    ) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
        report = yield
        if isinstance(collector, pytest.Session) and report.passed:
            report.result.extend(
                DocsFolder.from_parent(collector, path=folder, plugin=self)
                for folder in self.folders
            )
        return report

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        # Without xdist, the first item runs the sessions of every selected document at once.
        selected: dict[DocsRun, set[str]] = {}
        for item in session.items:
            if isinstance(item, DocsItem):
                selected.setdefault(item.run, set()).add(item.docname)
        for run, docnames in selected.items():
            run.selected = docnames

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        for run in self.runs:
            run.close()

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        workeroutput = getattr(self.config, "workeroutput", None)
        if workeroutput is not None:  # an xdist worker: the controller prints the summary
            workeroutput["jaxcheck_notes"] = [line for run in self.runs for line in run.notes]

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        self.worker_notes.extend(getattr(node, "workeroutput", {}).get("jaxcheck_notes", []))

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        lines = [line for run in self.runs for line in run.notes] + self.worker_notes
        if lines:
            terminalreporter.section("jaxcheck")
            for line in lines:
                terminalreporter.write_line(line)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        """Plain ``-n N`` (``--dist load``): every item on its own, but a document's items
        together."""
        if config.getvalue("dist") != "load":
            return None
        from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped, unused-ignore]

        rootpath = config.rootpath
        prefixes = tuple(_nodeid_of(folder, rootpath) for folder in self.folders)

        class ByDocument(LoadScopeScheduling):  # type: ignore[misc]
            def _split_scope(self, nodeid: str) -> str:
                page = nodeid.split("::", 1)[0]
                ours = not page.endswith(".py") and any(
                    page.startswith(prefix + "/") or not prefix for prefix in prefixes
                )
                return page if ours else nodeid

        return ByDocument(config, log)


def _nodeid_of(path: Path, rootpath: Path) -> str:
    try:
        relative = path.relative_to(rootpath).as_posix()
    except ValueError:
        return path.as_posix()
    return "" if relative == "." else relative


def _no_project(folder: Path, config: pytest.Config) -> str:
    """Why ``--jaxcheck FOLDER`` names no Sphinx project, and the one meant if one is near."""
    from .sphinx.source_folder import projects_near

    found = "no such folder" if not folder.exists() else "no conf.py there"
    near = projects_near(folder)
    hint = ""
    if near:
        here = config.invocation_params.dir
        shown = os.path.relpath(near[0], here) if near[0].is_relative_to(here) else str(near[0])
        hint = f"; {shown} holds a conf.py: `pytest --jaxcheck {shown}`"
    return (
        f"{folder}: {found}; expected the Sphinx source folder (the one holding conf.py) after "
        f"--jaxcheck{hint}"
    )


class DocsFolder(pytest.Directory):
    """A Sphinx project (read by Sphinx) or an MkDocs project (read with no Sphinx): it holds
    one page per document with blocks, citations or problems."""

    def __init__(self, *, plugin: DocsPlugin, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.plugin = plugin

    def collect(self) -> Iterator[DocsPage]:
        from .mkdocs.project import config_file

        mkdocs = None if (self.path / "conf.py").is_file() else config_file(self.path)
        if mkdocs is None and not (self.path / "conf.py").is_file():
            raise self.CollectError(f"jaxcheck: {_no_project(self.path, self.config)}")
        update = bool(self.config.getoption("jaxcheck_update"))
        in_xdist_worker = hasattr(self.config, "workerinput")
        try:
            run: DocsRun = (
                MkDocsRun.read(mkdocs, update=update, in_xdist_worker=in_xdist_worker)
                if mkdocs is not None
                else SphinxRun.read(self.path, update=update, in_xdist_worker=in_xdist_worker)
            )
        except ConfigurationError as error:
            # A SystemExit, which pytest lets end the session: one collection error instead.
            message = str(error).removeprefix("jaxcheck: ")
            raise self.CollectError(f"jaxcheck: {self.path}: {message}") from None
        self.plugin.runs.append(run)
        for docname in run.docnames():
            yield DocsPage.from_parent(self, path=run.page_path(docname), run=run, docname=docname)


class DocsPage(pytest.File):
    """One document: its blocks, its citations, and the problems found while reading it."""

    def __init__(self, *, run: DocsRun, docname: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.run = run
        self.docname = docname

    def collect(self) -> Iterator[DocsItem]:
        names: set[str] = set()

        def unique(name: str) -> str:
            candidate, n = name, 1
            while candidate in names:
                n += 1
                candidate = f"{name} ({n})"
            names.add(candidate)
            return candidate

        from .kinds import rules_of

        blocks = self.run.blocks(self.docname)
        as_one = [rules_of(block).one_test_item() for block in blocks]
        for block, one in zip(blocks, as_one, strict=True):
            if not one:
                yield BlockItem.from_parent(self, name=unique(block.label), block=block)
        cells = [block for block, one in zip(blocks, as_one, strict=True) if one]
        if cells:  # a notebook: one item, as it runs as one
            name = unique(f"notebook {os.path.basename(cells[0].path)}")
            yield NotebookItem.from_parent(self, name=name, cells=cells)
        unclaimed = self.run.findings(self.docname)
        for cited in self.run.citations(self.docname):
            claimed = [
                f
                for f in unclaimed
                if (
                    (f.path, f.line) == (cited.path, cited.line)
                    and repr(cited.citation.target) in f.message
                )
                or (
                    (f.path, f.line) == (cited.path, cited.line)
                    and cited.citation.is_drift
                    and f.is_drift
                )
            ][:1]
            unclaimed = [f for f in unclaimed if f not in claimed]
            target = cited.citation.target.replace("::", ":")
            yield CitationItem.from_parent(
                self,
                name=unique(f"citation line {cited.line}: {target}"),
                cited=cited,
                findings=claimed,
            )
        for finding in unclaimed:
            yield ProblemItem.from_parent(
                self, name=unique(f"{finding.subtype.value} line {finding.line}"), finding=finding
            )


class DocsItem(pytest.Item):
    """An item of a docs page; fails with the findings, worded as the build reports them."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        assert isinstance(self.parent, DocsPage)
        self.page: DocsPage = self.parent
        self.run: DocsRun = self.page.run
        self.docname = self.page.docname
        # With --dist loadgroup, xdist keeps a group on one worker: a document's items
        # stay together.
        self.add_marker(pytest.mark.xdist_group(self.page.nodeid))

    def fail_with(self, findings: Sequence[Finding], notes: Sequence[str] = ()) -> None:
        """Fail with these findings, as ``jaxcheck check`` prints them (and notes after them)."""
        from .report.formats import format_finding
        from .report.records import finding_record

        if findings:
            text = "\n".join(format_finding(finding_record(f), False) for f in findings)
            raise ItemFailedError("\n".join([text.rstrip("\n"), *notes]))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ItemFailedError):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo, style))


class BlockItem(DocsItem):
    """One ``jaxcheck`` block: runs (with its document's sessions), then judged."""

    def __init__(self, *, block: Block, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.block = block

    def runtest(self) -> None:
        from .kinds import rules_of
        from .model import Status
        from .report.findings import findings_of
        from .report.records import relative

        verdict = self.run.verdict(self.block)
        if verdict.status is Status.SKIPPED:
            pytest.skip(
                f"not run: {verdict.reason}" if verdict.reason else "not run (its options skip it)"
            )
        open_findings = [
            f
            for f in findings_of(self.block, verdict, rules_of(self.block), self.run.refusal())
            if not (f.is_drift and (f.path, f.line) in self.run.rewritten)
        ]
        refused = [
            f"{relative(f.path)}:{f.line}: cannot update: {self.run.refused[(f.path, f.line)]}"
            for f in open_findings
            if (f.path, f.line) in self.run.refused
        ]
        self.fail_with(open_findings, refused)

    def reportinfo(self) -> tuple[Path, int, str]:
        return Path(self.block.path), self.block.body_line - 1, f"jaxcheck block {self.block.label}"


class NotebookItem(DocsItem):
    """A notebook's code cells, run as one: fails with every cell's findings."""

    def __init__(self, *, cells: list[Block], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cells = cells

    def runtest(self) -> None:
        from .kinds import rules_of
        from .model import Status
        from .report.findings import findings_of

        verdicts = [self.run.verdict(cell) for cell in self.cells]
        if all(v.status is Status.SKIPPED for v in verdicts):
            reasons = {v.reason for v in verdicts}  # one, where the notebook is not run at all
            reason = reasons.pop() if len(reasons) == 1 else ""
            pytest.skip(f"not run: {reason}" if reason else "not run (its options skip every cell)")
        refusal = self.run.refusal()
        found = [
            f
            for cell, verdict in zip(self.cells, verdicts, strict=True)
            for f in findings_of(cell, verdict, rules_of(cell), refusal)
            if not (f.is_drift and (f.path, f.line) in self.run.rewritten)
        ]
        self.fail_with(found)

    def reportinfo(self) -> tuple[Path, int, str]:
        return Path(self.cells[0].path), 0, f"jaxcheck notebook {Path(self.cells[0].path).name}"


class CitationItem(DocsItem):
    """A ``jaxsrc``/``jaxquote`` citation or a Q&A card's source: checked while Sphinx read it."""

    def __init__(self, *, cited: CitedAt, findings: list[Finding], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cited = cited
        self.findings = findings

    def runtest(self) -> None:
        self.fail_with(self.findings)

    def reportinfo(self) -> tuple[Path, int, str]:
        return (
            Path(self.cited.path),
            max(self.cited.line - 1, 0),
            f"citation {self.cited.citation.target}",
        )


class ProblemItem(DocsItem):
    """A problem found while reading (a bad option, an unreadable file): always fails."""

    def __init__(self, *, finding: Finding, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.finding = finding

    def runtest(self) -> None:
        self.fail_with([self.finding])

    def reportinfo(self) -> tuple[Path, int, str]:
        return Path(self.finding.path), max(self.finding.line - 1, 0), self.finding.subtype.value


@dataclass(eq=False, kw_only=True)
class DocsRun:
    """One docs folder in one pytest process: what was read, and the verdicts so far. The
    reading and the running are its project kind's (:class:`SphinxRun`, :class:`MkDocsRun`)."""

    update: bool
    in_xdist_worker: bool
    selected: set[str] = field(default_factory=set)
    verdicts: dict[str, list[Verdict]] = field(default_factory=dict)
    rewritten: set[tuple[str, int]] = field(default_factory=set)
    refused: dict[tuple[str, int], str] = field(
        default_factory=dict
    )  # what update could not rewrite, and why
    notes: list[str] = field(default_factory=list)
    stopped: str = ""  # why no block can run, once found

    def docnames(self) -> list[str]:
        """Documents with anything to check, in order."""
        raise NotImplementedError

    def page_path(self, docname: str) -> Path:
        """The file of a document."""
        raise NotImplementedError

    def blocks(self, docname: str) -> list[Block]:
        """A document's blocks, in order."""
        raise NotImplementedError

    def findings(self, docname: str) -> list[Finding]:
        """The problems found while reading a document."""
        raise NotImplementedError

    def citations(self, docname: str) -> list[CitedAt]:
        """A document's citations (checked while it was read)."""
        raise NotImplementedError

    def refusal(self) -> Refusal:
        """Why update would refuse a drift before running it again."""
        raise NotImplementedError

    def verdict(self, block: Block) -> Verdict:
        """The verdict on a block, running its document's sessions (and, alone in a
        process, all selected ones) first."""
        if block.docname not in self.verdicts:
            pending = {block.docname}
            if not self.in_xdist_worker:
                pending |= self.selected - self.verdicts.keys()
            self._check(sorted(pending))
        return self.verdicts[block.docname][block.index]

    def _check(self, docnames: list[str]) -> None:
        if self.stopped:
            raise ItemFailedError(self.stopped)
        documents = {doc: self.blocks(doc) for doc in docnames}
        try:
            found = self._run(documents)
        except ConfigurationError as stop:  # no block can run (jax missing): every item says why
            self.stopped = f"jaxcheck: {str(stop).removeprefix('jaxcheck: ')}"
            raise ItemFailedError(self.stopped) from None
        self.verdicts.update(found)
        if self.update:
            self._rewrite(documents, found)

    def _run(self, documents: dict[str, list[Block]]) -> dict[str, list[Verdict]]:
        """The verdicts on these documents' blocks, their sessions run (or cached)."""
        raise NotImplementedError

    def _rewrite(self, documents: dict[str, list[Block]], found: dict[str, list[Verdict]]) -> None:
        from .report.records import relative
        from .rewrite.update import describe

        checked = [
            pair
            for doc, blocks in documents.items()
            for pair in zip(blocks, found[doc], strict=True)
        ]
        if not any(verdict.drifts for _, verdict in checked):
            return
        report = self._update(checked)
        self.rewritten |= report.rewritten_at
        self.refused.update({(path, line): why for path, line, why in report.refused})
        self.notes.extend(f"{relative(path)}: rewritten" for path in report.written)
        self.notes.extend(describe(report)[:-1])

    def _update(self, checked: list[tuple[Block, Verdict]]) -> UpdateReport:
        """As jaxcheck update: rewrite only what a second run in fresh workers confirms,
        inside the sources."""
        raise NotImplementedError

    def close(self) -> None:
        """Stop the workers; drop what reading left."""
        raise NotImplementedError


@dataclass(eq=False, kw_only=True)
class SphinxRun(DocsRun):
    """A Sphinx project, read by Sphinx (dummy builder, private doctrees)."""

    app: Sphinx
    scratch: tempfile.TemporaryDirectory[str]
    workers: Workers | None = None

    @classmethod
    def read(cls, folder: Path, *, update: bool, in_xdist_worker: bool) -> SphinxRun:
        """Read every document with Sphinx (dummy builder, private doctrees); run nothing."""
        from .sphinx.build import run_build

        scratch = tempfile.TemporaryDirectory(prefix="jaxcheck-pytest-")
        try:
            app = run_build(folder, {}, 0, read_only=True, build_dir=Path(scratch.name)).app
        except BaseException:
            scratch.cleanup()
            raise
        return cls(app=app, scratch=scratch, update=update, in_xdist_worker=in_xdist_worker)

    @property
    def domain(self) -> JaxcheckDomain:
        from .sphinx.domain import domain_of

        return domain_of(self.app.env)

    def docnames(self) -> list[str]:
        from .sphinx.domain import CITATIONS, FINDINGS

        domain = self.domain
        with_items = set(domain.documents_with_blocks())
        with_items |= {doc for doc, items in domain.per_document(CITATIONS).items() if items}
        with_items |= {doc for doc, items in domain.per_document(FINDINGS).items() if items}
        return sorted(with_items)

    def page_path(self, docname: str) -> Path:
        from .sphinx.compat import source_path

        return Path(source_path(self.app.env, docname))

    def blocks(self, docname: str) -> list[Block]:
        return self.domain.blocks(docname)

    def findings(self, docname: str) -> list[Finding]:
        from .sphinx.domain import FINDINGS

        return list(self.domain.per_document(FINDINGS).get(docname, []))

    def citations(self, docname: str) -> list[CitedAt]:
        from .sphinx.domain import CITATIONS

        return list(self.domain.per_document(CITATIONS).get(docname, []))

    def refusal(self) -> Refusal:
        return self.domain.update_refusal()

    def _run(self, documents: dict[str, list[Block]]) -> dict[str, list[Verdict]]:
        from .sphinx.checking.sessions import run_documents
        from .sphinx.checking.workers import workers_of

        if self.workers is None:
            self.workers = workers_of(self.app)
        return run_documents(self.app, documents, self.workers)

    def _update(self, checked: list[tuple[Block, Verdict]]) -> UpdateReport:
        from .kinds import rules_of
        from .rewrite.update import update_sources
        from .sphinx.checking.rereading import reread_of
        from .sphinx.checking.sessions import second_run
        from .sphinx.settings import settings_of

        return update_sources(
            checked,
            kinds=rules_of,
            rerun=second_run(self.app),
            root=str(self.app.srcdir),
            allow_outside=settings_of(self.app.config).update_allow_outside,
            reread=reread_of(self.app),
        )

    def close(self) -> None:
        if self.workers is not None:
            self.workers.close()
        self.scratch.cleanup()


@dataclass(eq=False, kw_only=True)
class MkDocsRun(DocsRun):
    """An MkDocs project, read as ``jaxcheck check`` reads it: no Sphinx, every setting at its
    default (there is no conf.py to set one)."""

    checking: Checking
    documents: Documents

    @classmethod
    def read(cls, config: Path, *, update: bool, in_xdist_worker: bool) -> MkDocsRun:
        """Read every page of the project ``config`` describes; run nothing."""
        from .config import read_settings
        from .mkdocs.check import Checking
        from .mkdocs.project import read_project, unchecked_entries

        project = read_project(config)
        checking = Checking(project, read_settings(lambda _name: None))
        try:
            documents = checking.read()
        except BaseException:
            checking.close()
            raise
        run = cls(
            checking=checking,
            documents=documents,
            update=update,
            in_xdist_worker=in_xdist_worker,
        )
        run.notes.extend(unchecked_entries(project))
        return run

    def docnames(self) -> list[str]:
        return sorted({*self.documents.blocks, *(f.docname for f in self.documents.findings)})

    def page_path(self, docname: str) -> Path:
        return Path(self.documents.paths[docname])

    def blocks(self, docname: str) -> list[Block]:
        return self.documents.blocks.get(docname, [])

    def findings(self, docname: str) -> list[Finding]:
        return [f for f in self.documents.findings if f.docname == docname]

    def citations(self, docname: str) -> list[CitedAt]:
        return []  # MkDocs pages cite nothing jaxcheck checks

    def refusal(self) -> Refusal:
        return self.checking.refusal

    def _run(self, documents: dict[str, list[Block]]) -> dict[str, list[Verdict]]:
        return self.checking.check(documents).verdicts

    def _update(self, checked: list[tuple[Block, Verdict]]) -> UpdateReport:
        return self.checking.update(checked, self.documents, dry_run=False)

    def close(self) -> None:
        self.checking.close()
