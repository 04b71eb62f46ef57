"""``jaxcheck_shard``: which sessions this build checks, and the durations that balance shards.

The split itself is pure (:mod:`...run.shards`); here it reads the durations
remembered in the cache folder, keeps the split's digest for the report, and
remembers how long each session took after a full (unsharded) check.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from sphinx.application import Sphinx

from ...model import Block, SessionKey, Shard, Status, Verdict
from ...run.shards import (
    chooser,
    load_durations,
    save_durations,
    session_durations,
    split,
    split_digest,
)
from ..domain import VERDICTS, domain_of
from ..settings import cache_directory, settings_of


def shard_selector(app: Sphinx) -> Callable[[Sequence[SessionKey]], set[SessionKey]] | None:
    """For ``jaxcheck_shard``: pick this shard's sessions, and remember the split for reports.

    The split is over every session of every document in scope, read in this
    build or kept from an earlier one, so that it is the split of a fresh run.
    """
    assignment = shard_assignment(app)
    if assignment is None:
        return None
    index = Shard.parse(settings_of(app.config).shard or "").index
    domain_of(app.env).build.split = split_digest(assignment)
    return chooser(assignment, index)


def shard_assignment(app: Sphinx) -> dict[SessionKey, int] | None:
    """The shard of every session of the documents in scope (None: the build is not sharded)."""
    settings = settings_of(app.config)
    if settings.shard is None:
        return None
    domain = domain_of(app.env)
    sessions = dict.fromkeys(
        block.session_key for doc in domain.documents_in_scope() for block in domain.blocks(doc)
    )
    durations = load_durations(cache_directory(app.confdir, settings))
    return split(list(sessions), durations, Shard.parse(settings.shard).count)


def reassigned_documents(app: Sphinx) -> list[str]:
    """Checked documents whose verdicts belong to another split: a block checked here whose
    session is now another shard's, or the other way round (sessions came or went, or the
    remembered durations changed)."""
    assignment = shard_assignment(app)
    if assignment is None:
        return []
    index = Shard.parse(settings_of(app.config).shard or "").index
    domain = domain_of(app.env)
    verdicts = domain.per_document(VERDICTS)
    return [
        doc
        for doc in domain.documents_in_scope()
        if doc in verdicts
        and any(
            (verdict.status is Status.OTHER_SHARD) == (assignment.get(block.session_key) == index)
            for block, verdict in zip(domain.blocks(doc), verdicts[doc], strict=False)
        )
    ]


def remember_durations(
    app: Sphinx, documents: Mapping[str, Sequence[Block]], verdicts: Mapping[str, Sequence[Verdict]]
) -> None:
    """Keep how long each session took, in the cache folder, for the next split."""
    settings = settings_of(app.config)
    save_durations(cache_directory(app.confdir, settings), session_durations(documents, verdicts))
