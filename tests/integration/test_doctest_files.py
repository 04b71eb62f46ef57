"""Text files beside the project (``jaxcheck_doctest_files``), judged as ``pytest
--doctest-glob`` judges them, pytest itself the oracle.

A project lays out its docs folder and its README.md side by side, as numpyro
does, and its CI runs ``python -m doctest README.md`` beside the docs build.
Real runs in fresh processes: ``jaxcheck check --format json`` and ``jaxcheck
update`` over the project, and ``pytest --doctest-glob=README.md README.md``
over the same file with the same flags and namespace, in its folder.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from buildkit import assert_configuration_error, jaxcheck
from doctest_oracle import OURS_FOR, pytest_verdicts

README = """\
# tinylib

A library of small things. Install it, then:

```python
>>> total = sum([1, 2, 3])
>>> total
6
>>> print("a   b")
a b
>>> math.floor(2.5)
2

```

Its errors read as Python's:

>>> int("x")
Traceback (most recent call last):
    ...
ValueError: invalid literal for int() with base 10: 'x'

What changed since the last release:

>>> sorted({"b": 1, "a": 2})
['b', 'a']
>>> open("README.md", encoding="utf-8").readline()
'# tinylib\\n'
>>> total * 1000  # doctest: +SKIP
6001
"""
STALE = "['b', 'a']"  # sorted() says ['a', 'b']
CONF = """\
extensions = ["sphinx_jaxcheck"]
exclude_patterns = ["_build"]
jaxcheck_doctests = "check"
jaxcheck_doctest_flags = ["NORMALIZE_WHITESPACE"]
jaxcheck_setup = "import math"
jaxcheck_doctest_files = ["../README.md"]
"""
INDEX = "tinylib\n=======\n\n>>> 1 + 2\n3\n"
# What the conftest of a pytest run gives its doctests, as jaxcheck_setup gives them above.
NAMESPACE = """
import math

import pytest


@pytest.fixture(autouse=True)
def _namespace(doctest_namespace):
    doctest_namespace["math"] = math
"""


def write(root: Path, conf: str = CONF) -> Path:
    """The project: ``docs/`` (conf.py, one page) and README.md beside it."""
    (root / "docs").mkdir(parents=True)
    (root / "docs" / "conf.py").write_text(conf, "utf-8")
    (root / "docs" / "index.rst").write_text(INDEX, "utf-8")
    (root / "README.md").write_text(README, "utf-8")
    return root


def check(root: Path, *args: str) -> tuple[int, dict[str, Any], str]:
    """``jaxcheck check docs --format json`` in the project's folder."""
    done = jaxcheck("check", "docs", "--format", "json", *args, cwd=root)
    try:
        return done.returncode, json.loads(done.stdout), done.stderr
    except ValueError:
        pytest.fail(f"no report (exit {done.returncode}):\n{done.stdout}\n{done.stderr}")


def readme_examples(report: dict[str, Any]) -> list[tuple[int, str]]:
    """(line, status) of each README example, in file order."""
    return [(e["line"], e["status"]) for e in report["examples"] if e["path"] == "README.md"]


def line_of(text: str, start: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if line.startswith(start))


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, dict[str, Any], str]:
    root = write(tmp_path_factory.mktemp("checked"))
    return check(root)


def test_every_readme_example_gets_pytests_verdict_at_its_line(
    checked: tuple[int, dict[str, Any], str], tmp_path: Path
) -> None:
    status, report, _ = checked
    ours = readme_examples(report)
    root = write(tmp_path)
    theirs, errors, done = pytest_verdicts(
        root,
        [root / "README.md"],
        NAMESPACE,
        flags="NORMALIZE_WHITESPACE",
        collect=["--doctest-glob=README.md"],
    )
    assert errors == [], done.stdout[-3000:]
    assert done.returncode == 1, done.stdout[-3000:]
    assert [v.line for v in theirs] == [line for line, _ in ours]
    agreed = [status in OURS_FOR[v.verdict] for v, (_, status) in zip(theirs, ours, strict=True)]
    assert agreed == [True] * 8
    assert Counter(s for _, s in ours) == {"verified": 6, "stale": 1, "skipped": 1}
    assert status == 1
    # Counted with the page's example, in the summary.
    assert "9 `>>>` example(s): 7 verified, 1 stale, 1 skipped" in report["summary"]


