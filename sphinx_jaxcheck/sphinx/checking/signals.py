"""SIGINT and SIGTERM unwind a build cleanly, from ``builder-inited`` to ``build-finished``.

See :mod:`...run.interrupt`: the workers are closed and half-written files
removed on the way out, instead of the process dying mid-write.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable

from sphinx.application import Sphinx

from ...run import interrupt
from ..stages import BuilderInited, BuildFinished

# How to undo our SIGINT/SIGTERM handling, by application (for one build).
_RESTORE: weakref.WeakKeyDictionary[Sphinx, Callable[[], None]] = weakref.WeakKeyDictionary()


def setup_signals(app: Sphinx) -> None:
    """Catch the signals once the builder exists; give them back when the build finishes."""
    app.connect("builder-inited", _catch, priority=BuilderInited.SIGNALS)
    app.connect("build-finished", _release, priority=BuildFinished.SIGNALS)


def _catch(app: Sphinx) -> None:
    _RESTORE[app] = interrupt.install()


def _release(app: Sphinx, _exception: Exception | None) -> None:
    restore = _RESTORE.pop(app, None)
    if restore is not None:
        restore()
