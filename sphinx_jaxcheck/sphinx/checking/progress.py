"""The progress of running blocks, shown as Sphinx shows reading and writing."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.display import status_iterator

logger = logging.getLogger(__name__)


def shows_live_progress(app: Sphinx) -> bool:
    """Whether the build's status stream is a terminal, where a progress line is redrawn.

    Elsewhere (a CI log, a file, a pipe) a line per block would only be noise.
    """
    isatty = getattr(getattr(app, "_status", None), "isatty", None)  # Sphinx keeps no public name
    return bool(isatty and isatty())


class ProgressDisplay:
    """Sphinx's own progress display (``status_iterator``), advanced as blocks finish.

    The workers call back once per finished block; the display is a generator
    pulled one item per call, so it looks and counts like Sphinx's reading and
    writing progress: up to the number of blocks announced to run. Not ``live``
    (no terminal), the stage gets one line, written when it ends.
    """

    def __init__(self, summary: str, verbosity: int, live: bool = True) -> None:
        self.summary = summary
        self.verbosity = verbosity
        self.live = live
        self.finished: deque[str] = deque()
        self.display: Iterator[str] | None = None
        self.shown = 0
        self.total = 0

    def _items(self) -> Iterator[str]:
        while self.finished:
            yield self.finished.popleft()

    def advance(self, done: int, total: int) -> None:
        """More blocks or examples finished: ``done`` of ``total`` to run."""
        if done <= self.shown:
            return
        self.shown, self.total = done, total
        if not self.live:
            return
        if self.display is None:
            self.display = status_iterator(
                self._items(), self.summary, "darkgreen", total, self.verbosity
            )
        self.finished.append(f"{done}/{total}")
        next(self.display, None)

    def finish(self) -> None:
        """End the display's line (nothing if no block ran)."""
        if not self.live:
            if self.shown:
                share = f"{self.shown / self.total: >4.0%}"
                logger.info("%s[%s] %d/%d", self.summary, share, self.shown, self.total)
                self.shown = 0
            return
        if self.display is not None:
            for _ in self.display:
                pass
            self.display = None
