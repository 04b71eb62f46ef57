"""The last ``jaxcheck check``, replayed when nothing it depended on has changed.

While a check builds, a :class:`Witness` hears (through Python's audit hooks)
every file the process opens, every folder it lists, every process it starts,
every connection it makes, the stamps of what the workers' interpreter
answered from, and every cached outcome it uses or stores. Afterwards
:func:`record` writes down the check's output with the stamps of all of that
(see :mod:`sphinx_jaxcheck.stamps`), plus the modules the process loaded, the
folders they came from, every document and dependency Sphinx knows of, a
digest of the command line, the working folder and every environment variable,
and a digest of what ``conf.py`` defined. A check is recorded only when this
is everything it depended on: it started no process but the workers (whose
every session is now in the cache) and the interpreter question, connected
nowhere, used no shard, rewrote nothing, and nothing it read changed while it
ran.

The next ``jaxcheck check`` with the same command line, folder and environment
runs ``conf.py`` again (as Sphinx would) and compares; then, if no stamp
changed and every cached outcome is still there with the same content, it
prints the recorded output instead of building (:func:`replay`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import marshal
import os
import sys
import tempfile
import threading
import types
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from .atomic import replace_file
from .stamps import Stamp, changed_since, first_changed, names_in, stamps
from .version import __version__
from .worker.probe import QUESTION

RECORD = "last-check.json"
_FORMAT = 1
_STARTS = {
    "os.system",
    "os.exec",
    "os.posix_spawn",
    "os.spawn",
    "os.fork",
    "os.forkpty",
    "pty.spawn",
}


@dataclass(frozen=True)
class Record:
    """A check's output, and the stamps of everything it depended on."""

    invocation: str
    configuration: str
    stamps: dict[str, Stamp]
    entries: dict[str, str]  # cached outcome used -> digest of its text
    stdout: str
    stderr: str
    status: int
    junit: tuple[str, str] | None = None  # the file written, and its text
    jaxcheck: str = __version__
    format: int = _FORMAT


def invocation(argv: Iterable[str], environ: Mapping[str, str] | None = None) -> str:
    """A digest of how a check was started: arguments, folder, environment, interpreter, terminals."""
    parts = {
        "argv": list(argv),
        "cwd": os.getcwd(),
        "environ": sorted((environ if environ is not None else os.environ).items()),
        "python": [sys.executable, sys.version, list(sys.flags)],
        "terminals": [_isatty(sys.stdout), _isatty(sys.stderr)],
        "jaxcheck": __version__,
    }
    return hashlib.sha256(json.dumps(parts).encode("utf-8", "surrogateescape")).hexdigest()


def _isatty(stream: object) -> bool:
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class Unprovable(ValueError):
    """Something a check depended on cannot be compared later."""


def configuration(namespace: Mapping[str, Any]) -> str:
    """A digest of what ``conf.py`` defined, with the ``sys.path`` it left.

    Raises :class:`Unprovable` for a value that has no stable description
    (an arbitrary object, say): such a configuration is never replayed.
    """
    # Without ``tags`` and Python's own names (``__builtins__``, ``__warningregistry__``, ...).
    names = {
        k: _stable(v, 0) for k, v in namespace.items() if k != "tags" and not k.startswith("__")
    }
    parts = [names, list(sys.path)]
    return hashlib.sha256(
        json.dumps(parts, sort_keys=True).encode("utf-8", "surrogateescape")
    ).hexdigest()


def _stable(value: object, depth: int) -> object:
    if depth > 20:
        raise Unprovable("a value nested too deeply")
    if value is None or isinstance(value, (bool, int, float, str, bytes, complex)):
        return [type(value).__name__, repr(value)]
    if isinstance(value, (list, tuple)):
        return [type(value).__name__, [_stable(v, depth + 1) for v in value]]
    if isinstance(value, (set, frozenset)):
        return [type(value).__name__, sorted(json.dumps(_stable(v, depth + 1)) for v in value)]
    if isinstance(value, dict):
        return ["dict", [[_stable(k, depth + 1), _stable(v, depth + 1)] for k, v in value.items()]]
    if isinstance(value, types.ModuleType):
        return ["module", value.__name__, getattr(value, "__file__", None)]
    if isinstance(value, type):
        return ["class", value.__module__, value.__qualname__]
    if isinstance(value, types.FunctionType):
        code = hashlib.sha256(marshal.dumps(value.__code__)).hexdigest()
        defaults = _stable(value.__defaults__, depth + 1), _stable(value.__kwdefaults__, depth + 1)
        return ["function", value.__module__, value.__qualname__, code, defaults]
    raise Unprovable(f"a value of type {type(value).__qualname__}")


