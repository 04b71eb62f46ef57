"""A ``jaxcheck`` block: run as a script, its options and comments say what it prints, and
update rewrites those comments. It is what :class:`.scripts.ScriptRules` describes."""

from __future__ import annotations

from .scripts import ScriptRules


class DirectiveRules(ScriptRules):
    """The rules of a ``jaxcheck`` block (see :class:`.protocol.Kind`)."""
