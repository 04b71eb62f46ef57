"""Check an MkDocs project: its pages' blocks run (or taken from the cache) and judged by the
engine Sphinx projects use (:func:`..run.sessions.check_documents`), reported in the same
records; and its stale expectations rewritten by the same planner (:mod:`..rewrite.update`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from ..cache.docstrings import CollectionCache
from ..cache.outcomes import OutcomeCache
from ..cache.size import compiled_folder
from ..config import Settings
from ..errors import (
    ConfigurationError,
    InterpreterError,
    JaxUnavailableError,
    WorkerStartError,
)
from ..expect.conditions import Runtime
from ..expect.docstrings import docstring_of
from ..kinds import rules_of, warning_filters
from ..model import Block, SessionKey, Shard, Verdict
from ..report.findings import Finding, Refusal, findings_of, in_report_order
from ..report.records import Report, build_report, checked_summary
from ..report.run_description import describe_run
from ..rewrite.places import Places
from ..rewrite.reread import Reading
from ..rewrite.update import UpdateReport, edit_problem, update_sources
from ..run.interpreter import Probe, running_platform
from ..run.pool import PythonPath, Workers, WorkerSettings, worker_settings
from ..run.sessions import (
    CheckPlan,
    CheckReport,
    check_documents,
    describe_plan,
    not_started,
)
from ..run.shards import (
    chooser,
    load_durations,
    save_durations,
    session_durations,
    split,
    split_digest,
)
from .docstrings import cached_collect, docstring_documents
from .documents import Documents, page_folder, read_documents
from .project import MkDocsProject

CACHE_FOLDER = ".jaxcheck_cache"  # beside mkdocs.yml, as a Sphinx project's is beside conf.py
DOCTESTS_LIKE = "pytest"  # whose rules find a page's ``>>>`` examples (--doctest-glob's)


@dataclass(frozen=True)
class Checked:
    """A finished check: every block with its verdict, every open problem, the report."""

    blocks: list[tuple[Block, Verdict]]
    findings: list[Finding]
    report: Report
    documents: Documents


class Checking:
    """The workers, cache and runtime of one check of an MkDocs project: checks a project's
    pages, all at once (``jaxcheck check``) or a few at a time (``pytest --jaxcheck``), until
    :meth:`close`."""

    def __init__(self, project: MkDocsProject, settings: Settings) -> None:
        self.project = project
        self.settings = settings
        started = _workers(project, settings)
        probe = Probe(started.python, started.outcome_env(), started.key_env())
        self.fingerprint = probe.fingerprint
        self.jax_version = _jax_version(probe)
        self.folder = _cache_folder(project, settings)
        self.cache = OutcomeCache(self.folder) if settings.writes_cache else None
        self.runtime = Runtime(self.jax_version, running_platform(started.process_env()))
        self.workers = Workers(started)  # started on the first session that is not cached
        # The digest of the split the last check ran a shard of (None: it ran every session).
        self.split: str | None = None

    def read(self) -> Documents:
        """Every page's blocks, then those of the docstrings its ``:::`` lines render (the
        modules collected in a worker, or taken from the cache), after the page's own."""
        documents = read_documents(self.project, self.settings)
        if not documents.shown:
            return documents
        cache = CollectionCache(self.folder)
        settings = self.settings

        def collect(module: str) -> dict[str, Any]:
            found = self.workers.collect([module], (), settings.timeout, settings.filterwarnings)
            return {**found.result, "problem": found.problem} if found.problem else found.result

        writes = cache if settings.writes_cache else None
        shown, findings = docstring_documents(
            documents.shown,
            documents.paths,
            cached_collect(collect, writes, self.fingerprint, settings),
            settings,
        )
        blocks = dict(documents.blocks)
        # A docstring's examples run in docs_dir, as jaxcheck_doctest_modules' run in a Sphinx
        # project's root document's folder: not in their module's, nor in the showing page's.
        home = str(self.project.docs_dir)
        for doc, more in shown.items():
            own = blocks.get(doc, [])
            blocks[doc] = [
                *own,
                *(
                    replace(b, index=len(own) + n, program=replace(b.program, cwd=home))
                    for n, b in enumerate(more)
                ),
            ]
        return replace(documents, blocks=blocks, findings=[*documents.findings, *findings])

    def check(
        self,
        blocks: Mapping[str, list[Block]],
        announce: Callable[[CheckPlan], None] | None = None,
    ) -> CheckReport:
        """The verdicts on these pages' blocks, why sessions that ran were not cached, and
        what they depended on. Under ``jaxcheck_shard``, only this shard's sessions run, of a
        split of those of ``blocks``; a check of every session remembers how long each took,
        for the next split."""
        split = self._assignment(blocks)
        self.split = None if split is None else split_digest(split)
        try:
            report = check_documents(
                _as_run(blocks, self.settings),
                self.workers,
                cache=self.cache,
                reuse=self.settings.reads_cache,
                fingerprint=self.fingerprint,
                setup=self.settings.setup,
                announce=announce,
                select=None if split is None else chooser(split, self.shard.index),
                runtime=self.runtime,
            )
        except JaxUnavailableError as error:
            raise ConfigurationError(
                f"{error}; install jax there (`pip install jax`, the release your docs describe)"
            ) from None
        except WorkerStartError as error:
            return CheckReport(not_started(blocks, error))
        if split is None and self.cache is not None:
            save_durations(self.folder, session_durations(blocks, report.verdicts))
        return report

    @property
    def shard(self) -> Shard:
        """The shard this check runs (``jaxcheck check --shard K/N``); 1/1 when it runs all."""
        return Shard.parse(self.settings.shard or "1/1")

    def _assignment(self, blocks: Mapping[str, list[Block]]) -> dict[SessionKey, int] | None:
        """The shard of every session of these pages, as every shard computes it from the
        same pages and remembered durations (None: the check is not sharded)."""
        if self.settings.shard is None:
            return None
        sessions = dict.fromkeys(b.session_key for page in blocks.values() for b in page)
        return split(list(sessions), load_durations(self.folder), self.shard.count)

    def findings(self, checked: Sequence[tuple[Block, Verdict]]) -> list[Finding]:
        """The open problems of these blocks, as the report words them."""
        refusal = self.refusal  # one for all: it reads each Python file once
        return [f for b, v in checked for f in findings_of(b, v, rules_of(b), refusal)]

    @property
    def refusal(self) -> Refusal:
        """Why update would refuse a drift before running it again (outside the project)."""
        root, outside = str(self.project.root), self.settings.update_allow_outside
        return Places(root, edit_problem, rules_of, allow_outside=outside).refusal

    def update(
        self, checked: Sequence[tuple[Block, Verdict]], documents: Documents, *, dry_run: bool
    ) -> UpdateReport:
        """Rewrite every stale expectation of these blocks that a second run in fresh workers
        confirms, once the pages read back as planned with the new texts."""

        def rerun(blocks: Mapping[str, Sequence[Block]]) -> dict[str, list[Verdict]]:
            run = _as_run({d: list(b) for d, b in blocks.items()}, self.settings)
            settings = _workers(self.project, self.settings)
            return check_documents(run, settings, setup=self.settings.setup).verdicts

        def reread(texts: Mapping[str, bytes]) -> Reading:
            again = read_documents(self.project, self.settings, texts)
            files = {
                doc: frozenset({os.path.realpath(path)}) for doc, path in documents.paths.items()
            }
            reading = {doc for doc, real in files.items() if real & texts.keys()}
            # A page reads back its own blocks; its docstrings' are read from their modules.
            own = {
                d: [b for b in bs if docstring_of(b) is None] for d, bs in documents.blocks.items()
            }
            return Reading(
                before={d: b for d, b in own.items() if d in reading},
                after={d: b for d, b in again.blocks.items() if d in reading},
                files=files,
            )

        return update_sources(
            checked,
            kinds=rules_of,
            rerun=rerun,
            dry_run=dry_run,
            root=str(self.project.root),
            allow_outside=self.settings.update_allow_outside,
            reread=reread,
        )

    def close(self) -> None:
        """Stop the workers."""
        self.workers.close()


