"""Docutils nodes of jaxcheck blocks; post-transforms turn them into standard nodes."""

from __future__ import annotations

from docutils import nodes


class jaxcheck_block(nodes.General, nodes.Element):  # type: ignore[misc]
    """A rendered block; holds its code until its verdict is known at write time.

    Attributes: ``docname`` and ``index`` locate the block's verdict in the
    environment; ``hidden`` blocks render nothing. A node showing the examples
    of several blocks lists them all in ``indices``; one showing examples that
    do not run has ``reason`` (why) instead.
    """
