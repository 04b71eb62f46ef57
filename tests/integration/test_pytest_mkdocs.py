"""``pytest --jaxcheck PATH`` on an MkDocs project (PATH holds mkdocs.yml): each page's blocks
and ``>>>`` examples as items, judged as ``jaxcheck check`` judges them, with no Sphinx
imported; ``--jaxcheck-update`` rewrites the drift as ``jaxcheck update`` does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from buildkit import jaxcheck
from pytest_runs import Run

INDEX = """\
# Index

```python
x = 2
print(x)  # 2
```

```python
print(x + 1)  # 4
```

>>> x * 2
4
"""
GUIDE = """\
# Guide

<!-- jaxcheck: skip -->
```python
raise SystemExit("not run")
```

```python
1 / 0
```
"""
OUTCOMES = {
    "docs/index.md::index.md:4": "passed",
    "docs/index.md::index.md:9": "failed",
    "docs/index.md::index.md:12": "passed",
    "docs/guide.md::guide.md:5": "skipped",
    "docs/guide.md::guide.md:9": "failed",
}


def mkdocs_project(root: Path) -> Path:
    (root / "docs").mkdir(parents=True)
    (root / "mkdocs.yml").write_text("site_name: Demo\nnav:\n  - index.md\n  - guide.md\n")
    (root / "docs" / "index.md").write_text(INDEX, "utf-8")
    (root / "docs" / "guide.md").write_text(GUIDE, "utf-8")
    return root


@pytest.fixture(scope="module")
def single(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Run]:
    root = mkdocs_project(tmp_path_factory.mktemp("single"))
    return root, Run(root, "--jaxcheck", ".", "-p", "no:cacheprovider")


def test_each_block_and_example_is_an_item_judged_as_jaxcheck_check(
    single: tuple[Path, Run],
) -> None:
    root, run = single
    assert run.result.returncode == 1, run.result.stdout[-3000:]
    assert run.outcomes == OUTCOMES
    findings = json.loads(jaxcheck("check", ".", "--format", "json", cwd=root).stdout)["findings"]
    failed = [r["text"] for r in run.reports if r["outcome"] == "failed"]
    assert sorted(failed) == sorted(
        f"{f['path']}:{f['line']}: {f['subtype']}: {f['message']}" for f in findings
    )


def test_no_sphinx_is_imported(single: tuple[Path, Run]) -> None:
    _, run = single
    assert run.sphinx_imported is False


def test_items_are_located_at_their_blocks(single: tuple[Path, Run]) -> None:
    root, run = single
    lines = (root / "docs" / "index.md").read_text("utf-8").splitlines()
    # Each item, the start of the 1-based line a reader expects it at.
    expected = {"index.md:4": "x = 2", "index.md:9": "print(x + 1)", "index.md:12": ">>> x * 2"}
    for name, start in expected.items():
        file, lineno, _ = run.locations[f"docs/index.md::{name}"]
        assert file == "docs/index.md" and lines[lineno].startswith(start), (name, lineno)


def test_under_xdist_the_update_rewrites_the_drift_and_the_next_run_passes(
    tmp_path: Path,
) -> None:
    root = mkdocs_project(tmp_path)
    update = Run(root, "--jaxcheck", ".", "-n", "2", "--jaxcheck-update")
    assert update.outcomes == {**OUTCOMES, "docs/index.md::index.md:9": "passed"}
    workers = {r["nodeid"].split("::")[0]: r["worker"] for r in update.reports}
    assert all(workers.values()) and len(update.reports) == len(OUTCOMES)
    assert "docs/index.md: rewritten" in update.result.stdout
    page = root / "docs" / "index.md"
    assert page.read_text("utf-8") == INDEX.replace("# 4\n", "# 3\n")
    (root / "docs" / "guide.md").write_text(GUIDE.replace("1 / 0", "1 / 1"), "utf-8")
    again = Run(root, "--jaxcheck", ".")
    assert again.result.returncode == 0, again.result.stdout[-3000:]
    assert sorted(again.outcomes.values()) == ["passed"] * 4 + ["skipped"]


def test_a_bad_mkdocs_yml_is_one_collection_error(tmp_path: Path) -> None:
    root = mkdocs_project(tmp_path)
    (root / "mkdocs.yml").write_text("site_name: Demo\ndocs_dir: pages\n", "utf-8")
    run = Run(root, "--jaxcheck", ".")
    assert run.result.returncode == 2  # pytest: errors during collection
    assert "mkdocs.yml:2: docs_dir is 'pages', but" in run.result.stdout
    assert "Traceback" not in run.result.stdout
