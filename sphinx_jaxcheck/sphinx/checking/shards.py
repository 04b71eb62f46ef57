"""``jaxcheck_shard``: which sessions this build checks, and the durations that balance shards.

The split itself is pure (:mod:`...run.shards`); here it reads the durations
remembered in the cache folder, keeps the split's digest for the report, and
remembers how long each session took after a full (unsharded) check.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from sphinx.application import Sphinx

from ...model import Block, SessionKey, Shard, Verdict
from ...run.shards import (
    load_durations,
    save_durations,
    session_durations,
    split,
    split_digest,
)
from ..domain import domain_of
from ..settings import cache_directory, settings_of


def shard_selector(app: Sphinx) -> Callable[[Sequence[SessionKey]], set[SessionKey]] | None:
    """For ``jaxcheck_shard``: pick this shard's sessions, and remember the split for reports."""
    settings = settings_of(app.config)
    if settings.shard is None:
        return None
    shard = Shard.parse(settings.shard)
    durations = load_durations(cache_directory(app.confdir, settings))

    def select(sessions: Sequence[SessionKey]) -> set[SessionKey]:
        assignment = split(sessions, durations, shard.count)
        domain_of(app.env).data["split"] = split_digest(assignment)
        return {key for key, number in assignment.items() if number == shard.index}

    return select


def remember_durations(
    app: Sphinx, documents: Mapping[str, Sequence[Block]], verdicts: Mapping[str, Sequence[Verdict]]
) -> None:
    """Keep how long each session took, in the cache folder, for the next split."""
    settings = settings_of(app.config)
    save_durations(cache_directory(app.confdir, settings), session_durations(documents, verdicts))
