"""The build's own folders inside the source folder are never read as pages, whatever
``exclude_patterns`` says: repeated builds read the same documents."""

from __future__ import annotations

from pathlib import Path

import pytest
from buildkit import build, jaxcheck, write_project

# In the compatibility part, run on every supported Sphinx (tox -e sphinx73 ...).
pytestmark = pytest.mark.stack

GOOD = "# Good\n\n```{jaxcheck}\nprint(2 * 3)\n\n# 6\n```\n"
# What a page copied into a build folder would hold, were it read: a block that fails.
COPIED = "# Copied\n\n```{jaxcheck}\nprint(2 + 2)\n\n# 5\n```\n"
NOT_EXCLUDED = "exclude_patterns = []\n"  # as numpyro's conf.py: _build is read like any folder


def test_two_checks_read_the_same_documents_when_the_build_folder_is_not_excluded(
    tmp_path: Path,
) -> None:
    root = write_project(tmp_path / "docs", {"good.md": GOOD}, conf=NOT_EXCLUDED)
    first = jaxcheck("check", root)
    assert first.returncode == 0, first.stdout + first.stderr
    # As nbsphinx copies every notebook into the doctree folder.
    build_dir = root / "_build" / "jaxcheck"
    for folder in ("doctrees/nbsphinx", "out"):
        (build_dir / folder).mkdir(parents=True, exist_ok=True)
        (build_dir / folder / "copied.md").write_text(COPIED, encoding="utf-8")
    second = jaxcheck("check", root)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "jaxcheck: 1 block(s): 1 verified, 0 stale, 0 failed" in second.stdout
    assert "toctree" not in second.stderr


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
