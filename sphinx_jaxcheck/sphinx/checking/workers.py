"""The worker processes of a build, started while Sphinx reads when that helps.

``env-before-read-docs``: for a cold build (no cache yet, or caching off) the
zygote starts at once and imports jax on the other core while documents are
read. With a cache most sessions are usually hits, and an unused jax import
would slow the build. ``build-finished`` closes workers the check never took
(the build stopped before it).
"""

from __future__ import annotations

import weakref

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from ...cache.outcomes import OutcomeCache
from ...cache.size import compiled_folder
from ...run.early_zygote import end_waiting_zygote
from ...run.pool import Workers, worker_settings
from ..python_path import conf_python_path
from ..settings import cache_directory, settings_of
from ..stages import BuildFinished, EnvBeforeReadDocs
from .read_only import is_read_only

# Workers started while Sphinx reads, by application (a build at a time per app).
_EARLY: weakref.WeakKeyDictionary[Sphinx, Workers] = weakref.WeakKeyDictionary()


def setup_workers(app: Sphinx) -> None:
    """Start the workers early for a cold build; close them if no check took them."""
    app.connect("env-before-read-docs", _start_early, priority=EnvBeforeReadDocs.WORKERS)
    app.connect("build-finished", _close_unused, priority=BuildFinished.WORKERS)


def workers_of(app: Sphinx) -> Workers:
    """The workers of a build, as configured (not started yet)."""
    settings = settings_of(app.config)
    # Compiled XLA programs are kept beside the outcomes; when nothing is taken from the cache,
    # for this build only (JAX would read what the folder holds).
    xla = compiled_folder(cache_directory(app.confdir, settings)) if settings.reads_cache else None
    return Workers(worker_settings(settings, xla, conf_python_path(app.config)))


def early_workers(app: Sphinx) -> Workers:
    """The workers of this build for work before the check (collecting docstrings), started
    now if need be; the check takes them."""
    workers = _EARLY.get(app)
    if workers is None:
        workers = _EARLY[app] = workers_of(app)
    return workers


def take_workers(app: Sphinx) -> Workers:
    """The workers for this build's check: those started early, or new ones; the caller
    closes them."""
    return _EARLY.pop(app, None) or workers_of(app)


def _start_early(app: Sphinx, _env: BuildEnvironment, docnames: list[str]) -> None:
    settings = settings_of(app.config)
    if is_read_only(app) or (
        settings.reads_cache and OutcomeCache(cache_directory(app.confdir, settings)).has_entries()
    ):
        end_waiting_zygote()  # a command's early zygote, which this build does not want now
        return
    if docnames and app not in _EARLY:
        workers = workers_of(app)
        workers.start()
        _EARLY[app] = workers


def _close_unused(app: Sphinx, _exception: Exception | None) -> None:
    early = _EARLY.pop(app, None)
    if early is not None:  # the build stopped before checking
        early.close()
