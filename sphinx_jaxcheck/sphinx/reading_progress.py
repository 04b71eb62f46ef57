"""Off a terminal, a line at least every 30 seconds while Sphinx reads the documents.

Sphinx prints a line per document it reads, but ``jaxcheck check`` and the pytest plugin
show only their own lines, and ``-q`` none: reading JAX's 1,707 documents then said
nothing for minutes, which a CI log takes for a hang. The lines are those of blocks
running (:class:`.checking.progress.ProgressDisplay`), counting documents read: each one
read in this process (``doctree-read``), or, with ``-j``, each batch merged from a reader
(``env-merge-info``). On a terminal, Sphinx's own redrawn line is enough.
"""

from __future__ import annotations

import weakref

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from .checking.progress import ProgressDisplay, shows_live_progress
from .stages import BuildFinished, DoctreeRead, EnvBeforeReadDocs, EnvUpdated

SUMMARY = "jaxcheck: reading documents... "

# The display of the reading under way, by application (a build at a time per app).
_READING: weakref.WeakKeyDictionary[Sphinx, ProgressDisplay] = weakref.WeakKeyDictionary()


def setup_reading_progress(app: Sphinx) -> None:
    """Count the documents read, from the first to the last."""
    app.connect("env-before-read-docs", _start, priority=EnvBeforeReadDocs.READING_PROGRESS)
    app.connect("doctree-read", _read_one, priority=DoctreeRead.READING_PROGRESS)
    app.connect("env-merge-info", _merged)
    app.connect("env-updated", _finish, priority=EnvUpdated.READING_PROGRESS)
    app.connect("build-finished", _finish, priority=BuildFinished.READING_PROGRESS)


def _start(app: Sphinx, _env: BuildEnvironment, docnames: list[str]) -> None:
    if docnames and not shows_live_progress(app):
        display = ProgressDisplay(SUMMARY, app.verbosity, live=False, always_end=False)
        display.start(len(docnames))
        _READING[app] = display


def _read(app: Sphinx, count: int) -> None:
    display = _READING.get(app)
    if display is not None:
        display.advance(display.shown + count, display.total)


def _read_one(app: Sphinx, _doctree: nodes.document) -> None:
    # In a reader process of -j, on its own copy: the batch counts when it is merged.
    _read(app, 1)


def _merged(
    app: Sphinx, _env: BuildEnvironment, docnames: set[str], _other: BuildEnvironment
) -> None:
    _read(app, len(docnames))


def _finish(app: Sphinx, *_args: object) -> list[str]:
    display = _READING.pop(app, None)
    if display is not None:
        display.finish()
    return []
