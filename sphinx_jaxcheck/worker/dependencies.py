"""What a session depended on besides its code, and how to tell whether that still holds.

Two kinds of dependency, recorded in the worker as the session first uses them
(:mod:`.recorder`) and checked again by the cache on the Sphinx side:

* files: the content digest of every module file of the project a session
  loaded (a ``helper.py``, a module on ``PYTHONPATH``, an archive on
  ``sys.path``), and the target of every symbolic link met on the way to it;
* lookups: where the path-based import search found each module the session
  looked for (or that it found nothing), over the path entries it searched up
  to the one that answered, so that a module that would now be found first is
  a change;
* probes: what the session learned of a path without reading it (a folder's
  listing, whether a file exists, its size, its whole stat), as
  :func:`observe` tells it, so that the same question asked again tells a
  change.

Pure standard library: it runs in the workers and in the Sphinx process alike.
"""

from __future__ import annotations

import functools
import hashlib
import os
import stat
import time
import zipimport
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.machinery import (
    BYTECODE_SUFFIXES,
    SOURCE_SUFFIXES,
    ExtensionFileLoader,
    FileFinder,
    SourceFileLoader,
    SourcelessFileLoader,
)
from typing import Any, TypeVar

MISSING = "missing"  # the digest of a file that cannot be read, or of a link that is none
# A file's times advance by the file system's granularity (a tick of the kernel's clock; up to
# 2 s on some file systems): a file written that recently may be written again with the same
# times and size, so what was read of it is not remembered by its stat (git's "racy" files).
SETTLED_NS = 2_000_000_000
LINK = "link to "  # the digest of a symbolic link: this, then its target as written
NAMESPACE = "namespace package in "  # a lookup's result: then its portions, os.pathsep-joined
_MAX_LINKS = 40  # as the system's own limit on following links, roughly


def content_digest(path: str) -> str:
    """The sha256 of a file's content, read through any links (:data:`MISSING` if unreadable)."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as file:
            while chunk := file.read(1 << 20):
                digest.update(chunk)
    except OSError:
        return MISSING
    return digest.hexdigest()


def settled_version(path: str) -> tuple[int, ...] | None:
    """What tells two contents of a file apart without reading it: its stat, once the file
    has not changed for :data:`SETTLED_NS`; None when it is missing or changed more recently
    (then it must be read)."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    if time.time_ns() - max(stat.st_mtime_ns, stat.st_ctime_ns) < SETTLED_NS:
        return None
    return (stat.st_mtime_ns, stat.st_ctime_ns, stat.st_size, stat.st_ino, stat.st_dev)


T = TypeVar("T")


def per_settled_version(maxsize: int) -> Callable[[Callable[[str], T]], Callable[[str], T]]:
    """Decorate ``compute(path)`` to run once per version of the file in a process (the
    ``maxsize`` most recent kept): a file edited since is computed again, and so is one changed
    too recently for its stat to tell (see :func:`settled_version`)."""

    def decorate(compute: Callable[[str], T]) -> Callable[[str], T]:
        kept = functools.lru_cache(maxsize=maxsize)(lambda path, _version: compute(path))

        def per_version(path: str) -> T:
            version = settled_version(path)
            return compute(path) if version is None else kept(path, version)

        return functools.wraps(compute)(per_version)

    return decorate


def link_digest(path: str) -> str:
    """What the link at ``path`` points to, as a digest (:data:`MISSING`: not a link)."""
    try:
        return LINK + os.readlink(path)
    except (OSError, ValueError):
        return MISSING


def resolve(path: str) -> tuple[str, dict[str, str]]:
    """The file ``path`` names once every link is followed, and each link met on the way.

    Links in any component count (a linked folder too), as the system
    follows them: a relative target from the link's own folder. A loop ends
    the walk where it is.
    """
    links: dict[str, str] = {}
    pending = (path if os.path.isabs(path) else os.path.join(os.getcwd(), path)).split(os.sep)
    done = os.sep
    while pending:
        part = pending.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            done = os.path.dirname(done)
            continue
        candidate = os.path.join(done, part)
        target = link_digest(candidate)
        if target == MISSING or len(links) >= _MAX_LINKS or candidate in links:
            done = candidate
            continue
        links[candidate] = target
        written = target.removeprefix(LINK)
        if os.path.isabs(written):
            done = os.sep
        pending[:0] = written.split(os.sep)
    return done, links


def archive_of(path: str) -> str | None:
    """The file that holds ``path``: itself, or the archive (a ``.zip`` on ``sys.path``) a
    name inside it lies in; None when no such file exists (a pseudo file name)."""
    folder = path
    while True:
        if os.path.isfile(folder):
            return folder
        if os.path.exists(folder):
            return None  # a folder: nothing holds the name
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


