"""Where a docstring stands in a Python file, found through the wrappers around its object.

A docstring's ``>>>`` examples are reported at the ``.py`` file and line of
the example. The object may not be where its text is: ``jax.jit`` and
``functools.wraps`` wrap a function (``__wrapped__``), ``custom_jvp`` wraps
one too, and a ``functools.partial`` or any other object may have a
``__doc__`` assigned from a string literal somewhere else. So the text is
looked for as the docstring of each object of the wrapper chain, then as a
string literal in the files of that chain and of the modules given.

A place is exact or not given: the literal must hold the same text, one file
line per docstring line (no escaped line breaks). Used by the workers'
collector and by the Sphinx side for the docstrings autodoc shows: standard
library only.
"""

from __future__ import annotations

import ast
import functools
import inspect
import os
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from .dependencies import per_settled_version

MAX_WRAPPERS = 100  # a chain of ``__wrapped__`` longer than this is a loop


@dataclass(frozen=True)
class Place:
    """A docstring's file, and the file line of its first line."""

    path: str
    line: int


def wrapper_chain(obj: Any) -> list[Any]:
    """``obj`` and what it wraps: ``__wrapped__``, ``__func__``, a property's getter, a
    partial's function, in order."""
    chain: list[Any] = []
    seen: set[int] = set()
    current = obj
    while current is not None and id(current) not in seen and len(chain) < MAX_WRAPPERS:
        seen.add(id(current))
        chain.append(current)
        current = _wrapped(current)
    return chain


def _wrapped(obj: Any) -> Any:
    if isinstance(obj, property):
        return obj.fget
    if isinstance(obj, (staticmethod, classmethod)) or inspect.ismethod(obj):
        return obj.__func__
    if isinstance(obj, functools.partial):
        return obj.func
    try:
        return getattr(obj, "__wrapped__", None)
    except Exception:  # an object whose attributes raise: nothing wrapped that we can see
        return None


def place_docstring(obj: Any, doc: str, modules: Iterable[ModuleType] = ()) -> Place | None:
    """Where ``doc``, the docstring of ``obj``, stands as a string literal, or None.

    First as the docstring of an object of :func:`wrapper_chain`, then as any
    string literal with that text in the files of the chain and of ``modules``
    (the module that names the object, say).
    """
    chain = wrapper_chain(obj)
    for candidate in chain:
        found = _own_docstring(candidate, doc)
        if found is not None:
            return found
    files = dict.fromkeys(path for item in (*chain, *modules) for path in _source_files(item))
    for path in files:
        line = literal_line(path, doc)
        if line is not None:
            return Place(path, line)
    return None


def _source_files(obj: Any) -> list[str]:
    """The files an object's source may be in.

    A class's ``__module__`` may name where it is exported instead (JAX's
    ``set_module``, or an assignment), whose file does not define it. Then the
    class is looked for in the files of its methods, static, class and property
    ones too, and in those of the modules that hold it under its own name
    (where it is defined is one: ``jax.dtypes.extended`` has no methods).
    """
    own = _source_file(obj)
    paths = [own]
    if inspect.isclass(obj):
        for member in vars(obj).values():
            functions = wrapper_chain(member)[-1:]  # none for a None
            if functions and inspect.isfunction(functions[0]):
                paths.append(_source_file(functions[0]))
        if not (own and _defines_class(own, obj.__name__)):
            paths += _holding_files(obj)
    return [path for path in dict.fromkeys(paths) if path]


def _holding_files(cls: type) -> list[str]:
    """The files of the imported modules that hold ``cls`` under its name and define a class
    of that name."""
    found = []
    for module in list(sys.modules.values()):
        try:
            held = vars(module).get(cls.__name__) is cls
        except TypeError:  # not a module: something put another object in sys.modules
            continue
        path = _source_file(module) if held else None
        if path and _defines_class(path, cls.__name__):
            found.append(path)
    return found


def _defines_class(path: str, name: str) -> bool:
    return name in _class_lines(path)


@per_settled_version(maxsize=64)
def _class_lines(path: str) -> dict[str, int]:
    """The line of the first definition of each class name in a file."""
    tree = _parsed(path)
    found: dict[str, int] = {}
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.ClassDef):
            line = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            found[node.name] = min(found.get(node.name, line), line)
    return found


