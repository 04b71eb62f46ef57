"""Which Python files ``jaxcheck update`` may rewrite: the project's own, in its checkout.

The project's checkout is the version-control tree that holds the Sphinx
source folder, found as git finds it: the nearest folder at or above it with
a ``.git`` (a folder, or the file a worktree or submodule has). Without one,
no folder is assumed to be the project's (not even the source folder's
parent), so no Python file is rewritten. A file of an installed package
(under ``site-packages`` or ``dist-packages``) is never the project's own,
even inside the checkout (a virtual environment kept there). Pure but for
looking at the file system.
"""

from __future__ import annotations

import os

INSTALLED = ("site-packages", "dist-packages")


def is_python_file(path: str) -> bool:
    """Whether update treats the file as Python source (its docstrings hold the examples)."""
    return path.endswith(".py")


def checkout_of(folder: str) -> str | None:
    """The real path of the nearest folder at or above ``folder`` holding a ``.git``, or None."""
    here = os.path.realpath(folder)
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def python_file_problem(path: str, srcdir: str, checkout: str | None) -> str | None:
    """Why update must not rewrite this Python file, naming the one reason; None when it may.

    ``checkout`` is :func:`checkout_of` the source folder ``srcdir``.
    """
    real = os.path.realpath(path)
    shown = path if real == os.path.abspath(path) else f"{path}, which is {real}"
    installed = next((part for part in real.split(os.sep) if part in INSTALLED), None)
    if installed is not None:
        return (
            f"the file ({shown}) belongs to an installed package (it is under {installed}), "
            "and update rewrites only the project's own files: edit the docstring in the "
            "package's source by hand, or check the package from the project's checkout "
            "(`pip install -e .` there) instead of its installed copy"
        )
    if checkout is None:
        return (
            f"the source folder {os.path.realpath(srcdir)} is in no version-control checkout "
            "(no .git in it or above it), so update cannot tell the project's own Python files "
            "and rewrites none: edit the docstring by hand"
        )
    if os.path.commonpath([checkout, real]) != checkout:
        return (
            f"the file ({shown}) is outside the project's checkout {checkout}, and update "
            "rewrites Python files only there: edit the docstring by hand"
        )
    return None
