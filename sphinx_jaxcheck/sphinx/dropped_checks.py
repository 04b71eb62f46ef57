"""Warnings of Sphinx and its extensions that drop checks, as findings that fail the check.

When autodoc cannot import what a page shows, Sphinx warns (without a location) and
the page simply lacks those docstrings, so their examples are never checked. Under
``jaxcheck_fail_on_warnings = "dropped-checks"`` (the default) or ``"any"``, with the
pages' examples checked, each such warning becomes a ``jaxcheck.dropped`` finding at the
autodoc directive's line. The handler sits on autodoc's logger, in whichever process
reads the page (also a ``-j`` reader, whose findings merge back with the page's data).

autodoc has Sphinx read such a page again in every build (importing may work by then), so
the finding holds exactly as long as the import fails.
"""

from __future__ import annotations

import ast
import logging
import re
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.util import logging as sphinx_logging

from ..model import Subtype
from ..report.findings import Finding
from .compat import source_path
from .doctree_tests import documented_at
from .domain import domain_of
from .settings import settings_of
from .stages import BuilderInited, BuildFinished

# autodoc's words from Sphinx 7.3 on: "failed to import module 'm'" (before 9.0),
# "failed to import 'm'", "failed to import function 'f' from module 'm'".
_FAILED_IMPORT = re.compile(
    r"failed to import (?:\w+ )?'(?P<name>[^']+)'(?: from module '(?P<module>[^']+)')?"
)
_HANDLER = "jaxcheck_dropped_checks"  # on the app: the handler this build added


def setup_dropped_checks(app: Sphinx) -> None:
    """Listen to autodoc while pages are read; stop listening when the build ends."""
    app.connect("builder-inited", _listen, priority=BuilderInited.DROPPED_CHECKS)
    app.connect("build-finished", _stop_listening, priority=BuildFinished.DROPPED_CHECKS)


class _AutodocImports(logging.Handler):
    """Hears autodoc's records; a failed import becomes a finding of the page being read."""

    def __init__(self, app: Sphinx) -> None:
        super().__init__(logging.WARNING)
        self.app = app

    def emit(self, record: logging.LogRecord) -> None:
        if (getattr(record, "type", ""), getattr(record, "subtype", "")) != (
            "autodoc",
            "import_object",
        ):
            return
        env = self.app.env
        docname = env.temp_data.get("docname")  # the page autodoc runs for (None: not reading)
        if not docname:
            return
        path = source_path(env, docname)
        domain_of(env).add_finding(docname, dropped_finding(record.getMessage(), path, docname))


def dropped_finding(message: str, page: Path, docname: str) -> Finding:
    """The finding for autodoc's warning ``message`` about ``page``: at the line of the autodoc
    directive showing what it could not import (the page's first line when none names it)."""
    found = _FAILED_IMPORT.search(message)
    name = ""
    if found:
        name = f"{found['module']}.{found['name']}" if found["module"] else found["name"]
    reason = _exception_of(message)
    try:
        lines = page.read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError):
        lines = []
    line = documented_at(lines, name, 1) if name else 1
    shown = f"{name!r}" if name else "what an autodoc directive shows"
    return Finding(
        Subtype.DROPPED,
        f"autodoc could not import {shown} ({reason}), so this page lacks its docstrings and "
        "none of their examples is checked. Make it importable by the Python that runs "
        "Sphinx (install it, or add its folder to sys.path in conf.py), or set "
        'jaxcheck_fail_on_warnings = "off" to check the rest without failing',
        str(page),
        line,
        docname,
    )


def _exception_of(message: str) -> str:
    """The exception autodoc's warning ends with: a traceback's last line, or the error alone.

    Sphinx 8.2 writes the traceback as the repr of :func:`traceback.format_exception`'s list,
    all on one line; its last item ends with the exception.
    """
    last = message.strip().splitlines()[-1].strip()
    if last.startswith("[") and last.endswith("]"):
        try:
            lines = ast.literal_eval(last)
        except (ValueError, SyntaxError):
            return last
        if isinstance(lines, list) and lines and isinstance(lines[-1], str) and lines[-1].strip():
            return lines[-1].strip().splitlines()[-1]
    return last


def _autodoc_logger() -> logging.Logger:
    # Every autodoc module of Sphinx 7.3 to 9 logs as "sphinx.ext.autodoc" or below it.
    return sphinx_logging.getLogger("sphinx.ext.autodoc").logger


def _listen(app: Sphinx) -> None:
    settings = settings_of(app.config)
    if settings.fail_on_warnings == "off" or settings.doctests != "check":
        return
    handler = _AutodocImports(app)
    _autodoc_logger().addHandler(handler)
    setattr(app, _HANDLER, handler)


def _stop_listening(app: Sphinx, exception: Exception | None) -> None:
    handler = getattr(app, _HANDLER, None)
    if handler is not None:
        _autodoc_logger().removeHandler(handler)
        delattr(app, _HANDLER)