def class_line(cls: type) -> Place | None:
    """Where a class is defined: the first line of a class of its name (its decorators
    included) in one of its :func:`_source_files`, or None."""
    for path in _source_files(cls):
        line = _class_lines(path).get(cls.__name__)
        if line is not None:
            return Place(path, line)
    return None


def _source_file(obj: Any) -> str | None:
    try:
        path = inspect.getsourcefile(obj)
    except (TypeError, OSError):
        return None
    return os.path.abspath(path) if path and os.path.isfile(path) else None


def _own_docstring(obj: Any, doc: str) -> Place | None:
    """The place of ``obj``'s own docstring, when it is ``doc``."""
    if inspect.isfunction(obj):
        key: tuple[str, int] = (obj.__name__, obj.__code__.co_firstlineno)
    elif inspect.isclass(obj):
        key = (obj.__name__, 0)  # classes are found by name (a file rarely has two of one name)
    elif inspect.ismodule(obj):
        key = ("", 0)
    else:
        return None
    for path in _source_files(obj):
        literals = _definitions(path).get(key, [])
        found = next((node.lineno for node in literals if _same_text(node, doc)), None)
        if found is not None:
            return Place(path, found)
    return None


@per_settled_version(maxsize=64)
def _definitions(path: str) -> dict[tuple[str, int], list[ast.Constant]]:
    """The docstrings of a file's definitions, by (name, first line) of a function, (name, 0)
    of a class, ("", 0) of the module."""
    tree = _parsed(path)
    found: dict[tuple[str, int], list[ast.Constant]] = {}
    for node in ast.walk(tree) if tree is not None else ():
        literal = _docstring_node(node)
        if literal is None:
            continue
        if isinstance(node, ast.Module):
            key = ("", 0)
        elif isinstance(node, ast.ClassDef):
            key = (node.name, 0)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # A function's code starts at its first decorator.
            key = (node.name, min([node.lineno, *(d.lineno for d in node.decorator_list)]))
        else:
            continue
        found.setdefault(key, []).append(literal)
    return found


def _docstring_node(owner: ast.AST) -> ast.Constant | None:
    if not isinstance(owner, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    body = owner.body
    if not body or not isinstance(body[0], ast.Expr):
        return None
    value = body[0].value
    return value if isinstance(value, ast.Constant) and isinstance(value.value, str) else None


def literal_line(path: str, doc: str) -> int | None:
    """The first line of the first string literal of ``path`` that holds ``doc`` line for line."""
    candidates = _literals(path).get(_shape(doc), [])
    return next((node.lineno for node in candidates if _same_text(node, doc)), None)


def _shape(text: str) -> tuple[str, ...]:
    """A text's lines without their indentation: the same for a literal and its docstring."""
    return tuple(line.strip() for line in text.split("\n"))


@per_settled_version(maxsize=64)
def _literals(path: str) -> dict[tuple[str, ...], list[ast.Constant]]:
    """The string literals of a file that hold examples, by :func:`_shape`, in file order."""
    tree = _parsed(path)
    found: dict[tuple[str, ...], list[ast.Constant]] = {}
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and ">>>" in node.value:
            found.setdefault(_shape(node.value), []).append(node)
    for nodes in found.values():
        nodes.sort(key=lambda node: node.lineno)
    return found


def _same_text(literal: ast.Constant, doc: str) -> bool:
    """The literal holds ``doc``, one file line per line of it.

    Python 3.13 strips a docstring's indentation when it compiles it, so a
    docstring may differ from its literal by that alone.
    """
    text = literal.value
    if not isinstance(text, str) or literal.end_lineno is None:
        return False
    if literal.end_lineno - literal.lineno != doc.count("\n"):
        return False  # escaped line breaks, or a literal pasted from pieces
    return text == doc or (text.count("\n") == doc.count("\n") and _compiled_doc(text) == doc)


@per_settled_version(maxsize=64)
def _parsed(path: str) -> ast.Module | None:
    try:
        with open(path, "rb") as handle:
            return ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return None


@functools.lru_cache(maxsize=4096)
def _compiled_doc(text: str) -> str | None:
    """The docstring this interpreter makes of a literal holding ``text``."""
    if sys.version_info < (3, 13):
        return text
    namespace: dict[str, Any] = {}
    exec(compile(f"def f():\n    {text!r}\n", "<docstring>", "exec"), namespace)
    result = namespace["f"].__doc__
    return result if isinstance(result, str) else None