def test_the_stale_example_is_a_drift_at_its_line_with_the_diff(
    checked: tuple[int, dict[str, Any], str],
) -> None:
    _, report, _ = checked
    (finding,) = report["findings"]
    assert (finding["path"], finding["subtype"]) == ("README.md", "drift")
    assert finding["line"] == line_of(README, '>>> sorted({"b"')
    assert f"-{STALE}\n+['a', 'b']" in finding["message"]


def test_update_rewrites_the_stale_output_in_place_and_keeps_every_other_byte(
    tmp_path: Path,
) -> None:
    root = write(tmp_path)
    done = jaxcheck("update", "docs", cwd=root)
    assert done.returncode == 0, done.stderr
    assert (root / "README.md").read_bytes() == README.replace(STALE, "['a', 'b']").encode()


def test_an_entry_that_names_no_file_is_a_configuration_error(tmp_path: Path) -> None:
    root = write(tmp_path)
    docs = str((root / "docs").resolve())
    for entry in ("../READ_ME.md", "../*.rst"):
        done = jaxcheck("check", "docs", "-D", f"jaxcheck_doctest_files={entry}", cwd=root)
        assert_configuration_error(done, f"jaxcheck_doctest_files: {entry!r}", docs)


def test_a_warm_build_after_an_edit_runs_the_readme_again_as_a_cold_one(tmp_path: Path) -> None:
    root = write(tmp_path)
    # Without the example that opens README.md: the file is then no input of its session, whose
    # dependencies would re-read the root page by themselves.
    readme = README.replace(
        """>>> open("README.md", encoding="utf-8").readline()\n'# tinylib\\n'\n""", ""
    )
    assert readme.count(">>>") == README.count(">>>") - 1
    (root / "README.md").write_text(readme, "utf-8")
    status, _, _ = check(root)
    assert status == 1
    # The stale output put right, and a statement changed so that another output is stale.
    edited = readme.replace(STALE, "['a', 'b']").replace("sum([1, 2, 3])", "sum([1, 2, 4])")
    (root / "README.md").write_text(edited, "utf-8")
    warm_status, warm, _ = check(root)
    cold_status, cold, _ = check(root, "--no-cache")
    assert (warm_status, readme_examples(warm)) == (cold_status, readme_examples(cold))
    assert [line for line, s in readme_examples(warm) if s == "stale"] == [
        edited.splitlines().index(">>> total") + 1
    ]
    assert warm["summary"] == cold["summary"]


def test_a_markdown_file_in_a_project_without_a_markdown_parser_is_checked(
    tmp_path: Path,
) -> None:
    """Unnamed, it would stop the build: its examples would never be checked."""
    root = write(tmp_path)
    shutil.move(root / "README.md", root / "docs" / "README.md")
    conf = CONF.replace("../README.md", "README.md")
    (root / "docs" / "conf.py").write_text(conf, "utf-8")
    status, report, _ = check(root)
    assert status == 1, report
    statuses = Counter(e["status"] for e in report["examples"] if e["path"] == "docs/README.md")
    assert statuses == {"verified": 6, "stale": 1, "skipped": 1}


def test_a_page_exclude_patterns_leaves_out_is_checked_not_counted_as_left_out(
    tmp_path: Path,
) -> None:
    root = write(tmp_path)
    shutil.move(root / "README.md", root / "docs" / "README.md")
    conf = (
        CONF.replace('["sphinx_jaxcheck"]', '["myst_parser", "sphinx_jaxcheck"]')
        .replace('["_build"]', '["_build", "README.md"]')
        .replace("../README.md", "README.md")
    )
    (root / "docs" / "conf.py").write_text(conf, "utf-8")
    status, report, _ = check(root)
    assert status == 1, report
    assert len([e for e in report["examples"] if e["path"] == "docs/README.md"]) == 8
    assert report["excluded_examples"] == {}
    # Under "report" its examples are counted as unchecked, as a page's are.
    status, report, _ = check(root, "-D", "jaxcheck_doctests=report")
    assert status == 0, report
    assert (report["unchecked_examples"], report["excluded_examples"]) == (9, {})


def test_a_page_of_the_project_is_no_file_beside_it(tmp_path: Path) -> None:
    root = write(tmp_path)
    done = jaxcheck("check", "docs", "-D", "jaxcheck_doctest_files=index.rst", cwd=root)
    assert_configuration_error(done, "index.rst", "the page 'index'")


def test_the_readme_runs_in_its_own_folder_with_the_setup_and_flags(
    checked: tuple[int, dict[str, Any], str],
) -> None:
    _, report, _ = checked
    verdicts = dict(readme_examples(report))
    for start in (">>> open(", ">>> math.floor", '>>> print("a'):
        assert verdicts[line_of(README, start)] == "verified"
