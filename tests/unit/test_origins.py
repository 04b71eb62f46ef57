"""rewrite/origins.py: which file a notebook page was copied from, by what git says of the page
and which tracked files hold its bytes (real files and a real git, in tmp_path)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from sphinx_jaxcheck.rewrite.origins import Origin, Origins

NOTEBOOK = '{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n'


def checkout(root: Path, files: dict[str, str], ignored: str = "") -> Path:
    """A git checkout holding ``files`` (added to git) and ignoring ``ignored``."""
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    (root / ".gitignore").write_text(ignored, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(root)], check=True, capture_output=True)
    subprocess.run(["git", "-C", str(root), "add", "."], check=True, capture_output=True)
    return root


def page(root: Path, name: str, text: str = NOTEBOOK) -> str:
    """A page written after git was told of the checkout's files (so git does not track it)."""
    path = root / "docs" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_an_untracked_page_is_a_copy_of_the_one_tracked_file_with_its_bytes(
    tmp_path: Path,
) -> None:
    # Same size, other bytes: read, and not taken.
    other = NOTEBOOK.replace("5", "4")
    root = checkout(tmp_path, {"examples/nb.ipynb": NOTEBOOK, "examples/b.ipynb": other})
    copy = page(root, "_collections/nb.ipynb")
    assert Origins(str(root / "docs")).of(copy) == Origin(str(root / "examples/nb.ipynb"), copy)


def test_a_tracked_page_is_its_own_source_even_with_a_twin(tmp_path: Path) -> None:
    root = checkout(tmp_path, {"examples/nb.ipynb": NOTEBOOK, "docs/nb.ipynb": NOTEBOOK})
    own = str(root / "docs" / "nb.ipynb")
    assert Origins(str(root / "docs")).of(own) == Origin(own)


def test_a_new_page_git_does_not_ignore_is_its_own_source(tmp_path: Path) -> None:
    root = checkout(tmp_path, {"examples/nb.ipynb": NOTEBOOK})
    new = page(root, "new.ipynb", NOTEBOOK.replace("[]", "[ ]"))
    assert Origins(str(root / "docs")).of(new) == Origin(new)


def test_an_ignored_page_no_tracked_file_matches_is_refused(tmp_path: Path) -> None:
    root = checkout(tmp_path, {"examples/nb.ipynb": NOTEBOOK}, ignored="docs/_collections/\n")
    copy = page(root, "_collections/nb.ipynb", NOTEBOOK.replace("[]", "[ ]"))
    found = Origins(str(root / "docs")).of(copy)
    assert (found.path, found.copy) == (copy, "")
    assert found.refusal.startswith(
        "the page docs/_collections/nb.ipynb is a copy (git ignores it: the build makes it) and "
        "no file git tracks holds its bytes"
    )


def test_a_copy_several_tracked_files_match_is_refused_naming_them(tmp_path: Path) -> None:
    root = checkout(tmp_path, {"examples/nb.ipynb": NOTEBOOK, "archive/nb.ipynb": NOTEBOOK})
    copy = page(root, "_collections/nb.ipynb")
    found = Origins(str(root / "docs")).of(copy)
    assert (found.path, found.copy) == (copy, "")
    assert "2 files git tracks hold its bytes: archive/nb.ipynb, examples/nb.ipynb;" in (
        found.refusal
    )


def test_outside_a_checkout_every_page_is_its_own_source(tmp_path: Path) -> None:
    (tmp_path / "examples").mkdir()
    (tmp_path / "examples" / "nb.ipynb").write_text(NOTEBOOK, encoding="utf-8")
    copy = page(tmp_path, "_collections/nb.ipynb")
    assert Origins(str(tmp_path / "docs")).of(copy) == Origin(copy)
