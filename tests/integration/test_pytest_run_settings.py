"""Settings a project's own doctest run has, on real builds: a timeout of an example's own,
and pytest's ``filterwarnings``, judged by pytest and ``sphinx-build -b doctest`` themselves.

``jaxcheck check --format json`` in a fresh process over a small package
(``jaxcheck_doctest_modules``) and a page. The timeouts are small numbers: an
example that sleeps 3 s under a default of 1 s passes only where its own
comment raises its limit. The warning filters go into a ``pytest.ini`` for
``pytest --doctest-modules`` / ``--doctest-glob`` over the same files, whose
verdicts ours must equal; pages under ``sphinx.ext.doctest``'s rules get no
filters, as ``make doctest`` applies none.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from buildkit import jaxcheck, sphinx_build
from doctest_oracle import agree, jaxcheck_verdicts, pytest_verdicts
from packages import write_package

REPO = Path(__file__).resolve().parents[2]

SLOW = '''\
"""Examples that take longer than the project's default timeout."""


def given_longer():
    """Waits, having said it may.

    >>> # jaxcheck: timeout 120
    >>> import time
    >>> time.sleep(3)
    >>> print("done")
    done
    """


def not_given_longer():
    """Waits as long, under the default.

    >>> import time
    >>> time.sleep(3)
    >>> print("done")
    done
    """
'''
SLOW_PAGE = """\
Slow
====

.. testcode:: slow

   # jaxcheck: timeout 120
   import time
   time.sleep(3)
   print("done")

.. testoutput:: slow

   done

.. doctest:: quick

   >>> import time
   >>> time.sleep(3)
"""
WARNS = '''\
"""Examples that warn."""


def deprecated():
    """A deprecated API, used.

    >>> import warnings
    >>> warnings.warn("deprecated() is deprecated", DeprecationWarning)
    >>> print("after")
    after
    """


def noisy():
    """A user warning.

    >>> import warnings
    >>> warnings.warn("noisy output", UserWarning)
    >>> 1 + 1
    2
    """
