"""``pytest --jaxcheck DOCSDIR``: the plugin as users run it, in a separate pytest process."""

from __future__ import annotations

import importlib.metadata
import json
import shutil
from pathlib import Path
from xml.etree import ElementTree

import pytest
from buildkit import ROOTS, copy_root, jaxcheck, write_project
from corpus import STALE
from pytest_runs import Run

REPO = Path(__file__).parents[2]


def stale_project(tmp: Path) -> Path:
    root = tmp / "project"
    root.mkdir()
    copy_root("conformance-stale", root).rename(root / "docs")
    # Workers inherit only listed variables: let the zygote spy find its log.
    with (root / "docs" / "conf.py").open("a", encoding="utf-8") as conf:
        conf.write('jaxcheck_env_passthrough = ["ZYGOTE_LOG"]\n')
    return root


DRIFTED = {f"docs/{file}::{name}" for file, _, name in STALE}


@pytest.fixture(scope="module")
def single(tmp_path_factory: pytest.TempPathFactory) -> Run:
    return Run(stale_project(tmp_path_factory.mktemp("single")), "--jaxcheck", "docs")


@pytest.fixture(scope="module")
def distributed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Run]:
    root = stale_project(tmp_path_factory.mktemp("xdist"))
    return root, Run(root, "--jaxcheck", "docs", "-n", "2")


@pytest.mark.stack
def test_stale_corpus_fails_exactly_the_six_drifted_blocks(single: Run) -> None:
    assert single.result.returncode == 1, single.result.stdout[-3000:]
    outcomes = single.outcomes
    assert len(outcomes) == 18
    assert {nodeid for nodeid, outcome in outcomes.items() if outcome == "failed"} == DRIFTED
    assert list(outcomes.values()).count("skipped") == 1  # its :output: skip
    assert (
        "docs/forms_md.md::md-doctest" in outcomes
        and outcomes["docs/forms_md.md::md-doctest"] == "passed"
    )
    assert single.zygotes == 1  # one jaxcheck worker pool for the whole run


@pytest.mark.stack
def test_a_failing_item_reports_the_finding_as_the_build_prints_it(single: Run) -> None:
    text = single.text("docs/forms_md.md::md-inline")
    assert text == (
        "docs/forms_md.md:22: drift: block 'md-inline': the output of this print is stale:\n"
        "--- expected\n+++ actual\n@@ -1 +1 @@\n-[0 2 5]\n+[0 2 4]\n"
        "(`jaxcheck update` accepts the actual output)"
    )
    assert all("Traceback" not in r["text"] and "runtest" not in r["text"] for r in single.reports)


def test_under_xdist_verdicts_equal_one_process_and_a_document_stays_on_one_worker(
    single: Run, distributed: tuple[Path, Run]
) -> None:
    _, run = distributed
    assert run.result.returncode == 1, run.result.stdout[-3000:]
    assert run.outcomes == single.outcomes
    workers: dict[str, set[str]] = {}
    for report in run.reports:
        workers.setdefault(report["nodeid"].split("::")[0], set()).add(report["worker"])
    assert workers.keys() == {"docs/forms_md.md", "docs/forms_rst.rst"}
    assert all(len(ids) == 1 and None not in ids for ids in workers.values()), workers


def test_jaxcheck_update_rewrites_the_drift_and_the_next_run_passes(
    distributed: tuple[Path, Run],
) -> None:
    root, _ = distributed
    update = Run(root, "--jaxcheck", "docs", "-n", "2", "--jaxcheck-update")
    assert update.result.returncode == 0, update.result.stdout[-3000:]
    # The xdist workers' rewrites, in the controller's terminal summary.
    assert "docs/forms_md.md: rewritten" in update.result.stdout
    assert "docs/forms_rst.rst: rewritten" in update.result.stdout
    for name in ("forms_md.md", "forms_rst.rst"):
        assert (root / "docs" / name).read_bytes() == (
            ROOTS / "test-conformance-fresh" / name
        ).read_bytes()
    again = Run(root, "--jaxcheck", "docs")
    assert again.result.returncode == 0
    assert sorted(again.outcomes.values()) == ["passed"] * 17 + ["skipped"]


