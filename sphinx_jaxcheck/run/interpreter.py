"""The interpreter the workers run: its JAX, what it has installed, the fingerprint of both.

The workers may run another Python than Sphinx (``jaxcheck_python``), with its
own jax, jaxlib and numpy. One script, run by that interpreter in the
workers' environment, answers everything the Sphinx process needs to know
about it: the versions of jax, jaxlib and numpy and where jax lives (located,
never imported), whether our worker code imports there (so an interpreter the
workers cannot run in is reported before any block runs), and Python's
version and every distribution installed where the workers import from
(which, with the environment, make the fingerprint that keys the result
cache). A :class:`Probe` asks it at most once. For the interpreter running
Sphinx, its JAX is read in-process; only the fingerprint needs the script.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from ..atomic import replace_file
from ..cache.dependencies import tree_digest
from ..cite.pin import Installed, installed_version, jax_root, recorded_commit
from ..errors import InterpreterError
from ..version import __version__
from ..worker.dependencies import SETTLED_NS

TRACKED_PACKAGES = ("jax", "jaxlib", "numpy")
OLDEST_JAX = "0.4.30"  # the oldest release the worker code is tested against
# How long an interpreter may take to answer. Tests set JAXCHECK_PROBE_SECONDS to try a hanging
# one in seconds; users have no reason to (a working Python answers in well under a second).
PROBE_SECONDS = 120.0
# Runs in the workers' interpreter, without the script's folder ('' for -c), as
# the workers drop theirs. Never imports jax (only locates it).
_PROBE = """
import importlib.metadata, importlib.util, json, os, sys
del sys.path[0]
split = sys.argv.index("--")
tracked, named = sys.argv[1:split], sys.argv[split + 1:]
def version(name):
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None
def where(name):
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    folders = list(spec.submodule_search_locations or ())
    return folders[0] if folders else spec.origin
spec = importlib.util.find_spec("jax")
places = list(spec.submodule_search_locations or ()) if spec else []
problem = ""
try:
    import sphinx_jaxcheck.worker.zygote
except Exception as error:
    problem = type(error).__name__ + ": " + str(error)
found, local = set(), set(named)
for dist in importlib.metadata.distributions():
    name = (dist.metadata["Name"] or "?").lower().replace("_", "-")
    found.add((name, dist.version or "?"))
    url = json.loads(dist.read_text("direct_url.json") or "{}").get("url", "")
    if url.startswith("file:") and name != "sphinx-jaxcheck":  # from a folder or an archive
        tops = (dist.read_text("top_level.txt") or "").split() or [
            str(f).split("/")[0].removesuffix(".py") for f in dist.files or ()
            if not str(f).split("/")[0].endswith((".dist-info", ".egg-info", ".pth"))
        ]
        local.update(t for t in tops if t and not t.startswith("__"))
sources = {name: where(name) for name in sorted(local | {"sitecustomize", "usercustomize"})}
for folder in sys.path:
    if os.path.isdir(folder):
        for entry in sorted(os.listdir(folder)):
            if entry.endswith(".pth"):
                sources["pth:" + os.path.join(folder, entry)] = os.path.join(folder, entry)
print(json.dumps({"python": sys.version, "path": sys.path,
                  "versions": {n: version(n) for n in tracked},
                  "jax_dir": places[0] if places else None, "problem": problem,
                  "distributions": sorted(found),
                  "sources": sorted([n, p] for n, p in sources.items() if p)}))
