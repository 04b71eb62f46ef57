"""Count the package's modules, its import arrows between them, and its lines.

    python tools/house.py [PACKAGE_FOLDER] [--rooms]   (default: sphinx_jaxcheck)

With ``--rooms``, also each folder's modules and lines, the largest modules and functions,
and the arrows between folders (a folder's modules importing another's, counted by pair of
modules).

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


def folder_of(name: str, modules: dict[str, Path]) -> str:
    """The folder (a subpackage, or the package itself) a module sits in."""
    path = modules[name]
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def functions(path: Path) -> list[tuple[int, str]]:
    """(lines, qualified name) of every function and method of a module."""
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for top in tree.body:
        members = top.body if isinstance(top, ast.ClassDef) else [top]
        for node in members:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                owner = f"{top.name}." if isinstance(top, ast.ClassDef) else ""
                size = (node.end_lineno or node.lineno) - node.lineno + 1
                found.append((size, f"{owner}{node.name}"))
    return found


def rooms(root: Path, modules: dict[str, Path]) -> None:
    """Folders, the largest modules and functions, and the arrows between folders."""
    sizes = {
        name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in modules.items()
    }
    folders: dict[str, list[str]] = {}
    for name in modules:
        folders.setdefault(folder_of(name, modules), []).append(name)
    print("\nfolder: modules, lines")
    for folder, names in sorted(folders.items()):
        print(f"  {folder}: {len(names)}, {sum(sizes[n] for n in names)}")
    print("\nlargest modules (lines)")
    for name, size in sorted(sizes.items(), key=lambda item: -item[1])[:10]:
        print(f"  {size:5} {name}")
    print("\nlargest functions (lines)")
    every = [
        (size, f"{name}.{function}")
        for name, path in modules.items()
        for size, function in functions(path)
    ]
    for size, function in sorted(every, reverse=True)[:10]:
        print(f"  {size:5} {function}")
    between: dict[tuple[str, str], int] = {}
    for importer, imported in arrows(root):
        pair = (folder_of(importer, modules), folder_of(imported, modules))
        if pair[0] != pair[1]:
            between[pair] = between.get(pair, 0) + 1
    print("\narrows between folders")
    for (importer, imported), count in sorted(between.items()):
        print(f"  {importer} -> {imported}: {count}")


def main() -> None:
    arguments = [a for a in sys.argv[1:] if a != "--rooms"]
    root = Path(arguments[0] if arguments else "sphinx_jaxcheck")
    modules = module_names(root)
    lines = sum(len(path.read_text(encoding="utf-8").splitlines()) for path in modules.values())
    print(f"{len(modules)} modules, {len(arrows(root))} import arrows, {lines} lines")
    if "--rooms" in sys.argv[1:]:
        rooms(root, modules)


if __name__ == "__main__":
    main()
