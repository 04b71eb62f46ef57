"""How a child's end reads: the outcome of the program it was running, or why a collection
gave nothing. Pure: a wait status is a number, read with ``os.W*``."""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass

from ..model import FailureKind, Outcome, Program

# Exit status of a child whose own code failed, e.g. because the block closed the
# pipe it reports on: the result is lost.
EXIT_LOST = 70
# Exit status of glibc's fatal errors ("cannot allocate memory for thread-local
# data: ABORT" when a thread cannot be started): under a memory cap, the cap.
EXIT_GLIBC_FATAL = 127
# How a child dies when memory runs out and nothing raises: XLA aborts or
# faults, the kernel's out-of-memory killer kills.
CRASH_SIGNALS = frozenset({signal.SIGKILL, signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS})


@dataclass(frozen=True)
class End:
    """How a child ended, as the zygote saw it."""

    status: int  # its wait status
    timed_out: bool = False  # the zygote stopped it for overrunning
    garbled: str = ""  # what, not an event of ours, it wrote on its result channel
    seconds: float = 0.0  # how long what it ran last had run
    memory_limit: int | None = None  # the bytes each child may use (None: no cap)


def program_death(end: End, program: Program) -> Outcome:
    """The outcome of the program a child was running when it ended."""
    if end.garbled:
        return _crash(
            end,
            "the worker received something other than a result from this block "
            f"on its result channel ({end.garbled!r}), so it was stopped: "
            "a process the block forked, or a write to a file descriptor the block did not "
            "open? End forked children with os._exit()",
        )
    if end.timed_out:
        return Outcome(
            failure=FailureKind.TIMEOUT,
            message=(
                f"the block ran longer than its timeout of {program.timeout:g} s and was stopped; "
                "if it needs longer, raise its :timeout: (`# jaxcheck: timeout SECONDS` among "
                ">>> examples) or jaxcheck_timeout"
            ),
            seconds=end.seconds,
        )
    cap = end.memory_limit
    if os.WIFSIGNALED(end.status):
        number = os.WTERMSIG(end.status)
        name = (
            signal.Signals(number).name
            if number in signal.Signals.__members__.values()
            else str(number)
        )
        hint = " (out of memory?)" if number == signal.SIGKILL else ""
        if cap and number in CRASH_SIGNALS:
            hint = under_the_cap(cap)
        what = f"the worker process was killed by signal {name}{hint}"
    elif os.WEXITSTATUS(end.status) == EXIT_LOST:
        return _crash(
            end,
            "the worker process lost its connection to jaxcheck while running this block, "
            "so its result is lost (did the block close file descriptors it did not open, "
            "e.g. os.closerange?)",
        )
    else:
        code = os.WEXITSTATUS(end.status)
        hint = under_the_cap(cap) if cap and code == EXIT_GLIBC_FATAL else " (os._exit?)"
        what = f"the worker process exited with status {code}{hint}"
    return _crash(end, f"{what} while running this block")


def collection_death(end: End, module: str, timeout: float) -> str:
    """Why a collection of docstrings gave no result: it was importing ``module`` (empty:
    none yet), each import given ``timeout`` seconds."""
    module = module or "the modules"
    if end.garbled:
        return (
            f"importing {module} wrote something other than a result on the worker's "
            f"result channel ({end.garbled!r}), so it was stopped"
        )
    if end.timed_out:
        return (
            f"importing {module} took longer than {timeout:g} s (jaxcheck_timeout) and was stopped"
        )
    if os.WIFSIGNALED(end.status):
        how = f"was killed by signal {os.WTERMSIG(end.status)}"
    else:
        how = f"exited with status {os.WEXITSTATUS(end.status)}"
    return f"the worker process {how} while importing {module}"


def under_the_cap(limit: int) -> str:
    """Why a child that died under a memory cap of ``limit`` bytes probably did."""
    return (
        f" (out of memory? each worker may use at most {limit // (1024 * 1024)} MB, "
        "jaxcheck_memory_limit_mb, and XLA may crash rather than raise when it is too small)"
    )


def _crash(end: End, message: str) -> Outcome:
    return Outcome(failure=FailureKind.CRASH, message=message, seconds=end.seconds)