"""


@dataclass(frozen=True)
class Interpreter:
    """What one Python offers the workers: its version and its JAX."""

    python: str  # the executable, as the workers are started with it
    # (package, version or None) for each of TRACKED_PACKAGES
    versions: tuple[tuple[str, str | None], ...]
    jax_root: str | None  # the folder holding its ``jax/`` package

    def version(self, package: str) -> str | None:
        """The installed version of one of the tracked packages, or None when it is not
        installed."""
        return dict(self.versions).get(package)

    @property
    def jax_version(self) -> str | None:
        """Its jax version, or None when it has no jax."""
        return self.version("jax")

    def installed(self) -> Installed:
        """Its jax as the pin check sees it: version, recorded commit, source folder."""
        root = Path(self.jax_root) if self.jax_root else None
        commit = recorded_commit(root / "jax" / "version.py") if root else None
        return Installed(version=self.jax_version, commit=commit, root=root)


def locate(python: str | None, base: str) -> str:
    """The executable ``python`` names (a path, relative to ``base``, or a command); default: ours.

    Symlinks are kept: a virtual environment's ``bin/python`` is a symlink, and
    resolving it would leave the environment.
    """
    if not python:
        return sys.executable
    if os.sep in python or (os.altsep and os.altsep in python):
        path = os.path.abspath(os.path.join(base, os.path.expanduser(python)))
    else:
        path = shutil.which(python) or os.path.abspath(os.path.join(base, python))
    if not os.path.isfile(path) or not os.access(path, os.X_OK):
        raise InterpreterError(
            f"jaxcheck_python = {python!r}: no executable at {path}; expected the path of a "
            "Python interpreter with jax installed, e.g. .venv-jax/bin/python"
        )
    return path


@dataclass(frozen=True)
class PackageSet:
    """The workers' Python version and installed distributions (name, version), sorted; and
    the sources keyed by their content, not their version (name, file or folder): the
    packages installed from a folder (editable or not), those whose docstrings are checked,
    ``sitecustomize``, ``usercustomize`` and ``.pth`` files."""

    python: str
    distributions: tuple[tuple[str, str], ...]
    sources: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Answer:
    """What the probe script answers: the interpreter's JAX, and what it has installed."""

    interpreter: Interpreter
    packages: PackageSet


def probe_seconds() -> float:
    """How long a probe may take: :data:`PROBE_SECONDS`, unless JAXCHECK_PROBE_SECONDS says."""
    try:
        return float(os.environ["JAXCHECK_PROBE_SECONDS"])
    except (KeyError, ValueError):
        return PROBE_SECONDS


