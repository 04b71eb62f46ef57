"""This package's version: one place, read by the cache key, ``--version`` and Sphinx."""

from __future__ import annotations

__version__ = "0.1.0"
