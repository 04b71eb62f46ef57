"""``>>>`` examples a page holds, or a ``sphinx.ext.doctest`` test: judged as doctest judges
them; pytest runs them, so under its warning filters, only where they are judged as its
``--doctest-glob`` judges them (``sphinx-build -b doctest`` applies no filters of pytest's)."""

from __future__ import annotations

from .scripts import ScriptRules


class PageExamplesRules(ScriptRules):
    """The rules of a page's ``>>>`` examples (see :class:`.protocol.Kind`)."""

    def judged_like_pytest(self, doctests_like: str | None) -> bool:
        return doctests_like == "pytest"
