"""Processes as /proc shows them: whether one still runs, and the worker supervisors a build
left behind."""

from __future__ import annotations

import itertools
import os
import time
from pathlib import Path

ZYGOTE = b"sphinx_jaxcheck.worker.zygote"


def _stat(pid: int) -> list[str]:
    """The fields of ``/proc/<pid>/stat`` after the command name (which may hold spaces)."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not)."""
    try:
        return _stat(pid)[0] != "Z"
    except OSError:
        return False


def parent_of(pid: int) -> int:
    """The parent of ``pid``, or -1 when it is gone."""
    try:
        return int(_stat(pid)[1])
    except OSError:
        return -1


def is_zygote(pid: int) -> bool:
    """Whether ``pid`` is a worker supervisor, ``python -m sphinx_jaxcheck.worker.zygote``, by
    its arguments: the interpreter probe (``python -c``) names the module in its code too."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return (b"-m", ZYGOTE) in itertools.pairwise(argv)


def live_zygotes() -> list[int]:
    """Pids of jaxcheck worker supervisors still running."""
    return [
        int(entry.name)
        for entry in Path("/proc").iterdir()
        if entry.name.isdigit() and is_zygote(int(entry.name))
    ]


def zygotes_left_by_this_process() -> list[int]:
    """Worker supervisors this test process started that still run: after a build, none."""
    return [pid for pid in live_zygotes() if parent_of(pid) == os.getpid()]


def ended_within(pid: int, seconds: float) -> bool:
    """Whether ``pid`` stops running within ``seconds``."""
    deadline = time.monotonic() + seconds
    while alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not alive(pid)
