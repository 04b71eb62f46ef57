"""The description of this build's check that a report carries (see
:mod:`...report.run_description`)."""

from __future__ import annotations

from sphinx.application import Sphinx

from ...report.records import RunRecord
from ...report.run_description import describe_run
from ..domain import domain_of
from ..interpreter import fingerprint
from ..settings import settings_of
from .summary import doctests_named


def run_description(app: Sphinx) -> RunRecord:
    """What a report of this build was made from, so that only reports of one run are merged."""
    domain = domain_of(app.env)
    described = describe_run(
        (block for block, _ in domain.checked_blocks()),
        fingerprint(app),
        settings_of(app.config),
        domain.build.jax_version or "?",
        domain.build.split,
    )
    # A merged report's summary names the same rules.
    described["doctests_like"] = doctests_named(app)
    described["depended"] = {
        path: digest
        for doc, used in sorted(domain.used().items())
        if domain.in_scope(doc)
        for path, digest in sorted(used.files.items())
    }
    return described
