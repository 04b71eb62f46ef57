"""``>>>`` examples a page holds, or a ``sphinx.ext.doctest`` test, judged as doctest judges
them."""

from __future__ import annotations

from ..model import PageExamples
from .scripts import ScriptRules


class PageExamplesRules(ScriptRules):
    def __init__(self, _kind: PageExamples) -> None:
        pass
