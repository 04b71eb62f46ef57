"""Docstrings of re-exported objects, as dm-haiku and JAX document them: each example reported
at its own ``.py`` line and rewritten there by ``jaxcheck update``.

The package defines its API in ``pkg/_src/base.py`` (two-space indentation,
as haiku's source) and re-exports it from ``pkg/__init__.py``; the page
documents the public names (``.. autofunction:: pkg.with_rng``), while
autodoc's nodes name where the objects are defined
(``pkg._src.base.with_rng``). Real git checkout, real Sphinx, real workers,
the real command line in a fresh process.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from buildkit import jaxcheck
from packages import REEXPORTED_PACKAGE, write_package

REPO = Path(__file__).resolve().parents[2]
PAGE = """\
API
===

.. autofunction:: pkg.with_rng

.. autoclass:: pkg.Module
   :members:

.. autoclass:: pkg.Extended

.. autoclass:: pkg.Partial

.. autofunction:: pkg.assigned
"""
# What a docstring placed nowhere is reported with (under either rules).
NOWHERE = re.compile(r"not found in a Python file|not the documented object|not a string literal")


def project(root: Path, extensions: list[str]) -> tuple[Path, dict[str, str]]:
    """A git checkout holding ``pkg`` and ``docs``; returns the docs folder and the commands'
    environment."""
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    write_package(root, "pkg", REEXPORTED_PACKAGE)
    docs = root / "docs"
    docs.mkdir()
    (docs / "conf.py").write_text(
        f'extensions = {extensions!r}\nexclude_patterns = ["_build"]\n'
        'jaxcheck_doctests = "check"\n',
        "utf-8",
    )
    (docs / "index.rst").write_text(PAGE, "utf-8")
    path = os.pathsep.join(map(str, (root, REPO)))
    return docs, {**os.environ, "PYTHONPATH": path, "JAX_PLATFORMS": "cpu", "NO_COLOR": "1"}


def example_lines(base: Path) -> list[int]:
    """The lines of ``base.py`` that start an example the page shows (``Made``'s is no line of
    its own, and the page does not show it)."""
    lines = base.read_text("utf-8").splitlines()
    return [n for n, line in enumerate(lines, 1) if line.lstrip().startswith(">>>")]


def check(docs: Path, env: dict[str, str]) -> tuple[int, dict[str, Any]]:
    done = jaxcheck("check", docs, "--format", "json", cwd=docs, env=env)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


@pytest.mark.parametrize("rules", ["sphinx.ext.doctest", "pytest"])
def test_each_example_of_a_re_exported_docstring_is_at_its_py_line_and_updated_there(
    tmp_path: Path, rules: str
) -> None:
    extensions = ["sphinx.ext.autodoc", "sphinx_jaxcheck"]
    if rules == "sphinx.ext.doctest":
        extensions.insert(1, "sphinx.ext.doctest")
    docs, env = project(tmp_path / "project", extensions)
    base = tmp_path / "project" / "pkg" / "_src" / "base.py"
    status, report = check(docs, env)
    assert status == 1
    examples = report["examples"]
    assert {(docs / e["path"]).resolve() for e in examples} == {base.resolve()}  # as cwd says
    # One line each, the line its `>>>` is written on: none shares its docstring's line.
    assert sorted(e["line"] for e in examples) == example_lines(base)
    (stale,) = [e for e in examples if e["status"] != "verified"]
    assert base.read_text("utf-8").splitlines()[stale["line"] - 1] == '  >>> print("drift")'
    (finding,) = report["findings"]
    assert finding["updatable"] is True and not NOWHERE.search(finding["message"])

    done = jaxcheck("update", docs, cwd=docs, env=env)
    assert done.returncode == 0, done.stderr
    assert '  >>> print("drift")\n  drift\n' in base.read_text("utf-8")
    assert check(docs, env)[0] == 0


def test_the_page_marks_no_re_exported_docstring_as_placed_nowhere(tmp_path: Path) -> None:
    """Under pytest's rules each node showing a docstring's examples renders their verdicts,
    none "not run"."""
    docs, env = project(tmp_path / "project", ["sphinx.ext.autodoc", "sphinx_jaxcheck"])
    out = tmp_path / "html"
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-q", str(docs), str(out)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 1, done.stderr  # the stale example
    html = (out / "index.html").read_text("utf-8")
    assert "not run ·" not in html
    assert not NOWHERE.search(html)
