"""The progress of running blocks (and, off a terminal, of reading documents), shown as Sphinx
shows reading and writing."""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterator

from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.display import status_iterator

logger = logging.getLogger(__name__)

# Off a terminal, the longest a log goes without a progress line while documents are read or
# blocks run, in seconds: a CI job that prints nothing for minutes looks hung, and some are
# stopped for it.
LOG_EVERY = 30.0


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
    (no terminal), the stage gets a line every :data:`LOG_EVERY` seconds from
    :meth:`start` on while some are left, with what is done so far and the time since, and
    one when it ends (with ``always_end`` False, only after such a line: a stage that is
    over in seconds says nothing).
    """

    def __init__(
        self, summary: str, verbosity: int, live: bool = True, always_end: bool = True
    ) -> None:
        self.summary = summary
        self.verbosity = verbosity
        self.live = live
        self.always_end = always_end
        self.ticked = False
        self.finished: deque[str] = deque()
        self.display: Iterator[str] | None = None
        self.shown = 0
        self.total = 0
        self.ended = threading.Event()
        self.ticker: threading.Thread | None = None

    def start(self, total: int) -> None:
        """``total`` blocks and examples are about to run: off a terminal, log where they
        stand every :data:`LOG_EVERY` seconds until :meth:`finish`."""
        if self.live or total <= 0 or self.ticker is not None:
            return
        self.total = total
        begun = time.monotonic()

        def tick() -> None:
            while not self.ended.wait(LOG_EVERY):
                done, of = self.shown, self.total
                if done >= of:
                    continue  # all ran: :meth:`finish`'s line is next, and says so
                elapsed = time.monotonic() - begun
                self.ticked = True
                logger.info(
                    "%s[%s] %d/%d, %d s",
                    self.summary,
                    f"{done / of: >4.0%}",
                    done,
                    of,
                    elapsed,
                )

        self.ticker = threading.Thread(target=tick, name="jaxcheck-progress", daemon=True)
        self.ticker.start()

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
        if self.ticker is not None:
            self.ended.set()
            self.ticker.join()
            self.ticker = None
        if not self.live:
            if self.shown and (self.always_end or self.ticked):
                share = f"{self.shown / self.total: >4.0%}"
                logger.info("%s[%s] %d/%d", self.summary, share, self.shown, self.total)
                self.shown = 0
            return
        if self.display is not None:
            for _ in self.display:
                pass
            self.display = None
