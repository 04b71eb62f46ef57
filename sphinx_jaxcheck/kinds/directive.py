"""A ``jaxcheck`` block: its options and comments say what to expect."""

from __future__ import annotations

from ..model import Directive
from .scripts import ScriptRules


class DirectiveRules(ScriptRules):
    def __init__(self, _kind: Directive) -> None:
        pass
