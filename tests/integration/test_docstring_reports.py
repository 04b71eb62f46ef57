"""What a check of docstring examples reports, as real projects run it: advice to run
``jaxcheck update`` only where update would act, the docstring each example is in, and counts
in one word.

Each project is a real git checkout holding a package and the docs folder (an
autodoc page showing the docstrings), beside a folder named like an installed
environment's ``site-packages`` holding another package; the workers import
both (``PYTHONPATH``). The real command line runs in a fresh process (real
Sphinx, real workers).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from buildkit import jaxcheck

REPO = Path(__file__).resolve().parents[2]
HINT = "(`jaxcheck update` accepts the actual output)"
INSTALLED_REASON = "belongs to an installed package (it is under site-packages)"
# Three docstrings sharing one text: two functions, and a second name of the second one.
MOD = '''\
def same():
    """Same.

    >>> 1 + 1
    3
    """


def other():
    """Same.

    >>> 1 + 1
    3
    """


alias = other
'''
# An installed package's docstring: one example fails to import, one drifts, one is skipped.
TWO = '''\
def two():
    """Two.

    >>> import no_such_module_here
    >>> two()
    3
    >>> two() + 40  # doctest: +SKIP
    0
    """
    return 2
'''
SHOWN = ("pkg.mod.same", "pkg.mod.other", "pkg.mod.alias")


def layout(tmp_path: Path, shown: tuple[str, ...]) -> tuple[Path, dict[str, str]]:
    """The checkout (with ``pkg``), the installed ``sitepkg``, and a docs folder whose page
    shows ``shown`` with autodoc; returns the docs folder and the commands' environment."""
    root = tmp_path / "project"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("", "utf-8")
    (root / "pkg" / "mod.py").write_text(MOD, "utf-8")
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    (site / "sitepkg").mkdir(parents=True)
    (site / "sitepkg" / "__init__.py").write_text("", "utf-8")
    (site / "sitepkg" / "two.py").write_text(TWO, "utf-8")
    docs = root / "docs"
    docs.mkdir()
    (docs / "conf.py").write_text(
        'extensions = ["sphinx.ext.autodoc", "sphinx_jaxcheck"]\n'
        'exclude_patterns = ["_build"]\njaxcheck_doctests = "check"\n',
        "utf-8",
    )
    page = "API\n===\n\n" + "".join(f".. autofunction:: {name}\n\n" for name in shown)
    (docs / "index.rst").write_text(page, "utf-8")
    path = os.pathsep.join(map(str, (root, site, REPO)))
    return docs, {**os.environ, "PYTHONPATH": path, "JAX_PLATFORMS": "cpu", "NO_COLOR": "1"}


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], str]:
    """The JSON report and the log of a check of the checkout's docstrings and the installed
    one's."""
    docs, env = layout(tmp_path_factory.mktemp("both"), (*SHOWN, "sitepkg.two.two"))
    done = jaxcheck("check", docs, "--format", "json", cwd=docs, env=env)
    assert done.returncode == 1, done.stderr
    return json.loads(done.stdout), done.stderr


def test_drift_in_an_installed_package_names_why_update_will_not_and_is_not_updatable(
    both: tuple[dict[str, Any], str],
) -> None:
    report, _ = both
    findings = report["findings"]
    installed = [f for f in findings if "site-packages" in f["path"]]
    checkout = [f for f in findings if f["path"].endswith(os.path.join("pkg", "mod.py"))]
    # The failed import is drift too (its traceback is the actual output), refused alike.
    assert [f["line"] for f in installed] == [4, 5]
    assert len(checkout) == 2  # same's and other's: alias is other, run once
    for finding in installed:
        assert finding["drift"] and finding["updatable"] is False
        assert HINT not in finding["message"]
        assert INSTALLED_REASON in finding["message"].splitlines()[-1]
    assert "ModuleNotFoundError" in installed[0]["message"]
    for finding in checkout:
        assert finding["updatable"] is True and finding["message"].endswith(HINT)


