"""The reading process's side of execution: start the zygote, hand it sessions, collect
outcomes.

Imports nothing from jax; the zygote is a separate interpreter.
"""

from __future__ import annotations

import atexit
import contextlib
import fnmatch
import functools
import hashlib
import os
import re
import selectors
import shutil
import site
import stat
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import IO, Any, TypeVar

from ..config import Settings
from ..errors import JaxUnavailableError, WorkerStartError
from ..model import DEFAULT_ENV, DEFAULT_OUTPUT_LIMIT, FailureKind, Outcome
from ..worker.dependencies import Dependencies
from ..worker.protocol import (
    PATH_LAST,
    Collect,
    Collected,
    Ended,
    Event,
    Part,
    Ran,
    Ready,
    RunSession,
    Used,
    decode,
    encode,
)
from .early_zygote import start_waiting_zygote, take_waiting_zygote
from .secrets import hidden_values, hide

Key = TypeVar("Key", bound=Hashable)
READY_SECONDS = 300.0
# JAX's own recipe for single-threaded CPU computations; jaxlib accepts both flags.
# Unlike pinning each worker to a core (CPU affinity), these leave results alone:
# XLA splits a large reduction by the cores it may use, so pinning changes sums.
ONE_THREAD_XLA_FLAGS = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
# Set by the user: then the persistent compilation cache is theirs to configure.
XLA_CACHE_VARIABLES = frozenset(
    {"JAX_COMPILATION_CACHE_DIR", "JAX_ENABLE_COMPILATION_CACHE", "JAX_COMPILATION_CACHE_MAX_SIZE"}
)


# What a worker inherits from the Sphinx process: the names below (``*`` ends a
# prefix) and those the configuration adds. Everything else (tokens,
# credentials, CI settings) stays out of reach of blocks, and so out of outputs,
# reports and the cache.
INHERITED = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TZ",
    "TMPDIR",
    "TEMP",
    "TMP",
    "LANG",
    "LANGUAGE",
    "LC_*",
    "PYTHONPATH",
    "PYTHONHASHSEED",
    "PYTHONWARNINGS",
    "PYTHONDONTWRITEBYTECODE",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "JAX_*",
    "XLA_*",
    "TF_CPP_*",
    "LD_LIBRARY_PATH",
    "CUDA_*",
    "NVIDIA_*",
    "ROCR_VISIBLE_DEVICES",
    "HIP_VISIBLE_DEVICES",
    "TPU_*",
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
)


def inherited(environ: Mapping[str, str], extra: Sequence[str] = ()) -> dict[str, str]:
    """The variables of ``environ`` a worker gets: :data:`INHERITED` plus ``extra`` names."""
    matches = _matcher((*INHERITED, *extra))
    return {name: value for name, value in environ.items() if matches(name)}


@functools.lru_cache(maxsize=8)
def _matcher(patterns: tuple[str, ...]) -> Callable[[str], object]:
    """One compiled test for all ``patterns`` (as :func:`fnmatch.fnmatchcase` reads them)."""
    return re.compile("|".join(fnmatch.translate(pattern) for pattern in patterns)).match


@dataclass(frozen=True)
class PythonPath:
    """Folders the workers import from besides their interpreter's own, in ``sys.path``'s
    order: ``first`` before every folder Python starts with, ``last`` after them."""

    first: tuple[str, ...] = ()
    last: tuple[str, ...] = ()


