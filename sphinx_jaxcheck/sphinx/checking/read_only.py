"""Applications that only read: the pytest plugin runs the blocks itself, as test items."""

from __future__ import annotations

import weakref

from sphinx.application import Sphinx

_READ_ONLY: weakref.WeakSet[Sphinx] = weakref.WeakSet()


def read_only(app: Sphinx) -> None:
    """Let this application read documents (blocks, citations, cards) without running any block."""
    _READ_ONLY.add(app)


def is_read_only(app: Sphinx) -> bool:
    """Whether this application reads documents only (see :func:`read_only`)."""
    return app in _READ_ONLY
