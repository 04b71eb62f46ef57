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
import os
import selectors
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import NoReturn

from ..model import DEFAULT_OUTPUT_LIMIT
from .cursors import CollectionCursor, SessionCursor
from .deaths import EXIT_LOST, End
from .frames import hide_worker_frames
from .portability import adopt_orphans, children_of, die_with_parent, limit_memory
from .protocol import (
    CACHE_OPTIONS,
    ENV_FOLLOWS,
    PATH_LAST,
    Began,
    Collect,
    Collected,
    Ended,
    Environment,
    Event,
    Importing,
    Ran,
    Ready,
    RunSession,
    Used,
    decode,
    encode,
)
from .recorder import remember_preloaded
from .session import run_session

POLL_SECONDS = 0.05


@dataclass
class Child:
    """One forked child, serving a session (or part of one) or a collection."""

    pid: int
    fd: int
    job: SessionCursor | CollectionCursor
    buffer: bytes = b""
    deadline: float = float("inf")
    started: float = 0.0  # when what it runs now started
    timed_out: bool = False
    status: int | None = None  # wait status, once reaped
    garbled: str = ""  # what, not being an event of ours, came on the result channel

    @property
    def busy(self) -> bool:
        """Whether it runs something with a deadline now."""
        return isinstance(self.job, CollectionCursor) or self.job.running is not None


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

    def send(self, event: Event) -> None:
        if not self.stdin_open:
            return  # nobody to report to
        data = encode(event)
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
                # Not finished yet (its pipe is still open); a child forked to resume its
                # session may have been given the same descriptor number already.
                if self.children.get(child.fd) is child:
                    self._finish(child)

    def _read_requests(self) -> None:
        chunk = os.read(0, 1 << 16)
        if not chunk:
            self._abandoned()
            return
        self.stdin_buffer += chunk
        while b"\n" in self.stdin_buffer:
            line, self.stdin_buffer = self.stdin_buffer.split(b"\n", 1)
            request = decode(line, RunSession, Collect)
            if isinstance(request, RunSession):
                self._fork(SessionCursor(request))
            else:
                self._fork(CollectionCursor(request))

    # -- children ---------------------------------------------------------------

    def _fork(self, job: SessionCursor | CollectionCursor) -> None:
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child
            os.close(read_fd)
            if isinstance(job, CollectionCursor):
                self._become_child(write_fd, functools.partial(_collect, job.request))
            self._become_child(
                write_fd,
                functools.partial(
                    run_session, job.request, crashed=job.crashed, output_limit=self.output_limit
                ),
            )
        os.close(write_fd)
        child = Child(pid, read_fd, job)
        if isinstance(job, CollectionCursor):
            child.started = time.monotonic()
            child.deadline = child.started + job.request.timeout
        self.children[read_fd] = child
        self.selector.register(read_fd, selectors.EVENT_READ, None)

    def _become_child(self, fd: int, work: Callable[[Callable[[Event], None]], None]) -> NoReturn:
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

            def emit(event: Event) -> None:
                if os.getpid() != owner:
                    # A copy forked by a block came back into our code: it has no
                    # say on the channel, and must not run the rest of the session.
                    os._exit(0)
                data = encode(event)
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
                self._take_event(child, line)
            except ValueError:
                self._garble(child, line)
                return

    def _take_event(self, child: Child, line: bytes) -> None:
        """Act on one event of a child, relaying what the pool hears; ValueError when the line
        is none the child may send."""
        job = child.job
        if isinstance(job, CollectionCursor):
            event = decode(line, Importing, Collected)
            if isinstance(event, Importing):
                # The next module: each gets the timeout to be imported in.
                job.importing(event.module)
                child.deadline = time.monotonic() + job.request.timeout
            else:
                self.send(job.result(event))
            return
        event = decode(line, Began, Ran, Used)
        if isinstance(event, Used):
            if event.session != job.request.session:
                raise ValueError("another session's dependencies")
            self.send(event)
        elif isinstance(event, Began):
            program = job.began(event)
            child.started = time.monotonic()
            child.deadline = child.started + program.timeout
        else:
            if (event.part, event.index) == job.running:
                child.deadline = float("inf")
            relayed = job.ran(event)
            if relayed is not None:
                self.send(relayed)

    def _garble(self, child: Child, data: bytes) -> None:
        """Something not ours on the result channel: stop the child, blame what it ran."""
        child.garbled = data[:120].decode("utf-8", "replace") or "(an incomplete line)"
        if isinstance(child.job, SessionCursor):
            running = child.job.running
            if not child.job.blame_next():
                return
            if running is None:
                child.started = time.monotonic()
        self._kill(child)

    def _enforce_deadlines(self) -> None:
        now = time.monotonic()
        for child in list(self.children.values()):
            if child.busy and now > child.deadline and not child.timed_out:
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
        end = End(
            status,
            child.timed_out,
            child.garbled,
            time.monotonic() - child.started,
            self.memory_limit,
        )
        job = child.job
        if isinstance(job, CollectionCursor):
            problem = job.died(end)
            if problem is not None:
                self.send(problem)
            self.send(Ended(job.request.session))
            return
        if not self.stdin_open:
            return
        recovery = job.died(end)
        for report in recovery.reports:
            self.send(report)
        if recovery.resume:
            self._fork(job)
        else:
            self.send(Ended(job.request.session))


