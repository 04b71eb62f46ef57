"""What the workers ask of the operating system: Linux's calls, and portable fallbacks.

On Linux the zygote and its children use ``prctl`` (die with the parent; adopt
orphaned descendants), ``/proc`` (find those descendants) and ``RLIMIT_AS``
(the memory limit). Elsewhere (macOS), or when ``JAXCHECK_PORTABLE_WORKERS=1``
is in the workers' environment, only POSIX calls are used: a thread watches for
the parent's death, ``ps`` lists the descendants, and the memory limit is set
where the system accepts it. What the portable path cannot do: catch a process
a block started in a new session (no subreaper), and, on macOS, enforce the
memory limit (the kernel does not enforce ``RLIMIT_AS``).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
import threading
import time

PORTABLE_VARIABLE = "JAXCHECK_PORTABLE_WORKERS"
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
WATCH_SECONDS = 0.5


def linux_calls() -> bool:
    """Whether to use Linux's own calls (on Linux, unless the portable path is asked for)."""
    return sys.platform.startswith("linux") and os.environ.get(PORTABLE_VARIABLE, "") in ("", "0")


def die_with_parent(signum: int = signal.SIGKILL) -> None:
    """Get ``signum`` when the parent dies (by default: end), so no worker outlives the build."""
    if linux_calls():
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signum)
        return
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCH_SECONDS)
        os.kill(os.getpid(), signum)

    threading.Thread(target=watch, name="jaxcheck-parent-watch", daemon=True).start()


def adopt_orphans() -> bool:
    """Become the parent of orphaned descendants (Linux "child subreaper"); False where impossible.

    A block may start a process in a new session (``start_new_session=True``),
    which killing the child's process group misses. As subreaper the zygote
    inherits such orphans and kills them (``ZygoteServer.kill_strays``).
    """
    if not linux_calls():
        return False
    with contextlib.suppress(OSError, AttributeError):
        return bool(ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1) == 0)
    return False


def children_of(parent: int) -> list[int]:
    """Pids of the processes (zombies too) whose parent is ``parent``."""
    return _children_from_proc(parent) if linux_calls() else _children_from_ps(parent)


def _children_from_proc(parent: int) -> list[int]:
    found = []
    with contextlib.suppress(OSError):
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat", "rb") as stat:
                    fields = stat.read().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == parent:
                found.append(int(entry.name))
    return found


def _children_from_ps(parent: int) -> list[int]:
    try:
        ps = subprocess.Popen(
            ["ps", "-A", "-o", "pid=", "-o", "ppid="], stdout=subprocess.PIPE, text=True
        )
        listing, _ = ps.communicate(timeout=30)
    except (OSError, subprocess.SubprocessError):
        return []
    found = []
    for line in listing.splitlines():
        fields = line.split()
        # ``ps`` lists itself, as our child when we are ``parent``.
        if len(fields) == 2 and fields[1] == str(parent) and fields[0] != str(ps.pid):
            found.append(int(fields[0]))
    return found


def limit_memory(limit: int) -> bool:
    """Limit this process's address space to ``limit`` bytes; False where the system refuses."""
    import resource

    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ValueError, OSError):
        if linux_calls():
            raise
        return False
    return True


def resident_bytes() -> int | None:
    """This process's resident memory now; None where the system does not tell."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None
