"""sphinx.ext.doctest's directives, checked by jaxcheck with that extension's verdicts.

The oracle is Sphinx's own ``-b doctest`` builder on the same page: it counts
the tests and the failing ones; ``jaxcheck check`` must list as many examples
and as many drifts, at the lines where they stand. One page holds every
directive (``doctest``, ``testcode``/``testoutput``, ``testsetup``/``testcleanup``,
groups, ``:options:``, an expected exception), passing and stale ones.
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
from buildkit import jaxcheck_here

# In the compatibility part, run on every supported Sphinx (tox -e sphinx73 ...).
pytestmark = pytest.mark.stack

REPO = Path(__file__).resolve().parents[2]
# sphinx.ext.doctest's default
FLAGS = '["ELLIPSIS", "IGNORE_EXCEPTION_DETAIL", "DONT_ACCEPT_TRUE_FOR_1"]'
PAGE = """\
Page
====

.. testsetup::

   import math
   base = 10

.. doctest::

   >>> base + 1
   11
   >>> math.pi
   3.14...

.. testcode::

   x = base * 2
   print(x)
   print("two lines")

.. testoutput::

   20
   two lines

.. testcode:: other

   print(globals().get("base", "no base here"))

.. testoutput:: other

   no base here

.. doctest::
   :options: +NORMALIZE_WHITESPACE

   >>> print("a    b")
   a b

.. testcode::

   raise ValueError("bad value")

.. testoutput::

   Traceback (most recent call last):
     ...
   ValueError: some other detail

.. testcode::

   print(base + 2)
   print()
   print("after an empty line")

.. testoutput::

   13

.. doctest:: other

   >>> base = 1
   >>> base * 3  # doctest: +SKIP
   31
   >>> True
   1

.. doctest::

   >>> base * 3
   31
"""
# The examples above that drift, by the line of their code.
STALE = {53, 66, 71}
SKIPPED = {64}


def run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )


def project(root: Path, extensions: str) -> Path:
    root.mkdir()
    (root / "index.rst").write_text(PAGE, "utf-8")
    (root / "conf.py").write_text(
        f"extensions = {extensions}\nexclude_patterns = ['_build']\n"
        f"jaxcheck_doctests = 'check'\njaxcheck_doctest_flags = {FLAGS}\njaxcheck_cache = False\n",
        "utf-8",
    )
    return root


def sphinx_doctest(root: Path) -> tuple[int, int]:
    """(tests, failures) as sphinx-build -b doctest counts them."""
    done = run(["-m", "sphinx", "-q", "-b", "doctest", ".", "_build/doctest"], root)
    text = (root / "_build" / "doctest" / "output.txt").read_text("utf-8")
    found = re.search(r"(\d+) tests?\n\s+(\d+) failures? in tests", text)
    assert found, text + done.stderr
    return int(found.group(1)), int(found.group(2))


def jaxcheck(root: Path, command: str = "check") -> tuple[int, dict[str, Any]]:
    done = jaxcheck_here(
        command, ".", *(["--format", "json"] if command == "check" else []), cwd=root
    )
    return done.returncode, json.loads(done.stdout) if command == "check" else {}


@pytest.fixture(scope="module")
def with_extension(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return project(
        tmp_path_factory.mktemp("sd") / "with", '["sphinx.ext.doctest", "sphinx_jaxcheck"]'
    )


@pytest.fixture(scope="module")
def checked(with_extension: Path) -> tuple[int, dict[str, Any]]:
    return jaxcheck(with_extension)


def test_the_same_tests_fail_as_with_sphinx_doctest(
    with_extension: Path, checked: tuple[int, dict[str, Any]]
) -> None:
    status, report = checked
    tests, failures = sphinx_doctest(with_extension)
    examples = report["examples"]
    assert status == 1
    assert failures == len(STALE)
    assert sum(1 for e in examples if e["status"] == "stale") == failures
    # sphinx.ext.doctest does not count skipped examples as tests.
    assert sum(1 for e in examples if e["status"] != "skipped") == tests
    assert {e["line"] for e in examples if e["status"] == "stale"} == STALE
    assert {e["line"] for e in examples if e["status"] == "skipped"} == SKIPPED
    assert {f["line"] for f in report["findings"]} == STALE
    (testcode,) = [f for f in report["findings"] if f["line"] == 53]
    assert "the output of this testcode (its testoutput) is stale" in testcode["message"]


def test_without_the_extension_the_directives_are_ours_and_judged_the_same(
    tmp_path: Path, checked: tuple[int, dict[str, Any]]
) -> None:
    root = project(tmp_path / "without", '["sphinx_jaxcheck"]')
    status, report = jaxcheck(root)
    assert status == checked[0]
    assert report["examples"] == checked[1]["examples"]


def test_update_rewrites_the_stale_outputs_and_then_both_pass(tmp_path: Path) -> None:
    root = project(tmp_path / "update", '["sphinx.ext.doctest", "sphinx_jaxcheck"]')
    assert run(["-m", "sphinx_jaxcheck", "update", "."], root).returncode == 0
    text = (root / "index.rst").read_text("utf-8")
    assert (
        "\n   12\n\n   after an empty line\n" in text
    )  # an empty line stays empty in a testoutput
    assert "\n   30\n" in text and "\n   True\n" in text
    assert "\n   31\n" in text  # the skipped example keeps its output
    status, report = jaxcheck(root)
    assert status == 0, report["findings"]
    assert sphinx_doctest(root)[1] == 0


PACKAGE = '''\
"""A package whose docstrings hold examples.

