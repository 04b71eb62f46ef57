"""Notebooks copied into the docs while the build runs (sphinx-collections' way, a copy step
in conf.py): findings name the project's own notebook, the one with the same bytes, and
``jaxcheck update`` rewrites it; with no such file, or several, update refuses and says why
(guide/notebooks)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path

import nbformat
import pytest
from buildkit import jaxcheck, write_project
from notebooks import code, markdown, notebook_text, result, stdout

pytestmark = [
    pytest.mark.stack,
    pytest.mark.skipif(
        importlib.util.find_spec("myst_nb") is None,
        reason="MyST-NB renders the notebook pages: pip install 'sphinx-jaxcheck[test]'",
    ),
]
CONF = (
    'extensions = ["myst_nb", "sphinx_jaxcheck"]\n'
    'source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}\n'
    'exclude_patterns = ["_build"]\n'
    "jaxcheck_cache = False\n"
)
# As sphinx-collections does: the examples copied in as the builder starts, deleted at the end.
COLLECTIONS = """
import os, shutil

def _collect(app):
    shutil.copytree(os.path.join(app.confdir, "..", "examples"), os.path.join(app.srcdir, "_collections"))

def _clean(app, exception):
    shutil.rmtree(os.path.join(app.srcdir, "_collections"))

def setup(app):
    app.connect("builder-inited", _collect)
    app.connect("build-finished", _clean)
"""
INDEX = "# Examples\n\n```{toctree}\n_collections/nb\n```\n"
NOTEBOOK = notebook_text(
    markdown("# A notebook"),
    code("x = 20"),
    code("x + 1", result("21")),
    code("print(x * 3)", stdout("59\n")),
)


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def project(tmp_path: Path, conf: str, notebooks: dict[str, str], ignored: str = "") -> Path:
    """A git checkout: the examples (added to git), and the docs that copy them in."""
    root = tmp_path / "project"
    for name, text in notebooks.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    write_project(root / "docs", {"index.md": INDEX}, conf=CONF + conf)
    (root / ".gitignore").write_text(ignored + "_build/\n", encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", ".")
    return root


def line_of(path: Path, text: str) -> int:
    return path.read_text(encoding="utf-8").splitlines().index(f'    "{text}"') + 1


def test_a_copy_made_as_the_builder_starts_is_reported_and_updated_at_its_origin(
    tmp_path: Path,
) -> None:
    root = project(tmp_path, COLLECTIONS, {"examples/nb.ipynb": NOTEBOOK})
    origin = root / "examples" / "nb.ipynb"
    checked = jaxcheck("check", "docs", "--format", "json", cwd=root)
    report = json.loads(checked.stdout)
    (finding,) = report["findings"]
    assert (finding["path"], finding["line"]) == (
        "examples/nb.ipynb",
        line_of(origin, "print(x * 3)"),
    )
    assert finding["message"].startswith("nb.ipynb:cell 3: the outputs it stores are stale")
    assert finding["updatable"], finding
    assert not (root / "docs" / "_collections").exists()  # the build deleted its copy

    done = jaxcheck("update", "docs", cwd=root)
    assert done.returncode == 0, done.stderr
    assert "rewrote 1 expectation(s) in 1 file(s)" in done.stderr
    node = nbformat.reads(origin.read_text(encoding="utf-8"), as_version=4)
    nbformat.validate(node)
    assert node.cells[3].outputs[0]["text"] == "60\n"
    again = jaxcheck("check", "docs", cwd=root)
    assert again.returncode == 0, again.stdout + again.stderr