def read_configuration(confdir: Path) -> str:
    """Run ``conf.py`` as Sphinx does (in its folder, with ``tags`` and ``__file__``); the digest."""
    file = confdir / "conf.py"
    namespace: dict[str, Any] = {"__file__": str(file), "tags": _Tags()}
    with contextlib.chdir(confdir):
        exec(compile(file.read_bytes(), file, "exec"), namespace)  # conf.py, as Sphinx runs it
    return configuration(namespace)


class _Tags:
    """Sphinx's ``tags`` for conf.py, made when conf.py first uses it (it imports jinja2).

    Only the namespace conf.py leaves is compared, so a conf.py that used it
    differently would only miss the replay.
    """

    def __init__(self) -> None:
        self._made: Any = None

    def _tags(self) -> Any:
        if self._made is None:
            from sphinx.util.tags import Tags

            self._made = Tags()
        return self._made

    def __getattr__(self, name: str) -> Any:
        return getattr(self._tags(), name)

    def __contains__(self, tag: str) -> bool:
        return tag in self._tags()

    def __iter__(self) -> Any:
        return iter(self._tags())


@dataclass
class Witness:
    """What a build depended on, as heard through audit hooks (one witness at a time).

    ``invocation``: how the check was started (:func:`invocation`, before it started).
    """

    invocation: str
    opened: set[str] = field(default_factory=set)
    listed: dict[str, list[str] | None] = field(
        default_factory=dict
    )  # folder -> its names when first listed
    answered: dict[str, Stamp] = field(default_factory=dict)  # the interpreter question's stamps
    used: dict[str, str] = field(default_factory=dict)  # cached outcome -> digest
    missed: set[str] = field(default_factory=set)  # keys not found in the cache
    stored: set[str] = field(default_factory=set)
    unprovable: list[str] = field(default_factory=list)  # why the build cannot be replayed
    started_ns: int = 0  # file system time when the build started

    def __enter__(self) -> Witness:
        global _ACTIVE
        _install()
        with tempfile.TemporaryFile() as marker:
            self.started_ns = os.fstat(marker.fileno()).st_mtime_ns
        _ACTIVE = self
        return self

    def __exit__(self, *_exc: object) -> None:
        global _ACTIVE
        _ACTIVE = None

    def hear(self, event: str, args: tuple[Any, ...]) -> None:
        """One audit event."""
        if event == "open" and not isinstance(args[0], int):
            self.opened.add(os.path.abspath(os.fsdecode(args[0])))
        elif event in ("os.listdir", "os.scandir") and isinstance(
            args[0], (str, bytes, os.PathLike)
        ):
            folder = os.path.abspath(os.fsdecode(args[0]))
            if folder not in self.listed:
                self.listed[folder] = names_in(folder)
        elif event == "subprocess.Popen" and not _ours(args[1]):
            self.unprovable.append(f"it ran {args[1]!r}")
        elif event in _STARTS:
            self.unprovable.append(f"it started a process ({event})")
        elif event == "socket.connect":
            self.unprovable.append("it connected to another program")
        elif event == "sphinx_jaxcheck.stamps":
            if not args[0]:
                self.unprovable.append("the workers' interpreter did not answer")
            self.answered.update(args[0])
        elif event == "sphinx_jaxcheck.cache.outcomes":
            what, key, path, digest = args
            if what == "miss":
                self.missed.add(key)
            else:
                self.used[path] = digest
                if what == "stored":
                    self.stored.add(key)


def _ours(command: object) -> bool:
    """The workers' zygote, or the question to their interpreter: run by us, accounted for."""
    if not isinstance(command, (list, tuple)):
        return False
    return list(command[1:]) in (["-m", "sphinx_jaxcheck.worker.zygote"], ["-c", QUESTION])


_ACTIVE: Witness | None = None
_LISTENING = False
# Per thread: the hook's own listing must not be heard, another thread's must.
_HEARING = threading.local()


