"""Problems to report, with their warning subtypes, independent of Sphinx.

Every problem jaxcheck finds becomes a :class:`Finding`; the Sphinx adapter
logs each as a warning with ``type="jaxcheck"`` and the subtype, so users can
silence a kind with ``suppress_warnings = ["jaxcheck.timeout"]``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .model import Subtype


@dataclass(frozen=True)
class Finding:
    """One problem, located at a real file and line."""

    subtype: Subtype
    message: str
    path: str
    line: int
    docname: str = ""
    is_drift: bool = False  # drift counts separately from errors in summaries

    @property
    def location(self) -> str:
        """``file:line`` as reports print it."""
        return f"{self.path}:{self.line}"