def test_each_example_names_its_docstring_and_one_shown_under_two_names_runs_once(
    both: tuple[dict[str, Any], str],
) -> None:
    report, _ = both
    in_mod = [e for e in report["examples"] if e["path"].endswith("mod.py")]
    # Two docstrings sharing a text are two; another name of one function is the same one.
    assert sorted(e["docstring"] for e in in_mod) == sorted(SHOWN[:2])
    assert len({(e["path"], e["line"]) for e in in_mod}) == 2
    installed = [e for e in report["examples"] if "site-packages" in e["path"]]
    assert {e["docstring"] for e in installed} == {"sitepkg.two.two"}
    assert [e["status"] for e in installed] == ["stale", "stale", "skipped"]


def test_a_check_of_docstring_examples_alone_counts_examples_in_every_line(
    both: tuple[dict[str, Any], str],
) -> None:
    report, log = both
    assert "running 5 of 5 `>>>` example(s) (1 document(s)" in log
    assert report["summary"] == (
        "jaxcheck: doctests like pytest: 5 `>>>` example(s): 4 stale, 1 skipped (jax 0.10.2)"
    )
    assert "block(s)" not in log + report["summary"]


def test_with_only_an_installed_packages_drift_the_report_ends_with_why_update_will_not(
    tmp_path: Path,
) -> None:
    docs, env = layout(tmp_path, ("sitepkg.two.two",))
    checked = jaxcheck("check", docs, cwd=docs, env=env)
    assert checked.returncode == 1
    assert "Accept the new outputs" not in checked.stdout + checked.stderr, checked.stdout
    # Each drift ends with the reason, and so does the report: why update rewrites none.
    assert checked.stdout.count(INSTALLED_REASON) == 3
    last = checked.stdout.splitlines()[-1]
    assert last.startswith("jaxcheck update rewrites none of the 2 stale output(s): the file (")
    assert INSTALLED_REASON in last
    # The adopting page shows the second drift as it is printed.
    guide = (REPO / "demo_docs" / "guide" / "adopting.md").read_text("utf-8")
    (shown,) = re.findall(
        r"^```text\n(\S+site-packages/sitepkg/two.py:5: .*?)\n```$", guide, re.M | re.S
    )
    printed = checked.stdout.replace(str(tmp_path.resolve()), "/home/me")
    assert f"{shown}\n" in printed, printed
    # Update refuses each for the reason the check gave, and lists no +SKIP example.
    updated = jaxcheck("update", docs, cwd=docs, env=env)
    assert updated.returncode == 1
    refused = [line for line in updated.stderr.splitlines() if ": cannot update: " in line]
    assert len(refused) == 2 and all(INSTALLED_REASON in line for line in refused)
    assert "not checked" not in updated.stderr and "+SKIP" not in updated.stderr


def test_the_status_page_of_docstring_examples_alone_counts_them_as_the_summary_does(
    tmp_path: Path,
) -> None:
    docs, env = layout(tmp_path, ("sitepkg.two.two",))
    with (docs / "index.rst").open("a", encoding="utf-8") as page:
        page.write("\n.. jaxcheck-status::\n")
    built = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", str(docs), str(docs / "_build")],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert built.returncode == 1, built.stderr  # the drift fails the build
    assert "jaxcheck: doctests like pytest: 3 `>>>` example(s): 2 stale, 1 skipped" in built.stdout
    html = (docs / "_build" / "index.html").read_text("utf-8")
    text = unescape(re.sub(r"<[^>]+>", "", html))
    assert "3 >>> example(s): 2 stale, 1 skipped." in text
    assert "block(s)" not in text


def test_the_guide_describes_every_part_and_field_the_json_report_has(
    both: tuple[dict[str, Any], str],
) -> None:
    report, _ = both
    guide = (REPO / "demo_docs" / "guide" / "command-line.md").read_text("utf-8")
    section = guide.split("### The JSON report\n", 1)[1].split("\n### ", 1)[0]
    (excerpt,) = re.findall(r"^```json\n(.*?)\n```$", section, re.M | re.S)
    shown = json.loads(excerpt)
    assert list(shown) == list(report)
    described = re.findall(r"^\| `(\w+)` \|", section, re.M)
    assert described == list(report)
    for part in ("examples", "findings"):
        fields = {field for record in report[part] for field in record}
        assert {field for record in shown[part] for field in record} == fields, part
    assert set(shown["run"]) == set(report["run"])
