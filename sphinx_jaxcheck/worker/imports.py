"""Which of a session's imports are the project's own code rather than installed packages.

A block may import a module that sits beside its page (``helper.py``), on
``PYTHONPATH``, or in a package installed in editable mode. Installed packages
are covered by the cache key through their names and versions; these files
are not, so the worker reports them and the cache keeps their content digests.
"""

from __future__ import annotations

import os
import site
import sys
import sysconfig
from collections.abc import Iterable


def installed_folders() -> tuple[str, ...]:
    """Folders of the standard library and of installed distributions, each ending in a
    separator."""
    paths = sysconfig.get_paths()
    folders = {
        paths[name] for name in ("stdlib", "platstdlib", "purelib", "platlib") if name in paths
    }
    folders.update(getattr(site, "getsitepackages", list)())
    if site.ENABLE_USER_SITE and isinstance(site.USER_SITE, str):
        folders.add(site.USER_SITE)
    # Debian's dist-packages and any other folder of installed packages on the path.
    folders.update(
        p
        for p in sys.path
        if os.path.basename(p.rstrip(os.sep)) in ("site-packages", "dist-packages")
    )
    return tuple(os.path.join(os.path.realpath(folder), "") for folder in folders if folder)


def own_files(modules: Iterable[object]) -> list[str]:
    """The source (or compiled) files of these modules that no installed distribution provides."""
    installed = installed_folders()
    found = set()
    for module in modules:
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or not os.path.isfile(path):
            continue  # built in, frozen, a namespace package, or gone meanwhile
        real = os.path.realpath(path)
        if not real.startswith(installed):
            found.add(real)
    return sorted(found)
