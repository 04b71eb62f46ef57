"""``jaxcheck check`` and ``update`` on MkDocs projects: real files, real workers, no Sphinx in
the process. Each page's Python fences and ``>>>`` examples run as one session; a notebook
in ``docs_dir`` is judged by the outputs it stores."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from buildkit import assert_configuration_error, jaxcheck

INDEX = """\
# Units

```python
import jax.numpy as jnp

x = jnp.arange(3)
print(int(x.sum()))  # 3
```

!!! Example

    ```python
    print(x * 2)
    # [0 2 4]
    ```

<!-- jaxcheck: skip -->
```python
raise SystemExit("not run")
```

>>> int(x[1])
1
"""

GUIDE = """\
# Guide

```python
print(len("four"))  # 5
```

```python
1 / 0
```
"""


def notebook(source: str, printed: str) -> str:
    """A notebook of one code cell that stores what it printed."""
    cell = {
        "id": "a1b2c3d4",
        "cell_type": "code",
        "execution_count": 1,
        "metadata": {},
        "outputs": [{"name": "stdout", "output_type": "stream", "text": [printed]}],
        "source": [source],
    }
    kernel = {"name": "python3", "display_name": "Python 3", "language": "python"}
    document = {
        "cells": [cell],
        "metadata": {"kernelspec": kernel, "language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(document, indent=1) + "\n"


def write(root: Path, pages: dict[str, str], config: str = "site_name: Demo\n") -> Path:
    (root / "mkdocs.yml").write_text(config, "utf-8")
    for name, text in pages.items():
        (root / "docs" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "docs" / name).write_text(text, "utf-8")
    return root


# The command line in a fresh process that then says which Sphinx modules it imported.
CHECK_WITHOUT_SPHINX = """
import sys
from sphinx_jaxcheck.cli import main
status = main(sys.argv[1:])
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("sphinx", "docutils", "myst_parser"))
print("LOADED", loaded, file=sys.stderr)
sys.exit(status)
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pages = {
        "index.md": INDEX,
        "guide.md": GUIDE,
        "nb.ipynb": notebook("print(2 + 2)", "5\n"),
        ".snippet.md": "```python\nraise SystemExit\n```\n",
    }
    return write(tmp_path_factory.mktemp("mkdocs"), pages)


@pytest.fixture(scope="module")
def report(project: Path) -> tuple[subprocess.CompletedProcess[str], dict]:
    done = subprocess.run(
        [sys.executable, "-c", CHECK_WITHOUT_SPHINX, "check", str(project), "--format", "json"],
        capture_output=True,
        text=True,
        check=False,
        cwd=project,
    )
    return done, json.loads(done.stdout)


def test_every_fence_example_and_cell_is_judged_at_its_line(report: tuple) -> None:
    done, found = report
    assert done.returncode == 1, done.stderr
    statuses = {(b["path"], b["line"]): b["status"] for b in found["blocks"]}
    assert statuses == {
        ("docs/guide.md", 4): "stale",
        ("docs/guide.md", 8): "failed",
        ("docs/index.md", 4): "verified",
        ("docs/index.md", 13): "verified",
        ("docs/index.md", 19): "skipped",
        ("docs/nb.ipynb", 18): "stale",
    }
    assert [(e["path"], e["line"], e["status"]) for e in found["examples"]] == [
        ("docs/index.md", 22, "verified")
    ]
    problems = [(f["path"], f["line"], f["subtype"]) for f in found["findings"]]
    assert problems == [
        ("docs/guide.md", 4, "drift"),
        ("docs/guide.md", 8, "error"),
        ("docs/nb.ipynb", 18, "drift"),
    ]


def test_no_sphinx_is_imported(report: tuple) -> None:
    done, _ = report
    assert "LOADED []" in done.stderr


def test_the_text_report_names_each_finding_and_the_next_step(project: Path) -> None:
    done = jaxcheck("check", project, cwd=project)
    assert done.returncode == 1
    assert (
        "docs/guide.md:4: drift: block 'guide.md:4': the output of this print is stale:\n"
        "--- expected\n+++ actual\n@@ -1 +1 @@\n-5\n+4\n"
    ) in done.stdout
    raised = "docs/guide.md:8: error: block 'guide.md:8': the block raised an exception"
    assert raised in done.stdout
    summary = (
        "jaxcheck: 6 block(s): 2 verified, 2 stale, 1 failed, 1 skipped (jax 0.10.2); "
        "doctests like pytest: 1 `>>>` example(s): 1 verified\n"
    )
    assert summary in done.stdout
    assert f"Accept the new outputs with: jaxcheck update {project}" in done.stdout


