"""``jaxcheck_cache_max_mb``: after blocks ran, the session outcomes are pruned to their share.

JAX keeps the compiled programs under theirs itself (see :mod:`..cache.size`).
"""

from __future__ import annotations

from sphinx.application import Sphinx
from sphinx.util import logging

from ..cache.size import human_size, prune
from ..config import results_share
from .settings import cache_directory, settings_of

logger = logging.getLogger(__name__)


def bound_cache(app: Sphinx) -> None:
    """Prune the session outcomes to their share of the limit, least recently used first."""
    settings = settings_of(app.config)
    limit = results_share(int(settings.cache_max_mb * 1024 * 1024))
    pruned = prune(cache_directory(app.confdir, settings), limit)
    if pruned.removed:
        logger.info(
            (
                "jaxcheck: session outcomes over their share of jaxcheck_cache_max_mb (%s): "
                "removed %d least recently used item(s), %s"
            ),
            human_size(limit),
            pruned.removed,
            human_size(pruned.freed),
        )
