"""The folders the build and its tools write are never read as pages.

A build folder inside the source folder (``jaxcheck check``'s ``_build/jaxcheck``, or
``sphinx-build docs docs/_build/html``) is read like any other folder unless
``exclude_patterns`` leaves it out. Whatever lands there then becomes a document of the
next build: nbsphinx copies every notebook into the doctree folder, MyST-NB writes each
notebook it renders into ``jupyter_execute`` beside the output folder, so each run adds
them again, one folder deeper, with a "not included in any toctree" warning each; pytest
writes a ``README.md`` into its ``.pytest_cache``. On ``config-inited`` the folders written
there that lie inside the source folder join ``exclude_patterns``, so every run reads the
same documents whatever conf.py excludes. The patterns depend on the configuration alone,
never on which folders exist yet: a pattern that came and went would make Sphinx read every
document again.
"""

from __future__ import annotations

import glob
import os
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config

from .build_folder import default_build_dir, marked_by_jaxcheck
from .settings import DEFAULT_CACHE_FOLDER, cache_directory, settings_of
from .stages import ConfigInited

# pytest's cache folder, in whatever folder pytest ran (its rootdir): pytest's own name.
PYTEST_CACHE = ".pytest_cache"
# MyST-NB's folders beside the output folder (``myst_nb.sphinx_ext``): the notebooks it
# renders, and its execution cache where ``nb_execution_cache_path`` names none.
MYST_NB_OUTPUT = "jupyter_execute"
MYST_NB_CACHE = ".jupyter_cache"


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
            found.append(glob.escape(resolved.relative_to(source).as_posix()))
    return found


def written_folders(app: Sphinx, config: Config) -> list[Path]:
    """The folders this build, the extension and the tools around it write: the output and
    doctree folders, the ``jaxcheck`` commands' build folder, the jaxcheck cache, and MyST-NB's
    folders where it is loaded."""
    outdir, doctrees = Path(app.outdir), Path(app.doctreedir)
    folders = [outdir, doctrees, default_build_dir(Path(app.srcdir))]
    if marked_by_jaxcheck(outdir.parent):  # a command's build folder named with --build-dir
        folders.append(outdir.parent)
    # The cache where it is configured, and where it is by default (kept from before).
    folders.append(Path(cache_directory(app.confdir, settings_of(config))))
    folders.append(Path(app.confdir, DEFAULT_CACHE_FOLDER))
    if "myst_nb" in app.extensions:
        folders.append(outdir.parent / MYST_NB_OUTPUT)
        # As MyST-NB hands it to jupyter-cache: relative to where the build runs.
        given = getattr(config, "nb_execution_cache_path", "")
        folders.append(Path(os.path.abspath(given)) if given else outdir.parent / MYST_NB_CACHE)
    return folders


def _exclude(app: Sphinx, config: Config) -> None:
    given = list(config.exclude_patterns)
    own = [
        *inside_sources(Path(app.srcdir), written_folders(app, config)),
        PYTEST_CACHE,
        f"**/{PYTEST_CACHE}",
    ]
    added = [pattern for pattern in dict.fromkeys(own) if pattern not in given]
    if added:
        config.exclude_patterns = [*given, *added]
