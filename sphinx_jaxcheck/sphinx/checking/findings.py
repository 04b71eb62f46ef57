"""Every open problem of every document in scope, as a Sphinx warning at its file and line.

Logged on ``env-updated`` after the check and the update, from the verdicts
stored in the environment: an incremental build that re-read nothing still
reports (and fails on) the drift that remains.
"""

from __future__ import annotations

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging

from ...report.printable import printable
from ..domain import domain_of
from ..settings import settings_of
from ..stages import EnvUpdated
from .read_only import is_read_only

logger = logging.getLogger(__name__)


def setup_findings(app: Sphinx) -> None:
    """Warn about every open problem once the blocks were checked and updated."""
    app.connect("env-updated", _warn, priority=EnvUpdated.FINDINGS)


def _warn(app: Sphinx, env: BuildEnvironment) -> list[str]:
    if is_read_only(app):
        return []
    ignore_drift = settings_of(app.config).on_drift == "ignore"
    for finding in domain_of(env).all_findings():
        if finding.is_drift and ignore_drift:
            continue
        logger.warning(
            printable(finding.message),
            location=finding.location,
            type="jaxcheck",
            subtype=finding.subtype.value,
        )
    return []
