"""When blocks run during a Sphinx build, how problems are reported, and the exit status.

* ``env-updated`` (all documents read, ``-j`` results merged): run the sessions
  of every document not yet checked, store the verdicts in the environment,
  then log every problem of every document, so an incremental build that
  re-read nothing still reports (and fails on) remaining drift.
* ``env-get-outdated``: a different jax, jaxlib, numpy or Python re-reads
  (and so re-checks) every document with blocks.
* ``build-finished``: a one-line summary and, for ``jaxcheck_on_drift =
  "error"``, exit status 1.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import sys
import weakref
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import replace

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging
from sphinx.util.display import status_iterator

from ..cache.outcomes import OutcomeCache, file_digests, fingerprint_of
from ..cache.size import human_size, prune
from ..config import Settings
from ..judge.example_verdicts import all_examples
from ..model import Block, Problem, SessionKey, Status, Subtype, Verdict
from ..report.formats import summary_line
from ..report.printable import printable
from ..rewrite.update import Rerun, describe, update_sources
from ..run import interrupt
from ..run.pool import JaxUnavailable, Workers, WorkerSettings, WorkerStartError
from ..run.sessions import CheckPlan, check_documents
from ..run.shards import Shard, load_durations, save_durations, session_name, split, split_digest
from .domain import JaxcheckDomain, domain_of
from .interpreter import interpreter_of, runtime_of
from .page_examples import unchecked_examples
from .settings import cache_directory, settings_of, stop

logger = logging.getLogger(__name__)


# Applications that only read: the pytest plugin runs the blocks itself, as test items.
_READ_ONLY: weakref.WeakSet[Sphinx] = weakref.WeakSet()


def read_only(app: Sphinx) -> None:
    """Let this application read documents (blocks, citations, cards) without running any block."""
    _READ_ONLY.add(app)


def setup_checking(app: Sphinx) -> None:
    """Connect the events that run blocks and report on them."""
    app.connect("builder-inited", _catch_signals)
    app.connect("env-get-outdated", _recheck_when_environment_changes)
    app.connect("env-before-read-docs", _start_workers_early)
    app.connect("env-updated", _check_and_report)
    app.connect("build-finished", _finish, priority=900)


# How to undo our SIGINT/SIGTERM handling, by application (for one build).
_SIGNALS: weakref.WeakKeyDictionary[Sphinx, Callable[[], None]] = weakref.WeakKeyDictionary()


def _catch_signals(app: Sphinx) -> None:
    """From now until the build finishes, SIGINT and SIGTERM unwind cleanly (see ``interrupt``)."""
    _SIGNALS[app] = interrupt.install()


def worker_settings(settings: Settings, xla_cache_dir: str | None = None) -> WorkerSettings:
    """How to start workers, from the configuration."""
    memory = settings.memory_limit_mb * 1024 * 1024 if settings.memory_limit_mb else None
    return WorkerSettings(
        env=settings.env,
        workers=settings.workers,
        output_limit=int(settings.output_limit_mb * 1024 * 1024),
        memory_limit=memory,
        xla_cache_dir=xla_cache_dir,
        python=settings.python or sys.executable,
        passthrough=settings.env_passthrough,
    )


def _recheck_when_environment_changes(
    app: Sphinx, env: BuildEnvironment, added: set[str], _changed: set[str], removed: set[str]
) -> list[str]:
    domain = domain_of(env)
    if not settings_of(app.config).cache:
        # No cache: every block runs in every build, also when nothing changed.
        return sorted(set(domain.documents_with_blocks()) - removed)
    stored = domain.data.get("fingerprint", "")
    # Only with a stored one to compare: a first build asks the interpreter after
    # reading, while the zygote started early imports jax on the other core.
    if stored and stored != _fingerprint(app):
        # Blocks must run again, and citations must be resolved against the new source.
        citing = set(domain.per_document("citations")) | set(domain.documents_with_blocks())
        return sorted(citing - removed)
    # A module of the project that a document's blocks imported (helper.py beside it) changed.
    return sorted(
        doc
        for doc, files in domain.imports().items()
        if doc not in removed and files and file_digests(files) != files
    )


# The fingerprint of this build's workers, by application: asked of their
# interpreter once per build (packages may change between two builds).
_FINGERPRINTS: weakref.WeakKeyDictionary[Sphinx, str] = weakref.WeakKeyDictionary()


def _fingerprint(app: Sphinx) -> str:
    if app not in _FINGERPRINTS:
        _FINGERPRINTS[app] = fingerprint_of(worker_settings(settings_of(app.config)))
    return _FINGERPRINTS[app]


def workers_of(app: Sphinx) -> Workers:
    """The workers of a build, as configured (not started yet)."""
    settings = settings_of(app.config)
    # Compiled XLA programs are kept beside the outcomes (without the cache: for this build only).
    xla = os.path.join(cache_directory(app.confdir, settings), "xla") if settings.cache else None
    return Workers(worker_settings(settings, xla))


# Workers started while Sphinx reads, by application (a build at a time per app).
_EARLY: weakref.WeakKeyDictionary[Sphinx, Workers] = weakref.WeakKeyDictionary()


def _start_workers_early(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    """Documents will be read: let the zygote import jax meanwhile, on the other core.

    Only for a cold build (no cache yet, or caching off): with a cache most
    sessions are usually hits, and an unused jax import would slow the build.
    """
    settings = settings_of(app.config)
    if app in _READ_ONLY or (
        settings.cache and OutcomeCache(cache_directory(app.confdir, settings)).has_entries()
    ):
        return
    if docnames and app not in _EARLY:
        workers = workers_of(app)
        workers.start()
        _EARLY[app] = workers


def _check_and_report(app: Sphinx, env: BuildEnvironment) -> list[str]:
    if app in _READ_ONLY:
        return []
    workers = _EARLY.pop(app, None) or workers_of(app)
    try:
        return _check_with(app, env, workers)
    finally:
        workers.close()


def _check_with(app: Sphinx, env: BuildEnvironment, workers: Workers) -> list[str]:
    domain = domain_of(env)
    settings = settings_of(app.config)
    fingerprint = _fingerprint(app)
    pending = domain.unchecked_documents()
    if pending:
        documents = {doc: domain.blocks(doc) for doc in pending}
        display = ProgressDisplay("jaxcheck: running blocks... ", app.verbosity)

        def announce(plan: CheckPlan) -> None:
            logger.info("jaxcheck: %s", describe_plan(plan, len(documents), settings.workers))

        try:
            verdicts = run_documents(
                app, documents, workers, progress=display.advance, announce=announce
            )
        finally:
            display.finish()
        for docname, found in verdicts.items():
            domain.set_verdicts(docname, found)
        if settings.cache:
            _bound_cache(cache_directory(app.confdir, settings), settings.cache_max_mb)
    domain.data["fingerprint"] = fingerprint
    domain.data["jax_version"] = settings.jax_version or interpreter_of(app.config).jax_version
    domain.data["rewritten"] = _update_sources(app, domain) if settings.update else set()
    for finding in domain.all_findings():
        if finding.is_drift and settings.on_drift == "ignore":
            continue
        logger.warning(
            printable(finding.message),
            location=finding.location,
            type="jaxcheck",
            subtype=finding.subtype.value,
        )
    return []


def run_documents(
    app: Sphinx,
    documents: Mapping[str, Sequence[Block]],
    workers: Workers,
    *,
    progress: Callable[[int, int], None] | None = None,
    announce: Callable[[CheckPlan], None] | None = None,
) -> dict[str, list[Verdict]]:
    """Run (or take from the cache) the sessions of these documents and judge every block.

    As configured: cache, setup, shard, environment. Workers that cannot start
    make every block an error that says why; without jax, the build stops.
    """
    settings = settings_of(app.config)
    documents = {
        doc: _in_folder(blocks, os.path.dirname(app.env.doc2path(doc)))
        for doc, blocks in documents.items()
    }
    cache = OutcomeCache(cache_directory(app.confdir, settings)) if settings.cache else None
    select = _shard_selector(app, settings)
    try:
        report = check_documents(
            documents,
            workers.settings,
            cache=cache,
            fingerprint=_fingerprint(app),
            progress=progress,
            workers=workers,
            setup=settings.setup,
            announce=announce,
            select=select,
            runtime=runtime_of(app.config, [b for blocks in documents.values() for b in blocks]),
        )
        for path, why in report.discarded:
            logger.info(
                "jaxcheck: discarded the cache entry %s (%s); its session ran again", path, why
            )
        for doc in documents:
            domain_of(app.env).set_imports(doc, report.imports.get(doc, {}))
    except JaxUnavailable as error:
        # Once for the build, not once per block: no block can run.
        stop(
            f"{error}. Install it there: `pip install jax` (the release your docs describe), "
            'or `pip install "./sphinx-jaxcheck[jax]"` beside a checkout of sphinx-jaxcheck'
        )
    except WorkerStartError as error:
        return {
            doc: [
                Verdict(
                    Status.ERROR, problems=(Problem(Subtype.WORKER, str(error), b.file_line(1)),)
                )
                for b in blocks
            ]
            for doc, blocks in documents.items()
        }
    if select is None and settings.cache:
        save_durations(
            cache_directory(app.confdir, settings), session_durations(documents, report.verdicts)
        )
    return report.verdicts


def _shard_selector(
    app: Sphinx, settings: Settings
) -> Callable[[Sequence[SessionKey]], set[SessionKey]] | None:
    """For ``jaxcheck_shard``: pick this shard's sessions, and remember the split for reports."""
    if settings.shard is None:
        return None
    shard = Shard.parse(settings.shard)
    durations = load_durations(cache_directory(app.confdir, settings))

    def select(sessions: Sequence[SessionKey]) -> set[SessionKey]:
        assignment = split(sessions, durations, shard.count)
        domain_of(app.env).data["split"] = split_digest(assignment)
        return {key for key, number in assignment.items() if number == shard.index}

    return select


