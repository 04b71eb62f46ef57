"""``build-finished``: the one-line summary of the build and, for ``jaxcheck_on_drift =
"error"``, exit status 1 while anything is still failing; under ``jaxcheck_fail_on_warnings
= "any"``, exit status 1 after any warning, as ``sphinx-build -W``."""

from __future__ import annotations

import os

from sphinx.application import Sphinx
from sphinx.util import logging

from ...kinds import rules_of
from ...report.records import checked_summary
from ..compat import warnings_logged
from ..domain import domain_of
from ..left_out_pages import excluded_examples
from ..notebooks import unchecked_cells
from ..page_examples import foreign_examples, unchecked_examples
from ..settings import settings_of
from ..stages import BuildFinished
from .read_only import is_read_only

logger = logging.getLogger(__name__)


def setup_summary(app: Sphinx) -> None:
    """Sum up the build once it finished (after other extensions' handlers)."""
    app.connect("build-finished", _finish, priority=BuildFinished.SUMMARY)


def summary(app: Sphinx) -> tuple[str, bool]:
    """The one-line summary of the build, and whether anything is still failing (a warning
    too, under ``jaxcheck_fail_on_warnings = "any"``)."""
    domain = domain_of(app.env)
    checked = list(domain.checked_blocks())
    warned = failing_warnings(app)
    failed = bool(warned) or any(True for _ in domain.all_findings())
    line = checked_summary(
        checked,
        list(domain.read_findings()),
        domain.build.jax_version or "?",
        rules_of,
        unchecked_examples=unchecked_examples(domain),
        doctests_like=doctests_named(app),
        uncached=domain.uncached(),
        excluded_examples=excluded_examples(domain.env),
        failing_warnings=warned,
        unchecked_cells=unchecked_cells(domain),
        foreign_examples=foreign_examples(domain),
        assumed=domain.assumed(),
    )
    return line, failed


def failing_warnings(app: Sphinx) -> int:
    """The build's warnings, when any warning fails the check (else 0)."""
    return warnings_logged(app) if settings_of(app.config).fail_on_warnings == "any" else 0


def doctests_named(app: Sphinx) -> str:
    """Whose doctest rules the summary names: when examples are checked, or some went
    unchecked."""
    settings = settings_of(app.config)
    if settings.doctests == "check" or (
        settings.doctests == "report" and unchecked_examples(domain_of(app.env))
    ):
        return settings.doctests_like or ""
    return ""


def _finish(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.env is None or is_read_only(app):
        return
    domain = domain_of(app.env)
    settings = settings_of(app.config)
    line, failed = summary(app)
    if failed and settings.on_drift != "ignore":
        hint = f" Run `jaxcheck update {os.path.relpath(app.srcdir)}` to accept new outputs."
        # Only where update can act: drift that nothing refuses to rewrite.
        updatable = any(f.updatable for f in domain.all_findings())
        logger.info(line + ("." + hint if updatable else ""))
    else:
        logger.info(line)
    if failed and (settings.on_drift == "error" or failing_warnings(app)):
        app.statuscode = 1