def test_update_rewrites_the_fences_and_restores_a_page_byte_for_byte(tmp_path: Path) -> None:
    root = write(tmp_path, {"index.md": INDEX, "nb.ipynb": notebook("print(2 + 2)", "5\n")})
    page = root / "docs" / "index.md"
    page.write_text(INDEX.replace("# 3\n", "# 4\n").replace("# [0 2 4]", "# [0 2 5]"), "utf-8")
    stale = jaxcheck("check", root)
    assert stale.returncode == 1
    assert stale.stdout.count(": drift: ") == 3
    updated = jaxcheck("update", root)
    assert updated.returncode == 0, updated.stderr
    assert "jaxcheck update: rewrote 3 expectation(s) in 2 file(s)" in updated.stderr
    assert page.read_bytes() == INDEX.encode()
    assert (root / "docs" / "nb.ipynb").read_text("utf-8") == notebook("print(2 + 2)", "4\n")
    again = jaxcheck("check", root)
    assert again.returncode == 0, again.stdout
    assert "from the cache" in again.stderr


def test_a_missing_docs_dir_is_one_message_naming_mkdocs_yml(tmp_path: Path) -> None:
    write(tmp_path, {}, config="site_name: Demo\ndocs_dir: pages\n")
    done = jaxcheck("check", tmp_path)
    assert_configuration_error(done, "mkdocs.yml:2: docs_dir is 'pages', but", "is no folder")


def test_an_unreadable_mkdocs_yml_is_one_message_naming_its_line(tmp_path: Path) -> None:
    write(tmp_path, {"index.md": "# I\n"}, config="site_name: Demo\nnav:\n  - a.md\n - b.md\n")
    done = jaxcheck("check", tmp_path)
    assert_configuration_error(done, "mkdocs.yml:4: not YAML that can be read")


GUIDE_PAGE = Path(__file__).parents[2] / "demo_docs" / "guide" / "mkdocs.md"


def test_the_guides_messages_are_the_products(tmp_path: Path) -> None:
    """The guide's page on MkDocs projects shows what a run prints (those that need no quax)."""
    shown = GUIDE_PAGE.read_text("utf-8")
    bad = "# Bad\n\n<!-- jaxcheck: skip-it -->\n```python\nprint(1)  # 1\n```\n"
    write(tmp_path, {"bad.md": bad}, config="site_name: X\nnav:\n  - bad.md\n  - api.md\n")
    checked = jaxcheck("check", ".", cwd=tmp_path)
    assert checked.stdout.splitlines()[0] in shown
    assert checked.stderr.splitlines()[0] in shown
    (tmp_path / "mkdocs.yml").write_text("site_name: X\ndocs_dir: pages\n", "utf-8")
    assert jaxcheck("check", ".", cwd=tmp_path).stderr.strip() in shown
    pages = {
        "index.md": "# A\n\n```python\nprint(1 + 1)  # 2\n```\n",
        "guide.md": '# B\n\n```python\nprint(len("four"))  # 5\n```\n',
        "more.md": "# C\n\n>>> 2 * 3\n6\n",
    }
    (tmp_path / "sharded").mkdir()
    sharded = write(tmp_path / "sharded", pages)
    shard = jaxcheck("check", ".", "--shard", "1/2", cwd=sharded)
    assert shard.returncode == 1
    summary = next(line for line in shard.stdout.splitlines() if line.startswith("jaxcheck: "))
    assert f"```text\n{summary}\n```" in shown


QUAX_PAGE = """\
# Units through a jit

```python
import jax
import jax.numpy as jnp
import quax
from quax.examples.unitful import Unitful, meters

distance = Unitful(jnp.asarray([1.0, 4.0]), meters)
area = quax.quaxify(jax.jit(lambda d: d * d))(distance)
print(area.units)  # {m: 2}
print(area.array)
# [ 1. 16.]
```
"""


def test_a_quax_page_holds_and_its_drift_is_rewritten(tmp_path: Path) -> None:
    pytest.importorskip("quax", reason="quax is not installed: pip install quax to run this test")
    root = write(tmp_path, {"units.md": QUAX_PAGE})
    page = root / "docs" / "units.md"
    assert jaxcheck("check", root).returncode == 0
    page.write_text(QUAX_PAGE.replace("{m: 2}", "{m: 1}"), "utf-8")
    stale = jaxcheck("check", root)
    assert "docs/units.md:11: drift: block 'units.md:4'" in stale.stdout.replace(f"{root}/", "")
    assert jaxcheck("update", root).returncode == 0
    assert page.read_text("utf-8") == QUAX_PAGE


def test_update_never_writes_a_line_that_would_close_the_fence_an_example_stands_in(
    tmp_path: Path,
) -> None:
    """An example in a ``pycon`` fence whose new output is a fence's own line: written there,
    it would close the fence early, and the page after it would become code."""
    text = '# Fences\n\n```pycon\n>>> print("```")\n~~~\n\n```\n\nAfter the fence.\n'
    root = write(tmp_path, {"index.md": text})
    updated = jaxcheck("update", root)
    assert updated.returncode == 1
    assert "the new output line '```' would close the Markdown fence '```'" in updated.stderr
    assert (root / "docs" / "index.md").read_text("utf-8") == text


