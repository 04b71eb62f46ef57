"""Count the package's modules, its import arrows between them, and its lines.

    python tools/house.py [PACKAGE_FOLDER]   (default: sphinx_jaxcheck)

An arrow is one importing module -> one imported module of the package, counted
once however often (and wherever: top level, inside functions, under
TYPE_CHECKING) the import is written. ``from . import x`` points at ``x`` when
``x`` is a module, else at the package.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path


def module_names(root: Path) -> dict[str, Path]:
    """Every module of the package under ``root``, by dotted name."""
    names = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def arrows(root: Path) -> set[tuple[str, str]]:
    """(importer, imported) pairs of modules of the package."""
    modules = module_names(root)
    found = set()
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                    for alias in node.names
                ]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    found.add((name, target))
    return found


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "sphinx_jaxcheck")
    modules = module_names(root)
    lines = sum(len(path.read_text(encoding="utf-8").splitlines()) for path in modules.values())
    print(f"{len(modules)} modules, {len(arrows(root))} import arrows, {lines} lines")


if __name__ == "__main__":
    main()
