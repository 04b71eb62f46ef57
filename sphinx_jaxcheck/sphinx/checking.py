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

import os
from collections.abc import Iterator
from typing import Any

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging

from ..cache import OutcomeCache, environment_fingerprint, installed_version
from ..config import Settings
from ..findings import Finding, Subtype
from ..model import Problem, Status, Verdict
from ..sessions import check_documents, findings_of, tally
from ..worker.pool import WorkerSettings, WorkerStartError
from .domain import JaxcheckDomain
from .settings import settings_of

logger = logging.getLogger(__name__)


def setup_checking(app: Sphinx) -> None:
    """Connect the events that run blocks and report on them."""
    app.connect("env-get-outdated", _recheck_when_environment_changes)
    app.connect("env-updated", _check_and_report)
    app.connect("build-finished", _finish, priority=900)


def domain_of(env: BuildEnvironment) -> JaxcheckDomain:
    """Our domain in this environment."""
    domain = env.get_domain("jaxcheck")
    assert isinstance(domain, JaxcheckDomain)
    return domain


def worker_settings(settings: Settings) -> WorkerSettings:
    """How to start workers, from the configuration."""
    memory = settings.memory_limit_mb * 1024 * 1024 if settings.memory_limit_mb else None
    return WorkerSettings(
        env=settings.env,
        workers=settings.workers,
        output_limit=int(settings.output_limit_mb * 1024 * 1024),
        memory_limit=memory,
    )


def cache_directory(app: Sphinx, settings: Settings) -> str:
    """Where cached outcomes live: configurable, by default beside conf.py."""
    if settings.cache_dir:
        return os.path.join(app.confdir, settings.cache_dir)
    return os.path.join(app.confdir, ".jaxcheck_cache")


def _recheck_when_environment_changes(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    domain = domain_of(env)
    fingerprint = environment_fingerprint(settings_of(app.config).env)
    stored = domain.data.get("fingerprint", "")
    if stored and stored != fingerprint:
        return [doc for doc in domain.documents_with_blocks() if doc not in removed]
    return []


def _check_and_report(app: Sphinx, env: BuildEnvironment) -> list[str]:
    domain = domain_of(env)
    settings = settings_of(app.config)
    fingerprint = environment_fingerprint(settings.env)
    pending = domain.unchecked_documents()
    if pending:
        documents = {doc: domain.blocks(doc) for doc in pending}
        count = sum(len(blocks) for blocks in documents.values())
        logger.info(
            "jaxcheck: running %d block(s) of %d document(s) in up to %d worker(s)",
            count, len(documents), settings.workers,
        )
        cache = OutcomeCache(cache_directory(app, settings)) if settings.cache else None
        try:
            report = check_documents(
                documents, worker_settings(settings), cache=cache, fingerprint=fingerprint
            )
            verdicts = report.verdicts
            if report.sessions_cached:
                logger.info(
                    "jaxcheck: %d session(s) from the cache, %d run",
                    report.sessions_cached, report.sessions_run,
                )
        except WorkerStartError as error:
            verdicts = {
                doc: [
                    Verdict(Status.ERROR, problems=(Problem("worker", str(error), b.file_line(1)),))
                    for b in blocks
                ]
                for doc, blocks in documents.items()
            }
        for docname, found in verdicts.items():
            domain.set_verdicts(docname, found)
    domain.data["fingerprint"] = fingerprint
    domain.data["jax_version"] = settings.jax_version or installed_version("jax")
    for finding in all_findings(domain):
        if finding.is_drift and settings.on_drift == "ignore":
            continue
        logger.warning(
            finding.message, location=finding.location, type="jaxcheck", subtype=finding.subtype.value
        )
    return []


def all_findings(domain: JaxcheckDomain) -> Iterator[Finding]:
    """Every problem of every document: from reading, and from the verdicts."""
    yield from domain.read_findings()
    for docname in domain.documents_with_blocks():
        for block in domain.blocks(docname):
            verdict = domain.verdict(docname, block.index)
            if verdict is not None:
                yield from findings_of(block, verdict)


def summary(domain: JaxcheckDomain) -> tuple[str, bool]:
    """The one-line summary of the build, and whether anything failed."""
    verdicts = [
        v
        for doc in domain.documents_with_blocks()
        for b in domain.blocks(doc)
        if (v := domain.verdict(doc, b.index)) is not None
    ]
    counts = tally(verdicts)
    other = [f for f in domain.read_findings()]
    citation_drift = sum(1 for f in other if f.is_drift)
    other_errors = len(other) - citation_drift
    parts = [
        f"{counts[Status.VERIFIED]} verified",
        f"{counts[Status.DRIFT]} stale",
        f"{counts[Status.ERROR]} failed",
    ]
    if counts[Status.UNCHECKED]:
        parts.append(f"{counts[Status.UNCHECKED]} run unchecked")
    if counts[Status.SKIPPED]:
        parts.append(f"{counts[Status.SKIPPED]} skipped")
    if other:
        parts.append(f"{citation_drift} stale quote(s), {other_errors} other problem(s)")
    failed = bool(counts[Status.DRIFT] or counts[Status.ERROR] or other)
    version = domain.data.get("jax_version") or "?"
    line = f"jaxcheck: {len(verdicts)} block(s): " + ", ".join(parts) + f" (jax {version})"
    return line, failed


def _finish(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.env is None:
        return
    domain = domain_of(app.env)
    settings = settings_of(app.config)
    line, failed = summary(domain)
    if failed and settings.on_drift != "ignore":
        hint = f" Run `jaxcheck update {os.path.relpath(app.srcdir)}` to accept new outputs."
        logger.info(line + ("." + hint if any(_drifts(domain)) else ""))
    else:
        logger.info(line)
    if failed and settings.on_drift == "error":
        app.statuscode = 1


def _drifts(domain: JaxcheckDomain) -> Iterator[Any]:
    return (f for f in all_findings(domain) if f.subtype is Subtype.DRIFT)