# What a probe learns of a path, each asked again by :func:`observe`: a folder's entries (their
# names and kinds), whether a path exists (following links or not), the kind of file it is, its
# size, its modification or change time, what ``os.access`` can tell, its whole stat (of the
# file a link names, or of the link), the file it names once every link is followed, which file
# it is (``samefile``: its device and inode, not its times), whether it is a mount point.
PROBES = (
    "listing",
    "distributions",
    "exists",
    "lexists",
    "type",
    "size",
    "mtime",
    "ctime",
    "access",
    "stat",
    "lstat",
    "realpath",
    "identity",
    "mount",
)


def _kind(mode: int) -> str:
    return (
        "folder"
        if stat.S_ISDIR(mode)
        else "file"
        if stat.S_ISREG(mode)
        else "link"
        if stat.S_ISLNK(mode)
        else "other"
    )


# What importlib.metadata looks for in a folder of the path (its ``Lookup``): the metadata of
# the distributions installed there, and an egg's own ``EGG-INFO``.
DISTRIBUTION_ENTRIES = (".dist-info", ".egg-info")


def observe(probe: str, path: str) -> str:
    """What the probe ``probe`` (one of :data:`PROBES`) learns of ``path`` now, as a text."""
    try:
        if probe == "listing":
            digest = hashlib.sha256()
            with os.scandir(path) as entries:
                for name, kind in sorted(
                    (e.name, _kind(e.stat(follow_symlinks=False).st_mode)) for e in entries
                ):
                    digest.update(f"{name}\0{kind}\0".encode(errors="surrogateescape"))
            return digest.hexdigest()
        if probe == "distributions":
            if not os.path.isdir(path):  # a zip file on the path: all of it
                return observe("stat", path)
            digest = hashlib.sha256()
            for name in sorted(os.listdir(path)):
                if name.lower().endswith(DISTRIBUTION_ENTRIES) or name.lower() == "egg-info":
                    digest.update(f"{name}\0".encode(errors="surrogateescape"))
            return digest.hexdigest()
        if probe == "realpath":
            return os.path.realpath(path)
        if probe == "mount":
            return "a mount point" if os.path.ismount(path) else "not a mount point"
        if probe == "access":
            flags = (("F", os.F_OK), ("R", os.R_OK), ("W", os.W_OK), ("X", os.X_OK))
            return "".join(letter for letter, mode in flags if os.access(path, mode)) or "-"
        found = os.lstat(path) if probe in ("lexists", "type", "lstat") else os.stat(path)
    except (OSError, ValueError):
        return MISSING
    if probe in ("exists", "lexists"):
        return "exists"
    if probe == "type":
        kind = _kind(found.st_mode)
        return kind if kind != "link" else f"link to {observe('type', os.path.realpath(path))}"
    if probe == "size":
        return str(found.st_size)
    if probe == "mtime":
        return str(found.st_mtime_ns)
    if probe == "ctime":
        return str(found.st_ctime_ns)
    if probe == "identity":
        return f"{found.st_dev} {found.st_ino}"
    # Everything a stat tells but the access time, which reading the file moves.
    return " ".join(
        str(getattr(found, f"st_{name}"))
        for name in ("mode", "ino", "dev", "nlink", "uid", "gid", "size", "mtime_ns", "ctime_ns")
    )


def probe_key(probe: str, path: str) -> str:
    """How :attr:`Dependencies.probes` names a probe of a path."""
    return f"{probe} {path}"


def probe_of(key: str) -> tuple[str, str]:
    """The probe and the path a key of :attr:`Dependencies.probes` names."""
    probe, _, path = key.partition(" ")
    return probe, path


@dataclass(frozen=True)
class Lookup:
    """One search of the import system: looking for ``name`` along the path entries
    ``search`` found ``found`` (a file, :data:`NAMESPACE` and its portions, or None:
    nothing), in the last of them."""

    name: str
    search: tuple[str, ...]
    found: str | None


@dataclass(frozen=True)
class Dependencies:
    """Everything besides its code that a session's outcome depended on, as the session saw it.

    ``files`` maps each file (or link) to its digest when first used
    (:data:`MISSING` for a file the session tried to read and did not find);
    ``probes`` maps each probe of a path (:func:`probe_key`) to what it learned;
    ``suffixes`` are the workers' file name endings of extension modules (a
    lookup finds those); ``untracked`` says, in words, what the session used
    that cannot be checked again (its outcome is never reused).
    """

    files: Mapping[str, str] = field(default_factory=dict)
    lookups: tuple[Lookup, ...] = ()
    suffixes: tuple[str, ...] = ()
    untracked: tuple[str, ...] = ()
    probes: Mapping[str, str] = field(default_factory=dict)

    def merged(self, other: Dependencies) -> Dependencies:
        """Both sessions' dependencies; a file seen by both keeps the digest seen first."""
        return Dependencies(
            {**other.files, **self.files},
            tuple(dict.fromkeys([*self.lookups, *other.lookups])),
            self.suffixes or other.suffixes,
            tuple(dict.fromkeys([*self.untracked, *other.untracked])),
            {**other.probes, **self.probes},
        )


