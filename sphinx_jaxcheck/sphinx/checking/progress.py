"""The progress of running blocks, shown as Sphinx shows reading and writing."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator

from sphinx.util.display import status_iterator


class ProgressDisplay:
    """Sphinx's own progress display (``status_iterator``), advanced as blocks finish.

    The workers call back once per finished block; the display is a generator
    pulled one item per call, so it looks and counts like Sphinx's reading and
    writing progress: up to the number of blocks announced to run.
    """

    def __init__(self, summary: str, verbosity: int) -> None:
        self.summary = summary
        self.verbosity = verbosity
        self.finished: deque[str] = deque()
        self.display: Iterator[str] | None = None
        self.shown = 0

    def _items(self) -> Iterator[str]:
        while self.finished:
            yield self.finished.popleft()

    def advance(self, done: int, total: int) -> None:
        """One more block finished, of ``total`` to run."""
        if done <= self.shown:
            return  # the same count again (see run.sessions._without_setups)
        self.shown = done
        if self.display is None:
            self.display = status_iterator(
                self._items(), self.summary, "darkgreen", total, self.verbosity
            )
        self.finished.append(f"{done}/{total}")
        next(self.display, None)

    def finish(self) -> None:
        """End the display's line (nothing if no block ran)."""
        if self.display is not None:
            for _ in self.display:
                pass
            self.display = None
