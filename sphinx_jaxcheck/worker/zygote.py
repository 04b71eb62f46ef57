"""The worker supervisor: imports jax once, then forks a fresh child per request.

Run as ``python -m sphinx_jaxcheck.worker.zygote``. It reads requests on
stdin and writes events on stdout (see ``protocol``). A request runs one
session in a child forked for it alone, so that no state of one session can
reach another, or collects the docstrings of modules (which imports them).
Each child runs in its own process group, so a block that forks cannot leave
processes behind; the zygote times every block, kills a child that overruns,
and turns any way a child can die (signal, ``os._exit``, memory) into a message
about the block it was running. After a child dies, the rest of its session is
re-run in a new child, so one bad block fails alone.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import importlib
import json
import os
import selectors
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..model import DEFAULT_OUTPUT_LIMIT, FailureKind, Outcome, Program
from .dependencies import dependencies_from_wire
from .frames import hide_worker_frames
from .portability import adopt_orphans, children_of, die_with_parent, limit_memory
from .protocol import (
    CACHE_OPTIONS,
    ENV_FOLLOWS,
    encode,
    outcome_from_wire,
    outcome_to_wire,
    program_from_wire,
)
from .runner import run_session

# Exit status of a child whose own code failed, e.g. because the block closed the
# pipe it reports on: the result is lost.
EXIT_LOST = 70
# Exit status of glibc's fatal errors ("cannot allocate memory for thread-local
# data: ABORT" when a thread cannot be started): under a memory cap, the cap.
EXIT_GLIBC_FATAL = 127
# How a child dies when memory runs out and nothing raises: XLA aborts or
# faults, the kernel's out-of-memory killer kills.
CRASH_SIGNALS = frozenset({signal.SIGKILL, signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS})
POLL_SECONDS = 0.05


@dataclass
class Child:
    """One forked child running (part of) a session."""

    request: str
    pid: int
    fd: int
    programs: list[Program]
    quiet_before: int
    skip: frozenset[int]
    # A collection of docstrings (``op: collect``) instead of a session: its request.
    collecting: dict[str, Any] | None = None
    collected: bool = False  # its result came
    collecting_module: str = ""  # the module it imports now
    buffer: bytes = b""
    current: int | None = None
    deadline: float = float("inf")
    started: float = 0.0
    reported: set[int] = field(default_factory=set)
    timed_out: bool = False
    status: int | None = None  # wait status, once reaped
    garbled: str = ""  # what, not being an event of ours, came on the result channel


class ZygoteServer:
    """The zygote process: forks a child per run request, watches its clock, relays its events."""

    def __init__(self, out_fd: int, output_limit: int, memory_limit: int | None) -> None:
        self.out_fd = out_fd
        self.output_limit = output_limit
        self.memory_limit = memory_limit
        self.selector = selectors.DefaultSelector()
        self.children: dict[int, Child] = {}  # by pipe fd
        self.stdin_buffer = b""
        self.stdin_open = True

    def send(self, message: dict[str, Any]) -> None:
        if not self.stdin_open:
            return  # nobody to report to
        data = encode(message)
        try:
            while data:
                data = data[os.write(self.out_fd, data) :]
        except BrokenPipeError:  # the pool closed its end, maybe while this waited to write
            self._abandoned()

    def _abandoned(self) -> None:
        """The pool is gone: nobody wants the remaining results."""
        self.stdin_open = False
        with contextlib.suppress(KeyError):
            self.selector.unregister(0)
        for child in list(self.children.values()):
            self._kill(child)

    # -- the loop ---------------------------------------------------------------

    def serve(self) -> None:
        self.selector.register(0, selectors.EVENT_READ, None)
        while self.stdin_open or self.children:
            for key, _ in self.selector.select(POLL_SECONDS):
                if key.fd == 0:
                    self._read_requests()
                elif key.fd in self.children:
                    self._read_child(self.children[key.fd])
            self._reap_exited()
            self._enforce_deadlines()
        self.shutdown()

    def shutdown(self) -> None:
        """Kill every child and every process the blocks started."""
        for child in list(self.children.values()):
            self._kill(child)
            self._finish(child)
        self.kill_strays()

    def kill_strays(self) -> None:
        """Kill and reap adopted orphans: processes that blocks started and that outlived their
        child."""
        ours = {child.pid for child in self.children.values()}
        for _ in range(20):  # a killed stray's own children are adopted in turn
            strays = [pid for pid in children_of(os.getpid()) if pid not in ours]
            if not strays:
                return
            for pid in strays:
                for kill in (os.killpg, os.kill):
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        kill(pid, signal.SIGKILL)
            for pid in strays:
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, 0)

    def _reap_exited(self) -> None:
        """Finish children that exited, even if a process they forked keeps their pipe open."""
        for child in list(self.children.values()):
            pid, status = os.waitpid(child.pid, os.WNOHANG)
            if pid:
                child.status = status
                os.set_blocking(child.fd, False)
                self._read_child(child, until_empty=True)
                if child.fd in self.children:
                    self._finish(child)

    def _read_requests(self) -> None:
        chunk = os.read(0, 1 << 16)
        if not chunk:
            self._abandoned()
            return
        self.stdin_buffer += chunk
        while b"\n" in self.stdin_buffer:
            line, self.stdin_buffer = self.stdin_buffer.split(b"\n", 1)
            request = json.loads(line)
            if request.get("op") == "run":
                programs = [program_from_wire(p) for p in request["programs"]]
                self._fork(request["id"], programs, 0, frozenset())
            elif request.get("op") == "collect":
                self._fork(request["id"], [], 0, frozenset(), collecting=request)

    # -- children ---------------------------------------------------------------

    def _fork(
        self,
        request: str,
        programs: list[Program],
        quiet_before: int,
        skip: frozenset[int],
        collecting: dict[str, Any] | None = None,
    ) -> None:
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child
            os.close(read_fd)
            if collecting is not None:
                self._become_child(write_fd, functools.partial(_collect, collecting))
            self._become_child(
                write_fd,
                functools.partial(
                    run_session,
                    programs,
                    quiet_before=quiet_before,
                    skip=skip,
                    output_limit=self.output_limit,
                ),
            )
        os.close(write_fd)
        child = Child(request, pid, read_fd, programs, quiet_before, skip, collecting)
        if collecting is not None:
            child.started = time.monotonic()
            child.deadline = child.started + float(collecting["timeout"])
        self.children[read_fd] = child
        self.selector.register(read_fd, selectors.EVENT_READ, None)

    def _become_child(
        self, fd: int, work: Callable[[Callable[[dict[str, Any]], None]], None]
    ) -> None:
        status = 0
        try:
            os.setpgid(0, 0)
            die_with_parent()
            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the zygote's handler is not the block's
            for listened in list(self.children):
                os.close(listened)
            devnull = os.open(os.devnull, os.O_RDWR)
            for std in (0, 1, 2):
                os.dup2(devnull, std)
            os.close(self.out_fd)
            if self.memory_limit:
                limit_memory(self.memory_limit)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            owner = os.getpid()

            def emit(message: dict[str, Any]) -> None:
                if os.getpid() != owner:
                    # A copy forked by a block came back into our code: it has no
                    # say on the channel, and must not run the rest of the session.
                    os._exit(0)
                data = encode(message)
                while data:
                    data = data[os.write(fd, data) :]

            work(emit)
        except BaseException:  # the zygote reports the silent death of the child
            status = EXIT_LOST
        finally:
            os._exit(status)

    def _read_child(self, child: Child, until_empty: bool = False) -> None:
        while True:
            try:
                chunk = os.read(child.fd, 1 << 16)
            except BlockingIOError:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self._finish(child)
                return
            self._take_events(child, chunk)
            if not until_empty:
                return

    def _take_events(self, child: Child, chunk: bytes) -> None:
        """Read a child's events; the channel is untrusted (a block may fork, or write to any
        fd)."""
        child.buffer += chunk
        while b"\n" in child.buffer and not child.garbled:
            line, child.buffer = child.buffer.split(b"\n", 1)
            try:
                event = _checked_event(line, len(child.programs), child.collecting is not None)
            except (ValueError, KeyError, TypeError):
                self._garble(child, line)
                return
            if event["event"] == "collecting" and child.collecting is not None:
                # The next module: each gets the timeout to be imported in.
                child.collecting_module = str(event["module"])
                child.deadline = time.monotonic() + float(child.collecting["timeout"])
                continue
            if event["event"] == "docstrings":
                child.collected = True
                self.send({**event, "id": child.request})
                continue
            if event["event"] == "dependencies":
                self.send({"id": child.request, "event": "dependencies", "found": event["found"]})
                continue
            index = event["index"]
            if event["event"] == "start":
                child.current = index
                child.started = time.monotonic()
                child.deadline = child.started + child.programs[index].timeout
            else:
                if index == child.current:
                    child.current, child.deadline = None, float("inf")
                child.reported.add(index)
                self.send(
                    {
                        "id": child.request,
                        "event": "block",
                        "index": index,
                        "outcome": event["outcome"],
                    }
                )

    def _garble(self, child: Child, data: bytes) -> None:
        """Something not ours on the result channel: stop the child, blame the block it ran."""
        child.garbled = data[:120].decode("utf-8", "replace") or "(an incomplete line)"
        if child.current is None and child.collecting is None:
            waiting = [
                i
                for i in range(child.quiet_before, len(child.programs))
                if i not in child.reported and i not in child.skip
            ]
            if not waiting:
                return
            child.current, child.started = waiting[0], time.monotonic()
        self._kill(child)

    def _enforce_deadlines(self) -> None:
        now = time.monotonic()
        for child in list(self.children.values()):
            running = child.current is not None or child.collecting is not None
            if running and now > child.deadline and not child.timed_out:
                child.timed_out = True
                self._kill(child)

    def _kill(self, child: Child) -> None:
        for kill in (os.killpg, os.kill):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                kill(child.pid, signal.SIGKILL)

    def _finish(self, child: Child) -> None:
        """A child's pipe closed: reap it, report its death, go on with the session."""
        if child.buffer.strip() and not child.garbled:
            # A partial write (the pipe may still be open in processes the block forked).
            self._garble(child, child.buffer)
        self.selector.unregister(child.fd)
        os.close(child.fd)
        del self.children[child.fd]
        status = child.status if child.status is not None else os.waitpid(child.pid, 0)[1]
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(child.pid, signal.SIGKILL)  # whatever the block forked
        self.kill_strays()  # ... also in a session of its own
        failed = child.current
        if child.collecting is not None and not child.collected:
            self.send(
                {
                    "id": child.request,
                    "event": "docstrings",
                    "problem": self._collection_death(child, status),
                }
            )
        elif failed is not None and self.stdin_open:
            if failed < child.quiet_before:
                # Re-running the earlier blocks failed: the rest of the session cannot run.
                for index in range(child.quiet_before, len(child.programs)):
                    if index not in child.skip:
                        lost = Outcome(
                            failure=FailureKind.NOT_RUN,
                            message=(
                                "not run: re-running the earlier blocks of its session "
                                f"failed at block {failed + 1}"
                            ),
                        )
                        self.send(
                            {
                                "id": child.request,
                                "event": "block",
                                "index": index,
                                "outcome": outcome_to_wire(lost),
                            }
                        )
            else:
                outcome = self._death(child, status, child.programs[failed])
                self.send(
                    {
                        "id": child.request,
                        "event": "block",
                        "index": failed,
                        "outcome": outcome_to_wire(outcome),
                    }
                )
                if any(i not in child.skip for i in range(failed + 1, len(child.programs))):
                    self._fork(child.request, child.programs, failed + 1, child.skip | {failed})
                    return
        self.send({"id": child.request, "event": "end"})

    def _death(self, child: Child, status: int, program: Program) -> Outcome:
        seconds = time.monotonic() - child.started
        if child.garbled:
            return Outcome(
                failure=FailureKind.CRASH,
                message=(
                    "the worker received something other than a result from this block "
                    f"on its result channel ({child.garbled!r}), so it was stopped: "
                    "a process the block forked, or a write to a file descriptor the block did not "
                    "open? End forked children with os._exit()"
                ),
                seconds=seconds,
            )
        if child.timed_out:
            return Outcome(
                failure=FailureKind.TIMEOUT,
                message=(
                    "the block ran longer than its timeout of "
                    f"{program.timeout:g} s and was stopped"
                ),
                seconds=seconds,
            )
        if os.WIFSIGNALED(status):
            number = os.WTERMSIG(status)
            name = (
                signal.Signals(number).name
                if number in signal.Signals.__members__.values()
                else str(number)
            )
            hint = " (out of memory?)" if number == signal.SIGKILL else ""
            if self.memory_limit and number in CRASH_SIGNALS:
                hint = under_the_cap(self.memory_limit)
            what = f"the worker process was killed by signal {name}{hint}"
        elif os.WEXITSTATUS(status) == EXIT_LOST:
            message = (
                "the worker process lost its connection to jaxcheck while running this block, "
                "so its result is lost (did the block close file descriptors it did not open, "
                "e.g. os.closerange?)"
            )
            return Outcome(failure=FailureKind.CRASH, message=message, seconds=seconds)
        else:
            code = os.WEXITSTATUS(status)
            hint = (
                under_the_cap(self.memory_limit)
                if self.memory_limit and code == EXIT_GLIBC_FATAL
                else " (os._exit?)"
            )
            what = f"the worker process exited with status {code}{hint}"
        return Outcome(
            failure=FailureKind.CRASH, message=f"{what} while running this block", seconds=seconds
        )

    def _collection_death(self, child: Child, status: int) -> str:
        """Why a collection of docstrings gave no result."""
        module = child.collecting_module or "the modules"
        if child.garbled:
            return (
                f"importing {module} wrote something other than a result on the worker's "
                f"result channel ({child.garbled!r}), so it was stopped"
            )
        if child.timed_out:
            timeout = float(child.collecting["timeout"]) if child.collecting else 0.0
            return (
                f"importing {module} took longer than {timeout:g} s (jaxcheck_timeout) "
                "and was stopped"
            )
        if os.WIFSIGNALED(status):
            how = f"was killed by signal {os.WTERMSIG(status)}"
        else:
            how = f"exited with status {os.WEXITSTATUS(status)}"
        return f"the worker process {how} while importing {module}"


