"""Run the sessions of some documents as a build configures them: for the check, the pytest
plugin, and the second run that ``jaxcheck update`` compares with."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from sphinx.application import Sphinx
from sphinx.util import logging

from ...cache.outcomes import OutcomeCache
from ...config import Settings
from ...errors import JaxUnavailableError, WorkerStartError
from ...kinds import warning_filters
from ...model import Block, Verdict
from ...run.pool import Workers
from ...run.sessions import CheckPlan, check_documents, not_started
from ...worker.dependencies import Dependencies
from ..compat import source_path
from ..domain import domain_of
from ..interpreter import fingerprint, runtime_of
from ..settings import cache_directory, settings_of, stop
from .assumptions import assumed_documents
from .shards import remember_durations, shard_selector
from .workers import workers_of

if TYPE_CHECKING:
    from ...rewrite.update import Rerun

logger = logging.getLogger(__name__)


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
        doc: _as_run(blocks, os.path.dirname(source_path(app.env, doc)), settings)
        for doc, blocks in documents.items()
    }
    cache = OutcomeCache(cache_directory(app.confdir, settings)) if settings.writes_cache else None
    select = shard_selector(app)
    try:
        report = check_documents(
            documents,
            workers,
            cache=cache,
            reuse=settings.reads_cache,
            fingerprint=fingerprint(app),
            progress=progress,
            setup=settings.setup,
            announce=announce,
            select=select,
            runtime=runtime_of(app.config, [b for blocks in documents.values() for b in blocks]),
            assume=assumed_documents(app),
        )
        for path, why in report.discarded:
            logger.info(
                "jaxcheck: discarded the cache entry %s (%s); its session ran again", path, why
            )
        for doc in documents:
            reasons = report.uncached.get(doc, [])
            assumed = report.assumed.get(doc, [])
            used = report.used.get(doc, Dependencies())
            domain_of(app.env).set_used(doc, used, reasons, assumed)
            for why in reasons:
                logger.info("jaxcheck: %s: a session's result is not cached: %s", doc, why)
            for why in assumed:
                logger.info(
                    "jaxcheck: %s: a session's result is cached by assumption "
                    "(jaxcheck_cache_assume): %s",
                    doc,
                    why,
                )
    except JaxUnavailableError as error:
        # Once for the build, not once per block: no block can run.
        stop(
            f"{error}. Install it there: `pip install jax` (the release your docs describe), "
            'or `pip install "./sphinx-jaxcheck[jax]"` beside a checkout of sphinx-jaxcheck'
        )
    except WorkerStartError as error:
        return not_started(documents, error)
    if select is None and settings.writes_cache:
        remember_durations(app, documents, report.verdicts)
    return report.verdicts


def _as_run(blocks: Sequence[Block], folder: str, settings: Settings) -> list[Block]:
    """Blocks set to run as configured: every kind (directives, ``>>>`` examples, docstrings)
    in its document's folder, wherever the build was started, but a text file beside the
    project, whose blocks name its own folder already; under ``jaxcheck_filterwarnings``, the
    examples pytest would run under its ini filters."""
    return [
        replace(
            b,
            program=replace(
                b.program,
                cwd=b.program.cwd or folder,
                filterwarnings=warning_filters(b, settings, settings.doctests_like),
            ),
        )
        for b in blocks
    ]


def second_run(app: Sphinx) -> Rerun:
    """Check blocks again in fresh workers (a new process tree, no cache), for update to
    compare with."""

    def rerun(documents: Mapping[str, Sequence[Block]]) -> dict[str, list[Verdict]]:
        workers = workers_of(app)
        # In their documents' folders, as the first run: what they import from there too.
        settings = settings_of(app.config)
        documents = {
            doc: _as_run(blocks, os.path.dirname(source_path(app.env, doc)), settings)
            for doc, blocks in documents.items()
        }
        try:
            setup = settings.setup
            return check_documents(documents, workers, setup=setup).verdicts
        finally:
            workers.close()

    return rerun
