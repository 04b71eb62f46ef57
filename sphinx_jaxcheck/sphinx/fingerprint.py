"""The fingerprint of a build's workers: their Python, what is installed there, their environment.

It is part of every cache key and of the run description, and a change of it
re-reads the documents (see :mod:`.outdated`). The workers' interpreter is
asked for it once per build, by the probe that also told the pin check its
JAX (see :func:`.interpreter.probe_of`).
"""

from __future__ import annotations

from sphinx.application import Sphinx

from .interpreter import probe_of


def fingerprint(app: Sphinx) -> str:
    """The fingerprint of this build's workers."""
    return probe_of(app.config).fingerprint