def _collect(request: dict[str, Any], emit: Callable[[dict[str, Any]], None]) -> None:
    """Collect docstrings in this child, as the request asks, with every file the imports
    read outside the installed packages (a docstring made from another module, a data file)."""
    from .doctest_modules import main as collect_docstrings
    from .recorder import Recorder

    recorder = Recorder(())
    recorder.install()  # also loads the project's modules from their source, as sessions do

    def with_what_was_read(event: dict[str, Any]) -> None:
        if event.get("event") == "docstrings":
            read = recorder.take()
            event = {**event, "files": sorted({*event["files"], *read.files})}
            if read.untracked:
                event["untracked"] = list(read.untracked)
        emit(event)

    collect_docstrings(list(request["modules"]), list(request["ignore"]), with_what_was_read)


def under_the_cap(limit: int) -> str:
    """Why a child that died under a memory cap of ``limit`` bytes probably did."""
    return (
        f" (out of memory? each worker may use at most {limit // (1024 * 1024)} MB, "
        "jaxcheck_memory_limit_mb, and XLA may crash rather than raise when it is too small)"
    )


def _checked_event(line: bytes, count: int, collecting: bool = False) -> dict[str, Any]:
    """A child's event, or ValueError/KeyError/TypeError when the line is not one."""
    event = json.loads(line)
    if not isinstance(event, dict):
        raise TypeError("not an object")
    if collecting:
        if event["event"] == "collecting" and isinstance(event["module"], str):
            return event
        if event["event"] == "docstrings" and isinstance(event["docstrings"], list):
            return event
        raise ValueError("not an event of a collection")
    if event["event"] == "dependencies":
        dependencies_from_wire(event["found"])
        return event
    index = event["index"]
    if type(index) is not int or not 0 <= index < count:
        raise ValueError("no block of the session")
    if event["event"] == "block":
        outcome_from_wire(event["outcome"])
    elif event["event"] != "start":
        raise ValueError("unknown event")
    return event


