"""Where a docstring stands in its Python file, so its ``>>>`` examples are reported there.

autodoc brings docstrings into pages; their examples are checked with the
page, but a problem is reported at the ``.py`` file and line of the example.
The docstring's first line is the line of its opening quotes; ``__doc__``
line ``k`` is then file line ``start + k`` (when the docstring holds no
escaped line breaks, which :func:`docstring_location` checks). Pure: no Sphinx.
"""

from __future__ import annotations

import ast
import inspect
import os
import textwrap
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Docstring:
    """A docstring and the file line of its first line."""

    path: str
    line: int
    text: str


def docstring_location(obj: Any) -> Docstring | None:
    """The file and line of ``obj.__doc__``, or None when it cannot be placed exactly."""
    doc = getattr(obj, "__doc__", None)
    if not isinstance(doc, str) or ">>>" not in doc:
        return None
    try:
        path = inspect.getsourcefile(obj)
        if path is None:
            return None
        if inspect.ismodule(obj):
            with open(path, encoding="utf-8") as handle:
                tree: ast.AST = ast.parse(handle.read())
            start = 1
            owner: ast.AST = tree
        else:
            lines, start = inspect.getsourcelines(obj)
            tree = ast.parse(textwrap.dedent("".join(lines)))
            owner = next(iter(ast.iter_child_nodes(tree)))
    except (OSError, TypeError, SyntaxError, StopIteration, UnicodeDecodeError):
        return None
    body = getattr(owner, "body", None)
    if not body or not isinstance(body[0], ast.Expr) or not isinstance(body[0].value, ast.Constant):
        return None
    if body[0].value.value != doc or body[0].end_lineno is None:
        return None  # not the docstring we were given (a copied or generated __doc__)
    first = start + body[0].lineno - 1
    if body[0].end_lineno - body[0].lineno != doc.count("\n"):
        return None  # escaped line breaks: its lines are not the file's
    return Docstring(os.path.abspath(path), first, doc)


def is_own(path: str, root: str) -> bool:
    """A file of the project's own package: under ``root``, not an installed package."""
    inside = os.path.abspath(path).startswith(os.path.abspath(root) + os.sep)
    parts = os.path.abspath(path).split(os.sep)
    return inside and "site-packages" not in parts and "dist-packages" not in parts