>>> 1 + 1
2
"""


def double(x):
    """Double a number.

    >>> double(2)
    4
    >>> double(3)
    7
    """
    return 2 * x
'''
API_PAGE = """\
API
===

>>> from mypkg import double

.. automodule:: mypkg
   :members:
"""


def test_docstring_examples_are_checked_and_reported_at_the_python_line(tmp_path: Path) -> None:
    root = tmp_path / "api"
    (root / "mypkg").mkdir(parents=True)
    (root / "mypkg" / "__init__.py").write_text(PACKAGE, "utf-8")
    (root / "index.rst").write_text(API_PAGE, "utf-8")
    (root / "conf.py").write_text(
        "import os, sys\nsys.path.insert(0, os.path.dirname(__file__))\n"
        "extensions = ['sphinx.ext.autodoc', 'sphinx_jaxcheck']\nexclude_patterns = ['_build']\n"
        "jaxcheck_doctests = 'check'\njaxcheck_cache = False\n",
        "utf-8",
    )
    status, report = jaxcheck(root)
    assert status == 1
    found = {(Path(e["path"]).name, e["line"], e["status"]) for e in report["examples"]}
    assert found == {
        ("index.rst", 4, "verified"),
        ("__init__.py", 3, "verified"),
        ("__init__.py", 11, "verified"),
        ("__init__.py", 13, "stale"),
    }
    (finding,) = report["findings"]
    assert (Path(finding["path"]).name, finding["line"], finding["subtype"]) == (
        "__init__.py",
        13,
        "drift",
    )
    # No version-control checkout holds the project: no Python file is the project's own, so
    # the check says why update will not rewrite it, as update does.
    assert "is in no version-control checkout" in finding["message"].splitlines()[-1]
    assert finding["updatable"] is False
    before = (root / "mypkg" / "__init__.py").read_bytes()
    done = run(["-m", "sphinx_jaxcheck", "update", "."], root)
    assert done.returncode == 1
    assert "is in no version-control checkout (no .git in it or above it)" in done.stderr
    assert (root / "mypkg" / "__init__.py").read_bytes() == before
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    done = run(["-m", "sphinx_jaxcheck", "update", "."], root)
    assert done.returncode == 0, done.stderr
    assert (root / "mypkg" / "__init__.py").read_bytes() == before.replace(b"    7\n", b"    6\n")


def test_spaces_ending_an_output_line_count_as_sphinx_doctest_reads_them(tmp_path: Path) -> None:
    # docutils drops them from a directive's text, so the spaces the page holds do not match
    # the spaces the example prints: both examples fail in sphinx.ext.doctest.
    root = project(tmp_path / "spaces", '["sphinx.ext.doctest", "sphinx_jaxcheck"]')
    (root / "index.rst").write_text(
        "Spaces\n======\n\n.. doctest::\n\n   >>> print('b  ')\n   b  \n\n"
        ".. doctest::\n\n   >>> print('c  ')\n   c\n",
        "utf-8",
    )
    assert sphinx_doctest(root) == (2, 2)
    status, report = jaxcheck(root)
    assert status == 1
    assert [(e["line"], e["status"]) for e in report["examples"]] == [(6, "stale"), (11, "stale")]