def _hook(event: str, args: tuple[Any, ...]) -> None:
    witness = _ACTIVE
    if witness is None or getattr(_HEARING, "now", False):
        return
    _HEARING.now = True
    try:
        witness.hear(event, args)
    except Exception as error:  # an event of a shape not foreseen: never break what raised it
        witness.unprovable.append(f"an audit event {event} not understood ({error!r})")
    finally:
        _HEARING.now = False


def _install() -> None:
    global _LISTENING
    if not _LISTENING:  # audit hooks cannot be removed: one for the process, idle between builds
        sys.addaudithook(_hook)
        _LISTENING = True


def record(
    witness: Witness,
    *,
    configuration_digest: str,
    read: Iterable[str],
    private: Iterable[str],
    kept: Iterable[str] = (),
    stdout: str,
    stderr: str,
    status: int,
    junit: tuple[str, str] | None = None,
) -> Record:
    """The record of a finished check; :class:`Unprovable` when it cannot be replayed.

    ``read``: the documents, dependencies and ``conf.py`` Sphinx knows of;
    ``private``: folders of our own (build folder, cache) that are not inputs;
    ``kept``: files there that the check wrote and the next one would read
    (Sphinx's environment): stamped as the check left them.
    """
    if witness.unprovable:
        raise Unprovable(witness.unprovable[0])
    if witness.missed - witness.stored:
        raise Unprovable("a session's outcome is not in the cache (it failed, or caching is off)")
    inside = tuple(os.path.join(os.path.abspath(p), "") for p in private)
    modules = [
        f for m in list(sys.modules.values()) if isinstance(f := getattr(m, "__file__", None), str)
    ]
    # A folder opened rather than listed is where a temporary file was made: not an input.
    opened = [p for p in witness.opened if not os.path.isdir(p)]
    paths = {os.path.abspath(p) for p in [*opened, *read, *modules, *sys.path]} | {
        os.path.dirname(os.path.abspath(m)) for m in modules
    }
    inputs = sorted(
        p for p in paths if not os.path.join(p, "").startswith(inside) and "__pycache__" not in p
    )
    listed = [f for f in witness.listed if not os.path.join(f, "").startswith(inside)]
    found = stamps([*inputs, *listed])
    moved = changed_since(found, witness.started_ns) or next(
        (f for f in listed if not _only_ours_appeared(f, witness.listed[f], inside)), None
    )
    if moved is not None:
        raise Unprovable(f"{moved} changed while the check ran")
    found.update(witness.answered)
    found.update(stamps(kept))
    return Record(
        witness.invocation,
        configuration_digest,
        found,
        dict(witness.used),
        stdout,
        stderr,
        status,
        junit,
    )


def _only_ours_appeared(folder: str, then: list[str] | None, inside: tuple[str, ...]) -> bool:
    """Whether the folder holds what it held when first listed, but for our own folders created since
    (the build folder, the cache, or folders above them)."""
    now = names_in(folder)
    if then is None or now is None:
        return then == now
    return all(
        any(ours.startswith(os.path.join(folder, name, "")) for ours in inside)
        for name in set(now) ^ set(then)
    )


def save(file: Path, done: Record) -> None:
    """Write the record (atomically)."""
    file.parent.mkdir(parents=True, exist_ok=True)
    replace_file(file, json.dumps(asdict(done)).encode("utf-8"))


def forget(file: Path) -> None:
    """Remove the record: the check about to run may not be recordable."""
    with contextlib.suppress(OSError):
        file.unlink()


def replayable(file: Path, invocation_digest: str, confdir: Path) -> Record | None:
    """The recorded check, if nothing it depended on changed since; else None."""
    try:
        data = json.loads(file.read_text("utf-8"))
        done = Record(**{**data, "junit": tuple(data["junit"]) if data.get("junit") else None})
    except (OSError, ValueError, TypeError):
        return None
    if (
        done.format != _FORMAT
        or done.jaxcheck != __version__
        or done.invocation != invocation_digest
    ):
        return None
    if first_changed(done.stamps) is not None or not _entries_hold(done.entries):
        return None
    try:
        if read_configuration(confdir) != done.configuration:
            return None
    except (Exception, SystemExit):  # a conf.py that fails now: the build will say how
        return None
    return done


def _entries_hold(entries: Mapping[str, str]) -> bool:
    for path, digest in entries.items():
        try:
            text = Path(path).read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            return False
        if hashlib.sha256(text.encode()).hexdigest() != digest:
            return False
    return True
