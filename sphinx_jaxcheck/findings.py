"""Problems to report, with their warning subtypes, independent of Sphinx.

Every problem jaxcheck finds becomes a :class:`Finding`; the Sphinx adapter
logs each as a warning with ``type="jaxcheck"`` and the subtype, so users can
silence a kind with ``suppress_warnings = ["jaxcheck.timeout"]``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Subtype(enum.Enum):
    """Kinds of jaxcheck warnings (the part after ``jaxcheck.``)."""

    DRIFT = "drift"  # an expected output no longer matches what happens
    ERROR = "error"  # a block raised an exception it does not expect
    TIMEOUT = "timeout"  # a block ran longer than its timeout
    CRASH = "crash"  # a block killed its worker (signal, os._exit)
    MEMORY = "memory"  # a block ran out of memory (see jaxcheck_memory_limit_mb)
    OUTPUT = "output"  # a block printed more than the output limit
    RAISES = "raises"  # ``:raises:`` was not satisfied, or names no exception
    SYNTAX = "syntax"  # a block is not valid Python, is empty, or its fence is never closed
    ENCODING = "encoding"  # a source file that does not decode (left out of the build)
    OPTION = "option"  # an unknown option or a bad option value
    CITATION = "citation"  # a jaxsrc / jaxquote target or quote that does not hold
    NAME = "name"  # a ``jax.`` name in prose that the pinned jax does not have
    PIN = "pin"  # the installed jax is not the pinned one
    WORKER = "worker"  # the worker processes could not start
    UPDATE = "update"  # an expectation that ``update`` cannot or may not rewrite


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