def check_project(project: MkDocsProject, settings: Settings, update: str) -> Checked:
    """Run every page's sessions and judge them; ``update`` is the command line that accepts
    the new outputs (the report's next step)."""
    checking = Checking(project, settings)
    try:
        return _checked(checking, update)
    finally:
        checking.close()


def _checked(checking: Checking, update: str) -> Checked:
    project, settings = checking.project, checking.settings
    documents = checking.read()
    workers = checking.workers.settings.workers
    ran = checking.check(
        documents.blocks, lambda plan: _announce(plan, len(documents.blocks), workers)
    )
    checked = [
        (block, verdict)
        for doc, blocks in documents.blocks.items()
        for block, verdict in zip(blocks, ran.verdicts[doc], strict=True)
    ]
    # As a Sphinx project's report lists them: by page, then by reason.
    uncached = [(doc, why) for doc, whys in sorted(ran.uncached.items()) for why in sorted(whys)]
    findings = in_report_order([*documents.findings, *checking.findings(checked)])
    jax_version = checking.jax_version
    line = checked_summary(
        checked,
        documents.findings,
        jax_version,
        rules_of,
        doctests_like=DOCTESTS_LIKE,
        uncached=uncached,
    )
    run = describe_run(
        (b for b, _ in checked), checking.fingerprint, settings, jax_version, checking.split
    )
    described = build_report(
        checked,
        findings,
        kinds=rules_of,
        summary=line,
        uncached=uncached,
        run={
            **run,
            "sourcedir": os.path.relpath(project.config),
            "update": update,
            "doctests_like": DOCTESTS_LIKE,
            # What the sessions read, for merge to refuse shards that saw two states of a file.
            "depended": {
                path: digest
                for doc, used in sorted(ran.used.items())
                for path, digest in sorted(used.files.items())
            },
        },
    )
    return Checked(checked, findings, described, documents)