def session_durations(
    documents: Mapping[str, Sequence[Block]], verdicts: Mapping[str, Sequence[Verdict]]
) -> dict[str, float]:
    """The seconds each session took (as run, or as the cache remembers it)."""
    durations: dict[str, float] = {}
    for docname, blocks in documents.items():
        for block, verdict in zip(blocks, verdicts.get(docname, ()), strict=False):
            if verdict.status is not Status.SKIPPED:
                name = session_name(block.session_key)
                durations[name] = durations.get(name, 0.0) + verdict.seconds
    return durations


def run_description(app: Sphinx) -> dict[str, object]:
    """What a report was made from, so that only reports of one run are merged.

    Digests of the blocks read and of everything that decides a verdict (the
    environment fingerprint and the ``jaxcheck_*`` values that reach a block),
    the JAX version, and for a shard its number and split.
    """
    domain = domain_of(app.env)
    settings = settings_of(app.config)
    blocks = [[b.docname, b.label, b.body_line] for b, _ in domain.checked_blocks()]
    deciding = {
        key: value
        for key, value in dataclasses.asdict(settings).items()
        if key not in ("workers", "cache", "cache_dir", "cache_max_mb", "update", "shard")
    }
    configuration = [_fingerprint(app), deciding]
    return {
        "documents": _digest(blocks),
        "jax": domain.data.get("jax_version") or "?",
        "configuration": _digest(configuration),
        "shard": settings.shard,
        "split": domain.data.get("split") if settings.shard else None,
    }


