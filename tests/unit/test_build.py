"""The status stream of a command's build: only our progress lines reach the user."""

from __future__ import annotations

import io

from sphinx_jaxcheck.sphinx.build import _StatusFilter


def test_only_our_lines_pass_even_after_a_piece_of_sphinx_s_own() -> None:
    shown = io.StringIO()
    status = _StatusFilter(shown)
    status.write("reading sources... [ 50%] ")  # Sphinx's line, in pieces
    # A line of ours, logged from another thread before Sphinx ended its own.
    status.write("jaxcheck: reading documents... [ 50%] 1/2, 30 s\n")
    status.write("page\n")
    status.write("\x1b[01mjaxcheck: running 1 of 1 block(s)\x1b[39;49;00m\n")
    status.write("writing output... [100%] page\n")
    assert shown.getvalue() == (
        "jaxcheck: reading documents... [ 50%] 1/2, 30 s\njaxcheck: running 1 of 1 block(s)\n"
    )