def test_no_worker_starts_when_no_jaxcheck_item_is_selected(tmp_path: Path) -> None:
    root = stale_project(tmp_path)
    run = Run(root, "--jaxcheck", "docs", "-k", "no_such_item")
    assert run.result.returncode == 5  # pytest: no tests ran
    assert run.zygotes == 0
    assert "18 deselected" in run.result.stdout


def test_without_jaxcheck_the_plugin_is_inert(tmp_path: Path) -> None:
    root = stale_project(tmp_path)
    (root / "test_plain.py").write_text("def test_plain():\n    pass\n", "utf-8")
    run = Run(root)
    assert run.result.returncode == 0
    assert run.outcomes == {"test_plain.py::test_plain": "passed"}
    assert run.sphinx_imported is False and run.zygotes == 0


def test_citations_and_card_sources_are_items_with_the_builds_findings(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    docs = copy_root("citations-broken", root).rename(root / "docs")
    for name in ("cards_md.md", "cards_rst.rst"):
        shutil.copy(ROOTS / "test-cards" / name, docs / name)
    check = jaxcheck("check", "docs", "--format", "json", cwd=root)
    findings = json.loads(check.stdout)["findings"]
    assert findings and all(f["subtype"] == "citation" for f in findings)
    run = Run(root, "--jaxcheck", "docs", "-p", "no:cacheprovider")
    failed = [r for r in run.reports if r["outcome"] == "failed"]
    assert sorted(r["text"] for r in failed) == sorted(
        f"{f['path']}:{f['line']}: {f['subtype']}: {f['message']}" for f in findings
    )
    passed = [nodeid for nodeid, outcome in run.outcomes.items() if outcome == "passed"]
    assert any(nodeid.startswith("docs/cards_md.md::citation") for nodeid in passed)
    assert run.zygotes == 0  # no blocks: nothing to run


def test_a_configuration_problem_is_one_collection_error(tmp_path: Path) -> None:
    root = stale_project(tmp_path)
    conf = root / "docs" / "conf.py"
    conf.write_text(conf.read_text() + "jaxcheck_on_drift = 'sometimes'\n", "utf-8")
    run = Run(root, "--jaxcheck", "docs")
    assert run.result.returncode == 2  # pytest: errors during collection
    assert (
        "jaxcheck_on_drift = 'sometimes' is not one of error, warning, ignore" in run.result.stdout
    )
    # pytest takes no -D: the value can only be in conf.py, and the message says so.
    assert f"(in {conf})" in run.result.stdout and "-D" not in run.result.stdout
    assert "Traceback" not in run.result.stdout
    assert run.zygotes == 0


def test_a_wrong_folder_is_one_collection_error_naming_the_project_beside_it(
    tmp_path: Path,
) -> None:
    root = stale_project(tmp_path)
    run = Run(root, "--jaxcheck", "doc")
    assert run.result.returncode == 2
    assert (
        f"jaxcheck: {root / 'doc'}: no such folder; expected the Sphinx source folder (the one "
        "holding conf.py) after --jaxcheck; docs holds a conf.py: `pytest --jaxcheck docs`"
    ) in run.result.stdout
    assert "ApplicationError" not in run.result.stdout and "Traceback" not in run.result.stdout
    assert run.zygotes == 0


def test_a_wrong_pin_under_pytest_advises_conf_py_not_a_flag_pytest_lacks(tmp_path: Path) -> None:
    root = stale_project(tmp_path)
    conf = root / "docs" / "conf.py"
    conf.write_text(conf.read_text() + 'jaxcheck_jax_version = "0.9.0"\n', "utf-8")
    run = Run(root, "--jaxcheck", "docs")
    assert run.result.returncode == 2
    installed = importlib.metadata.version("jax")
    printed = (
        f"jaxcheck: {root / 'docs'}: installed jax {installed} differs from the pinned jax 0.9.0 "
        "(jaxcheck_jax_version). Install the pin with `pip install jax==0.9.0`, or build against "
        f'the installed one with `jaxcheck_jax_version = "{installed}"` in conf.py'
    )
    assert printed in run.result.stdout
    assert "-D" not in run.result.stdout and "Traceback" not in run.result.stdout
    # The guide shows it as printed, for the guide's own project.
    guide = (REPO / "demo_docs" / "guide" / "pytest-and-shards.md").read_text("utf-8")
    assert printed.replace(str(root), "/home/me/project") in guide


NATIVE_PAGE = """\
# Existing examples

```python
>>> 1 + 1
2

```

Later, a group of two:

```python
>>> x = 3
>>> x * 2
7

```
"""


def test_each_group_of_a_pages_own_examples_is_an_item(tmp_path: Path) -> None:
    root = tmp_path / "project"
    docs = root / "docs"
    docs.mkdir(parents=True)
    (docs / "conf.py").write_text(
        'extensions = ["myst_parser", "sphinx_jaxcheck"]\nexclude_patterns = ["_build"]\n'
        'jaxcheck_doctests = "check"\njaxcheck_cache = False\n',
        "utf-8",
    )
    (docs / "index.md").write_text(NATIVE_PAGE, "utf-8")
    check = jaxcheck("check", "docs", "--format", "json", cwd=root)
    findings = json.loads(check.stdout)["findings"]
    assert len(findings) == 1 and findings[0]["subtype"] == "drift"
    run = Run(root, "--jaxcheck", "docs")
    assert run.outcomes == {
        "docs/index.md::index.md:4": "passed",
        "docs/index.md::index.md:12": "failed",
    }
    expected = findings[0]
    assert run.text("docs/index.md::index.md:12") == (
        f"{expected['path']}:{expected['line']}: drift: {expected['message']}"
    )
    assert "-7\n+6" in run.text("docs/index.md::index.md:12")


LOCATED_MD = """\
# Located

```{jaxcheck}
:name: md-block

print("the first line of md-block")  # the first line of md-block
```

Cited: {jaxsrc}`loops.py::_check_carry_type`.

```{jaxcheck}
:bogus: not an option

print("never runs")
```

```python
>>> print("the first example of the group")
the first example of the group

```
"""
LOCATED_RST = """\
Located
=======

.. jaxcheck::
   :name: rst-block

   print("the first line of rst-block")  # the first line of rst-block
"""


@pytest.mark.stack
def test_items_are_located_at_their_own_line_and_junit_says_so(tmp_path: Path) -> None:
    root = tmp_path / "project"
    write_project(
        root / "docs",
        {"located_md.md": LOCATED_MD, "located_rst.rst": LOCATED_RST},
        conf='jaxcheck_doctests = "check"\n',
    )
    # xunit1: the JUnit flavour whose test cases carry a file and a line (annotators read them).
    junit = ("--junitxml", "junit.xml", "-o", "junit_family=xunit1")
    run = Run(root, "--jaxcheck", "docs", *junit, "-p", "no:cacheprovider")
    assert run.result.returncode == 1, run.result.stdout[-3000:]  # the bad option only
    md, rst = (
        (root / "docs" / name).read_text("utf-8").split("\n")
        for name in ("located_md.md", "located_rst.rst")
    )
    # Each item, the file and the 1-based line a reader expects it at.
    expected = {
        "docs/located_md.md::md-block": (md, 'print("the first line of md-block")'),
        "docs/located_md.md::citation line 9: loops.py:_check_carry_type": (md, "Cited: {jaxsrc}"),
        "docs/located_md.md::located_md[2]": (md, 'print("never runs")'),
        # The option's problem, at the option's own line.
        "docs/located_md.md::option line 12": (md, ":bogus:"),
        "docs/located_md.md::located_md.md:18": (md, '>>> print("the first example'),
        "docs/located_rst.rst::rst-block": (rst, '   print("the first line of rst-block")'),
    }
    located = {nodeid: loc for nodeid, loc in run.locations.items() if nodeid in expected}
    assert located.keys() == expected.keys(), json.dumps(run.locations, indent=1)
    for nodeid, (file, lineno, _) in located.items():
        lines, start = expected[nodeid]
        assert file == nodeid.split("::")[0]
        assert lines[lineno].startswith(start), (nodeid, lineno, lines[lineno])
    cases = {
        case.get("name"): (case.get("file"), case.get("line"))
        for case in ElementTree.parse(root / "junit.xml").getroot().iter("testcase")
    }
    for nodeid, (file, lineno, _) in located.items():
        assert cases[nodeid.split("::", 1)[1]] == (file, str(lineno)), nodeid
