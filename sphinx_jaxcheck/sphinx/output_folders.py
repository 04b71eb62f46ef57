"""The build's own output and doctree folders are never read as pages.

A build folder inside the source folder (``jaxcheck check``'s ``_build/jaxcheck``, or
``sphinx-build docs docs/_build/html``) is read like any other folder unless
``exclude_patterns`` leaves it out. Whatever lands there then becomes a document of the
next build: nbsphinx copies every notebook into the doctree folder, so each run adds
them again, one folder deeper, with a "not included in any toctree" warning each. On
``config-inited`` the folders the build writes that lie inside the source folder join
``exclude_patterns``, so every run reads the same documents whatever conf.py excludes.
"""

from __future__ import annotations

from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config

from .stages import ConfigInited


def setup_output_folders(app: Sphinx) -> None:
    """Leave the build's folders out of what Sphinx reads."""
    app.connect("config-inited", _exclude, priority=ConfigInited.OUTPUT_FOLDERS)


def inside_sources(srcdir: Path, folders: list[Path]) -> list[str]:
    """The folders that lie below ``srcdir``, as patterns relative to it (the source folder
    itself, or a folder around it, is never one)."""
    source = srcdir.resolve()
    found = []
    for folder in folders:
        resolved = folder.resolve()
        if resolved != source and resolved.is_relative_to(source):
            found.append(resolved.relative_to(source).as_posix())
    return found


def _exclude(app: Sphinx, config: Config) -> None:
    given = list(config.exclude_patterns)
    own = inside_sources(Path(app.srcdir), [Path(app.outdir), Path(app.doctreedir)])
    added = [pattern for pattern in own if pattern not in given]
    if added:
        config.exclude_patterns = [*given, *added]