def _digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _bound_cache(directory: str, max_mb: float) -> None:
    """Prune both caches to ``jaxcheck_cache_max_mb``, least recently used first."""
    pruned = prune(directory, int(max_mb * 1024 * 1024))
    if pruned.removed:
        logger.info(
            "jaxcheck: cache over its limit of %s (jaxcheck_cache_max_mb): removed %d least recently used item(s), %s",
            human_size(int(max_mb * 1024 * 1024)),
            pruned.removed,
            human_size(pruned.freed),
        )


def _in_folder(blocks: Sequence[Block], folder: str) -> list[Block]:
    """Blocks set to run in ``folder``: every kind (directives, ``>>>`` examples, docstrings)
    runs in its document's folder, wherever the build was started."""
    return [replace(b, program=replace(b.program, cwd=folder)) for b in blocks]


def describe_plan(plan: CheckPlan, documents: int, workers: int) -> str:
    """What a check is about to do, counting every block of the documents read."""
    every = plan.to_run + plan.cached + plan.not_run
    line = (
        f"running {plan.to_run} of {every} block(s) ({documents} document(s), "
        f"up to {workers} worker(s))"
    )
    others = []
    if plan.cached:
        others.append(f"{plan.cached} from the cache")
    if plan.not_run:
        others.append(f"{plan.not_run} not run (skipped, or refused before running)")
    return line + ("; " + ", ".join(others) if others else "")


