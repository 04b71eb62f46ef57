"""What a ``jaxcheck`` build keeps in its build folder, known without importing Sphinx: the
command reads it to guess, before Sphinx loads, whether the build is cold (``cli.project``)."""

from __future__ import annotations

from pathlib import Path

DOCTREES = "doctrees"  # in the build folder: what Sphinx keeps between two builds
ENV_PICKLE = "environment.pickle"  # Sphinx's ENV_PICKLE_FILENAME (a test holds them equal)
# The commands' build folder in the source folder, unless --build-dir names another.
DEFAULT_BUILD_DIR = Path("_build", "jaxcheck")
# The first line of the .gitignore the commands write in a build folder inside the sources:
# it also tells a build that the folder around its output is a jaxcheck build folder.
IGNORE_MARK = "# Written by jaxcheck: doctrees kept between runs."


def kept_build(build_dir: Path) -> bool:
    """Whether ``build_dir`` keeps an earlier build's environment (the next is incremental)."""
    return (build_dir / DOCTREES / ENV_PICKLE).exists()


def default_build_dir(srcdir: Path) -> Path:
    """Where the commands keep a project's build when ``--build-dir`` names no folder."""
    return srcdir / DEFAULT_BUILD_DIR


def marked_by_jaxcheck(folder: Path) -> bool:
    """Whether ``folder`` is a build folder a ``jaxcheck`` command made (its .gitignore says
    so)."""
    try:
        with open(folder / ".gitignore", encoding="utf-8") as ignore:
            return ignore.readline().rstrip("\n") == IGNORE_MARK
    except (OSError, UnicodeDecodeError):
        return False
