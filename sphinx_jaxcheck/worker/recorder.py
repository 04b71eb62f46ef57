"""Record, in the worker, what a session depends on as it first uses it.

A session may use modules of the project (a ``helper.py`` beside its page, a
module on ``PYTHONPATH`` or in an archive there, a package installed in
editable mode, a file loaded by path with ``importlib.util``). Installed
packages are covered by the cache key through their names and versions; these
files are not, so the worker records them. Three ways in, each seen when it
happens:

* every code object a loader executes (the ``exec`` audit event): the file it
  came from, however it was found, digested then;
* every search of the path-based finder (``PathFinder.find_spec``): what it
  found, and where it looked;
* after each block, the modules new in ``sys.modules`` that neither of those
  saw (an extension module, say), and the shared libraries new in the
  process's memory map (loaded by ``cffi``, or by an extension module as it
  was imported), which no audit event announces.

The hook and the wrapped finder end with the child process; no other process
gets them. A child that runs several page sessions restarts the record between
them (:meth:`Recorder.restart`), after the project's modules were unloaded.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.machinery
import os
import pathlib
import site
import sys
import sysconfig
import tempfile
import threading
import zipimport
from collections.abc import Callable, Collection, Iterable, Iterator
from typing import Any

from .dependencies import (
    MISSING,
    NAMESPACE,
    Dependencies,
    Finders,
    Lookup,
    archive_of,
    content_digest,
    link_digest,
    observe,
    probe_key,
    resolve,
)
from .portability import linux_calls

# The loaders whose every input is the file they load. Any other loader of a module of the
# project (an import hook that compiles or rewrites code) may read what the cache cannot see.
FILE_LOADERS = (
    importlib.machinery.SourceFileLoader,
    importlib.machinery.SourcelessFileLoader,
    importlib.machinery.ExtensionFileLoader,
    zipimport.zipimporter,
)


def installed_folders() -> tuple[str, ...]:
    """Folders of the standard library and of installed distributions, each ending in a
    separator."""
    paths = sysconfig.get_paths()
    folders = {
        paths[name] for name in ("stdlib", "platstdlib", "purelib", "platlib") if name in paths
    }
    folders.update(getattr(site, "getsitepackages", list)())
    if site.ENABLE_USER_SITE and isinstance(site.USER_SITE, str):
        folders.add(site.USER_SITE)
    # Debian's dist-packages and any other folder of installed packages on the path.
    folders.update(
        p
        for p in sys.path
        if os.path.basename(p.rstrip(os.sep)) in ("site-packages", "dist-packages")
    )
    return tuple(os.path.join(os.path.realpath(folder), "") for folder in folders if folder)


def load_project_sources(installed: tuple[str, ...]) -> None:
    """Make every ``SourceFileLoader`` compile a module outside the ``installed`` folders from
    its source, never from ``__pycache__``, however the loader was made (by the path finder,
    by ``importlib.util.spec_from_file_location``). Python trusts a cached ``.pyc`` whose
    recorded size and mtime (in whole seconds) match the source's, so a same-size edit within
    a second, or a link retargeted to a file of the same size and time, would run the old
    code while the recorder digests the new text. Installed modules keep their bytecode."""
    loader = importlib.machinery.SourceFileLoader
    get_code = loader.get_code

    def from_source(self: Any, fullname: str) -> Any:
        path = self.get_filename(fullname)
        if os.path.realpath(path).startswith(installed):
            return get_code(self, fullname)
        return self.source_to_code(self.get_data(path), path)

    setattr(loader, "get_code", from_source)  # noqa: B010


# Where a file read is no input of a session: the system's, and JAX's compilation cache
# (compiled programs, the same whatever the session finds there).
_NOT_INPUTS = ("/proc/", "/sys/", "/dev/")


def _opened(path: Any, flags: Any, temporary: str) -> str | None:
    """The file an ``open`` audit event learns from (``builtins.open`` and ``os.open`` both
    give the flags), or None when it learns nothing of what is there: it only writes (or
    truncates first), or it names a descriptor. An exclusive creation learns that the file
    did not exist, unless it is a fresh name in the ``temporary`` folder (``tempfile``'s)."""
    if isinstance(path, int) or path is None or not isinstance(flags, int):
        return None
    name = os.path.abspath(os.fsdecode(path))
    if flags & os.O_CREAT and flags & os.O_EXCL:
        return None if name.startswith(temporary) else name
    if flags & os.O_TRUNC or flags & os.O_ACCMODE == os.O_WRONLY:
        return None
    return name


# What the recorder cannot follow: the audit events of each route, and what it says of them.
_BEYOND = {
    "subprocess.Popen": "started the program {0}",
    "os.system": "ran the shell command {0}",
    "os.exec": "replaced its process with {0}",
    "os.posix_spawn": "started the program {0}",
    "os.spawn": "started the program {1}",
    "os.fork": "forked its process",
    "os.forkpty": "forked its process",
    "pty.spawn": "started the program {0}",
    "sqlite3.connect": "opened the SQLite database {0}",
    "ctypes.dlopen": "loaded the shared library {0} with ctypes",
    "mmap.__new__": "mapped a file into memory",
    "socket.connect": "connected a socket to {1}",
    "socket.bind": "bound a socket to {1}",
    "socket.sendto": "sent on a socket to {1}",
    "socket.getaddrinfo": "looked up the host {0}",
    "socket.gethostbyname": "looked up the host {0}",
    "socket.gethostbyaddr": "looked up the host {0}",
    "socket.getnameinfo": "looked up the address {0}",
    "urllib.Request": "opened the URL {0}",
}


# Where the system keeps the shared libraries every program may load (the C library, a GPU's
# driver): like the standard library, no input of a session.
SYSTEM_LIBRARIES = ("/lib/", "/lib64/", "/usr/lib/", "/usr/lib64/")
MAPS = "/proc/self/maps"  # Linux's list of what the process mapped into memory, files included


def mapped_libraries() -> set[str]:
    """The shared libraries mapped into this process now (empty where the system keeps no
    :data:`MAPS`, or on the workers' portable path)."""
    if not linux_calls():
        return set()
    try:
        with open(MAPS, encoding="utf-8", errors="surrogateescape") as maps:
            lines = maps.read().splitlines()
    except OSError:
        return set()
    named = (line[line.find("/") :] for line in lines if "/" in line)
    return {name for name in named if ".so" in os.path.basename(name)}


# importlib.metadata (entry points, versions: JAX looks for its plugins so) stats each folder
# of the path to know whether its listing changed, and lists it: what it learns is which
# distributions' metadata the folder holds, recorded as that ("distributions"), so that a file
# added beside them does not run the session again.
_METADATA_FILE = os.path.join("importlib", "metadata", "__init__.py")


def _metadata(frame: Any) -> bool:
    """Whether ``frame`` is importlib.metadata's own (its folder probes and listings)."""
    return bool(frame.f_code.co_filename.endswith(_METADATA_FILE))


def _beyond(event: str, args: tuple[Any, ...], installed: tuple[str, ...]) -> str | None:
    """Why this audit event learns what the cache cannot check again, or None."""
    if event not in _BEYOND:
        return None
    if event == "sqlite3.connect" and args and args[0] in (":memory:", "", b":memory:", b""):
        return None  # a database of its own, in memory
    if event == "ctypes.dlopen" and (
        not args
        or args[0] is None  # the process's own symbols
        or os.path.realpath(os.fsdecode(args[0])).startswith(installed)
    ):
        return None
    if event == "mmap.__new__" and args and args[0] == -1:
        return None  # anonymous memory
    if event == "subprocess.Popen" and args and args[0] is None and len(args) > 1:
        command = args[1]  # the program is the first word of the command
        first = command.split()[:1] if isinstance(command, str | bytes) else list(command)[:1]
        args = (first[0] if first else "?", *args[1:])
    shown = [os.fsdecode(a) if isinstance(a, str | bytes) else repr(a) for a in args]
    shown += ["?", "?"]
    shown = [text if len(text) <= 80 else text[:77] + "..." for text in shown]
    return f"the block {_BEYOND[event].format(*shown)} ({event}), which the cache cannot follow"


# The functions that learn of a path without opening it, the probe each makes of each of its
# first ``paths`` arguments (the audit events hear no stat). Each records what it learns and
# nothing of what it calls: ``pathlib``'s and ``samefile``'s own ``os.stat`` tell the kind of a
# folder, or which file it is, not its times, which change whenever an entry is added to it.
_PROBED: tuple[tuple[Any, str, str, int], ...] = (
    (os, "stat", "stat", 1),
    (os, "lstat", "lstat", 1),
    (os, "access", "access", 1),
    (os.path, "exists", "exists", 1),
    (os.path, "lexists", "lexists", 1),
    (os.path, "isfile", "type", 1),
    (os.path, "isdir", "type", 1),
    (os.path, "islink", "type", 1),
    (os.path, "getsize", "size", 1),
    (os.path, "getmtime", "mtime", 1),
    (os.path, "getctime", "ctime", 1),
    (os.path, "getatime", "stat", 1),
    (os.path, "samefile", "identity", 2),
    (os.path, "ismount", "mount", 1),
    (os.path, "realpath", "realpath", 1),
    (pathlib.Path, "exists", "exists", 1),
    (pathlib.Path, "is_dir", "type", 1),
    (pathlib.Path, "is_file", "type", 1),
    (pathlib.Path, "is_symlink", "type", 1),
    (pathlib.Path, "is_mount", "mount", 1),
    (pathlib.Path, "samefile", "identity", 2),
    (pathlib.Path, "resolve", "realpath", 1),
)


# This extension's own folder: the worker's code is no input of a session (the cache key holds
# the extension's version, and its content when installed from a folder). As imported, and its
# real path: the workers of another interpreter import it through a link
# (``run.pool.package_folder``), and what a session opens is compared by its real path.
_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OWN = tuple(dict.fromkeys(os.path.join(p, "") for p in (_PACKAGE, os.path.realpath(_PACKAGE))))

# The module files of the project the zygote imported before forking any session (what
# ``sitecustomize`` or a ``.pth`` file imported), digested once its imports were done: every
# session it forks runs that code.
PRELOADED: dict[str, str] = {}


def remember_preloaded() -> None:
    """In the zygote, its imports done: the content of every module file outside the
    installed folders that it imported, links on the way included (:data:`PRELOADED`)."""
    installed = (*installed_folders(), *OWN)
    for module in list(sys.modules.values()):
        file = getattr(module, "__file__", None)
        holder = archive_of(os.path.abspath(file)) if isinstance(file, str) else None
        if holder is None:
            continue
        final, links = resolve(holder)
        for link, target in links.items():
            if not link.startswith(installed):
                PRELOADED.setdefault(link, target)
        if not final.startswith(installed):
            PRELOADED.setdefault(final, content_digest(final))


class _Scan:
    """An ``os.scandir`` iterator whose entries are :class:`_Entry`."""

    def __init__(self, scan: Any, recorder: Recorder) -> None:
        self.scan = scan
        self.recorder = recorder

    def __iter__(self) -> _Scan:
        return self

    def __next__(self) -> _Entry:
        return _Entry(next(self.scan), self.recorder)

    def __enter__(self) -> _Scan:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.scan.close()

    def close(self) -> None:
        """Close the scan, as ``os.scandir``'s iterator does."""
        self.scan.close()


class _Entry:
    """An ``os.DirEntry`` whose ``stat`` and ``inode`` are recorded as probes of its path."""

    __slots__ = ("entry", "name", "path", "recorder")

    def __init__(self, entry: os.DirEntry[Any], recorder: Recorder) -> None:
        self.entry = entry
        self.name = entry.name
        self.path = entry.path
        self.recorder = recorder

    def is_dir(self, *, follow_symlinks: bool = True) -> bool:
        """As ``os.DirEntry.is_dir`` (the kind is in the folder's listing)."""
        return self.entry.is_dir(follow_symlinks=follow_symlinks)

    def is_file(self, *, follow_symlinks: bool = True) -> bool:
        """As ``os.DirEntry.is_file``."""
        return self.entry.is_file(follow_symlinks=follow_symlinks)

    def is_symlink(self) -> bool:
        """As ``os.DirEntry.is_symlink``."""
        return self.entry.is_symlink()

    def is_junction(self) -> bool:
        """As ``os.DirEntry.is_junction`` (never, on a POSIX system)."""
        return False

    def stat(self, *, follow_symlinks: bool = True) -> os.stat_result:
        """As ``os.DirEntry.stat``, recorded as a stat of the path."""
        found = self.entry.stat(follow_symlinks=follow_symlinks)
        recorder = self.recorder
        if not getattr(recorder.busy, "on", False):
            probe = "stat" if follow_symlinks else "lstat"
            recorder._guarded(lambda: recorder._probed(probe, self.path, True, False))
        return found

    def inode(self) -> int:
        """As ``os.DirEntry.inode``, recorded as a stat of the link or file."""
        return self.stat(follow_symlinks=False).st_ino

    def __fspath__(self) -> Any:
        return self.entry.__fspath__()

    def __repr__(self) -> str:
        return repr(self.entry)


class Recorder:
    """What one session used, from :meth:`install` on; :meth:`take` hands it on in parts."""

    def __init__(self, pseudo_files: Collection[str]) -> None:
        self.installed = (*installed_folders(), *OWN)
        self.finders = Finders(importlib.machinery.EXTENSION_SUFFIXES)
        self.pseudo_files = set(pseudo_files)  # the blocks' own code
        self.seen: set[str] = set()  # file names already taken care of
        self.own_entries: dict[str, bool] = {}
        self.files: dict[str, str] = {}
        self.lookups: dict[Lookup, None] = {}
        self.untracked: dict[str, None] = {}
        self.probes: dict[str, str] = {}
        self.inputs: dict[str, bool] = {}  # by path: whether it may be an input
        self.modules: set[str] = set(sys.modules)  # those before the session are not its own
        self.libraries = mapped_libraries()  # those loaded before the session are not its own
        self.dlopened: set[str] = set()  # the libraries ctypes loaded (already untracked)
        self.given = Dependencies()
        self.busy = threading.local()
        self.files.update(PRELOADED)
        # Asked now: asking tempfile in the hook would take its lock again while it is held.
        self.temporary = os.path.join(tempfile.gettempdir(), "")
        # The folders the session made with tempfile.mkdtemp (TemporaryDirectory too), each
        # ending in a separator: what is in them is of its own making, no input.
        self.made: tuple[str, ...] = ()

    def restart(self) -> None:
        """Record from scratch: the next session of the child is recorded as if it were alone."""
        self.seen.clear()
        self.own_entries.clear()
        self.files.clear()
        self.lookups.clear()
        self.untracked.clear()
        self.probes.clear()
        self.modules = set(sys.modules)
        with self.paused():
            self.libraries = mapped_libraries()
        self.dlopened.clear()
        self.made = ()
        self.given = Dependencies()
        self.files.update(PRELOADED)

    def install(self) -> None:
        """Hear every code object executed, every file opened to be read and every search of
        the path-based finder; load the project's modules from their source."""
        sys.addaudithook(self._heard)
        for owner, name, probe, paths in _PROBED:
            setattr(owner, name, self._probing(getattr(owner, name), probe, paths))
        os.readlink = self._reading_link(os.readlink)
        os.scandir = self._scanning(os.scandir)
        finder = importlib.machinery.PathFinder
        setattr(finder, "find_spec", staticmethod(self._wrap(finder.find_spec)))  # noqa: B010
        load_project_sources(self.installed)

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """Record nothing of what the worker itself does meanwhile (in this thread)."""
        was = getattr(self.busy, "on", False)
        self.busy.on = True
        try:
            yield
        finally:
            self.busy.on = was

    def take(self, *, ending: bool = False) -> Dependencies:
        """What was recorded since the last call (after a scan of the new modules, and of the
        new shared libraries when a module was imported, cffi is there, or the session is
        ``ending``: reading the process's map after every block would cost a millisecond
        each)."""
        imported = not self.modules.issuperset(sys.modules)
        self._scan_modules()
        if imported or ending or "_cffi_backend" in sys.modules:
            self._scan_libraries()
        now = Dependencies(
            dict(self.files),
            tuple(self.lookups),
            tuple(importlib.machinery.EXTENSION_SUFFIXES),
            tuple(self.untracked),
            dict(self.probes),
        )
        new = Dependencies(
            {k: v for k, v in now.files.items() if k not in self.given.files},
            tuple(lookup for lookup in now.lookups if lookup not in self.given.lookups),
            now.suffixes,
            tuple(reason for reason in now.untracked if reason not in self.given.untracked),
            {k: v for k, v in now.probes.items() if k not in self.given.probes},
        )
        self.given = now
        return new

    # -- what is heard ------------------------------------------------------------

    def _heard(self, event: str, args: tuple[Any, ...]) -> None:
        if getattr(self.busy, "on", False):
            return
        if event == "exec":
            name = getattr(args[0], "co_filename", None)
            if isinstance(name, str) and name not in self.seen:
                self._guarded(lambda: self.use(name))
        elif event == "open":
            opened = _opened(args[0], args[2], self.temporary) if len(args) >= 3 else None
            if opened is not None and opened not in self.seen:
                self._guarded(lambda: self._read(opened))
        elif event == "tempfile.mkdtemp" and args and isinstance(args[0], str):
            with self.paused():
                made = (os.path.abspath(args[0]), os.path.realpath(args[0]))
            self.made += tuple(os.path.join(folder, "") for folder in made)
        elif event in ("os.listdir", "os.scandir"):
            caller = sys._getframe(1)
            if _metadata(caller):
                folder = args[0] if args and args[0] else "."
                self._guarded(lambda: self._probed("distributions", folder, True, False))
            elif not caller.f_code.co_filename.startswith("<frozen importlib"):
                # (the import system's own listings are its lookups')
                self._guarded(lambda: self._listed(args[0] if args else None))
        elif (why := _beyond(event, args, self.installed)) is not None:
            self.untracked[why] = None
            if event == "ctypes.dlopen":
                self.dlopened.add(os.path.basename(os.fsdecode(args[0])))

    def _probing(self, function: Callable[..., Any], probe: str, paths: int) -> Callable[..., Any]:
        """``function``, which learns ``probe`` of each of the ``paths`` paths it is given
        first, recorded."""

        def probed(*args: Any, **kwargs: Any) -> Any:
            if getattr(self.busy, "on", False):
                return function(*args, **kwargs)
            self.busy.on = True  # what the function calls is its own business
            try:
                return function(*args, **kwargs)
            finally:
                self.busy.on = False
                given = args[:paths] or (kwargs.get("path"),)
                followed = kwargs.get("follow_symlinks", True)
                relative = kwargs.get("dir_fd") is not None
                learned = "distributions" if _metadata(sys._getframe(1)) else probe
                for path in given:
                    self._guarded(
                        functools.partial(self._probed, learned, path, followed, relative)
                    )

        return functools.wraps(function)(probed)

    def _scanning(self, scandir: Callable[..., Any]) -> Callable[..., Any]:
        """``os.scandir`` whose entries record what their ``stat`` and ``inode`` tell (the
        listing, names and kinds, is the audit event's)."""

        def scanning(*args: Any, **kwargs: Any) -> Any:
            return _Scan(scandir(*args, **kwargs), self)

        return functools.wraps(scandir)(scanning)

    def _reading_link(self, function: Callable[..., Any]) -> Callable[..., Any]:
        def read(*args: Any, **kwargs: Any) -> Any:
            if not getattr(self.busy, "on", False):
                path = args[0] if args else kwargs.get("path")
                self._guarded(lambda: self._link(path, kwargs.get("dir_fd") is not None))
            return function(*args, **kwargs)

        return functools.wraps(function)(read)

    def _wrap(self, find_spec: Callable[..., Any]) -> Callable[..., Any]:
        def recorded(fullname: str, path: Iterable[Any] | None = None, target: Any = None) -> Any:
            spec = find_spec(fullname, path, target)
            if not getattr(self.busy, "on", False):
                self._guarded(lambda: self._looked_up(fullname, path, spec))
            return spec

        return recorded

    def _guarded(self, record: Callable[[], None]) -> None:
        """Record without ever breaking the block's import; a failure is untracked."""
        self.busy.on = True
        try:
            record()
        except Exception as error:
            self.untracked[f"recording a dependency failed ({type(error).__name__}: {error})"] = (
                None
            )
        finally:
            self.busy.on = False

    # -- recording ----------------------------------------------------------------

    def _input(self, name: str) -> bool:
        """Whether what is at ``name`` may be an input of the session: not the system's, an
        installed package's, the compilation cache's, a block's own code, or in a folder the
        session made."""
        if name not in self.inputs:
            cache = os.environ.get("JAX_COMPILATION_CACHE_DIR")
            real = os.path.join(os.path.realpath(name), "")
            self.inputs[name] = not (
                name.startswith("<")
                or name in self.pseudo_files
                or real.startswith(_NOT_INPUTS)
                or real.startswith(self.installed)
                or bool(cache and real.startswith(os.path.join(os.path.realpath(cache), "")))
            )
        return self.inputs[name] and not self._made(name)

    def _made(self, name: str) -> bool:
        """Whether ``name`` is in a folder the session made with ``tempfile.mkdtemp``."""
        return os.path.join(name, "").startswith(self.made)

    def _path(self, path: Any, relative_to_descriptor: bool, what: str) -> str | None:
        """The absolute name of a path a function was given, if it may be an input; a path
        relative to a descriptor is untracked, a descriptor (an open file's) is no path."""
        if isinstance(path, int) or path is None:
            return None
        name = os.fsdecode(os.fspath(path))
        if relative_to_descriptor and not os.path.isabs(name):
            self.untracked[f"the block {what} {name} relative to a folder's descriptor"] = None
            return None
        name = os.path.abspath(name)
        return name if self._input(name) else None

    def _read(self, name: str) -> None:
        """A file opened to be read: its content, or that it is not there."""
        if not self._input(name):
            self.seen.add(name)
            return
        if os.path.lexists(name):
            self.use(name)
        else:
            self.files.setdefault(name, MISSING)  # until it is created
            self.seen.add(name)

    def _listed(self, path: Any) -> None:
        if isinstance(path, int):
            # shutil.rmtree lists what it removes by descriptor: a folder of the session's
            # making, when TemporaryDirectory cleans up, is no input.
            try:
                # Linux's name of the descriptor; elsewhere none is asked for (the portable path).
                folder = os.readlink(f"/proc/self/fd/{path}") if linux_calls() else ""
            except OSError:
                folder = ""
            if not (folder and self._made(folder)):
                self.untracked["the block listed a folder by its descriptor"] = None
            return
        name = self._path("." if path is None else path, False, "listed")
        if name is not None:
            self.probes.setdefault(probe_key("listing", name), observe("listing", name))

    def _probed(self, probe: str, path: Any, followed: bool, relative: bool) -> None:
        name = self._path(path, relative, "asked about")
        if name is None:
            return
        if not followed:
            probe = {"stat": "lstat", "exists": "lexists"}.get(probe, probe)
        self.probes.setdefault(probe_key(probe, name), observe(probe, name))

    def _link(self, path: Any, relative: bool) -> None:
        name = self._path(path, relative, "read the link")
        if name is not None:
            self.files.setdefault(name, link_digest(name))

    def use(self, name: str) -> None:
        """Record the file ``name`` names (or the archive holding it), as it is now."""
        self.seen.add(name)
        if name.startswith("<") or name in self.pseudo_files:
            return
        holder = archive_of(os.path.abspath(name))
        if holder is None:
            return
        final, links = resolve(holder)
        for link, target in links.items():
            if not link.startswith(self.installed):  # also a link of ours to an installed file
                self.files.setdefault(link, target)
        if not final.startswith(self.installed) and final not in self.files:
            digest = content_digest(final)
            if digest == MISSING:
                self.untracked[f"{final} was used but cannot be read"] = None
                return
            self.files[final] = digest

    def _looked_up(self, fullname: str, path: Iterable[Any] | None, spec: Any) -> None:
        search = [
            os.path.abspath(entry)
            for entry in (sys.path if path is None else path)
            if isinstance(entry, str)
        ]
        found: str | None = None
        if spec is not None:
            if spec.loader is None:
                found = NAMESPACE + os.pathsep.join(spec.submodule_search_locations or ())
            else:
                found = spec.origin
        ours, index = self.finders.find(fullname, search)
        searched = tuple(search[: index + 1])
        if not any(self._own(entry) for entry in searched):
            return  # inside an installed package: its version is in the cache key
        if ours != found:
            self.untracked[
                f"module {fullname} was found at {found or 'nothing'} by a path hook that the "
                f"cache does not know (Python's own finders see {ours or 'nothing'})"
            ] = None
            return
        self.lookups[Lookup(fullname, searched, found)] = None
        if found is not None and not found.startswith(NAMESPACE):
            self.use(found)

    def _own(self, entry: str) -> bool:
        if entry not in self.own_entries:
            real = os.path.join(os.path.realpath(entry), "")
            self.own_entries[entry] = not real.startswith(self.installed)
        return self.own_entries[entry]

    def _scan_libraries(self) -> None:
        """Shared libraries of the project new in the process's map: loaded by ``cffi`` or by
        compiled code, which may read what the cache cannot see (ctypes' are heard as loaded,
        extension modules are recorded as modules)."""
        if not linux_calls():
            # No memory map to read: a library cffi loads cannot be seen, so cffi alone counts.
            if "_cffi_backend" in sys.modules:
                self.untracked[
                    "the block loaded cffi, whose libraries only Linux's memory map shows, which "
                    "the cache cannot follow"
                ] = None
            return
        with self.paused():
            new = mapped_libraries() - self.libraries
            self.libraries |= new
            for library in sorted(new):
                name = library.removesuffix(" (deleted)")
                real = os.path.realpath(name)
                if (
                    real.startswith((*self.installed, *SYSTEM_LIBRARIES))
                    or real in self.files
                    or os.path.basename(name) in self.dlopened
                ):
                    continue
                self.untracked[
                    f"the block loaded the shared library {name} (by cffi, or by compiled code), "
                    "which the cache cannot follow"
                ] = None

    def _scan_modules(self) -> None:
        """Modules new in ``sys.modules`` whose file neither the hook nor the finder saw."""
        for name, module in list(sys.modules.items()):
            if name in self.modules:
                continue
            self.modules.add(name)
            file = getattr(module, "__file__", None)
            if not isinstance(file, str):
                continue  # built in, frozen, a namespace package, or made by the block
            holder = archive_of(os.path.abspath(file))
            if holder is None:
                if not os.path.abspath(file).startswith(self.installed):
                    self.untracked[
                        f"module {name} names {file} as its file, which does not exist"
                    ] = None
                continue
            if os.path.realpath(holder).startswith(self.installed):
                continue
            spec = getattr(module, "__spec__", None)
            loader = getattr(spec, "loader", None) or getattr(module, "__loader__", None)
            if loader is not None and type(loader) not in FILE_LOADERS:
                self.untracked[
                    f"module {name} was loaded by {type(loader).__qualname__}, an import hook "
                    "that may read what the cache cannot see"
                ] = None
            if file not in self.seen:
                self.use(file)
