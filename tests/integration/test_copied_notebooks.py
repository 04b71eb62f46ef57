"""Notebooks copied into the docs while the build runs (sphinx-collections' way, a copy step
in conf.py): findings name the project's own notebook, the one with the same bytes, and
``jaxcheck update`` rewrites it; with no such file, or several, update refuses and says why
(guide/notebooks)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
from pathlib import Path

import nbformat
import pytest
from buildkit import jaxcheck_here, write_project
from notebooks import code, markdown, notebook_text, result, stdout

pytestmark = [
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
    source = os.path.join(app.confdir, "..", "examples")
    shutil.copytree(source, os.path.join(app.srcdir, "_collections"))

def _clean(app, exception):
    shutil.rmtree(os.path.join(app.srcdir, "_collections"))

def setup(app):
    app.connect("builder-inited", _collect)
    app.connect("build-finished", _clean)
"""
REPO = Path(__file__).parents[2]
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
    """The line of a notebook's file that holds a one-line source."""
    lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    return lines.index(f'"{text}"') + 1


@pytest.mark.stack
def test_a_copy_made_as_the_builder_starts_is_reported_and_updated_at_its_origin(
    tmp_path: Path,
) -> None:
    root = project(tmp_path, COLLECTIONS, {"examples/nb.ipynb": NOTEBOOK})
    origin = root / "examples" / "nb.ipynb"
    checked = jaxcheck_here("check", "docs", "--format", "json", cwd=root)
    report = json.loads(checked.stdout)
    (finding,) = report["findings"]
    assert (finding["path"], finding["line"]) == (
        "examples/nb.ipynb",
        line_of(origin, "print(x * 3)"),
    )
    assert finding["message"].startswith("nb.ipynb:cell 3: the outputs it stores are stale")
    assert finding["updatable"], finding
    assert not (root / "docs" / "_collections").exists()  # the build deleted its copy

    done = jaxcheck_here("update", "docs", cwd=root)
    assert done.returncode == 0, done.stderr
    assert "rewrote 1 expectation(s) in 1 file(s)" in done.stderr
    node = nbformat.reads(origin.read_text(encoding="utf-8"), as_version=4)
    nbformat.validate(node)
    assert node.cells[3].outputs[0]["text"] == "60\n"
    again = jaxcheck_here("check", "docs", cwd=root)
    assert again.returncode == 0, again.stdout + again.stderr


# A copy step in conf.py itself, kept after the build (as nbsphinx projects do).
COPY_STEP = """
import shutil
shutil.copytree("../examples", "_collections", dirs_exist_ok=True)
"""
# A copy step that changes what it copies: no file of the project holds the copy's bytes.
CHANGING_COPY = """
import json, os
os.makedirs("_collections", exist_ok=True)
with open("../examples/nb.ipynb") as read, open("_collections/nb.ipynb", "w") as written:
    json.dump(json.load(read), written, indent=2)
"""


def test_a_copy_made_by_conf_py_is_reported_and_updated_at_its_origin(tmp_path: Path) -> None:
    root = project(tmp_path, COPY_STEP, {"examples/nb.ipynb": NOTEBOOK})
    origin, copy = root / "examples" / "nb.ipynb", root / "docs" / "_collections" / "nb.ipynb"
    checked = json.loads(jaxcheck_here("check", "docs", "--format", "json", cwd=root).stdout)
    assert [(f["path"], f["line"]) for f in checked["findings"]] == [
        ("examples/nb.ipynb", line_of(origin, "print(x * 3)"))
    ]
    done = jaxcheck_here("update", "docs", cwd=root)
    assert done.returncode == 0, done.stderr
    node = nbformat.reads(origin.read_text(encoding="utf-8"), as_version=4)
    nbformat.validate(node)
    assert node.cells[3].outputs[0]["text"] == "60\n"
    assert copy.read_text(encoding="utf-8") == NOTEBOOK  # the copy is the build's: left alone


def notebooks(root: Path) -> dict[Path, bytes]:
    """The project's notebooks and their copies, as they are now (not the build's own)."""
    return {p: p.read_bytes() for p in root.rglob("*.ipynb") if "_build" not in p.parts}


def refused(root: Path) -> tuple[dict[str, object], str]:
    """The one finding of a check, and what update says of it (it must write nothing)."""
    (finding,) = json.loads(jaxcheck_here("check", "docs", "--format", "json", cwd=root).stdout)[
        "findings"
    ]
    before = notebooks(root)
    done = jaxcheck_here("update", "docs", cwd=root)
    assert done.returncode == 1, done.stderr
    assert notebooks(root) == before
    (line,) = [line for line in done.stderr.splitlines() if ": cannot update: " in line]
    return finding, line.replace(f"{root}{os.sep}", "")


def test_update_refuses_a_copy_no_file_of_the_project_matches(tmp_path: Path) -> None:
    root = project(
        tmp_path, CHANGING_COPY, {"examples/nb.ipynb": NOTEBOOK}, ignored="docs/_collections/\n"
    )
    finding, said = refused(root)
    copy = root / "docs" / "_collections" / "nb.ipynb"
    assert (finding["path"], finding["updatable"]) == ("docs/_collections/nb.ipynb", False)
    assert finding["line"] == line_of(copy, "print(x * 3)")
    assert said in guide_texts(), said
    assert str(finding["refusal"]) in said


def test_update_refuses_a_copy_several_files_of_the_project_match(tmp_path: Path) -> None:
    examples = {"examples/nb.ipynb": NOTEBOOK, "archive/nb.ipynb": NOTEBOOK}
    root = project(tmp_path, COLLECTIONS, examples)
    finding, said = refused(root)
    assert (finding["path"], finding["updatable"]) == ("docs/_collections/nb.ipynb", False)
    assert said in guide_texts(), said
    assert "archive/nb.ipynb, examples/nb.ipynb" in said


def guide_texts() -> str:
    """The ``text`` blocks of the guide's Notebooks page, together."""
    page = (REPO / "demo_docs" / "guide" / "notebooks.md").read_text("utf-8")
    return "\n".join(re.findall(r"^```text\n(.*?)\n```$", page, re.MULTILINE | re.DOTALL))
