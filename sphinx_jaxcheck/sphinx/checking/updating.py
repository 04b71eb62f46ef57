"""``jaxcheck_update``: rewrite stale expectations at the end of a check, and report what was not.

Only what a second run in fresh workers confirms is written (see
:mod:`...rewrite.update`); the rewritten expectations are kept in the
environment, so :mod:`.findings` no longer reports them.
"""

from __future__ import annotations

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging

from ...kinds import rules_of
from ...model import Subtype
from ..domain import JaxcheckDomain, domain_of
from ..settings import settings_of
from ..stages import EnvUpdated
from .read_only import is_read_only
from .rereading import reread_of
from .sessions import second_run

logger = logging.getLogger(__name__)


def setup_updating(app: Sphinx) -> None:
    """Update the sources once the blocks were checked."""
    app.connect("env-updated", _update, priority=EnvUpdated.UPDATE)


def _update(app: Sphinx, env: BuildEnvironment) -> list[str]:
    if is_read_only(app):
        return []
    domain = domain_of(env)
    domain.build.rewritten = _rewrite(app, domain) if settings_of(app.config).update else set()
    return []


def _rewrite(app: Sphinx, domain: JaxcheckDomain) -> set[tuple[str, int]]:
    """Rewrite stale expectations now; report what could not be."""
    from ...rewrite.update import describe, update_sources  # only when updating: costly

    report = update_sources(
        domain.checked_blocks(),
        kinds=rules_of,
        rerun=second_run(app),
        root=str(app.srcdir),
        allow_outside=settings_of(app.config).update_allow_outside,
        reread=reread_of(app),
    )
    for path, line, why in report.refused:
        logger.warning(
            "cannot update this expectation: %s",
            why,
            location=f"{path}:{line}",
            type="jaxcheck",
            subtype=Subtype.UPDATE.value,
        )
    logger.info(
        describe(report)[-1] + ("; build again to render the new text" if report.written else "")
    )
    return report.rewritten_at