def _collect(request: Collect, emit: Callable[[Event], None]) -> None:
    """Collect docstrings in this child, as the request asks, with every file the imports
    read outside the installed packages (a docstring made from another module, a data file)."""
    from .doctest_modules import collect
    from .recorder import Recorder
    from .warning_filters import applied, resolved

    try:
        filters = resolved(request.filterwarnings)
    except LookupError as problem:
        emit(Collected(request.session, {}, str(problem)))
        return
    recorder = Recorder(())
    recorder.install()  # also loads the project's modules from their source, as sessions do

    def importing(module: str) -> None:
        emit(Importing(request.session, module))

    # Under the examples' warning filters, as pytest collects: an import they make fail fails.
    with applied(filters):
        result = collect(request.modules, request.ignore, importing)
    read = recorder.take()
    result["files"] = sorted({*result["files"], *read.files})
    if read.untracked:
        result["untracked"] = list(read.untracked)
    emit(Collected(request.session, result))


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
    """An early zygote (``run.early_zygote``), jax imported: take the build's environment, which
    differs only in what jax reads later, and set the compilation cache's options it changed,
    as jax would have read them."""
    line = b""
    while not line.endswith(b"\n"):
        byte = os.read(0, 1)  # by the byte: what follows is the server's to read
        if not byte:
            raise SystemExit(0)  # the build ended without taking this early zygote
        line += byte
    before = dict(os.environ)
    os.environ.clear()
    os.environ.update(decode(line, Environment).env)
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
    # import from their document's folder instead (session.enter_folder).
    if sys.path and sys.path[0] == os.getcwd():
        del sys.path[0]
    # The folders conf.py appended to the build's path, where they stood there: after Python's.
    sys.path += [p for p in os.environ.get(PATH_LAST, "").split(os.pathsep) if p]
    # Keep the protocol on a private descriptor; stray prints go to stderr.
    out_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    loaded, problem = preload()
    if ENV_FOLLOWS in sys.argv[1:]:
        take_environment()
    remember_preloaded()  # what every session runs besides its own code
    output_limit = int(os.environ.get("JAXCHECK_OUTPUT_LIMIT", str(DEFAULT_OUTPUT_LIMIT)))
    memory = os.environ.get("JAXCHECK_MEMORY_LIMIT")
    zygote = ZygoteServer(out_fd, output_limit, int(memory) if memory else None)
    zygote.send(Ready(tuple(loaded), problem))
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