'''
WARNING_PAGE = """\
Warns
=====

.. doctest::

   >>> import warnings
   >>> warnings.warn("old", DeprecationWarning)
   >>> print("after")
   after
"""


def check(
    root: Path, conf: str, pages: dict[str, str], package: Path
) -> tuple[int, dict[str, Any]]:
    """``jaxcheck check ROOT --format json`` of a project with ``conf`` and ``pages``, the
    package's folder on the workers' path."""
    root.mkdir(parents=True)
    (root / "conf.py").write_text(
        'exclude_patterns = ["_build"]\njaxcheck_doctests = "check"\n' + conf, "utf-8"
    )
    for name, text in {"index.rst": "Index\n=====\n", **pages}.items():
        (root / name).write_text(text, "utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(package), str(REPO)))}
    done = jaxcheck("check", root, "--format", "json", cwd=root, env=env)
    try:
        return done.returncode, json.loads(done.stdout)
    except ValueError:
        pytest.fail(f"no report (exit {done.returncode}):\n{done.stdout}\n{done.stderr}")


def statuses(report: dict[str, Any], file: str) -> list[tuple[int, str]]:
    """(line, status) of each example in ``file``."""
    return sorted((e["line"], e["status"]) for e in report["examples"] if e["path"].endswith(file))


def line_of(text: str, wanted: str, after: str = "") -> int:
    """The 1-based line of the first line holding ``wanted`` after the one holding ``after``."""
    lines = text.splitlines()
    start = next(n for n, line in enumerate(lines) if after in line)
    return next(n for n, line in enumerate(lines) if n >= start and wanted in line) + 1


def test_an_example_that_says_it_needs_longer_passes_where_the_default_stops_it(
    tmp_path: Path,
) -> None:
    package = tmp_path / "lib"
    write_package(package, "slowpkg", {"__init__.py": SLOW})
    conf = (
        'extensions = ["sphinx.ext.doctest", "sphinx_jaxcheck"]\n'
        "jaxcheck_timeout = 1\n"
        'jaxcheck_doctest_modules = ["slowpkg"]\n'
    )
    status, report = check(tmp_path / "docs", conf, {"index.rst": SLOW_PAGE}, package)
    assert status == 1
    found = sorted(
        (Path(f["path"]).name, f["line"], f["subtype"], f["message"]) for f in report["findings"]
    )
    # The docstring and the group without a comment of their own, each where it starts.
    assert [(name, line, subtype) for name, line, subtype, _ in found] == [
        ("__init__.py", line_of(SLOW, ">>> import time", "not_given_longer"), "timeout"),
        ("index.rst", line_of(SLOW_PAGE, ">>> import time"), "timeout"),
    ]
    assert all("longer than its timeout of 1 s" in message for *_, message in found)
    given = line_of(SLOW, ">>> # jaxcheck: timeout 120") + 1  # the comment is no example
    stopped = line_of(SLOW, ">>> import time", "not_given_longer")
    assert statuses(report, "__init__.py") == [
        *((line, "verified") for line in range(given, given + 3)),
        *((line, "failed") for line in range(stopped, stopped + 3)),
    ]
    # The group whose testcode raises its own limit prints what its testoutput says.
    quick = line_of(SLOW_PAGE, ">>> import time")
    assert statuses(report, "index.rst") == [
        (line_of(SLOW_PAGE, "# jaxcheck: timeout 120"), "verified"),
        (quick, "failed"),
        (quick + 1, "failed"),
    ]


@pytest.mark.parametrize(
    "filters",
    [
        [],
        ["error::DeprecationWarning"],
        ["error", r"ignore:DEPRECATED\(\) is:DeprecationWarning"],
    ],
    ids=["none", "deprecations-are-errors", "all-but-one-message"],
)
def test_docstring_examples_get_pytests_verdicts_under_its_filterwarnings(
    tmp_path: Path, filters: list[str]
) -> None:
    package = tmp_path / "lib"
    write_package(package, "warnpkg", {"__init__.py": WARNS})
    conf = 'extensions = ["sphinx_jaxcheck"]\njaxcheck_doctest_modules = ["warnpkg"]\n'
    conf += f"jaxcheck_filterwarnings = {filters!r}\n"
    status, report = check(tmp_path / "docs", conf, {}, package)
    ini = "filterwarnings =\n" + "".join(f"    {entry}\n" for entry in filters)
    theirs, errors, done = pytest_verdicts(
        tmp_path / "oracle",
        [package / "warnpkg" / "__init__.py"],
        "",
        ini=ini,
        env={"PYTHONPATH": str(package)},
    )
    assert errors == [] and theirs, done.stdout[-3000:]
    assert agree(jaxcheck_verdicts(report), theirs) == []
    # The filters decide something: each list fails a different example, none fails none.
    failing = sorted(v.name for v in theirs if v.verdict == "failed")
    assert failing == {0: [], 1: ["warnpkg.deprecated"], 2: ["warnpkg.noisy"]}[len(filters)]
    assert status == (1 if failing else 0)


def pytest_glob(page: Path, filters: list[str]) -> int:
    """``pytest --doctest-glob`` over one page, with these ``filterwarnings``: its exit status."""
    ini = page.parent / "pytest.ini"
    lines = "".join(f"    {entry}\n" for entry in filters)
    ini.write_text(f"[pytest]\nfilterwarnings =\n{lines}", "utf-8")
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"),
            *("-c", str(ini), "--rootdir", str(page.parent), f"--doctest-glob={page.name}", page),
        ],
        capture_output=True,
        text=True,
        cwd=page.parent,
        check=False,
    )
    return done.returncode


@pytest.mark.parametrize("like", ["sphinx.ext.doctest", "pytest"])
def test_a_pages_examples_get_the_filters_only_when_judged_as_pytest_judges_them(
    tmp_path: Path, like: str
) -> None:
    conf = (
        'extensions = ["sphinx.ext.doctest", "sphinx_jaxcheck"]\n'
        f'jaxcheck_doctests_like = "{like}"\n'
        'jaxcheck_filterwarnings = ["error"]\n'
    )
    status, report = check(tmp_path / "docs", conf, {"index.rst": WARNING_PAGE}, tmp_path)
    oracle = tmp_path / "oracle"
    oracle.mkdir()
    (oracle / "index.rst").write_text(WARNING_PAGE, "utf-8")
    if like == "pytest":
        assert pytest_glob(oracle / "index.rst", ["error"]) == 1
    else:
        (oracle / "conf.py").write_text('extensions = ["sphinx.ext.doctest"]\n', "utf-8")
        made = sphinx_build("-q", "-b", "doctest", oracle, oracle / "_build")
        assert made.returncode == 0, made.stdout + made.stderr
    warned = line_of(WARNING_PAGE, "warnings.warn")
    verdict = dict(statuses(report, "index.rst"))[warned]
    assert (status, verdict) == ((1, "stale") if like == "pytest" else (0, "verified"))


IMPORT_WARNS = '''\
"""A module that warns as it is imported."""

import warnings

warnings.warn("this module is deprecated", DeprecationWarning, stacklevel=2)


def f():
    """
    >>> 1 + 1
    2
    """
'''


def test_the_filters_hold_while_docstrings_are_collected_and_key_the_cached_collection(
    tmp_path: Path,
) -> None:
    package = tmp_path / "lib"
    write_package(package, "oldpkg", {"__init__.py": IMPORT_WARNS})
    conf = 'extensions = ["sphinx_jaxcheck"]\njaxcheck_doctest_modules = ["oldpkg"]\n'
    status, report = check(tmp_path / "docs", conf + "jaxcheck_cache = True\n", {}, package)
    assert (status, statuses(report, "__init__.py")) == (
        0,
        [(line_of(IMPORT_WARNS, ">>> 1"), "verified")],
    )
    # The same project, its collection cached: under pytest's filter the import fails, in both.
    with open(tmp_path / "docs" / "conf.py", "a", encoding="utf-8") as conf_py:
        conf_py.write('jaxcheck_filterwarnings = ["error::DeprecationWarning"]\n')
    env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(package), str(REPO)))}
    done = jaxcheck("check", tmp_path / "docs", "--format", "json", env=env)
    (problem,) = json.loads(done.stdout)["findings"]
    assert done.returncode == 1
    assert "oldpkg cannot be imported" in problem["message"]
    assert "DeprecationWarning: this module is deprecated" in problem["message"]
    _, errors, ran = pytest_verdicts(
        tmp_path / "oracle",
        [package / "oldpkg" / "__init__.py"],
        "",
        ini="filterwarnings =\n    error::DeprecationWarning\n",
        env={"PYTHONPATH": str(package)},
    )
    assert errors and "this module is deprecated" in ran.stdout, ran.stdout[-3000:]
