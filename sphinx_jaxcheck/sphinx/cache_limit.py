"""``jaxcheck_cache_max_mb``: after blocks ran, the cache folder is pruned to its limit."""

from __future__ import annotations

from sphinx.application import Sphinx
from sphinx.util import logging

from ..cache.size import human_size, prune
from .settings import cache_directory, settings_of

logger = logging.getLogger(__name__)


def bound_cache(app: Sphinx) -> None:
    """Prune both caches (outcomes, compiled XLA programs), least recently used first."""
    settings = settings_of(app.config)
    limit = int(settings.cache_max_mb * 1024 * 1024)
    pruned = prune(cache_directory(app.confdir, settings), limit)
    if pruned.removed:
        logger.info(
            "jaxcheck: cache over its limit of %s (jaxcheck_cache_max_mb): removed %d least recently used item(s), %s",
            human_size(limit),
            pruned.removed,
            human_size(pruned.freed),
        )
