"""A Markdown page's ```` ```python ```` fence (an MkDocs page's): run as a script like a
``jaxcheck`` block, its comments say what it prints, and update rewrites those comments. Its
label (:class:`..model.MarkdownFence`) names its page's file and line."""

from __future__ import annotations

from .scripts import ScriptRules


class MarkdownFenceRules(ScriptRules):
    """The rules of a Markdown fence (see :class:`.protocol.Kind`)."""
