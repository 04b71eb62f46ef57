"""Ctrl-C and SIGTERM: stop cleanly, with one line, instead of dying mid-write.

While :func:`interruptible` is active, the first SIGINT or SIGTERM raises
:class:`InterruptError` in the main thread. It unwinds like any exception, so every
``finally`` runs: the workers are closed (the zygote kills every process the
blocks started), temporary folders and half-written files are removed, and the
sessions that finished are already in the cache. Without it, SIGTERM would end
the process on the spot and leave all of that behind.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType

from ..errors import InterruptError

SIGNALS = (signal.SIGINT, signal.SIGTERM)


def message(signum: int) -> str:
    """The one line an interrupted run prints."""
    return (
        f"jaxcheck: interrupted by {signal.Signals(signum).name}: stopping the workers and "
        "every process the blocks started, removing temporary files; sessions that finished "
        "stay in the cache"
    )


def install() -> Callable[[], None]:
    """Raise :class:`InterruptError` on the first SIGINT or SIGTERM; returns a function that
    undoes it."""
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    fired: list[int] = []
    owner = os.getpid()

    def handler(signum: int, _frame: FrameType | None) -> None:
        if os.getpid() != owner:
            # A process forked from ours (Sphinx's parallel readers): end as the signal would.
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        if fired:
            return  # cleaning up already: let it finish
        fired.append(signum)
        print(message(signum), file=sys.stderr, flush=True)
        raise InterruptError(signum)

    previous = {signum: signal.signal(signum, handler) for signum in SIGNALS}

    def restore() -> None:
        for signum, old in previous.items():
            with contextlib.suppress(ValueError, TypeError):
                signal.signal(signum, old)

    return restore


@contextlib.contextmanager
def interruptible() -> Iterator[None]:
    """:func:`install` for the duration of a ``with``."""
    restore = install()
    try:
        yield
    finally:
        restore()
