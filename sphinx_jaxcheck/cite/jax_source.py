"""Find cited places in the installed jax source, by parsing files, never importing them.

A target is one of

* ``path::qualname`` (function, class, method or module-level name),
* ``path#L10-L20`` or ``path#L10``, or just ``path``,
* a public dotted name such as ``jax.lax.scan``, followed statically through
  the ``from ... import x as x`` re-exports of jax's public modules.

``path`` is relative to site-packages (``jax/_src/lax/control_flow/loops.py``)
or any unique suffix of such a path (``loops.py``, ``control_flow/loops.py``).
"""

from __future__ import annotations

import ast
import difflib
import functools
import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import JaxcheckError

PACKAGES = ("jax",)  # the top-level packages whose files can be cited
_LINES = re.compile(r"^L(\d+)(?:-L?(\d+))?$")


class TargetError(JaxcheckError, Exception):
    """A target that names nothing, or more than one thing; the message lists candidates."""

    def __init__(self, message: str, candidates: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.candidates = candidates


@dataclass(frozen=True)
class Location:
    """A resolved target: a file and, when it names a part, that part's lines."""

    path: str  # relative to site-packages, with forward slashes
    start: int | None = None
    end: int | None = None
    qualname: str | None = None  # set when a definition was named

    @property
    def label(self) -> str:
        """How reports name it: ``path::qualname`` or ``path#Lstart-Lend``."""
        if self.qualname:
            return f"{self.path}::{self.qualname}"
        if self.start is not None:
            return f"{self.path}#L{self.start}-L{self.end}"
        return self.path


@dataclass(frozen=True)
class SourceFile:
    """One parsed file: its text and the line range of every definition in it."""

    path: str
    text: str
    definitions: dict[str, tuple[int, int]]  # qualname -> (first line, last line)
    tree: ast.Module

    @property
    def lines(self) -> list[str]:
        """The file's lines, without line ends (line ``n`` is ``lines[n - 1]``)."""
        return self.text.splitlines()


class SourceIndex:
    """Every citable ``.py`` file under a site-packages folder, parsed on demand."""

    def __init__(self, root: Path, packages: tuple[str, ...] = PACKAGES) -> None:
        self.root = root
        self.paths: tuple[str, ...] = tuple(
            sorted(
                path.relative_to(root).as_posix()
                for package in packages
                if (root / package).is_dir()
                for path in (root / package).rglob("*.py")
            )
        )
        self._known = frozenset(self.paths)

    # -- files ------------------------------------------------------------------

    def find_path(self, written: str) -> str:
        """The one indexed path that ``written`` names exactly or as a unique suffix."""
        path = _safe_relative(written)
        if path in self._known:
            return path
        matches = [known for known in self.paths if known.endswith("/" + path)]
        if len(matches) == 1:
            return matches[0]
        if matches:
            shown = ", ".join(matches[:8]) + (" …" if len(matches) > 8 else "")
            raise TargetError(
                f"{written!r} is ambiguous: it ends {len(matches)} files of the installed "
                f"jax ({shown}); write more of the path, e.g. {matches[0]!r}",
                tuple(matches),
            )
        candidates = tuple(self._close_paths(path))
        hint = (
            f"; did you mean {', '.join(candidates)}?"
            if candidates
            else "; expected a path relative to site-packages, such as "
            "jax/_src/lax/control_flow/loops.py, or a unique suffix of one, such as loops.py"
        )
        raise TargetError(
            f"no file {written!r} in the installed jax (looked under {self.root}){hint}",
            candidates,
        )

    def _close_paths(self, path: str) -> list[str]:
        by_name = {posixpath.basename(p): p for p in reversed(self.paths)}
        close = difflib.get_close_matches(posixpath.basename(path), list(by_name), n=3)
        full = difflib.get_close_matches(path, list(self.paths), n=3)
        return list(dict.fromkeys([by_name[name] for name in close] + full))[:3]

    def source(self, path: str) -> SourceFile:
        """The parsed file at an indexed path (parsed once, then cached)."""
        return _parse(self.root / path, path)

    # -- targets ----------------------------------------------------------------

    def resolve(self, target: str) -> Location:
        """The place a target names; raises :class:`TargetError` naming candidates."""
        target = target.strip()
        if not target:
            raise TargetError("empty target: expected path::qualname, path#L10-L20 or jax.name")
        if "::" in target:
            written, qualname = target.split("::", 1)
            return self.resolve_symbol(self.find_path(written), qualname.strip())
        if "#" in target:
            written, anchor = target.split("#", 1)
            return self._line_range(self.find_path(written), anchor)
        if target.endswith(".py") or "/" in target:
            return Location(self.find_path(target))
        if re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+", target):
            return self.resolve_dotted(target)
        return Location(self.find_path(target))

    def resolve_symbol(self, path: str, qualname: str) -> Location:
        """Where ``qualname`` is defined in the file at ``path``."""
        source = self.source(path)
        if qualname in source.definitions:
            start, end = source.definitions[qualname]
            return Location(path, start, end, qualname)
        # A name a module only re-exports (``from x import y as y``) is defined elsewhere.
        module = _module_of(path)
        if "." not in qualname and module:
            try:
                return self.resolve_dotted(f"{module}.{qualname}")
            except TargetError:
                pass
        candidates = tuple(difflib.get_close_matches(qualname, list(source.definitions), n=5))
        hint = f"; closest: {', '.join(candidates)}" if candidates else ""
        raise TargetError(f"{path} defines no {qualname!r}{hint}", candidates)

    def _line_range(self, path: str, anchor: str) -> Location:
        match = _LINES.fullmatch(anchor.strip())
        if not match:
            raise TargetError(f"{path}#{anchor}: expected a line range like #L10-L20 or #L10")
        start = int(match.group(1))
        end = int(match.group(2) or start)
        count = len(self.source(path).lines)
        if not 1 <= start <= end <= count:
            raise TargetError(f"{path}#{anchor}: lines must lie within 1-{count}, first ≤ last")
        return Location(path, start, end)

    def resolve_dotted(self, dotted: str) -> Location:
        """Where a public dotted name (``jax.lax.scan``) is defined, following re-exports."""
        return self._follow(dotted, seen=frozenset())

    def _follow(self, dotted: str, seen: frozenset[str]) -> Location:
        if dotted in seen:
            raise TargetError(f"{dotted!r} is re-exported in a cycle; cite its defining file")
        parts = dotted.split(".")
        # The longest prefix that is a module file; the rest are names inside it.
        for split in range(len(parts), 0, -1):
            path = self._module_path(".".join(parts[:split]))
            if path is None:
                continue
            rest = parts[split:]
            if not rest:
                return Location(path)
            return self._lookup(path, rest, dotted, seen | {dotted})
        raise TargetError(
            f"{dotted!r} names no module of the installed jax; expected e.g. jax.lax.scan"
        )

    def _module_path(self, module: str) -> str | None:
        base = module.replace(".", "/")
        for candidate in (f"{base}.py", f"{base}/__init__.py"):
            if candidate in self._known:
                return candidate
        return None

    def _lookup(self, path: str, names: list[str], dotted: str, seen: frozenset[str]) -> Location:
        source = self.source(path)
        qualname = ".".join(names)
        if qualname in source.definitions:
            start, end = source.definitions[qualname]
            return Location(path, start, end, qualname)
        head, rest = names[0], names[1:]
        module = _module_of(path)
        for origin in _imported_names(source.tree, module, is_package=path.endswith("__init__.py")):
            if origin.alias == head:
                return self._follow(".".join([origin.dotted, *rest]), seen)
        for star in _star_imports(source.tree, module, is_package=path.endswith("__init__.py")):
            try:
                return self._follow(".".join([star, *names]), seen)
            except TargetError:
                continue
        candidates = tuple(
            difflib.get_close_matches(
                head, [*source.definitions, *_public_aliases(source.tree)], n=5
            )
        )
        hint = f"; closest: {', '.join(module + '.' + c for c in candidates)}" if candidates else ""
        raise TargetError(f"{path} neither defines nor imports {head!r}{hint}", candidates)

    # -- names a module or class offers (for checking names written in prose) ----

    def public_names(self, path: str) -> list[str]:
        """What a module offers by name: its definitions, imported names and submodules."""
        source = self.source(path)
        names = [q for q in source.definitions if "." not in q] + _public_aliases(source.tree)
        if path.endswith("/__init__.py"):
            folder = path.removesuffix("__init__.py")
            for known in self.paths:
                rest = known.removeprefix(folder)
                if known.startswith(folder) and rest != "__init__.py" and rest.count("/") <= 1:
                    names.append(rest.split("/")[0].removesuffix(".py"))
        return sorted(set(names))

    def stub_path(self, path: str) -> str | None:
        """The type stub beside an indexed file (``basearray.pyi``), when there is one.

        Stubs declare members that the module adds at run time (``Array.at``).
        """
        stub = path.removesuffix(".py") + ".pyi"
        return stub if (self.root / stub).is_file() else None


# -- parsing ------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _parse(file: Path, path: str) -> SourceFile:
    text = file.read_text(encoding="utf-8")
    tree = ast.parse(text, filename=path)
    definitions: dict[str, tuple[int, int]] = {}
    stubs: set[str] = set()
    for qualname, node in _definitions(tree.body, ""):
        # The first definition wins (later ones are usually fallbacks in try/except),
        # except that a real body replaces ``@overload`` stubs of the same name.
        if qualname not in definitions or qualname in stubs:
            definitions[qualname] = _span(node)
            stubs.discard(qualname)
            if _is_overload(node):
                stubs.add(qualname)
    return SourceFile(path, text, definitions, tree)


def _is_overload(node: ast.stmt) -> bool:
    for decorator in getattr(node, "decorator_list", []):
        name = (
            decorator.attr if isinstance(decorator, ast.Attribute) else getattr(decorator, "id", "")
        )
        if name == "overload":
            return True
    return False


def _span(node: ast.stmt) -> tuple[int, int]:
    decorators = getattr(node, "decorator_list", [])
    start = min([node.lineno, *(d.lineno for d in decorators)])
    return start, node.end_lineno or node.lineno


def _definitions(
    body: list[ast.stmt], prefix: str, in_function: bool = False
) -> Iterator[tuple[str, ast.stmt]]:
    """Every named definition, with its dotted qualname (no ``<locals>``, as readers write).

    Inside functions only nested functions and classes count: local variables
    are not something a reader cites.
    """
    for statement in body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            qualname = prefix + statement.name
            yield qualname, statement
            is_function = not isinstance(statement, ast.ClassDef)
            yield from _definitions(statement.body, qualname + ".", is_function)
        elif isinstance(statement, ast.Assign | ast.AnnAssign) and not in_function:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                for name in _assigned_names(target):
                    yield prefix + name, statement
        elif isinstance(statement, ast.If | ast.Try | ast.With):
            # Conditional definitions still belong to the enclosing scope.
            for block in _nested_blocks(statement):
                yield from _definitions(block, prefix, in_function)


def _nested_blocks(statement: ast.If | ast.Try | ast.With) -> Iterator[list[ast.stmt]]:
    yield statement.body
    if isinstance(statement, ast.If):
        yield statement.orelse
    elif isinstance(statement, ast.Try):
        for handler in statement.handlers:
            yield handler.body
        yield statement.orelse
        yield statement.finalbody


def _assigned_names(target: ast.expr) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            yield from _assigned_names(element)


@dataclass(frozen=True)
class _Origin:
    alias: str  # the name in the importing module
    dotted: str  # what it names: module.attribute


def _module_of(path: str) -> str:
    module = path.removesuffix(".py").replace("/", ".")
    return module.removesuffix(".__init__")


def _absolute(module: str, is_package: bool, level: int, name: str | None) -> str:
    if level == 0:
        return name or ""
    package = module if is_package else module.rpartition(".")[0]
    for _ in range(level - 1):
        package = package.rpartition(".")[0]
    return f"{package}.{name}" if name else package


def _module_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for statement in body:
        yield statement
        if isinstance(statement, ast.If | ast.Try | ast.With):
            for block in _nested_blocks(statement):
                yield from _module_level(block)


def _imported_names(tree: ast.Module, module: str, is_package: bool) -> Iterator[_Origin]:
    for statement in _module_level(tree.body):
        if isinstance(statement, ast.ImportFrom):
            source = _absolute(module, is_package, statement.level, statement.module)
            for alias in statement.names:
                if alias.name != "*":
                    yield _Origin(alias.asname or alias.name, f"{source}.{alias.name}")
        elif isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.asname:
                    yield _Origin(alias.asname, alias.name)
                else:
                    head = alias.name.split(".")[0]
                    yield _Origin(head, head)


def _star_imports(tree: ast.Module, module: str, is_package: bool) -> Iterator[str]:
    for statement in _module_level(tree.body):
        if isinstance(statement, ast.ImportFrom) and any(a.name == "*" for a in statement.names):
            yield _absolute(module, is_package, statement.level, statement.module)


def _public_aliases(tree: ast.Module) -> list[str]:
    return [
        alias.asname or alias.name
        for statement in _module_level(tree.body)
        if isinstance(statement, ast.ImportFrom)
        for alias in statement.names
        if alias.name != "*"
    ]


def _safe_relative(written: str) -> str:
    """A clean relative path; refuses anything that could leave the package folders."""
    cleaned = written.strip().replace("\\", "/")
    normalized = posixpath.normpath(cleaned) if cleaned else cleaned
    if (
        not cleaned
        or cleaned.startswith("/")
        or re.match(r"^[A-Za-z]:", cleaned)
        or normalized == ".."
        or normalized.startswith("../")
        or ".." in cleaned.split("/")
    ):
        raise TargetError(
            f"refused path {written!r}: citations name files inside the installed jax "
            "package, relative to site-packages (e.g. jax/_src/lax/control_flow/loops.py); "
            "absolute paths and '..' are not allowed"
        )
    return normalized


@functools.lru_cache(maxsize=4)
def index_for(root: Path) -> SourceIndex:
    """The (cached) index of the packages under ``root``."""
    return SourceIndex(root)
