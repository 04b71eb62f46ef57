"""What a report was made from, so that only reports of one run are merged.

Pure: the adapter hands over the blocks read, the environment fingerprint and
the settings; ``report.merge.merge`` compares the descriptions of the shards.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Iterable

from ..config import Settings
from ..model import Block
from .records import RunRecord

# Settings that decide how a check runs, not what a block's verdict is.
_NOT_DECIDING = ("workers", "cache", "cache_dir", "cache_max_mb", "update", "shard")


def describe_run(
    blocks: Iterable[Block],
    fingerprint: str,
    settings: Settings,
    jax_version: str,
    split: str | None,
) -> RunRecord:
    """Digests of the blocks read (each one's document, name, line, code and options) and of
    everything that decides a verdict (the environment ``fingerprint`` and the
    ``jaxcheck_*`` values that reach a block), the JAX version, and for a shard
    its number and ``split``.
    """
    # Code and options too: two versions of a page may differ under the same names and lines.
    read = [[b.docname, b.label, b.body_line, list(b.body), str(b.options)] for b in blocks]
    deciding = {
        key: value
        for key, value in dataclasses.asdict(settings).items()
        if key not in _NOT_DECIDING
    }
    return {
        "documents": _digest(read),
        "jax": jax_version,
        "configuration": _digest([fingerprint, deciding]),
        "shard": settings.shard,
        "split": split if settings.shard else None,
    }


def _digest(value: object) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:16]
