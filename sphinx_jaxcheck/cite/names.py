"""Whether a dotted ``jax.`` name written in prose exists in the pinned source.

Pure: names are resolved statically with
:class:`~sphinx_jaxcheck.cite.jax_source.SourceIndex` (public re-exports
followed), never by importing jax. Beyond what citations resolve, a name may
continue as a member of a class, found

* through an instance or alias made at module level (``config = Config()``
  makes ``jax.config.update`` the method ``Config.update``),
* in the class's bases (an inherited method),
* in the type stub beside the class's file (``basearray.pyi`` declares
  ``Array.at``, which is attached at run time).
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass

from .jax_source import Location, SourceIndex, TargetError

# ``jax.lax.scan``, ``jax.jit()``, ``jax.numpy.where(c, x, y)``: one call at most, at the end.
_NAME = re.compile(r"(jax(?:\.[A-Za-z_]\w*)+)(?:\([^()]*\))?")
_MAX_STEPS = 12  # instances, aliases and bases followed per member; more means a cycle


def dotted_name(literal: str) -> str | None:
    """The dotted ``jax.`` name an inline literal consists of, without a trailing call."""
    match = _NAME.fullmatch(literal.strip())
    return match.group(1) if match else None


@dataclass(frozen=True)
class NameCheck:
    """The verdict on one name: where it is defined, or the closest names that exist."""

    name: str
    location: Location | None
    closest: tuple[str, ...] = ()

    @property
    def exists(self) -> bool:
        """True when the name resolves in the pinned source."""
        return self.location is not None


def check_name(index: SourceIndex, name: str) -> NameCheck:
    """Resolve ``name``; one that does not resolve comes back with the closest existing names."""
    found = _resolve(index, name)
    if found is not None:
        return NameCheck(name, found)
    parts = name.split(".")
    # The longest prefix that exists; suggest siblings of the first part after it.
    for split in range(len(parts) - 1, 0, -1):
        prefix = ".".join(parts[:split])
        scope = _resolve(index, prefix)
        if scope is not None:
            offered = _members(index, scope)
            closest = difflib.get_close_matches(parts[split], offered, n=3, cutoff=0.6)
            return NameCheck(name, None, tuple(f"{prefix}.{c}" for c in closest))
    return NameCheck(name, None)


def _resolve(index: SourceIndex, name: str) -> Location | None:
    try:
        return index.resolve_dotted(name)
    except TargetError:
        pass
    head, _, last = name.rpartition(".")
    if "." not in head:
        return None
    owner = _resolve(index, head)
    if owner is None or owner.qualname is None:
        return None  # a module that lacks the name: resolve_dotted has said so
    return _class_member(index, owner, last, steps=0)


def _class_member(index: SourceIndex, owner: Location, member: str, steps: int) -> Location | None:
    cls = _class_of(index, owner)
    if cls is None or steps > _MAX_STEPS:
        return None
    assert cls.qualname is not None
    qualname = f"{cls.qualname}.{member}"
    for path in _with_stub(index, cls.path):
        definitions = index.source(path).definitions
        if qualname in definitions:
            start, end = definitions[qualname]
            return Location(path, start, end, qualname)
    for base in _bases(index, cls):
        found = _class_member(index, base, member, steps + 1)
        if found is not None:
            return found
    return None


def _members(index: SourceIndex, scope: Location) -> list[str]:
    """The public names a module or class offers, for suggestions."""
    if scope.qualname is None:
        names = index.public_names(scope.path)
    else:
        cls = _class_of(index, scope)
        if cls is None:
            return []
        prefix = f"{cls.qualname}."
        names = [
            qualname.removeprefix(prefix)
            for path in _with_stub(index, cls.path)
            for qualname in index.source(path).definitions
            if qualname.startswith(prefix) and "." not in qualname.removeprefix(prefix)
        ]
    return sorted({name for name in names if not name.startswith("_")})


def _class_of(index: SourceIndex, location: Location) -> Location | None:
    """The class whose members ``location`` has: itself, or the class of an instance or alias."""
    for _ in range(_MAX_STEPS):
        statement = _statement(index, location)
        if isinstance(statement, ast.ClassDef):
            return location
        value = getattr(statement, "value", None)
        if isinstance(value, ast.Call):
            value = value.func  # ``config = Config()``: an instance of Config
        if not isinstance(value, ast.expr):
            return None
        referred = _referred(index, location.path, value)
        if referred is None or referred == location or referred.qualname is None:
            return None
        location = referred
    return None


def _bases(index: SourceIndex, cls: Location) -> list[Location]:
    statement = _statement(index, cls)
    if not isinstance(statement, ast.ClassDef):
        return []
    found = (_referred(index, cls.path, base) for base in statement.bases)
    return [base for base in found if base is not None and base.qualname is not None]


def _referred(index: SourceIndex, path: str, expression: ast.expr) -> Location | None:
    """What a name or attribute written in the file at ``path`` refers to."""
    written = _dotted(expression)
    if written is None:
        return None
    module = (
        path.removesuffix(".pyi").removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    )
    try:
        return index.resolve_dotted(f"{module}.{written}")
    except TargetError:
        return None


def _with_stub(index: SourceIndex, path: str) -> list[str]:
    stub = index.stub_path(path)
    return [path, stub] if stub else [path]


def _statement(index: SourceIndex, location: Location) -> ast.stmt | None:
    if location.qualname is None:
        return None
    return _find(index.source(location.path).tree.body, location.qualname.split("."))


def _find(body: list[ast.stmt], parts: list[str]) -> ast.stmt | None:
    """The statement that defines a qualname (split at dots), also inside if/try/with."""
    for statement in body:
        if isinstance(statement, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            if statement.name == parts[0]:
                return statement if len(parts) == 1 else _find(statement.body, parts[1:])
        elif isinstance(statement, ast.Assign | ast.AnnAssign) and len(parts) == 1:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if any(isinstance(target, ast.Name) and target.id == parts[0] for target in targets):
                return statement
        elif isinstance(statement, ast.If | ast.Try | ast.With):
            for block in _blocks(statement):
                found = _find(block, parts)
                if found is not None:
                    return found
    return None


def _blocks(statement: ast.If | ast.Try | ast.With) -> list[list[ast.stmt]]:
    if isinstance(statement, ast.If):
        return [statement.body, statement.orelse]
    if isinstance(statement, ast.Try):
        return [
            statement.body,
            *(h.body for h in statement.handlers),
            statement.orelse,
            statement.finalbody,
        ]
    return [statement.body]


def _dotted(expression: ast.expr) -> str | None:
    if isinstance(expression, ast.Name):
        return expression.id
    if isinstance(expression, ast.Attribute):
        inner = _dotted(expression.value)
        return f"{inner}.{expression.attr}" if inner else None
    if isinstance(expression, ast.Subscript):  # a generic base, ``Base[T]``
        return _dotted(expression.value)
    return None
