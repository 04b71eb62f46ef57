"""The fingerprint of a build's workers: their Python, what is installed there, their environment.

It is part of every cache key and of the run description, and a change of it
re-reads the documents (see :mod:`.outdated`).
"""

from __future__ import annotations

import weakref

from sphinx.application import Sphinx

from ..cache.outcomes import fingerprint_of
from ..run.pool import worker_settings
from .settings import settings_of

# By application: asked of their interpreter once per build (packages may
# change between two builds).
_FINGERPRINTS: weakref.WeakKeyDictionary[Sphinx, str] = weakref.WeakKeyDictionary()


def setup_fingerprint(app: Sphinx) -> None:
    """Forget the fingerprint when the build finishes: the next build finds it again."""
    app.connect("build-finished", _forget, priority=900)


def fingerprint(app: Sphinx) -> str:
    """The fingerprint of this build's workers."""
    if app not in _FINGERPRINTS:
        _FINGERPRINTS[app] = fingerprint_of(worker_settings(settings_of(app.config)))
    return _FINGERPRINTS[app]


def _forget(app: Sphinx, _exception: Exception | None) -> None:
    _FINGERPRINTS.pop(app, None)
