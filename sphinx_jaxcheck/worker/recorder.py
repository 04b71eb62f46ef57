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
  saw (an extension module, say).

The hook and the wrapped finder end with the child process; no other process
gets them. A child that runs several page sessions restarts the record between
them (:meth:`Recorder.restart`), after the project's modules were unloaded.
"""

from __future__ import annotations

import importlib.machinery
import os
import site
import sys
import sysconfig
import threading
import zipimport
from collections.abc import Callable, Collection, Iterable
from typing import Any

from .dependencies import (
    MISSING,
    NAMESPACE,
    Dependencies,
    Finders,
    Lookup,
    archive_of,
    content_digest,
    resolve,
)

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
_WRITING = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def _read_only(path: Any, mode: Any, flags: Any) -> str | None:
    """The file an ``open`` audit event reads (``builtins.open`` gives a mode, ``os.open``
    flags), or None when it writes, or reads no input (a descriptor, the system's files)."""
    if isinstance(path, int) or path is None:
        return None
    if isinstance(mode, str) and any(c in mode for c in "wax+"):
        return None
    if isinstance(flags, int) and flags & _WRITING:
        return None
    name = os.path.abspath(os.fsdecode(path))
    cache = os.environ.get("JAX_COMPILATION_CACHE_DIR")
    if name.startswith(_NOT_INPUTS) or (cache and name.startswith(os.path.join(cache, ""))):
        return None
    return name if os.path.isfile(name) else None


class Recorder:
    """What one session used, from :meth:`install` on; :meth:`take` hands it on in parts."""

    def __init__(self, pseudo_files: Collection[str]) -> None:
        self.installed = installed_folders()
        self.finders = Finders(importlib.machinery.EXTENSION_SUFFIXES)
        self.pseudo_files = set(pseudo_files)  # the blocks' own code
        self.seen: set[str] = set()  # file names already taken care of
        self.own_entries: dict[str, bool] = {}
        self.files: dict[str, str] = {}
        self.lookups: dict[Lookup, None] = {}
        self.untracked: dict[str, None] = {}
        self.modules: set[str] = set(sys.modules)  # those before the session are not its own
        self.given = Dependencies()
        self.busy = threading.local()

    def restart(self) -> None:
        """Record from scratch: the next session of the child is recorded as if it were alone."""
        self.seen.clear()
        self.own_entries.clear()
        self.files.clear()
        self.lookups.clear()
        self.untracked.clear()
        self.modules = set(sys.modules)
        self.given = Dependencies()

    def install(self) -> None:
        """Hear every code object executed, every file opened to be read and every search of
        the path-based finder; load the project's modules from their source."""
        sys.addaudithook(self._heard)
        finder = importlib.machinery.PathFinder
        setattr(finder, "find_spec", staticmethod(self._wrap(finder.find_spec)))  # noqa: B010
        load_project_sources(self.installed)

    def take(self) -> Dependencies:
        """What was recorded since the last call (after a scan of the new modules)."""
        self._scan_modules()
        now = Dependencies(
            dict(self.files),
            tuple(self.lookups),
            tuple(importlib.machinery.EXTENSION_SUFFIXES),
            tuple(self.untracked),
        )
        new = Dependencies(
            {k: v for k, v in now.files.items() if k not in self.given.files},
            tuple(lookup for lookup in now.lookups if lookup not in self.given.lookups),
            now.suffixes,
            tuple(reason for reason in now.untracked if reason not in self.given.untracked),
        )
        self.given = now
        return new

    # -- what is heard ------------------------------------------------------------

    def _heard(self, event: str, args: tuple[Any, ...]) -> None:
        if getattr(self.busy, "on", False):
            return
        if event == "exec":
            name = getattr(args[0], "co_filename", None)
        elif event == "open":
            name = _read_only(*args[:3]) if len(args) >= 3 else None
        else:
            return
        if isinstance(name, str) and name not in self.seen:
            self._guarded(lambda: self.use(name))

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
