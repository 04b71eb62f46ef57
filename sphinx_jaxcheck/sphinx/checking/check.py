"""``env-updated`` (all documents read, ``-j`` results merged): check what is not checked yet.

The sessions of every document without verdicts run (or come from the cache),
with Sphinx's progress display; the verdicts are stored in the environment,
the session outcomes are pruned to their share of the cache limit, and the
fingerprint, this extension's code and the JAX version the verdicts belong to are
recorded. Updating (:mod:`.updating`) and reporting (:mod:`.findings`) follow on the same
event.
"""

from __future__ import annotations

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging

from ...cache.size import human_size, prune
from ...config import compiled_share, results_share
from ...model import Block
from ...run.pool import Workers
from ...run.sessions import CheckPlan, describe_plan
from ..domain import VERDICTS, domain_of
from ..interpreter import fingerprint, interpreter_of
from ..settings import cache_directory, settings_of
from ..stages import EnvUpdated
from .outdated import extension_digest
from .progress import ProgressDisplay, shows_live_progress
from .read_only import is_read_only
from .sessions import run_documents
from .shards import reassigned_documents
from .workers import take_workers

logger = logging.getLogger(__name__)


def setup_check(app: Sphinx) -> None:
    """Run the blocks once every document has been read."""
    app.connect("env-updated", _check, priority=EnvUpdated.CHECK)


def _check(app: Sphinx, env: BuildEnvironment) -> list[str]:
    if is_read_only(app):
        return []
    domain = domain_of(env)
    settings = settings_of(app.config)
    workers = take_workers(app)  # also with nothing to check: those started early are closed
    if not settings.reads_cache:
        # The verdicts an earlier build left in the environment are reused results too: every
        # document's sessions run, none is read again for it.
        domain.per_document(VERDICTS).clear()
    try:
        # A sharded build also checks again what a new split gives to another shard, or to this one.
        pending = sorted({*domain.unchecked_documents(), *reassigned_documents(app)})
        if pending:
            _run(app, {doc: domain.blocks(doc) for doc in pending}, workers)
    finally:
        workers.close()
    domain.build.fingerprint = fingerprint(app)
    domain.build.extension = extension_digest()
    domain.build.jax_version = settings.jax_version or interpreter_of(app.config).jax_version or ""
    return []


def _run(app: Sphinx, documents: dict[str, list[Block]], workers: Workers) -> None:
    """Run these documents' sessions, store their verdicts, keep the cache within its limit."""
    settings = settings_of(app.config)
    display = ProgressDisplay(
        "jaxcheck: running blocks... ", app.verbosity, live=shows_live_progress(app)
    )

    def announce(plan: CheckPlan) -> None:
        logger.info("jaxcheck: %s", describe_plan(plan, len(documents), settings.workers))
        display.summary = f"jaxcheck: running {plan.to_run.what}... "
        display.start(plan.to_run.units)

    try:
        verdicts = run_documents(
            app, documents, workers, progress=display.advance, announce=announce
        )
    finally:
        display.finish()
    domain = domain_of(app.env)
    for docname, found in verdicts.items():
        domain.set_verdicts(docname, found)
    if settings.writes_cache:
        _bound_cache(app)


def _bound_cache(app: Sphinx) -> None:
    """Prune the session outcomes to their share of the limit, least recently used first;
    empty the compiled programs if they outgrew theirs."""
    settings = settings_of(app.config)
    cap = int(settings.cache_max_mb * 1024 * 1024)
    directory = cache_directory(app.confdir, settings)
    pruned = prune(directory, results_share(cap), compiled_share(cap))
    if pruned.removed:
        logger.info(
            (
                "jaxcheck: session outcomes over their share of jaxcheck_cache_max_mb (%s): "
                "removed %d least recently used item(s), %s"
            ),
            human_size(results_share(cap)),
            pruned.removed,
            human_size(pruned.freed),
        )
    if pruned.emptied:
        logger.info(
            (
                "jaxcheck: compiled programs over their share of jaxcheck_cache_max_mb (%s): "
                "emptied xla/, %s; JAX compiles them again when blocks run"
            ),
            human_size(compiled_share(cap)),
            human_size(pruned.emptied),
        )
