"""What a ``jaxcheck`` build keeps in its build folder, known without importing Sphinx: the
command reads it to guess, before Sphinx loads, whether the build is cold (``cli.project``)."""

from __future__ import annotations

from pathlib import Path

DOCTREES = "doctrees"  # in the build folder: what Sphinx keeps between two builds
ENV_PICKLE = "environment.pickle"  # Sphinx's ENV_PICKLE_FILENAME (a test holds them equal)


def kept_build(build_dir: Path) -> bool:
    """Whether ``build_dir`` keeps an earlier build's environment (the next is incremental)."""
    return (build_dir / DOCTREES / ENV_PICKLE).exists()
