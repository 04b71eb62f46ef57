"""A docstring's ``>>>`` examples: run in a copy of their module's globals, as
``pytest --doctest-modules`` runs them, so always under pytest's warning filters."""

from __future__ import annotations

from .scripts import ScriptRules


class DocstringExamplesRules(ScriptRules):
    """The rules of a docstring's examples (see :class:`.protocol.Kind`)."""

    def judged_like_pytest(self, doctests_like: str | None) -> bool:
        return True