class ProgressDisplay:
    """Sphinx's own progress display (``status_iterator``), advanced as blocks finish.

    The workers call back once per finished block; the display is a generator
    pulled one item per call, so it looks and counts like Sphinx's reading and
    writing progress: up to the number of blocks announced to run.
    """

    def __init__(self, summary: str, verbosity: int) -> None:
        self.summary = summary
        self.verbosity = verbosity
        self.finished: deque[str] = deque()
        self.display: Iterator[str] | None = None
        self.shown = 0

    def _items(self) -> Iterator[str]:
        while self.finished:
            yield self.finished.popleft()

    def advance(self, done: int, total: int) -> None:
        """One more block finished, of ``total`` to run."""
        if done <= self.shown:
            return  # the same count again (see sessions._without_setups)
        self.shown = done
        if self.display is None:
            self.display = status_iterator(
                self._items(), self.summary, "darkgreen", total, self.verbosity
            )
        self.finished.append(f"{done}/{total}")
        next(self.display, None)

    def finish(self) -> None:
        """End the display's line (nothing if no block ran)."""
        if self.display is not None:
            for _ in self.display:
                pass
            self.display = None


def second_run(app: Sphinx) -> Rerun:
    """Check blocks again in fresh workers (a new process tree, no cache), for update to compare with."""

    def rerun(documents: Mapping[str, Sequence[Block]]) -> dict[str, list[Verdict]]:
        workers = workers_of(app)
        try:
            setup = settings_of(app.config).setup
            return check_documents(
                documents, workers.settings, workers=workers, setup=setup
            ).verdicts
        finally:
            workers.close()

    return rerun


def _update_sources(app: Sphinx, domain: JaxcheckDomain) -> set[tuple[str, int]]:
    """``jaxcheck_update``: rewrite stale expectations now; report what could not be."""
    report = update_sources(
        domain.checked_blocks(),
        rerun=second_run(app),
        root=str(app.srcdir),
        allow_outside=settings_of(app.config).update_allow_outside,
    )
    for path, line, why in report.refused:
        logger.warning(
            "cannot update this expectation: %s",
            why,
            location=f"{path}:{line}",
            type="jaxcheck",
            subtype=Subtype.UPDATE.value,
        )
    logger.info(
        describe(report)[-1] + ("; build again to render the new text" if report.written else "")
    )
    return report.rewritten_at


def summary(domain: JaxcheckDomain) -> tuple[str, bool]:
    """The one-line summary of the build, and whether anything is still failing."""
    checked = list(domain.checked_blocks())
    failed = any(True for _ in domain.all_findings())
    line = summary_line(
        [verdict.status for _, verdict in checked],
        list(domain.read_findings()),
        domain.data.get("jax_version") or "?",
        all_examples(checked),
        unchecked_examples(domain),
    )
    return line, failed


def _finish(app: Sphinx, exception: Exception | None) -> None:
    _FINGERPRINTS.pop(app, None)
    restore = _SIGNALS.pop(app, None)
    if restore is not None:
        restore()
    early = _EARLY.pop(app, None)
    if early is not None:  # the build stopped before checking
        early.close()
    if exception is not None or app.env is None or app in _READ_ONLY:
        return
    domain = domain_of(app.env)
    settings = settings_of(app.config)
    line, failed = summary(domain)
    if failed and settings.on_drift != "ignore":
        hint = f" Run `jaxcheck update {os.path.relpath(app.srcdir)}` to accept new outputs."
        drifted = any(f.subtype is Subtype.DRIFT for f in domain.all_findings())
        logger.info(line + ("." + hint if drifted else ""))
    else:
        logger.info(line)
    if failed and settings.on_drift == "error":
        app.statuscode = 1
