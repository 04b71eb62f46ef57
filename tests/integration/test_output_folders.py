"""The build's own folders inside the source folder are never read as pages, whatever
``exclude_patterns`` says: repeated builds read the same documents."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from buildkit import HTML, build, jaxcheck_here, sphinx_build, write_project
from notebooks import code, markdown, result, write_notebook

GOOD = "# Good\n\n```{jaxcheck}\nprint(2 * 3)\n\n# 6\n```\n"
# What a page copied into a build folder would hold, were it read: a block that fails.
COPIED = "# Copied\n\n```{jaxcheck}\nprint(2 + 2)\n\n# 5\n```\n"
NOT_EXCLUDED = "exclude_patterns = []\n"  # as numpyro's conf.py: _build is read like any folder


@pytest.mark.stack
def test_two_checks_read_the_same_documents_when_the_build_folder_is_not_excluded(
    tmp_path: Path,
) -> None:
    root = write_project(tmp_path / "docs", {"good.md": GOOD}, conf=NOT_EXCLUDED)
    first = jaxcheck_here("check", root)
    assert first.returncode == 0, first.stdout + first.stderr
    # As nbsphinx copies every notebook into the doctree folder.
    build_dir = root / "_build" / "jaxcheck"
    for folder in ("doctrees/nbsphinx", "out"):
        (build_dir / folder).mkdir(parents=True, exist_ok=True)
        (build_dir / folder / "copied.md").write_text(COPIED, encoding="utf-8")
    second = jaxcheck_here("check", root)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "jaxcheck: 1 block(s): 1 verified, 0 stale, 0 failed" in second.stdout
    assert "toctree" not in second.stderr


@pytest.mark.stack
def test_a_plain_sphinx_build_leaves_its_own_folders_out_too(tmp_path: Path) -> None:
    root = write_project(tmp_path / "docs", {"good.md": GOOD}, conf=NOT_EXCLUDED)
    first = build(root, "html")
    doctrees = Path(first.app.doctreedir)
    assert doctrees.is_relative_to(root)
    (doctrees / "nbsphinx").mkdir()
    (doctrees / "nbsphinx" / "copied.md").write_text(COPIED, encoding="utf-8")
    (Path(first.app.outdir) / "copied.md").write_text(COPIED, encoding="utf-8")
    second = build(root, "html")
    assert second.status == 0, second.warnings
    assert (
        sorted(second.app.env.found_docs)
        == sorted(first.app.env.found_docs)
        == [
            "good",
            "index",
        ]
    )


@pytest.mark.stack
def test_a_build_folder_named_inside_the_sources_is_never_read(tmp_path: Path) -> None:
    root = write_project(tmp_path / "docs", {"good.md": GOOD}, conf=NOT_EXCLUDED)
    build_dir = root / "checks"
    assert jaxcheck_here("check", root, "--build-dir", build_dir).returncode == 0
    (build_dir / "copied.md").write_text(COPIED, encoding="utf-8")  # as a tool writing there
    second = jaxcheck_here("check", root, "--build-dir", build_dir)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "jaxcheck: 1 block(s): 1 verified, 0 stale, 0 failed" in second.stdout


@pytest.mark.stack
def test_no_folder_jaxcheck_or_pytest_writes_is_read_by_a_plain_build(tmp_path: Path) -> None:
    conf = NOT_EXCLUDED + 'jaxcheck_cache = True\njaxcheck_cache_dir = "ci-cache"\n'
    root = write_project(tmp_path / "docs", {"good.md": GOOD}, conf=conf)
    written = [
        "_build/jaxcheck/out",  # the commands' build folder, a sphinx-build after a check
        ".jaxcheck_cache",  # the cache where it is by default
        "ci-cache",  # and where conf.py puts it
        "guide/.pytest_cache",  # pytest run in a folder of the sources
    ]
    for folder in written:
        (root / folder).mkdir(parents=True)
        (root / folder / "copied.md").write_text(COPIED, encoding="utf-8")
    done = build(root, "html")
    assert done.status == 0, done.warnings
    assert sorted(done.app.env.found_docs) == ["good", "index"]


NOTEBOOK_CONF = (
    'extensions = ["myst_nb", "sphinx_jaxcheck"]\n'
    'source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}\n'
    + NOT_EXCLUDED
)
needs_myst_nb = pytest.mark.skipif(
    importlib.util.find_spec("myst_nb") is None,
    reason="MyST-NB renders the notebook pages: pip install 'sphinx-jaxcheck[test]'",
)


def one_cell_notebook(root: Path, stored: str) -> Path:
    """A MyST-NB project of one notebook with one code cell, ``1 + 1``, storing ``stored``."""
    root.mkdir(parents=True)
    (root / "conf.py").write_text(NOTEBOOK_CONF, encoding="utf-8")
    (root / "index.md").write_text("# Notebooks\n\n```{toctree}\nnb\n```\n", encoding="utf-8")
    write_notebook(root / "nb.ipynb", markdown("# A notebook"), code("1 + 1", result(stored)))
    return root


@pytest.mark.stack
@needs_myst_nb
def test_myst_nb_copies_of_notebooks_are_not_read_by_the_next_check(tmp_path: Path) -> None:
    root = one_cell_notebook(tmp_path / "docs", "2")
    for _ in range(3):
        done = jaxcheck_here("check", root, "--no-cache")
        assert done.returncode == 0, done.stdout + done.stderr
        assert "jaxcheck: 1 block(s): 1 verified, 0 stale, 0 failed" in done.stdout
        assert "toctree" not in done.stderr
    # MyST-NB wrote its copy beside the output folder: there, and never read.
    assert (root / "_build" / "jaxcheck" / "jupyter_execute" / "nb.ipynb").exists()


@needs_myst_nb
def test_a_check_after_update_of_a_notebook_passes(tmp_path: Path) -> None:
    root = one_cell_notebook(tmp_path / "docs", "3")
    assert jaxcheck_here("check", root).returncode == 1
    updated = jaxcheck_here("update", root)
    assert updated.returncode == 0, updated.stdout + updated.stderr
    again = jaxcheck_here("check", root)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "jaxcheck: 1 block(s): 1 verified, 0 stale, 0 failed" in again.stdout


def test_pytest_in_the_source_folder_leaves_no_page_for_the_next_build(tmp_path: Path) -> None:
    root = write_project(tmp_path / "docs", {"good.md": GOOD})
    # The user's own pytest, not the xdist worker running this test.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:xdist", "--jaxcheck", "."],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    readme = root / ".pytest_cache" / "README.md"
    if not readme.exists():  # a pytest whose cache stored nothing this run: as it would leave it
        readme.parent.mkdir(exist_ok=True)
        readme.write_text("# pytest cache directory #\n\nThis directory contains data.\n")
    done = sphinx_build(*HTML, "-W", root, tmp_path / "html")
    assert done.returncode == 0, done.stderr
