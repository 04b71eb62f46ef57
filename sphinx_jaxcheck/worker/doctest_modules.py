"""Collect the docstrings of modules as ``pytest --doctest-modules`` collects them.

Runs in a worker (collecting imports the modules, and the Sphinx process never
imports jax). For each module named, and each module file under a package
named (less those ignored, as pytest's ``--ignore``), it imports the module and
runs stdlib's ``DocTestFinder`` over it with pytest's adjustments: the objects
of a module whose ``__module__`` is that module, reached through wrappers
(``jax.jit``, ``functools.wraps``), with their docstrings that hold ``>>>``
examples. Each docstring is then placed in its file
(:mod:`.docstring_places`); one that cannot be placed is still collected,
with the reason.
"""

from __future__ import annotations

import doctest
import fnmatch
import functools
import importlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from types import ModuleType
from typing import Any

from .docstring_places import Place, class_line, literal_line, place_docstring, wrapper_chain

# pytest's default ``norecursedirs``: folders it never collects from.
SKIPPED_FOLDERS = (
    "*.egg",
    ".*",
    "_darcs",
    "build",
    "CVS",
    "dist",
    "node_modules",
    "venv",
    "{arch}",
)


def collect(
    modules: Sequence[str],
    ignore: Sequence[str] = (),
    progress: Callable[[str], None] = lambda name: None,
) -> dict[str, Any]:
    """The docstrings with examples of these modules and their submodules.

    Returns ``docstrings`` (each: ``name`` as pytest names it, ``module``
    whose globals it runs in, ``text``, ``path`` and ``line`` of its first
    line, or with ``unplaced`` the reason it could not be placed and the place
    it is reported at instead), ``problems`` (modules that could not be
    imported: ``module``, ``path``, ``message``), and the ``files`` and
    ``folders`` collecting read, whose content decides what it finds.
    ``progress`` hears each module before it is imported.
    """
    docstrings: list[dict[str, Any]] = []
    problems: list[dict[str, str]] = []
    folders: set[str] = set()
    files: set[str] = set()
    for name, path in _module_files(modules, ignore, folders, problems):
        progress(name)
        files.add(path)
        try:
            module = importlib.import_module(name)
        except BaseException as error:  # SystemExit too: pytest reports it
            problems.append({"module": name, "path": path, "message": _described(error)})
            continue
        for found in _docstrings_of(module):
            files.add(found["path"])
            docstrings.append(found)
    return {
        "docstrings": docstrings,
        "problems": problems,
        "files": sorted(files),
        "folders": sorted(folders),
    }