def update_project(
    project: MkDocsProject, settings: Settings, *, dry_run: bool, update: str
) -> tuple[UpdateReport, Checked]:
    """Check, then rewrite every stale expectation a second run in fresh workers confirms,
    once the pages read back as planned with the new texts."""
    checking = Checking(project, settings)
    try:
        checked = _checked(checking, update)
        report = checking.update(checked.blocks, checked.documents, dry_run=dry_run)
    finally:
        checking.close()
    return report, checked


def _as_run(blocks: Mapping[str, list[Block]], settings: Settings) -> dict[str, list[Block]]:
    """Each page's blocks set to run in the page's folder, wherever the command was run; the
    examples pytest would run under its ini filters, under ``jaxcheck_filterwarnings``, as a
    Sphinx project's (a page's own are judged as ``--doctest-glob`` judges them)."""
    return {
        doc: [
            replace(
                b,
                program=replace(
                    b.program,
                    cwd=b.program.cwd or page_folder(b.path),
                    filterwarnings=warning_filters(b, settings, DOCTESTS_LIKE),
                ),
            )
            for b in page
        ]
        for doc, page in blocks.items()
    }


def _workers(project: MkDocsProject, settings: Settings) -> WorkerSettings:
    # Compiled XLA programs are kept beside the outcomes, as for a Sphinx project.
    folder = _cache_folder(project, settings)
    xla = compiled_folder(folder) if settings.reads_cache else None
    python_path = PythonPath(first=tuple(map(str, project.python_path)))
    return worker_settings(settings, xla, python_path)


def _cache_folder(project: MkDocsProject, settings: Settings) -> str:
    return str(Path(project.root) / (settings.cache_dir or CACHE_FOLDER))


def _jax_version(probe: Probe) -> str:
    try:
        return probe.interpreter.jax_version or "?"
    except InterpreterError as error:  # --python names one that cannot run the workers
        raise ConfigurationError(str(error)) from None


def _announce(plan: CheckPlan, documents: int, workers: int) -> None:
    print(f"jaxcheck: {describe_plan(plan, documents, workers)}", file=sys.stderr)
