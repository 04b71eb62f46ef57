"""The folders conf.py put on ``sys.path``, which the workers import from too.

A project's conf.py often puts its checkout first on ``sys.path`` (numpyro's
``../..``, dm-haiku's ``..``), so that autodoc shows the code beside the docs
rather than an installed copy; ``sphinx.ext.doctest`` runs its examples in that
same process, against that same code. The workers are fresh processes: they see
the folders Python starts with, not the ones conf.py added. So the folders the
build's process has on ``sys.path`` beyond those a fresh start of its
interpreter would have are handed to the workers, in Python's order: those
standing before every folder of a fresh start go first, the others last.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config

from ..cache.size import INTERPRETERS_FOLDER
from ..run.interpreter import startup_path
from ..run.pool import PythonPath
from .settings import cache_directory, settings_of
from .stages import ConfigInited

_NOTED = "_jaxcheck_python_path"  # where a config keeps the folders (``_``: never pickled)


def setup_python_path(app: Sphinx) -> None:
    """Note the folders conf.py added once it has run, before anything starts a worker."""
    app.connect("config-inited", _note, priority=ConfigInited.PYTHON_PATH)


def _note(app: Sphinx, config: Config) -> None:
    own = {os.getcwd(), os.path.dirname(os.path.abspath(sys.argv[0] or "."))}
    object.__setattr__(config, _NOTED, added_folders(sys.path, _startup_path(app), own))


def conf_python_path(config: Config) -> PythonPath:
    """The folders conf.py put on ``sys.path`` (none before ``config-inited``)."""
    noted = config.__dict__.get(_NOTED)
    return noted if isinstance(noted, PythonPath) else PythonPath()


def added_folders(path: list[str], startup: frozenset[str], own: set[str]) -> PythonPath:
    """The existing folders of ``path`` that are not in ``startup``, split where they stand:
    before every folder of ``startup`` (``first``), or after one (``last``).

    The entry Python itself put first (the folder of its script, or the current
    folder; one of ``own``) is no addition: it stands right before the first
    folder of ``startup``, after anything conf.py inserted, and workers never
    import from it (a block imports from its own document's folder). The same
    folder inserted by conf.py, further up, is one.
    """
    folders = [os.path.abspath(entry or ".") for entry in path]
    begins = next((n for n, folder in enumerate(folders) if folder in startup), len(folders))
    if begins and folders[begins - 1] in own:
        del folders[begins - 1]
        begins -= 1
    first: list[str] = []
    last: list[str] = []
    for n, folder in enumerate(folders):
        if folder in startup or not os.path.exists(folder) or folder in first + last:
            continue
        (first if n < begins else last).append(folder)
    return PythonPath(tuple(first), tuple(last))


def _startup_path(app: Sphinx) -> frozenset[str]:
    # The folder this package was imported from is no addition of conf.py's: the workers get
    # this package their own way (run.pool.package_folder), never that folder's other packages.
    ours = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    settings = settings_of(app.config)
    remember = None
    if settings.reads_cache:  # kept beside the probe's answers, under the same proof
        remember = Path(cache_directory(app.confdir, settings), INTERPRETERS_FOLDER)
    fresh = startup_path(sys.executable, os.getcwd(), remember)
    if fresh is None:
        # No answer: nothing counts as added, so workers start as they always would.
        fresh = frozenset(os.path.abspath(entry or ".") for entry in sys.path)
    return fresh | {ours}