def preload() -> tuple[list[str], str]:
    """Import jax before forking, so each child starts warm."""
    loaded, problems = [], []
    for name in ("jax", "jax.numpy"):
        try:
            importlib.import_module(name)
            loaded.append(name)
        except Exception as error:
            problems.append(f"{name}: {type(error).__name__}: {error}")
    if not problems:
        hide_worker_frames()
        warm_up()
    # Children inherit these objects copy-on-write; keep the garbage collector off them.
    gc.collect()
    gc.freeze()
    return loaded, "; ".join(problems)


def warm_up() -> None:
    """Do once what every session's first jax operation would do, short of starting a backend.

    XLA's CPU client starts threads, which a fork does not copy, so each child
    starts its own backend (which also lets a block configure it first, e.g. with
    ``jax_num_cpu_devices``). What comes before is thread-free and shared by every
    child: plugin discovery, tracing, and the MLIR dialects (lazily imported).
    About 25 ms per session.
    """
    try:
        jax = importlib.import_module("jax")
        jnp = importlib.import_module("jax.numpy")
        importlib.import_module("jax._src.xla_bridge")._discover_and_register_pjrt_plugins()
        jax.make_jaxpr(lambda x: jnp.sin(x) * 2.0)(1.0)
        importlib.import_module("jax._src.interpreters.mlir").make_ir_context()
    except Exception:  # private API of another jax version: the children do it themselves
        pass