def test_a_notebook_run_by_another_interpreter_is_taken_from_the_cache_next_time(
    tmp_path: Path,
) -> None:
    """The workers of another interpreter import this package through a link; the worker
    modules a notebook's child imports are no input of its session (they were recorded as
    files that did not exist, so the notebook ran again in every check)."""
    here = Path(sys.executable)
    other = next(
        (here.with_name(n) for n in ("python3", "python") if here.with_name(n).exists()), None
    )
    if other is None or str(other) == sys.executable:
        pytest.skip(f"no other name of this interpreter beside {here} to hand the workers")
    root = write(tmp_path, {"nb.ipynb": notebook("print(2 + 2)", "4\n")})
    # Run from the project, as a user does (from this checkout, the workers would import the
    # package from the current folder, not through the link).
    first = jaxcheck("check", root, "--python", other, cwd=root)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "not cached" not in first.stdout
    again = jaxcheck("check", root, "--python", other, cwd=root)
    assert "running 0 of 1 block(s)" in again.stderr and "from the cache" in again.stderr


def test_a_notebook_jaxcheck_notebooks_exclude_names_is_not_run(tmp_path: Path) -> None:
    root = write(tmp_path, {"nb.ipynb": notebook("raise SystemExit('ran')", "")})
    done = jaxcheck("check", root, "-D", "jaxcheck_notebooks_exclude=*.ipynb", "--format", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    (cell,) = json.loads(done.stdout)["cells"]
    assert cell["status"] == "skipped"
    assert "excluded from execution by jaxcheck_notebooks_exclude '*.ipynb'" in cell["reason"]


def logging_notebook(log: Path) -> str:
    """A notebook whose first cell notes that its session ran, and whose second stores a
    stale output."""
    document = json.loads(notebook("print(2 + 2)", "5\n"))
    first = {
        **document["cells"][0],
        "id": "f0f0f0f0",
        "outputs": [],
        "source": [f"_ = open({str(log)!r}, 'a').write('nb\\n')"],
    }
    document["cells"].insert(0, first)
    return json.dumps(document, indent=1) + "\n"


def test_shards_merged_report_what_the_full_check_reports(tmp_path: Path) -> None:
    """Two shards of an MkDocs project, each session in exactly one, merge into the full
    check's report, exit status and text."""
    log = tmp_path / "sessions.log"
    noted = "```python\n_ = open({log!r}, 'a').write('{name}\\n')\n```\n\n"
    (tmp_path / "site").mkdir()
    root = write(
        tmp_path / "site",
        {
            "index.md": noted.format(log=str(log), name="index") + INDEX,
            "guide.md": noted.format(log=str(log), name="guide") + GUIDE,
            "more.md": noted.format(log=str(log), name="more") + ">>> 1 + 1\n3\n",
            "nb.ipynb": logging_notebook(log),
        },
    )
    full = jaxcheck("check", ".", "--no-cache", "--format", "json", cwd=root)
    assert full.returncode == 1, full.stderr
    assert sorted(log.read_text().split()) == ["guide", "index", "more", "nb"]
    log.unlink()
    reports = []
    for k in (1, 2):
        shard = jaxcheck(
            "check", ".", "--no-cache", "--shard", f"{k}/2", "--format", "json", cwd=root
        )
        assert shard.returncode in (0, 1), shard.stderr
        (tmp_path / f"shard{k}.json").write_text(shard.stdout, "utf-8")
        reports.append(json.loads(shard.stdout))
    assert sorted(log.read_text().split()) == ["guide", "index", "more", "nb"]  # each once
    for position, block in enumerate(reports[0]["blocks"]):
        statuses = [r["blocks"][position]["status"] for r in reports]
        assert sum(s != "other-shard" for s in statuses) == 1, (block, statuses)
    assert [r["run"]["shard"] for r in reports] == ["1/2", "2/2"]
    assert reports[0]["run"]["split"] == reports[1]["run"]["split"] is not None
    shards = [str(tmp_path / f"shard{k}.json") for k in (1, 2)]
    merged = jaxcheck("merge", *shards, "--format", "json", cwd=root)
    assert merged.returncode == full.returncode == 1, merged.stderr
    whole, together = json.loads(full.stdout), json.loads(merged.stdout)
    without_seconds = [{k: v for k, v in b.items() if k != "seconds"} for b in whole["blocks"]]
    assert [{k: v for k, v in b.items() if k != "seconds"} for b in together["blocks"]] == (
        without_seconds
    )
    for part in ("findings", "examples", "cells", "summary", "run"):
        assert together[part] == whole[part], part
    assert [f["subtype"] for f in whole["findings"]] == ["drift", "error", "drift", "drift"]
    # The text a full check prints, from the shards.
    text = jaxcheck("merge", *reversed(shards), cwd=root)
    assert text.stdout == jaxcheck("check", ".", cwd=root).stdout
