"""The pages of an MkDocs project: ``mkdocs.yml``'s ``docs_dir`` (default ``docs``) and the
pages its ``nav`` names, or, without a ``nav``, every page in ``docs_dir`` as MkDocs finds them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigurationError

CONFIG_NAMES = ("mkdocs.yml", "mkdocs.yaml")
DEFAULT_DOCS_DIR = "docs"
PAGE_SUFFIXES = (".md", ".markdown", ".ipynb")  # notebooks too: their stored outputs are checked


@dataclass(frozen=True)
class Page:
    """One page: its file, and its name among the project's documents (the path in
    ``docs_dir``, less its suffix, as reports name a document)."""

    path: Path
    docname: str


@dataclass(frozen=True)
class MkDocsProject:
    """What ``mkdocs.yml`` says of the pages to check."""

    config: Path  # the mkdocs.yml file
    docs_dir: Path
    pages: tuple[Page, ...]
    # Entries of ``nav`` that name no file of ``docs_dir`` (another plugin may make them).
    not_found: tuple[str, ...] = ()
    # Where mkdocstrings finds the modules its ``:::`` lines name (its Python handler's
    # ``paths``; by default the folder of mkdocs.yml): the workers import from there too.
    python_path: tuple[Path, ...] = ()
    # Whether ``plugins`` lists mkdocstrings: without it a ``:::`` line is plain text.
    mkdocstrings: bool = False

    @property
    def root(self) -> Path:
        """The folder holding ``mkdocs.yml``, where ``mkdocs build`` runs."""
        return self.config.parent


def config_file(path: Path) -> Path | None:
    """The ``mkdocs.yml`` a command line's path names: the file itself, or the one in the
    folder (None: it names no MkDocs project)."""
    if path.is_file():
        return path if path.name in CONFIG_NAMES else None
    return next((path / name for name in CONFIG_NAMES if (path / name).is_file()), None)


def read_project(config: Path) -> MkDocsProject:
    """The project ``config`` describes; a :class:`ConfigurationError` naming the file and
    line when it cannot be read, or its ``docs_dir`` is no folder."""
    shown = os.path.relpath(config)  # as the command line named it, near enough
    config = config.resolve()
    try:
        text = config.read_text("utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigurationError(
            f"configuration error: {shown}: cannot read it ({error})"
        ) from None
    values, lines = _read_yaml(text, shown)
    if not isinstance(values, dict):
        raise ConfigurationError(
            f"configuration error: {shown}:1: expected a mapping of settings (site_name: ..., "
            f"nav: ...), found {type(values).__name__}"
        )
    docs_value = values.get("docs_dir", DEFAULT_DOCS_DIR)
    where = f"{shown}:{lines.get('docs_dir', 1)}"
    if not isinstance(docs_value, str) or not docs_value.strip():
        raise ConfigurationError(
            f"configuration error: {where}: docs_dir is {docs_value!r}; expected a folder path"
        )
    docs_dir = (config.parent / docs_value).resolve()
    if not docs_dir.is_dir():
        said = "docs_dir is" if "docs_dir" in values else "no docs_dir is set, so it is"
        folder = os.path.relpath(docs_dir)
        raise ConfigurationError(
            f"configuration error: {where}: {said} {docs_value!r}, but {folder} is no folder; "
            "create it, or set docs_dir to the folder that holds the pages"
        )
    searched = _mkdocstrings_paths(values.get("plugins"), config.parent)
    renders, python_path = searched is not None, searched or ()
    nav = values.get("nav")
    if nav is None:
        pages_found = tuple(_every_page(docs_dir))
        return MkDocsProject(config, docs_dir, pages_found, (), python_path, renders)
    pages, not_found = [], []
    for entry in dict.fromkeys(_nav_files(nav)):
        file = (docs_dir / entry).resolve()
        if file.is_file() and file.suffix in PAGE_SUFFIXES:
            pages.append(_page(docs_dir, file))
        elif not file.is_file():
            not_found.append(entry)
    return MkDocsProject(config, docs_dir, tuple(pages), tuple(not_found), python_path, renders)


def _mkdocstrings_paths(plugins: Any, root: Path) -> tuple[Path, ...] | None:
    """The folders mkdocstrings' Python handler searches (relative to ``root``, the folder of
    mkdocs.yml, which is the default); None when mkdocstrings is not used."""
    entries = plugins if isinstance(plugins, list) else [plugins] if plugins else []
    for entry in entries:
        named = entry if isinstance(entry, dict) else {entry: None}
        if "mkdocstrings" not in named:
            continue
        handler = named["mkdocstrings"]
        for key in ("handlers", "python"):
            handler = handler.get(key) if isinstance(handler, dict) else None
        paths = handler.get("paths") if isinstance(handler, dict) else None
        given = [p for p in paths if isinstance(p, str)] if isinstance(paths, list) else ["."]
        return tuple((root / path).resolve() for path in given)
    return None


def unchecked_entries(project: MkDocsProject) -> list[str]:
    """A line for each ``nav`` entry that names no file of ``docs_dir``, which is not checked."""
    where = os.path.relpath(project.config)
    return [
        f"jaxcheck: {where}: nav names {entry!r}, which is no file in "
        f"{os.path.relpath(project.docs_dir)}; it is not checked"
        for entry in project.not_found
    ]


def _read_yaml(text: str, shown: str) -> tuple[Any, dict[str, int]]:
    """The settings of ``mkdocs.yml``, and the line each top-level key stands on."""
    import yaml

    class Loader(yaml.SafeLoader):
        """YAML with any tag (``!ENV``, ``!!python/name:``, which plugins' settings use): a
        tagged value is read as if untagged, since only ``docs_dir`` and ``nav`` matter."""

    def untagged(loader: Loader, _suffix: str, node: yaml.Node) -> Any:
        if isinstance(node, yaml.MappingNode):
            return loader.construct_mapping(node)
        if isinstance(node, yaml.SequenceNode):
            return loader.construct_sequence(node)
        return loader.construct_scalar(node)  # type: ignore[arg-type]

    Loader.add_multi_constructor("!", untagged)
    Loader.add_multi_constructor("tag:yaml.org,2002:python/", untagged)
    loader = Loader(text)
    try:
        node = loader.get_single_node()
        values = loader.construct_document(node) if node is not None else {}
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problem = getattr(error, "problem", None) or str(error)
        raise ConfigurationError(
            f"configuration error: {shown}:{line}: not YAML that can be read ({problem}); "
            "fix the file as `mkdocs build` would ask"
        ) from None
    finally:
        loader.dispose()
    lines = {}
    if isinstance(node, yaml.MappingNode):
        lines = {str(key.value): key.start_mark.line + 1 for key, _ in node.value}
    return values, lines


def _nav_files(nav: Any) -> Iterator[str]:
    """The file paths ``nav`` names (``page.md``, ``Title: page.md``, sections of them), less
    links to elsewhere."""
    if isinstance(nav, str):
        if "://" not in nav and not nav.startswith(("/", "#")):
            yield nav
    elif isinstance(nav, list):
        for item in nav:
            yield from _nav_files(item)
    elif isinstance(nav, dict):
        for item in nav.values():
            yield from _nav_files(item)


def _every_page(docs_dir: Path) -> Iterator[Page]:
    """Every page of ``docs_dir`` in path order, as MkDocs finds them without a ``nav``: less
    what MkDocs leaves out by default (names starting with a dot, such as a snippet file
    or ``.ipynb_checkpoints``)."""
    for file in sorted(docs_dir.rglob("*")):
        inside = file.relative_to(docs_dir).parts
        if file.suffix in PAGE_SUFFIXES and file.is_file() and not _hidden(inside):
            yield _page(docs_dir, file)


def _hidden(parts: tuple[str, ...]) -> bool:
    return any(part.startswith(".") for part in parts)


def _page(docs_dir: Path, file: Path) -> Page:
    try:
        name = file.relative_to(docs_dir)
    except ValueError:  # a nav entry that leaves docs_dir (``../README.md``)
        name = Path(*(part for part in file.parts if part != "/"))
    return Page(file, name.with_suffix("").as_posix())
