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


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_sphinx_s_reading_bar_passes_on_a_terminal_only() -> None:
    bar = "\x1b[2K\x1b[01mreading sources... \x1b[39;49;00m[100%] \x1b[35mpage\x1b[39;49;00m\r\n"
    terminal, log = Terminal(), io.StringIO()
    _StatusFilter(terminal).write(bar)
    _StatusFilter(log).write(bar.replace("\r", ""))
    assert terminal.getvalue() == "\x1b[2Kreading sources... [100%] page\r\n"
    assert log.getvalue() == ""  # there, our own lines say how reading goes
