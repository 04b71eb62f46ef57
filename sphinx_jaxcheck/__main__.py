"""``python -m sphinx_jaxcheck`` is the ``jaxcheck`` command."""

from __future__ import annotations

from .cli import command

raise SystemExit(command())
