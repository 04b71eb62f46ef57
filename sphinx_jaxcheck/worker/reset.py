"""Between two page sessions in one worker child: put back the state it started with, and check.

A child that runs several page sessions in turn saves its backend start and
what JAX's caches keep, but only if each session sees what a fresh child would.
:class:`Baseline` records the state at the child's start; :meth:`Baseline.restore`
puts back what can be put back (JAX's configuration, random states, print
options, environment, working directory, path, warning filters, the project's
own modules), empties JAX's caches once the child grew past a bound, and verifies
everything it knows of. Whatever it cannot restore or verify is returned as a
reason: the child then retires and a fresh one runs the next session. When in
doubt, retire: a fresh fork is always correct.
"""

from __future__ import annotations

import builtins
import gc
import operator
import os
import random
import signal
import sys
import sysconfig
import threading
import warnings
from collections.abc import Callable
from typing import Any

from .portability import resident_bytes

# JAX flags read when the backend starts (or the persistent cache first opens): a session that
# sets one after an earlier session started the backend would not see its effect in a warm
# child, so it is run again in a fresh one.
BACKEND_FLAG_WORDS = (
    *("platform", "num_cpu_devices", "cpu_collectives", "pjrt", "distributed"),
    *("compilation_cache", "persistent_cache", "default_device"),
)
# How much a fork may grow after its first session with JAX's caches of what its sessions
# compiled kept for the next; past it they are emptied.
CACHES_KEPT_BYTES = 64 << 20
# Module globals that JAX itself sets on first use (its backend, its cache's state); a change
# of any other global of a module loaded at the child's start retires the child.
RUNTIME_GLOBALS = frozenset(
    {
        ("jax._src.xla_bridge", "_default_backend"),
        ("jax._src.xla_bridge", "_at_fork_handler_installed"),
        ("jax._src.compilation_cache", "_cache_checked"),
        ("jax._src.compilation_cache", "_cache_used"),
        ("jax._src.compilation_cache", "_cache"),
        ("jax._src.compilation_cache", "_cache_initialized"),
    }
)


def _jax_config() -> Any:
    jax = sys.modules.get("jax")
    return getattr(jax, "config", None)


def _config_values(config: Any) -> dict[str, tuple[Any, Any]] | None:
    """Every jax.config flag: (its global value, its effective value); None if unreadable."""
    holders = getattr(config, "_value_holders", None)
    if not isinstance(holders, dict):
        return None
    try:  # a Flag (set once, no context) has only its value
        return {
            name: (h.get_global() if hasattr(h, "get_global") else h.value, h.value)
            for name, h in holders.items()
        }
    except Exception:  # another jax's private API
        return None


def backend_started() -> bool:
    """Whether JAX's backend has started in this process (True when it cannot be told)."""
    bridge = sys.modules.get("jax._src.xla_bridge")
    if bridge is None:
        return False
    backends = getattr(bridge, "_backends", None)
    return not isinstance(backends, dict) or bool(backends)


def is_backend_flag(name: str) -> bool:
    """Whether a JAX flag is one the backend reads once, when it starts."""
    return any(word in name for word in BACKEND_FLAG_WORDS)


def mentions_backend_flag(code: str) -> bool:
    """Whether code may configure the backend (a flag, or XLA_FLAGS): read before it runs."""
    text = code.lower()
    return "xla_flags" in text or any(word in text for word in BACKEND_FLAG_WORDS)


def _numpy() -> Any:
    return sys.modules.get("numpy")


def _signals() -> dict[int, Any]:
    found = {}
    for number in signal.valid_signals():
        try:
            found[int(number)] = signal.getsignal(number)
        except (OSError, ValueError):
            continue
    return found


def _misc() -> dict[str, Any]:
    """Process-wide settings checked (not restored) between sessions."""
    umask = os.umask(0)
    os.umask(umask)
    state: dict[str, Any] = {
        "command line": list(sys.argv),
        # A session's end runs these (worker.runner ends executors as Python's exit would):
        # after, concurrent.futures refuses new work.
        "thread exit hooks": list(getattr(threading, "_threading_atexits", ())),
        "recursion limit": sys.getrecursionlimit(),
        "trace function": sys.gettrace(),
        "profile function": sys.getprofile(),
        "umask": umask,
        "garbage collector": (gc.isenabled(), gc.get_threshold()),
        "alarm timer": signal.getitimer(signal.ITIMER_REAL),
        "blocked signals": signal.pthread_sigmask(signal.SIG_BLOCK, []),
        "meta path": list(sys.meta_path),
        "path hooks": list(sys.path_hooks),
        "standard streams": (sys.stdin, sys.stdout, sys.stderr, sys.displayhook),
    }
    locale = sys.modules.get("locale")
    if locale is not None:
        state["locale"] = locale.setlocale(locale.LC_ALL)
    logging = sys.modules.get("logging")
    if logging is not None:
        loggers = [logging.root, *logging.Logger.manager.loggerDict.values()]
        state["logging"] = {
            id(lg): (lg.level, lg.disabled, lg.propagate, list(lg.handlers))
            for lg in loggers
            if isinstance(lg, logging.Logger)
        }
    return state


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # e.g. arrays compared element-wise
        return False


