"""A docstring's ``>>>`` examples, run in a copy of its module's globals as ``pytest
--doctest-modules`` runs them."""

from __future__ import annotations

from ..model import DocstringExamples
from .scripts import ScriptRules


class DocstringExamplesRules(ScriptRules):
    def __init__(self, _kind: DocstringExamples) -> None:
        pass
