"""The ``>>>`` examples of a text file ``jaxcheck_doctest_files`` names (a README beside the
project): no page reads the file, so it is read, and read again by update, on its own; it is
written wherever it is (conf.py names it); pytest runs it (``--doctest-glob``), so under its
warning filters."""

from __future__ import annotations

from .scripts import ScriptRules


class FileExamplesRules(ScriptRules):
    """The rules of a named text file's examples (see :class:`.protocol.Kind`)."""

    def judged_like_pytest(self, doctests_like: str | None) -> bool:
        return True

    def read_on_its_own(self) -> bool:
        return True

    def written_where_it_is(self) -> bool:
        return True