class Baseline:
    """The state of a worker child before its first page session."""

    def __init__(self, installed: tuple[str, ...], builtins_given: dict[str, Any]) -> None:
        self.installed = installed
        paths = sysconfig.get_paths()
        stdlib = {paths.get("stdlib"), paths.get("platstdlib")}
        self.stdlib = tuple(os.path.join(os.path.realpath(f), "") for f in stdlib if f)
        self.packages = tuple(f for f in installed if f not in self.stdlib)
        self.config = _jax_config()
        self.config_values = _config_values(self.config) if self.config is not None else {}
        # What the runner installs before each block (a pybind11 module imported since adds a
        # name, which the runner's reinstall drops): the builtins a session starts with.
        self.builtins = builtins_given
        self.random = random.getstate()
        numpy = _numpy()
        self.numpy = (
            (numpy.random.get_state(), numpy.get_printoptions(), numpy.geterr())
            if numpy is not None
            else None
        )
        self.environ = dict(os.environ)
        self.cwd = os.getcwd()
        self.path = list(sys.path)
        self.filters = list(warnings.filters)
        self.threads = set(threading.enumerate())
        self.first_ended = False
        self.resident: int | None = None  # after the first session; None where unknown
        self.signals = _signals()
        self.misc = _misc()
        # Last: reading the state above may import (numpy.random, with older numpy's lazily).
        self.modules = dict(sys.modules)
        # Each module's globals, values held so that an id is never reused meanwhile.
        self.globals = {
            name: dict(vars(module))
            for name, module in self.modules.items()
            if hasattr(module, "__dict__") and module is not builtins
        }

    def restore(self) -> str | None:
        """Put the child's state back as it started; None, or why this child must retire."""
        steps: list[Callable[[], str | None]] = [
            self._threads,
            self._jax,
            self._random,
            self._process,
            self._modules,
            self._globals,
            self._checked,
            self._caches,
        ]
        for step in steps:
            try:
                reason = step()
            except Exception as error:  # anything unexpected: a fresh child is always correct
                reason = f"checking the state failed ({type(error).__name__}: {error})"
            if reason:
                return reason
        return None

    def config_changed(self, backend_only: bool) -> list[str]:
        """The JAX flags whose global value differs from the child's start."""
        now = _config_values(self.config) if self.config is not None else {}
        if now is None or self.config_values is None:
            return ["(jax.config unreadable)"]
        return [
            name
            for name, (value, _) in now.items()
            if (name not in self.config_values or not _same(value, self.config_values[name][0]))
            and (is_backend_flag(name) or not backend_only)
        ]

    # -- the steps --------------------------------------------------------------

    def _threads(self) -> str | None:
        alive = [t for t in threading.enumerate() if t not in self.threads and t.is_alive()]
        if alive:
            return f"a thread a session started is still running ({alive[0].name})"
        return None

    def _jax(self) -> str | None:
        if self.config is not _jax_config():
            return "jax was imported, removed or replaced"
        if self.config is None:
            return None
        now = _config_values(self.config)
        if now is None or self.config_values is None:
            return "jax.config cannot be read"
        for name, (global_value, effective) in now.items():
            if not _same(global_value, effective):
                return f"a jax.config context ({name}) was entered and not left"
        if set(now) != set(self.config_values):
            return "jax.config gained flags"
        changed = self.config_changed(backend_only=False)
        for name in changed:
            if is_backend_flag(name):
                return f"the session set {name}, which the backend reads once"
            self.config.update(name, self.config_values[name][0])
        if self.config_changed(backend_only=False):
            return "jax.config could not be restored"
        return None

    def _random(self) -> str | None:
        random.setstate(self.random)
        numpy = _numpy()
        if self.numpy is None:
            return "numpy was imported by a session" if numpy is not None else None
        state, printoptions, errors = self.numpy
        numpy.random.set_state(state)
        numpy.set_printoptions(**printoptions)
        numpy.seterr(**errors)
        now = numpy.random.get_state()
        if not (now[0] == state[0] and (now[1] == state[1]).all() and now[2:] == state[2:]):
            return "numpy's random state could not be restored"
        if numpy.get_printoptions() != printoptions or numpy.geterr() != errors:
            return "numpy's print options could not be restored"
        if random.getstate() != self.random:
            return "Python's random state could not be restored"
        return None

    def _process(self) -> str | None:
        if dict(os.environ) != self.environ:
            os.environ.clear()
            os.environ.update(self.environ)
        os.chdir(self.cwd)
        sys.path[:] = self.path
        filters: Any = warnings.filters
        filters[:] = self.filters
        # Invalidates every module's record of warnings shown once, as a fresh process has none.
        mutated = getattr(warnings, "_filters_mutated", None)
        if mutated is None:
            return "the warnings module cannot forget the warnings it showed"
        mutated()
        getattr(warnings, "onceregistry", {}).clear()
        if dict(os.environ) != self.environ or os.getcwd() != self.cwd:
            return "the environment or working directory could not be restored"
        return None

    def _modules(self) -> str | None:
        for name, module in self.modules.items():
            if sys.modules.get(name) is not module:
                return f"module {name} was removed or replaced in sys.modules"
        for name in [n for n in sys.modules if n not in self.modules]:
            module = sys.modules[name]
            where = self._where(module)
            top = name.partition(".")[0]
            if where == "installed" and (top in self.modules or self._standard(module)):
                continue  # part of a package loaded before, or of the standard library
            if where == "installed":
                # Its settings (pandas' options, matplotlib's rcParams) live in containers the
                # child cannot compare: the next session gets a fresh child, without it.
                return f"the session imported {top}, whose state the child cannot check"
            if where == "project":
                del sys.modules[name]  # the next session imports it again, and records it
                continue
            return f"module {name} is not from a file (made by a session?)"
        return None

    def _where(self, module: Any) -> str:
        """'installed', 'project' or 'unknown': where a module's files are."""
        files = [getattr(module, "__file__", None)]
        if files == [None]:
            files = list(getattr(module, "__path__", None) or ())
            if not files:
                spec = getattr(module, "__spec__", None)
                origin = getattr(spec, "origin", None)
                return "installed" if origin in ("built-in", "frozen") else "unknown"
        if not all(isinstance(f, str) for f in files):
            return "unknown"
        real = [os.path.realpath(str(f)) for f in files]
        if all(f.startswith(self.installed) for f in real):
            return "installed"
        return "project"

    def _standard(self, module: Any) -> bool:
        """Whether a module is of the standard library (built in, or a file of it)."""
        file = getattr(module, "__file__", None)
        if not isinstance(file, str):
            return getattr(getattr(module, "__spec__", None), "origin", None) in (
                "built-in",
                "frozen",
            )
        real = os.path.realpath(file)
        return real.startswith(self.stdlib) and not real.startswith(self.packages)

    def _globals(self) -> str | None:
        for name, saved in self.globals.items():
            now = vars(self.modules[name])
            # The common case in C: the same names, each holding the same object.
            if now.keys() == saved.keys() and all(
                map(operator.is_, map(now.__getitem__, saved), saved.values())
            ):
                continue
            for key in set(now) | set(saved):
                value = now.get(key, now)
                if value is saved.get(key, saved) or (name, key) in RUNTIME_GLOBALS:
                    continue
                if key not in saved and sys.modules.get(f"{name}.{key}") is value:
                    continue  # a submodule imported meanwhile, still in sys.modules
                return f"{name}.{key} was changed"
        now = vars(builtins)
        if now.keys() != self.builtins.keys() or any(
            now[name] is not value for name, value in self.builtins.items()
        ):
            return "the builtins were changed"
        return None

    def _caches(self) -> str | None:
        # What earlier sessions traced and compiled spares the next one work, but a fork kept
        # growing by some 30 MB a session: past a bound, JAX's caches are emptied. Counted from
        # the end of the first session, which also touches the zygote's pages and starts XLA;
        # where the size is unknown, after every session but the first.
        now = resident_bytes()
        if not self.first_ended:
            self.first_ended, self.resident = True, now
        elif now is None or self.resident is None or now - self.resident > CACHES_KEPT_BYTES:
            clear = getattr(sys.modules.get("jax"), "clear_caches", None)
            if clear is not None:
                clear()
            gc.collect()
        return None

    def _checked(self) -> str | None:
        if _signals() != self.signals:
            return "a signal handler was changed"
        now = _misc()
        if (
            "logging" in now and "logging" in self.misc
        ):  # loggers made since (by modules imported) start as made
            kept = self.misc["logging"]
            now["logging"] = {k: v for k, v in now["logging"].items() if k in kept}
        for what, value in self.misc.items():
            if not _same(now.get(what), value):
                return f"the {what} was changed"
        return None