@dataclass(frozen=True)
class WorkerSettings:
    """How worker processes are started."""

    env: Mapping[str, str] = field(default_factory=lambda: dict(DEFAULT_ENV))
    workers: int = 1
    python: str = sys.executable
    output_limit: int = DEFAULT_OUTPUT_LIMIT
    memory_limit: int | None = None
    # Where workers share compiled XLA programs (JAX's persistent compilation
    # cache); None: a temporary folder for one run.
    xla_cache_dir: str | None = None
    # Names (``*`` ends a prefix) passed on from the Sphinx process besides INHERITED.
    passthrough: tuple[str, ...] = ()
    # The folders conf.py put on the build's sys.path, so the workers import what autodoc reads.
    python_path: PythonPath = PythonPath()

    def process_env(self) -> dict[str, str]:
        """The environment of the zygote: what it inherits, the configured values, fixed hashing."""
        env = inherited(os.environ, self.passthrough)
        env.setdefault("PYTHONHASHSEED", "0")
        env.update({key: str(value) for key, value in self.env.items()})
        if self.workers > 1 and "XLA_FLAGS" not in env:
            # Several workers share the cores: one compute thread each, not one per core each.
            env["XLA_FLAGS"] = ONE_THREAD_XLA_FLAGS
        if self.xla_cache_dir and not XLA_CACHE_VARIABLES & env.keys():
            # Each session is a fresh process: share compiled programs (the same
            # eager ops, the same jitted helpers) instead of compiling them again.
            env["JAX_COMPILATION_CACHE_DIR"] = self.xla_cache_dir
            env["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "0"
            env["JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES"] = "0"
            # Without JAX's own size limit, which rescans the whole folder on every store
            # and locks it on every load: quadratic in the programs stored (a cold check
            # of jax.numpy's docstrings took twice as long). cache.size bounds the folder.
        env["JAXCHECK_OUTPUT_LIMIT"] = str(self.output_limit)
        if self.memory_limit:
            env["JAXCHECK_MEMORY_LIMIT"] = str(self.memory_limit)
        else:
            env.pop("JAXCHECK_MEMORY_LIMIT", None)
        # The zygote must import this very package, wherever it was imported from, whether or
        # not PYTHONPATH is passed on: its folder goes last, so that the path keeps Python's
        # order (the user's own entries first), and only where the interpreter would not look.
        folder = package_folder(self.python)
        given = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
        entries = list(self.python_path.first) + [
            p for p in given if p not in self.python_path.first
        ]
        if self.python_path.last:
            # PYTHONPATH stands before site-packages; the zygote appends these after it.
            env[PATH_LAST] = os.pathsep.join(self.python_path.last)
        else:
            env.pop(PATH_LAST, None)
        if folder not in entries and not (
            self.python == sys.executable and folder in _site_folders()
        ):
            entries.append(folder)
        env["PYTHONPATH"] = os.pathsep.join(entries)
        if not entries:
            del env["PYTHONPATH"]
        return env

    def outcome_env(self) -> dict[str, str]:
        """The environment that can change what blocks print: :meth:`process_env` without our
        cache folder."""
        return replace(self, xla_cache_dir=None).process_env()

    def key_env(self) -> dict[str, str]:
        """:meth:`outcome_env` as cache keys hold it, the same in every process.

        Another interpreter imports this package from a folder of links, which
        may be a new temporary one in a process (see :func:`package_folder`); the
        key names the package it links to instead (whose version and worker code
        the key holds anyway).
        """
        env = self.outcome_env()
        if self.python != sys.executable:
            link, package = package_folder(self.python), os.path.dirname(os.path.abspath(__file__))
            stand_in = f"<a link to {os.path.dirname(package)}>"
            parts = env["PYTHONPATH"].split(os.pathsep)
            env["PYTHONPATH"] = os.pathsep.join(stand_in if p == link else p for p in parts)
        return env


def worker_settings(
    settings: Settings, xla_cache_dir: str | None = None, python_path: PythonPath = PythonPath()
) -> WorkerSettings:
    """How to start workers, from the configuration (and the folders conf.py put on
    ``sys.path``)."""
    memory = settings.memory_limit_mb * 1024 * 1024 if settings.memory_limit_mb else None
    return WorkerSettings(
        env=settings.env,
        workers=settings.workers,
        output_limit=int(settings.output_limit_mb * 1024 * 1024),
        memory_limit=memory,
        xla_cache_dir=xla_cache_dir,
        python=settings.python or sys.executable,
        passthrough=settings.env_passthrough,
        python_path=python_path,
    )


def start_early_zygote(env: Mapping[str, str] = DEFAULT_ENV) -> None:
    """Start a zygote for this interpreter before the configuration is known (``run.early_zygote``),
    with the workers' environment as ``jaxcheck_env = env`` and the other defaults give it."""
    start_waiting_zygote(sys.executable, WorkerSettings(env=env).process_env())


@functools.lru_cache(maxsize=1)
def _site_folders() -> frozenset[str]:
    """The folders of installed packages this interpreter looks in without being told."""
    folders = {sysconfig.get_paths()[name] for name in ("purelib", "platlib")}
    folders.update(getattr(site, "getsitepackages", list)())
    if site.ENABLE_USER_SITE and isinstance(site.USER_SITE, str):
        folders.add(site.USER_SITE)
    return frozenset(os.path.realpath(folder) for folder in folders if folder)


def package_folder(python: str) -> str:
    """A folder from which ``python`` imports this very package.

    For our own interpreter, the folder our package sits in. Another interpreter
    gets a folder holding nothing but a link to the package: the folder ours
    sits in is usually site-packages, whose jax would shadow that interpreter's own.
    """
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return os.path.dirname(here) if python == sys.executable else _package_link(here)


@functools.lru_cache(maxsize=1)
def _package_link(package: str) -> str:
    """The folder of the link to ``package``: the same one in every build of this user, since
    what a session records of where its imports were found names it, and the next build must
    find it there again. A private temporary folder where that one is not this user's alone."""
    name = hashlib.sha256(package.encode()).hexdigest()[:16]
    folder = os.path.join(tempfile.gettempdir(), f"jaxcheck-package-{os.getuid()}-{name}")
    with contextlib.suppress(FileExistsError):
        os.mkdir(folder, 0o700)
    found = os.lstat(folder)
    if not stat.S_ISDIR(found.st_mode) or found.st_uid != os.getuid() or found.st_mode & 0o077:
        folder = tempfile.mkdtemp(prefix="jaxcheck-package-")
        atexit.register(shutil.rmtree, folder, True)
    link = os.path.join(folder, os.path.basename(package))
    if not (os.path.islink(link) and os.readlink(link) == package):
        made = f"{link}.{os.getpid()}"  # made beside it, then put in place at once
        with contextlib.suppress(FileNotFoundError):
            os.remove(made)
        os.symlink(package, made)
        os.replace(made, link)
    return folder


@dataclass(frozen=True)
class SessionResult:
    """What running a session gave: an outcome per program of its setup that ran, one per
    item, and what it used besides its code, as it first used it."""

    setup: tuple[Outcome, ...]
    items: tuple[Outcome, ...]
    used: Dependencies = field(default_factory=Dependencies)
    # Each reason the session is untracked (``used.untracked``): the item that ran when it was
    # heard (None: the setup, or before any item).
    untracked_at: Mapping[str, int | None] = field(default_factory=dict)

    @property
    def failed_setup(self) -> Outcome | None:
        """The outcome of the setup program that failed, if one did."""
        return next((o for o in self.setup if o.failure or o.exception), None)


# Called once for each item of a session that ran: the session, and the item's place in it.
Progress = Callable[[Key, int], None]
# Called with each session as soon as it ends, e.g. to cache it before an interruption.
Finished = Callable[[Key, SessionResult], None]


def run_sessions(
    sessions: Mapping[Key, RunSession],
    settings: WorkerSettings,
    progress: Progress[Key] | None = None,
    finished: Finished[Key] | None = None,
) -> dict[Key, SessionResult]:
    """Run each session in a fresh worker."""
    workers = Workers(settings)
    try:
        return workers.run(sessions, progress, finished)
    finally:
        workers.close()


class Workers:
    """The workers of one build: may start early (to import jax while Sphinx reads), run once,
    always close."""

    def __init__(self, settings: WorkerSettings) -> None:
        self.scratch: tempfile.TemporaryDirectory[str] | None = None
        if settings.xla_cache_dir is None:
            # Without a persistent cache, sessions still share compiled programs for this run.
            self.scratch = tempfile.TemporaryDirectory(prefix="jaxcheck-xla-")
            settings = replace(settings, xla_cache_dir=self.scratch.name)
        self.settings = settings
        self.zygote: ZygoteClient | None = None
        self.ready = False

    def start(self) -> None:
        """Launch the zygote now; it imports jax while the caller does other work."""
        if self.zygote is None:
            self.zygote = ZygoteClient(self.settings)
            # Started early, the zygote may be left behind by an interruption that
            # unwinds code of Sphinx's that never calls close(): end it with the process.
            atexit.register(self.close)

    def run(
        self,
        sessions: Mapping[Key, RunSession],
        progress: Progress[Key] | None = None,
        finished: Finished[Key] | None = None,
    ) -> dict[Key, SessionResult]:
        """Run each session in a fresh worker.

        May be called again (the pytest plugin runs a document at a time) until :meth:`close`.
        A block that kills the zygote fails alone: the sessions that ran with it run again,
        each alone in a new zygote, and the one that kills that one too keeps its crash;
        every other session runs as if nothing happened.
        """
        counted: set[tuple[Key, int]] = set()

        def once(key: Key, item: int) -> None:  # a session run again counts its items once
            if progress and (key, item) not in counted:
                counted.add((key, item))
                progress(key, item)

        results: dict[Key, SessionResult] = {}
        todo = dict(sessions)
        while todo:
            zygote = self._with_jax()
            results.update(zygote.run(todo, once, finished))
            if not zygote.died:
                break
            suspects = zygote.suspects
            for key in suspects:
                results.pop(key, None)
            self._restart()
            for key in suspects:
                zygote = self._with_jax()
                results.update(zygote.run({key: todo[key]}, once, finished, alone=True))
                if key not in results:  # not even sent: a zygote that cannot run anything
                    results[key] = _Gathered(todo[key]).result(
                        f"the jaxcheck worker supervisor died: {zygote._stderr_tail()}"
                    )
                if zygote.died:
                    self._restart()
            todo = {key: request for key, request in todo.items() if key not in results}
        return {key: results[key] for key in sessions}

    def _with_jax(self) -> ZygoteClient:
        """The zygote, ready; JaxUnavailableError when it could not import jax."""
        zygote = self._ready()
        if "jax" not in zygote.preloaded:
            why = zygote.preload_problem.split("; ")[0].removeprefix("jax: ")
            what = "is not installed" if "No module named 'jax'" in why else "cannot be imported"
            raise JaxUnavailableError(
                f"jax {what} for {self.settings.python}, which runs the jaxcheck blocks ({why})"
            )
        return zygote

    def _restart(self) -> None:
        """Close a zygote that died; the next run starts a new one."""
        if self.zygote is not None:
            self.zygote.close()
            self.zygote = None
        self.ready = False

    def collect(
        self,
        modules: Sequence[str],
        ignore: Sequence[str],
        timeout: float,
        filterwarnings: Sequence[str] = (),
    ) -> Collected:
        """The docstrings of these modules, as a worker collects them (see
        :meth:`ZygoteClient.collect`)."""
        return self._ready().collect(modules, ignore, timeout, filterwarnings)

    def _ready(self) -> ZygoteClient:
        """The zygote, started and done importing jax."""
        self.start()
        assert self.zygote is not None
        if not self.ready:
            self.zygote.__enter__()  # waits until the zygote has imported jax
            self.ready = True
        return self.zygote

    def close(self) -> None:
        """Stop the zygote (if started) and remove the scratch folder."""
        if self.zygote is not None:
            atexit.unregister(self.close)
            self.zygote.close()
            self.zygote = None
        if self.scratch is not None:
            self.scratch.cleanup()
            self.scratch = None


class ZygoteClient:
    """The Sphinx side's handle on a running zygote process (``sphinx_jaxcheck.worker.zygote``)."""

    def __init__(self, settings: WorkerSettings) -> None:
        self.settings = settings
        env = settings.process_env()
        waiting = take_waiting_zygote(settings.python, env)
        if waiting:
            self.process, self.stderr = waiting
        else:
            self.stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed in close()
            self.process = subprocess.Popen(
                [settings.python, "-m", "sphinx_jaxcheck.worker.zygote"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self.stderr,
                env=env,
            )
        # What the workers must not show of the build's environment (see .secrets).
        self.hidden = hidden_values(os.environ, env)
        assert self.process.stdin is not None and self.process.stdout is not None
        self.stdin: IO[bytes] = self.process.stdin
        self.stdout: IO[bytes] = self.process.stdout
        self.preload_problem = ""
        self.preloaded: list[str] = []
        self.pending = b""
        self.idle = True  # no session in flight: no children, nothing to wait for
        self.died = False  # the zygote died while sessions ran
        self.suspects: set[Any] = set()  # the sessions running then

    def __enter__(self) -> ZygoteClient:
        ready = self._next_event(time.monotonic() + READY_SECONDS)
        if not isinstance(ready, Ready):
            raise WorkerStartError(
                f"the jaxcheck worker ({self.settings.python}) did not start: {self._stderr_tail()}"
            )
        self.preload_problem = ready.problem
        self.preloaded = list(ready.preloaded)
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the zygote and with it every child; no process outlives this."""
        if self.process.returncode is not None and self.stdout.closed:
            return  # closed already
        if self.idle:
            # No children (never used, maybe still importing jax, or every session
            # ended and was reaped): skip the interpreter's slow teardown of jax.
            self.process.kill()
        with contextlib.suppress(OSError):
            self.stdin.close()
        # Unread events are nobody's: a zygote blocked writing one (a block's large output)
        # would never see stdin close; with this end closed, its write fails and it stops.
        self.stdout.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.stderr.close()

    def run(
        self,
        sessions: Mapping[Key, RunSession],
        progress: Progress[Key] | None,
        finished: Finished[Key] | None = None,
        alone: bool = False,
    ) -> dict[Key, SessionResult]:
        """Send each session to a child of its own, at most ``workers`` at a time; gather
        every outcome. ``alone``: the one session is run alone, to tell whether it kills the
        zygote.

        When the zygote dies (a block killed its parent process), the sessions running then
        are given what they had, as crashes, and named in :attr:`suspects`; the sessions not
        sent yet are left out of the result, for :class:`Workers` to run in a new zygote.
        """
        keys = {request.session: key for key, request in sessions.items()}
        if len(keys) != len(sessions):
            raise ValueError("two sessions of one run have one name")
        gathered = {name: _Gathered(sessions[key]) for name, key in keys.items()}
        # Longest sessions first, so that no worker is left with a long one at the end.
        waiting = sorted(keys, key=lambda name: -len(sessions[keys[name]].items))
        running: set[str] = set()
        results: dict[Key, SessionResult] = {}
        self.idle = False
        while waiting or running:
            while waiting and len(running) < max(1, self.settings.workers):
                name = waiting[0]
                try:
                    self.stdin.write(encode(sessions[keys[name]]))
                    self.stdin.flush()
                except OSError:  # the zygote is gone: what runs now tells how it ended
                    break
                waiting.pop(0)
                running.add(name)
            event = self._next_event(None)
            if event is None:
                lost = "the jaxcheck worker supervisor died"
                if alone:
                    lost += (
                        " while this session ran alone: a block of it from here on ended the "
                        "process that runs each session's process (a block must not signal its "
                        "parent, os.getppid())"
                    )
                lost += f": {self._stderr_tail()}"
                for name in running:
                    results[keys[name]] = gathered[name].result(lost)
                self.suspects = {keys[name] for name in running}
                self.died = True
                break
            name = getattr(event, "session", "")
            if name not in running:
                continue
            if isinstance(event, Ran):
                if gathered[name].take(event) and progress and event.part is Part.ITEM:
                    progress(keys[name], event.index)
            elif isinstance(event, Used):
                gathered[name].depended(event.found)
            elif isinstance(event, Ended):
                running.discard(name)
                results[keys[name]] = gathered[name].result()
                if finished:  # at once: kept, in case the build is stopped
                    finished(keys[name], results[keys[name]])
        self.idle = True
        return {key: results[key] for key in sessions if key in results}

    def collect(
        self,
        modules: Sequence[str],
        ignore: Sequence[str],
        timeout: float,
        filterwarnings: Sequence[str] = (),
    ) -> Collected:
        """The docstrings of these modules, collected in a worker (see
        ``worker.doctest_modules``) under these warning filters; with ``problem`` when the
        worker gave none."""
        request = Collect("collect", tuple(modules), tuple(ignore), timeout, tuple(filterwarnings))
        self.idle = False
        self.stdin.write(encode(request))
        self.stdin.flush()
        found = Collected(request.session, {}, "the worker ended without collecting")
        while True:
            event = self._next_event(None)
            if event is None:
                problem = f"the jaxcheck worker supervisor died: {self._stderr_tail()}"
                found = Collected(request.session, {}, problem)
                break
            if isinstance(event, Collected) and event.session == request.session:
                found = event
            elif isinstance(event, Ended) and event.session == request.session:
                break
        self.idle = True
        return found

    def _next_event(self, deadline: float | None) -> Event | None:
        """The next event, or None when the zygote is gone (or too slow to start)."""
        fd = self.stdout.fileno()
        while True:
            while b"\n" in self.pending:
                line, self.pending = self.pending.split(b"\n", 1)
                try:
                    event: Event = decode(hide(line, self.hidden))
                except ValueError:
                    continue
                return event
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            with selectors.DefaultSelector() as selector:
                selector.register(fd, selectors.EVENT_READ)
                if not selector.select(wait):
                    return None
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                return None
            self.pending += chunk

    def _stderr_tail(self) -> str:
        try:
            self.stderr.seek(0)
            text = self.stderr.read().decode(errors="replace").strip()
        except (OSError, ValueError):
            text = ""
        if self.process.poll() is not None:
            text = f"(exit status {self.process.returncode}) {text}".strip()
        text = hide(text.encode("utf-8", "surrogateescape"), self.hidden).decode(
            "utf-8", "surrogateescape"
        )
        return text[-2000:] or "no message"


@dataclass
class _Gathered:
    """The outcomes of one session as they come."""

    request: RunSession
    setup: dict[int, Outcome] = field(default_factory=dict)
    items: dict[int, Outcome] = field(default_factory=dict)
    used: Dependencies = field(default_factory=Dependencies)
    untracked_at: dict[str, int | None] = field(default_factory=dict)
    last: int | None = None  # the item that ran last

    def take(self, event: Ran) -> bool:
        """Keep an outcome; whether it is the program's first (not a later report of a thread
        it left running)."""
        kept = self.setup if event.part is Part.SETUP else self.items
        first = event.index not in kept
        kept[event.index] = event.outcome
        if first and event.part is Part.ITEM:
            self.last = event.index
        return first

    def depended(self, found: Dependencies) -> None:
        """What the session used since its last report, each untracked use at its item."""
        self.used = self.used.merged(found)
        for why in found.untracked:
            self.untracked_at.setdefault(why, self.last)

    def result(self, lost: str = "the worker ended without running this block") -> SessionResult:
        """Every outcome: a crash for each item that never reported, unless a failed setup
        explains it."""
        setup = tuple(self.setup[i] for i in sorted(self.setup))
        missing = Outcome(failure=FailureKind.CRASH, message=lost)
        items = tuple(self.items.get(i, missing) for i in range(len(self.request.items)))
        return SessionResult(setup, items, self.used, dict(self.untracked_at))
