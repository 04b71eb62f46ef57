"""The ``>>>`` examples of a text file beside the project (``jaxcheck_doctest_files``), read
whole as ``pytest --doctest-glob`` reads it."""

from __future__ import annotations

from ..model import FileExamples
from .scripts import ScriptRules


class FileExamplesRules(ScriptRules):
    def __init__(self, _kind: FileExamples) -> None:
        pass