def take_environment() -> None:
    """A spare zygote (``run.spare``), jax imported: take the build's environment, which
    differs only in what jax reads later, and set the compilation cache's options it changed,
    as jax would have read them."""
    line = b""
    while not line.endswith(b"\n"):
        byte = os.read(0, 1)  # by the byte: what follows is the server's to read
        if not byte:
            raise SystemExit(0)  # the build ended without taking this spare
        line += byte
    before = dict(os.environ)
    os.environ.clear()
    os.environ.update(json.loads(line)["env"])
    changed = {n: v for n, v in os.environ.items() if n in CACHE_OPTIONS and before.get(n) != v}
    jax = sys.modules.get("jax")  # None when it failed to import: the sessions say why
    if jax is not None:
        for name, value in changed.items():
            option, kind = CACHE_OPTIONS[name]
            jax.config.update(option, kind(value))


def main() -> None:
    """Entry point of the zygote process."""
    # SIGTERM, not SIGKILL, when the build process dies: time to kill what the blocks started.
    die_with_parent(signal.SIGTERM)
    signal.signal(signal.SIGTERM, _terminate)
    adopt_orphans()
    # ``-m`` put the folder the build was started from first on sys.path: blocks
    # import from their document's folder instead (runner.enter_folder).
    if sys.path and sys.path[0] == os.getcwd():
        del sys.path[0]
    # Keep the protocol on a private descriptor; stray prints go to stderr.
    out_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    loaded, problem = preload()
    if ENV_FOLLOWS in sys.argv[1:]:
        take_environment()
    output_limit = int(os.environ.get("JAXCHECK_OUTPUT_LIMIT", str(DEFAULT_OUTPUT_LIMIT)))
    memory = os.environ.get("JAXCHECK_MEMORY_LIMIT")
    zygote = ZygoteServer(out_fd, output_limit, int(memory) if memory else None)
    zygote.send({"event": "ready", "preloaded": loaded, "problem": problem})
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        zygote.serve()
    except Terminated:
        zygote.stdin_open = False  # nobody to report to
        zygote.shutdown()
        raise


class Terminated(SystemExit):
    """SIGTERM: the build was stopped, or died."""


def _terminate(signum: int, _frame: object) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # once: the shutdown must not be cut short
    raise Terminated(128 + signum)


if __name__ == "__main__":
    main()