def dependencies_to_wire(found: Dependencies) -> dict[str, Any]:
    """JSON-ready data; each search path is written once, lookups point into them."""
    paths: dict[tuple[str, ...], int] = {}
    lookups = []
    for lookup in found.lookups:
        index = paths.setdefault(lookup.search, len(paths))
        lookups.append([lookup.name, index, lookup.found])
    return {
        "files": dict(found.files),
        "paths": [list(path) for path in paths],
        "lookups": lookups,
        "suffixes": list(found.suffixes),
        "untracked": list(found.untracked),
        "probes": dict(found.probes),
    }


def dependencies_from_wire(data: Any) -> Dependencies:
    """The inverse of :func:`dependencies_to_wire`; TypeError or ValueError if ``data`` is
    not what it writes."""
    if not isinstance(data, dict) or set(data) != {
        "files",
        "paths",
        "lookups",
        "suffixes",
        "untracked",
        "probes",
    }:
        raise ValueError("not a record of dependencies")
    files, paths = data["files"], data["paths"]
    if not isinstance(files, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in files.items()
    ):
        raise TypeError("files are not a mapping of names to digests")
    if not isinstance(paths, list) or not all(_strings(path) for path in paths):
        raise TypeError("search paths are not lists of names")
    lookups = []
    for item in data["lookups"]:
        name, index, found = item
        if not (isinstance(name, str) and type(index) is int and _optional_string(found)):
            raise TypeError("a lookup is not [name, path, found]")
        if not 0 <= index < len(paths):
            raise ValueError("a lookup names no search path")
        lookups.append(Lookup(name, tuple(paths[index]), found))
    if not _strings(data["suffixes"]) or not _strings(data["untracked"]):
        raise TypeError("suffixes and reasons are not lists of texts")
    probes = data["probes"]
    if not isinstance(probes, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and probe_of(k)[0] in PROBES
        for k, v in probes.items()
    ):
        raise TypeError("probes are not a mapping of probes to what they learned")
    return Dependencies(
        files, tuple(lookups), tuple(data["suffixes"]), tuple(data["untracked"]), probes
    )


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _optional_string(value: object) -> bool:
    return value is None or isinstance(value, str)


class Finders:
    """The import system's path-based search, as Python's standard path hooks do it, with a
    finder per path entry kept for the life of this object.

    Folders are searched by :class:`~importlib.machinery.FileFinder` (which
    sees a folder's new files by its modification time), archives by
    :class:`zipimport.zipimporter` (read afresh when first asked). The file
    endings of extension modules are the workers', which may be another
    Python's.
    """

    def __init__(self, suffixes: Sequence[str]) -> None:
        self.details = (
            (ExtensionFileLoader, list(suffixes)),
            (SourceFileLoader, SOURCE_SUFFIXES),
            (SourcelessFileLoader, BYTECODE_SUFFIXES),
        )
        self.finders: dict[str, FileFinder | zipimport.zipimporter | None] = {}

    def _finder(self, entry: str) -> FileFinder | zipimport.zipimporter | None:
        if entry not in self.finders:
            finder: FileFinder | zipimport.zipimporter | None = None
            if os.path.isdir(entry):
                finder = FileFinder(entry, *self.details)
            else:
                try:
                    finder = zipimport.zipimporter(entry)
                    finder.invalidate_caches()  # the process-wide listing may be old
                except (zipimport.ZipImportError, OSError, ValueError):
                    finder = None
            self.finders[entry] = finder
        return self.finders[entry]

    def find(self, name: str, search: Iterable[str]) -> tuple[str | None, int]:
        """What searching these entries for ``name`` finds, and the index of the entry that
        answered (the last one searched, when nothing or only namespace portions did)."""
        portions: list[str] = []
        index = -1
        for index, entry in enumerate(search):
            finder = self._finder(entry)
            try:
                spec = None if finder is None else finder.find_spec(name)
            except (ImportError, OSError, ValueError):
                spec = None
            if spec is None:
                continue
            if spec.loader is None:
                portions.extend(spec.submodule_search_locations or ())
                continue
            return spec.origin, index
        return (NAMESPACE + os.pathsep.join(portions) if portions else None), index
