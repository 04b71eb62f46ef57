"""Every file a verdict depends on is an input of its cache key, however it was read.

Each case: a first check passes, a file that decides the outcome changes (or
appears), and the next check, warm, must fail as a ``--no-cache`` check does.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from buildkit import jaxcheck_here, write_project

CACHED = "jaxcheck_cache = True\n"
STALE_LATER = ".. jaxcheck::\n\n   print(1)\n\n   # 2\n"


def checks(root: Path) -> int:
    return jaxcheck_here("check", root).returncode


@pytest.mark.stack
def test_an_include_created_after_it_failed_makes_its_page_read_again(tmp_path: Path) -> None:
    page = "Page\n====\n\n.. include:: snip.txt\n"
    root = write_project(tmp_path / "docs", {"page.rst": page}, conf=CACHED)
    assert checks(root) == 0  # a missing include is Sphinx's warning, not a failed check
    (root / "snip.txt").write_text(STALE_LATER, "utf-8")
    assert checks(root) == 1
    assert jaxcheck_here("check", root, "--no-cache").returncode == 1


DOCSTRING_PACKAGE = '''"""A module whose docstring is made from another file when it is imported."""

import os


def step(x):
    return x + 1


with open(os.path.join(os.path.dirname(__file__), "doc.txt")) as text:
    step.__doc__ = text.read()
'''


def test_a_docstring_read_from_a_data_file_at_import_is_collected_again(tmp_path: Path) -> None:
    package = tmp_path / "src" / "madedoc"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(DOCSTRING_PACKAGE, "utf-8")
    (package / "doc.txt").write_text("One more.\n\n>>> step(1)\n2\n", "utf-8")
    conf = (
        CACHED + 'jaxcheck_doctest_modules = ["madedoc"]\n'
        f'jaxcheck_env = {{"JAX_PLATFORMS": "cpu", "PYTHONPATH": {str(tmp_path / "src")!r}}}\n'
    )
    root = write_project(tmp_path / "docs", {}, conf=conf)
    assert checks(root) == 0
    (package / "doc.txt").write_text("One more.\n\n>>> step(1)\n3\n", "utf-8")
    assert checks(root) == 1


def test_an_edited_sitecustomize_on_the_workers_path_runs_the_sessions_again(
    tmp_path: Path,
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    custom = site / "sitecustomize.py"
    custom.write_text("import builtins\nbuiltins.GREETING = 'hello'\n", "utf-8")
    page = "# Page\n\n```{jaxcheck}\nprint(GREETING)\n\n# hello\n```\n"
    conf = CACHED + f'jaxcheck_env = {{"JAX_PLATFORMS": "cpu", "PYTHONPATH": {str(site)!r}}}\n'
    root = write_project(tmp_path / "docs", {"page.md": page}, conf=conf)
    assert checks(root) == 0
    custom.write_text("import builtins\nbuiltins.GREETING = 'bye'\n", "utf-8")
    stamp = custom.stat().st_mtime + 5  # a later time, as an editor's save would give
    os.utime(custom, (stamp, stamp))
    assert checks(root) == 1


def test_a_data_file_a_block_reads_is_an_input(tmp_path: Path) -> None:
    import numpy as np

    page = "# Page\n\n```{jaxcheck}\nimport numpy as np\n\nprint(np.load('data.npy'))\n"
    root = write_project(tmp_path / "docs", {"page.md": page + "\n# [1 2]\n```\n"}, conf=CACHED)
    np.save(root / "data.npy", np.array([1, 2]))
    assert checks(root) == 0
    np.save(root / "data.npy", np.array([1, 3]))
    assert checks(root) == 1
