"""Check an MkDocs project: its pages' blocks run (or taken from the cache) and judged by the
engine Sphinx projects use (:func:`..run.sessions.check_documents`), reported in the same
records; and its stale expectations rewritten by the same planner (:mod:`..rewrite.update`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

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
from ..judge.example_verdicts import all_examples
from ..model import Block, NotebookCell, Problem, Status, Subtype, Verdict
from ..report.findings import Finding, findings_of, in_report_order
from ..report.records import Report, block_record, build_report, notebooks_not_run, summary_line
from ..report.run_description import describe_run
from ..rewrite.places import Places
from ..rewrite.reread import Reading
from ..rewrite.update import UpdateReport, update_sources
from ..run.interpreter import Probe, running_platform
from ..run.pool import WorkerSettings, worker_settings
from ..run.sessions import CheckPlan, check_documents, describe_plan
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


def check_project(project: MkDocsProject, settings: Settings, update: str) -> Checked:
    """Run every page's sessions and judge them; ``update`` is the command line that accepts
    the new outputs (the report's next step)."""
    documents = read_documents(project, settings)
    workers = _workers(project, settings)
    probe = Probe(workers.python, workers.outcome_env(), workers.key_env())
    jax_version = _jax_version(probe)
    cache = OutcomeCache(_cache_folder(project, settings)) if settings.writes_cache else None
    runtime = Runtime(jax_version, running_platform(workers.process_env()))
    try:
        report = check_documents(
            _as_run(documents),
            workers,
            cache=cache,
            reuse=settings.reads_cache,
            fingerprint=probe.fingerprint,
            setup=settings.setup,
            announce=lambda plan: _announce(plan, len(documents.blocks), workers.workers),
            runtime=runtime,
        )
        verdicts = report.verdicts
        uncached = [(doc, why) for doc, whys in report.uncached.items() for why in whys]
    except JaxUnavailableError as error:
        raise ConfigurationError(
            f"{error}; install jax there (`pip install jax`, the release your docs describe)"
        ) from None
    except WorkerStartError as error:
        verdicts = {
            doc: [_not_started(b, error) for b in bs] for doc, bs in documents.blocks.items()
        }
        uncached = []
    checked = [
        (block, verdict)
        for doc, blocks in documents.blocks.items()
        for block, verdict in zip(blocks, verdicts[doc], strict=True)
    ]
    refusal = Places(str(project.root), allow_outside=settings.update_allow_outside).refusal
    findings = in_report_order(
        [*documents.findings, *(f for b, v in checked for f in findings_of(b, v, refusal))]
    )
    cells = [block_record(b, v) for b, v in checked if isinstance(b.kind, NotebookCell)]
    line = summary_line(
        [v.status for b, v in checked if not b.doctest_style],
        documents.findings,
        jax_version,
        all_examples(checked),
        doctests_like=DOCTESTS_LIKE,
        uncached=uncached,
        not_run_notebooks=notebooks_not_run(cells),
        failed_after=sum(1 for b, v in checked if v.after and not b.doctest_style),
        images_not_compared=sum(1 for _, v in checked if v.images_not_compared),
    )
    run = describe_run((b for b, _ in checked), probe.fingerprint, settings, jax_version, None)
    described = build_report(
        checked,
        findings,
        summary=line,
        uncached=uncached,
        run={
            **run,
            "sourcedir": os.path.relpath(project.config),
            "update": update,
            "doctests_like": DOCTESTS_LIKE,
        },
    )
    return Checked(checked, findings, described, documents)


def update_project(
    project: MkDocsProject, settings: Settings, *, dry_run: bool, update: str
) -> tuple[UpdateReport, Checked]:
    """Check, then rewrite every stale expectation a second run in fresh workers confirms,
    once the pages read back as planned with the new texts."""
    checked = check_project(project, settings, update)

    def rerun(documents: Mapping[str, Sequence[Block]]) -> dict[str, list[Verdict]]:
        run = _as_run(Documents(blocks={d: list(b) for d, b in documents.items()}))
        return check_documents(run, _workers(project, settings), setup=settings.setup).verdicts

    def reread(texts: Mapping[str, bytes]) -> Reading:
        again = read_documents(project, settings, texts)
        files = {
            doc: frozenset({os.path.realpath(path)})
            for doc, path in checked.documents.paths.items()
        }
        reading = {doc for doc, real in files.items() if real & texts.keys()}
        return Reading(
            before={d: b for d, b in checked.documents.blocks.items() if d in reading},
            after={d: b for d, b in again.blocks.items() if d in reading},
            files=files,
        )

    report = update_sources(
        checked.blocks,
        rerun=rerun,
        dry_run=dry_run,
        root=str(project.root),
        allow_outside=settings.update_allow_outside,
        reread=reread,
    )
    return report, checked


def _as_run(documents: Documents) -> dict[str, list[Block]]:
    """Each page's blocks set to run in the page's folder, wherever the command was run."""
    return {
        doc: [
            replace(b, program=replace(b.program, cwd=b.program.cwd or page_folder(b.path)))
            for b in blocks
        ]
        for doc, blocks in documents.blocks.items()
    }


def _workers(project: MkDocsProject, settings: Settings) -> WorkerSettings:
    # Compiled XLA programs are kept beside the outcomes, as for a Sphinx project.
    folder = _cache_folder(project, settings)
    return worker_settings(settings, compiled_folder(folder) if settings.reads_cache else None)


def _cache_folder(project: MkDocsProject, settings: Settings) -> str:
    return str(Path(project.root) / (settings.cache_dir or CACHE_FOLDER))


def _jax_version(probe: Probe) -> str:
    try:
        return probe.interpreter.jax_version or "?"
    except InterpreterError as error:  # --python names one that cannot run the workers
        raise ConfigurationError(str(error)) from None


def _not_started(block: Block, error: WorkerStartError) -> Verdict:
    return Verdict(
        Status.FAILED, problems=(Problem(Subtype.WORKER, str(error), block.file_line(1)),)
    )


def _announce(plan: CheckPlan, documents: int, workers: int) -> None:
    print(f"jaxcheck: {describe_plan(plan, documents, workers)}", file=sys.stderr)