def _described(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"


def _module_files(
    modules: Sequence[str], ignore: Sequence[str], folders: set[str], problems: list[dict[str, str]]
) -> Iterator[tuple[str, str]]:
    """(module name, file) of every module pytest would collect, in its order (by path)."""
    seen: set[str] = set()
    for top in modules:
        try:
            spec = importlib.util.find_spec(top)
        except BaseException as error:  # finding a submodule imports its parents
            problems.append({"module": top, "path": "", "message": _described(error)})
            continue
        if spec is None or not (spec.origin or spec.submodule_search_locations):
            problems.append({"module": top, "path": "", "message": f"No module named {top!r}"})
            continue
        found: list[tuple[str, str]] = []
        if spec.submodule_search_locations:
            for folder in spec.submodule_search_locations:
                found += _package_files(top, folder, folders)
        elif spec.origin and spec.origin.endswith(".py"):
            found.append((top, os.path.abspath(spec.origin)))
        for name, path in found:
            if path not in seen and not _ignored(name, ignore):
                seen.add(path)
                yield name, path


def _package_files(package: str, folder: str, folders: set[str]) -> list[tuple[str, str]]:
    found = []
    for here, subfolders, names in os.walk(folder):
        relative = os.path.relpath(here, folder)
        parts = [] if relative == os.curdir else relative.split(os.sep)
        if parts and not os.path.isfile(os.path.join(here, "__init__.py")):
            subfolders[:] = []  # not a package: its files are no modules of this one
            continue
        folders.add(os.path.abspath(here))
        subfolders[:] = sorted(
            d for d in subfolders if not any(fnmatch.fnmatch(d, p) for p in SKIPPED_FOLDERS)
        )
        for file in sorted(names):
            if not file.endswith(".py") or file == "__main__.py" or _is_setup_py(here, file):
                continue
            stem = file[: -len(".py")]
            name = ".".join([package, *parts] + ([] if stem == "__init__" else [stem]))
            found.append((name, os.path.abspath(os.path.join(here, file))))
    return sorted(found, key=lambda item: item[1])


def _is_setup_py(folder: str, file: str) -> bool:
    """pytest leaves a ``setup.py`` of setuptools or distutils alone."""
    if file != "setup.py":
        return False
    try:
        with open(os.path.join(folder, file), "rb") as handle:
            content = handle.read()
    except OSError:
        return False
    return b"setuptools" in content or b"distutils" in content


def _ignored(name: str, ignore: Sequence[str]) -> bool:
    return any(name == other or name.startswith(other + ".") for other in ignore)


class _Finder(doctest.DocTestFinder):
    """stdlib's finder, as pytest adjusts it; it notes each docstring instead of parsing it."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[Any, str, str]] = []  # (object, name, docstring)

    def _find(
        self,
        tests: list[doctest.DocTest],
        obj: Any,
        name: str,
        module: ModuleType,
        source_lines: list[str] | None,
        globs: dict[str, Any],
        seen: dict[int, int],
    ) -> None:
        if _is_mocked(obj):
            return  # as pytest: a mock answers every attribute
        super()._find(tests, obj, name, module, source_lines, globs, seen)  # type: ignore[misc]

    if sys.version_info < (3, 13):

        def _from_module(self, module: ModuleType, object: Any) -> bool:
            # pytest's fix: a cached_property belongs where its function does.
            if isinstance(object, functools.cached_property):
                object = object.func
            return bool(super()._from_module(module, object))  # type: ignore[misc]

    def _get_test(
        self,
        obj: Any,
        name: str,
        module: ModuleType,
        globs: dict[str, Any],
        source_lines: list[str] | None,
    ) -> None:
        if isinstance(obj, str):
            docstring = obj
        else:
            try:
                docstring = "" if obj.__doc__ is None else obj.__doc__
                docstring = docstring if isinstance(docstring, str) else str(docstring)
            except (TypeError, AttributeError):
                docstring = ""
        if _has_examples(docstring):
            self.found.append((obj, name, docstring))


def _is_mocked(obj: Any) -> bool:
    try:
        return getattr(obj, "pytest_mock_example_attribute_that_shouldnt_exist", None) is not None
    except Exception:  # as pytest: an object that raises is not a mock
        return False


def _has_examples(docstring: str) -> bool:
    """Whether pytest would make a test of it (a malformed one fails there: we keep it)."""
    if ">>>" not in docstring:
        return False
    try:
        return bool(doctest.DocTestParser().get_examples(docstring))
    except ValueError:
        return True


def _docstrings_of(module: ModuleType) -> list[dict[str, Any]]:
    finder = _Finder()
    finder.find(module, module.__name__)
    found = []
    for obj, name, text in sorted(finder.found, key=lambda item: item[1]):
        if isinstance(obj, str):
            place = _place_string(module, text)
        else:
            place = place_docstring(obj, text, [module])
        item: dict[str, Any] = {"name": name, "module": module.__name__, "text": text}
        if place is not None:
            item.update(path=place.path, line=place.line)
        else:
            fallback = _definition(obj, module)
            item.update(
                path=fallback.path,
                line=fallback.line,
                unplaced=(
                    "its text is not a string literal of the file it comes from (a docstring "
                    "made or changed while the module is imported?)"
                ),
            )
        found.append(item)
    return found


def _place_string(module: ModuleType, text: str) -> Place | None:
    """A ``__test__`` string of a module: a literal of the module's file."""
    path = getattr(module, "__file__", None)
    if not isinstance(path, str):
        return None
    line = literal_line(os.path.abspath(path), text)
    return None if line is None else Place(os.path.abspath(path), line)


def _definition(obj: Any, module: ModuleType) -> Place:
    """Where an object is defined, for the docstring that cannot be placed: the first line of
    the innermost wrapped function or class that has one, else the module's first line."""
    for candidate in reversed(wrapper_chain(obj)):
        if inspect.isclass(candidate):
            # Not inspect's line: it reads the file its __module__ names (3.13: at the line
            # the class has in its own file), which may be where it is only exported.
            defined = class_line(candidate)
            if defined is not None:
                return defined
            continue
        try:
            path = inspect.getsourcefile(candidate)
            line = inspect.getsourcelines(candidate)[1]
        except (TypeError, OSError):
            continue
        if path:
            return Place(os.path.abspath(path), max(line, 1))
    return Place(os.path.abspath(getattr(module, "__file__", "") or module.__name__), 1)