def run_probe(command: Sequence[str], env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
    """Run an interpreter with ``command`` in a process group of its own, and end the whole
    group once it answered or ran out of time (:func:`probe_seconds`; then
    ``subprocess.TimeoutExpired``).

    ``subprocess.run(timeout=)`` kills the interpreter only: whatever it started
    (a wrapper script's children) would be left running, and would keep its
    output open.
    """
    return _finish(_start(command, env))


def _start(command: Sequence[str], env: Mapping[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        list(command),
        env=dict(env),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def _finish(process: subprocess.Popen[str]) -> subprocess.CompletedProcess[str]:
    """What a started probe printed (see :func:`run_probe`)."""
    try:
        out, err = process.communicate(timeout=probe_seconds())
    except subprocess.TimeoutExpired:
        _end_group(process.pid)
        process.communicate()
        raise
    finally:
        _end_group(process.pid)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def _end_unread(leader: int, owner: int) -> None:
    """End a probe nobody read, from the process that started it (a fork leaves it alone)."""
    if os.getpid() == owner:
        _end_group(leader)


def _end_group(leader: int) -> None:
    with contextlib.suppress(OSError):  # nothing left of the group
        os.killpg(leader, signal.SIGKILL)


def ask(python: str, env: Mapping[str, str], modules: Sequence[str] = ()) -> Answer:
    """Run the probe script in ``python`` with ``env`` (the workers' environment).

    Raises :class:`InterpreterError` when it cannot run, is no Python, or
    cannot import our worker code.
    """
    return _answer_of(python, _facts(python, _ask(python, env, modules)))


def _ask(
    python: str, env: Mapping[str, str], modules: Sequence[str] = ()
) -> subprocess.Popen[str] | OSError:
    """The probe script started in ``python``, or why it could not be; ``modules``: the
    top-level modules to locate besides (those whose docstrings are checked)."""
    try:
        return _start([python, "-c", _PROBE, *TRACKED_PACKAGES, "--", *modules], env)
    except OSError as error:
        return error


def _facts(python: str, asked: subprocess.Popen[str] | OSError) -> dict[str, Any]:
    """What the probe script printed (see :func:`ask`)."""
    what = f"jaxcheck_python = {python!r}"
    try:
        if isinstance(asked, OSError):
            raise asked
        done = _finish(asked)
    except subprocess.TimeoutExpired as late:
        raise InterpreterError(
            f"{what}: did not answer within {late.timeout:g} s (it was ended, with every process "
            "it started); expected a working Python, which answers at once"
        ) from None
    except OSError as error:
        raise InterpreterError(
            f"{what}: could not be run ({error}); expected a working Python"
        ) from None
    try:
        facts: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        tail = (done.stderr.strip() or done.stdout.strip() or "no output")[-600:]
        raise InterpreterError(
            f"{what}: does not run as a Python interpreter (exit status {done.returncode}: "
            f"{tail}); expected the path of a Python 3 executable"
        ) from None
    return facts


def _answer_of(python: str, facts: Mapping[str, Any]) -> Answer:
    if facts["problem"]:
        raise InterpreterError(
            f"jaxcheck_python = {python!r}: the worker code of sphinx-jaxcheck cannot run there "
            f"(Python {facts['python'].split()[0]}: {facts['problem']}); "
            "expected a Python version sphinx-jaxcheck supports (3.11 or newer)"
        )
    jax_dir = facts["jax_dir"]
    interpreter = Interpreter(
        python=python,
        versions=tuple((name, facts["versions"].get(name)) for name in TRACKED_PACKAGES),
        jax_root=os.path.dirname(jax_dir) if jax_dir else None,
    )
    distributions = tuple((str(n), str(v)) for n, v in facts["distributions"])
    sources = tuple((str(n), str(p)) for n, p in facts.get("sources", ()))
    return Answer(interpreter, PackageSet(str(facts["python"]), distributions, sources))


def _stamp(python: str, env: Mapping[str, str], path: Sequence[str]) -> tuple[list[Any], int]:
    """What an answer of the probe depends on, cheap to look at: the interpreter's file, the
    environment, this package, and every folder the workers import from (its time changes
    when a distribution is installed, upgraded or removed there) with its ``.pth`` files; and
    the newest of those times."""
    times = [0]
    try:
        binary = os.stat(python)
        found: list[Any] = [binary.st_mtime_ns, binary.st_size, binary.st_ino]
        times.append(binary.st_mtime_ns)
    except OSError:
        found = [None]
    stamp = [python, found, sorted(env.items()), __version__, _worker_source_digest()]
    for folder in path:
        try:
            entries = sorted(
                (entry.name, entry.stat().st_mtime_ns)
                for entry in os.scandir(folder)
                if entry.name.endswith(".pth")
            )
            stamp.append([folder, os.stat(folder).st_mtime_ns, entries])
            times += [stamp[-1][1], *(mtime for _, mtime in entries)]
        except OSError:  # missing, or a file (a zip archive)
            stamp.append([folder, _mtime(folder)])
            times.append(stamp[-1][1] or 0)
    return stamp, max(times)


def _search_path(env: Mapping[str, str]) -> list[str]:
    return [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]


def _mtime(path: str) -> int | None:
    try:
        return os.stat(path).st_mtime_ns
    except OSError:
        return None


def _recall(file: Path, python: str, env: Mapping[str, str]) -> dict[str, Any] | None:
    """The facts kept in ``file``, if nothing they depend on changed since."""
    try:
        kept = json.loads(file.read_text("utf-8"))
        facts: dict[str, Any] = kept["facts"]
        same = kept["stamp"] == json.loads(json.dumps(_stamp(python, env, facts["path"])[0]))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return facts if same else None


def _remember(
    file: Path, python: str, env: Mapping[str, str], facts: Mapping[str, Any], asked: int
) -> None:
    """Keep the facts the probe gave when asked at ``asked`` (ns), unless something they
    depend on changed since then, or so shortly before that a change could follow unseen
    (see :func:`settled_version`)."""
    stamp, newest = _stamp(python, env, facts.get("path") or [])
    if newest >= asked - SETTLED_NS:
        return
    with contextlib.suppress(OSError):  # only a cost: the next build asks again
        file.parent.mkdir(parents=True, exist_ok=True)
        replace_file(file, json.dumps({"stamp": stamp, "facts": facts}).encode("utf-8"))


# What decides the ``sys.path`` a fresh start of an interpreter has, besides its own files
# and the folders on that path: the variables Python and ``site`` read, and the home folder
# (the user's site-packages).
_STARTUP_VARIABLES = (
    "HOME",
    "PYTHONHOME",
    "PYTHONNOUSERSITE",
    "PYTHONPATH",
    "PYTHONPLATLIBDIR",
    "PYTHONSAFEPATH",
    "PYTHONUSERBASE",
)
_STARTUP_PATH = (
    "import json, site, sys; print(json.dumps([sys.path[1:], site.getusersitepackages() or '']))"
)


def startup_path(python: str, folder: str, remember: Path | None) -> frozenset[str] | None:
    """The ``sys.path`` a fresh start of ``python`` has in ``folder`` with this environment (its
    own first entry left out): the standard library, ``PYTHONPATH``, site-packages and what
    their ``.pth`` files add; None when it does not answer.

    Kept in ``remember`` between builds under the stamp a probe's answer has (see
    :func:`_stamp`), the user's site-packages folder watched even while it does not exist.
    """
    env = {name: os.environ[name] for name in _STARTUP_VARIABLES if name in os.environ}
    key = {**env, "": folder}
    file = None
    if remember is not None:
        named = json.dumps([python, sorted(key.items())]).encode()
        file = remember / f"{hashlib.sha256(named).hexdigest()[:32]}.startup"
        kept = _recall(file, python, key)
        if kept is not None:
            return frozenset(kept["entries"])
    asked = time.time_ns()
    try:
        printed = subprocess.run(
            [python, "-c", _STARTUP_PATH],
            capture_output=True,
            text=True,
            cwd=folder,
            check=True,
            timeout=60,
            env={**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", "")},
        ).stdout
        path, user_site = json.loads(printed)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    entries = sorted({os.path.abspath(os.path.join(folder, entry or ".")) for entry in path})
    if file is not None:
        watched = [*entries, user_site] if user_site else entries
        _remember(file, python, key, {"path": watched, "entries": entries}, asked)
    return frozenset(entries)


class Probe:
    """The workers' interpreter in one environment, asked at most once, and only when needed.

    ``env`` is the environment the workers really get (without our cache
    folder, which changes no outcome); ``key_env``, the same as the
    fingerprint holds it (default: ``env``; see ``WorkerSettings.key_env``).
    """

    def __init__(
        self,
        python: str,
        env: Mapping[str, str],
        key_env: Mapping[str, str] | None = None,
        remember: str | os.PathLike[str] | None = None,
        modules: Sequence[str] = (),
    ) -> None:
        self.python = python
        self.env = dict(env)
        # Top-level modules keyed by their content (those whose docstrings are checked).
        self.modules = tuple(sorted(set(modules)))
        self.key_env = dict(env if key_env is None else key_env)
        # The folder where answers are kept between builds (None: ask in every build).
        self.remember = Path(remember) if remember is not None else None
        # The process that started the probe script, when (ns), and the script's process.
        self._asked: tuple[int, int, subprocess.Popen[str] | OSError] | None = None
        self._unread: weakref.finalize[Any, Any] | None = None

    def begin(self) -> None:
        """Start the probe script, unless the answer is kept: a build begins as soon as it
        knows its settings, and reads the answer when its first cache key needs it."""
        if self._kept is not None or (self._asked is not None and self._asked[0] == os.getpid()):
            return
        at = time.time_ns()  # before the script looks at anything
        started = _ask(self.python, self.env, self.modules)
        if not isinstance(started, OSError):
            # Never read (the build stopped first): ended with this process.
            self._unread = weakref.finalize(self, _end_unread, started.pid, os.getpid())
        self._asked = (os.getpid(), at, started)

    @functools.cached_property
    def _file(self) -> Path | None:
        """Where the answer is kept between builds (None: nowhere)."""
        if self.remember is None:
            return None
        # As the cache key holds the environment: the same in every process.
        key = json.dumps([self.python, sorted(self.key_env.items()), self.modules])
        return self.remember / f"{hashlib.sha256(key.encode()).hexdigest()[:32]}.probe"

    @functools.cached_property
    def _kept(self) -> Answer | None:
        """The answer kept from an earlier build, while nothing it depends on changed (see
        :func:`_stamp`) and it is no refusal."""
        facts = None if self._file is None else _recall(self._file, self.python, self.key_env)
        if facts is not None:
            with contextlib.suppress(InterpreterError):
                return _answer_of(self.python, facts)
        return None

    @functools.cached_property
    def _answer(self) -> Answer | InterpreterError:
        """The probe's answer: the kept one, else asked (see :meth:`begin`), and kept when it is
        not a refusal."""
        if self._kept is not None:
            return self._kept
        self.begin()  # a fork of the process that began (Sphinx's parallel reading) asks anew
        assert self._asked is not None
        _, asked, started = self._asked
        if self._unread is not None:
            self._unread.detach()  # read now: _facts ends it
        try:
            facts = _facts(self.python, started)
            answer = _answer_of(self.python, facts)
        except InterpreterError as problem:
            return problem
        if self._file is not None:
            # This process's own link to this package (another interpreter's) is no folder
            # to watch: a new one each process, and the package is in the stamp anyway.
            own = set(_search_path(self.env)) - set(_search_path(self.key_env))
            kept = {**facts, "path": [p for p in facts.get("path") or [] if p not in own]}
            _remember(self._file, self.python, self.key_env, kept, asked)
        return answer

    @functools.cached_property
    def interpreter(self) -> Interpreter:
        """Its JAX; raises :class:`InterpreterError` when another interpreter cannot run the
        workers.

        Ours is read in-process, and never refused here: its jax is the pin
        check's business, and workers that cannot start say why, block by block.
        """
        if self.python == sys.executable:
            root = jax_root()
            return Interpreter(
                python=sys.executable,
                versions=tuple((name, installed_version(name)) for name in TRACKED_PACKAGES),
                jax_root=str(root) if root else None,
            )
        answer = self._answer
        if isinstance(answer, InterpreterError):
            raise answer
        _check_jax(answer.interpreter)
        return answer.interpreter

    @functools.cached_property
    def fingerprint(self) -> str:
        """The environment fingerprint of these workers (see :func:`environment_fingerprint`).

        An interpreter that cannot answer gets one made of the failure: its
        workers will not start and will say why; the key only has to differ.
        """
        answer = self._answer
        packages = (
            PackageSet(f"unusable: {answer}", ())
            if isinstance(answer, InterpreterError)
            else answer.packages
        )
        return environment_fingerprint(self.key_env, packages)


def describe(python: str, env: Mapping[str, str]) -> Interpreter:
    """What ``python`` offers the workers, asked in the environment they get."""
    return Probe(python, env).interpreter


def environment_fingerprint(env: Mapping[str, str], interpreter: PackageSet) -> str:
    """What, besides the code and its folder, decides a session's outcome.

    ``env`` is the environment the workers really get, ``interpreter`` their
    Python and every distribution installed where they look for imports (by
    version), and the sources keyed by content (the package under test: what the
    workers import of it before a session starts too); this package's version
    and worker code count too.
    """
    parts = {
        "python": interpreter.python,
        "distributions": [list(d) for d in interpreter.distributions],
        "sources": {name: tree_digest(path) for name, path in interpreter.sources},
        "jaxcheck": __version__,
        "worker": _worker_source_digest(),
        "env": dict(sorted(env.items())),
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def _worker_source_digest() -> str:
    """A digest of the code that runs blocks, so a changed worker invalidates the cache."""
    digest = hashlib.sha256()
    for path in sorted((Path(__file__).parent.parent / "worker").glob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _check_jax(found: Interpreter) -> None:
    version = found.jax_version
    if version is None or found.version("jaxlib") is None:
        raise InterpreterError(
            f"jaxcheck_python = {found.python!r} has no jax (or no jaxlib) installed; install it "
            f"there, e.g. `{found.python} -m pip install jax jaxlib`"
        )
    try:
        too_old = Version(version) < Version(OLDEST_JAX)
    except InvalidVersion:
        too_old = False
    if too_old:
        raise InterpreterError(
            f"jaxcheck_python = {found.python!r} has jax {version}, older than the oldest "
            f"release the workers support ({OLDEST_JAX}); install jax>={OLDEST_JAX} there"
        )


def running_platform(env: Mapping[str, str]) -> str | None:
    """The platform the workers compute on, from ``JAX_PLATFORMS`` (None: not set, JAX picks)."""
    first = env.get("JAX_PLATFORMS", "").split(",")[0].strip().lower()
    if not first:
        return None
    return {"cuda": "gpu", "rocm": "gpu"}.get(first, first)


def default_platform(python: str, env: Mapping[str, str]) -> str | None:
    """The platform jax picks in ``python`` when ``JAX_PLATFORMS`` does not say (None: unknown).

    Imports jax, in a subprocess: only asked when a block is limited to platforms.
    """
    return _default_platform(python, tuple(sorted(env.items())))


@functools.lru_cache(maxsize=16)
def _default_platform(python: str, env: tuple[tuple[str, str], ...]) -> str | None:
    try:
        done = run_probe([python, "-c", "import jax; print(jax.default_backend())"], dict(env))
    except (OSError, subprocess.TimeoutExpired):
        return None
    lines = done.stdout.split()
    return (
        running_platform({"JAX_PLATFORMS": lines[-1]}) if done.returncode == 0 and lines else None
    )
