"""Notebooks checked like pages, for real: cells run in real worker processes with IPython's
semantics, real Sphinx builds with MyST-NB render them, ``jaxcheck update`` rewrites real
files (guide/notebooks)."""

from __future__ import annotations

import html
import importlib.util
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from buildkit import (
    WARNING,
    assert_configuration_error,
    build,
    copy_root,
    jaxcheck_here,
    sphinx_build,
    write_project,
)
from notebooks import KERNEL, code, error, markdown, result, stdout, write_notebook

from sphinx_jaxcheck.model import CellOutput, FailureKind, Program
from sphinx_jaxcheck.report.formats import render
from sphinx_jaxcheck.report.records import Report
from sphinx_jaxcheck.run.pool import SessionResult, Workers, WorkerSettings
from sphinx_jaxcheck.worker.protocol import RunSession, SessionKind

REPO = Path(__file__).parents[2]
needs_myst_nb = pytest.mark.skipif(
    importlib.util.find_spec("myst_nb") is None,
    reason="MyST-NB renders the notebook pages: pip install 'sphinx-jaxcheck[test]'",
)
CONF = (
    'extensions = ["myst_nb", "sphinx_jaxcheck"]\n'
    'source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}\n'
    'nb_execution_mode = "force"\n'
)
INDEX = "# Notebooks\n\n```{toctree}\nnb\n```\n"


@pytest.fixture(scope="module")
def workers() -> Iterator[Workers]:
    started = Workers(WorkerSettings(workers=2))
    try:
        yield started
    finally:
        started.close()


def cells(workers: Workers, *sources: str, timeout: float = 60.0) -> SessionResult:
    items = tuple(Program(s, f"nb.ipynb:cell {n}", timeout=timeout) for n, s in enumerate(sources))
    request = RunSession("nb", (), items, SessionKind.NOTEBOOK)
    return workers.run({"nb": request})["nb"]


def shown(outputs: tuple[CellOutput, ...]) -> list[tuple[str, str, str]]:
    return [(o.output_type, o.name, o.text) for o in outputs]


def test_cells_show_what_jupyter_shows(workers: Workers) -> None:
    ran = cells(
        workers,
        "x = 20",
        "x + 1",
        "x + 2;",
        "print('out'); import sys; print('err', file=sys.stderr); x",
        "display(1); display('two')",
        "None",
        "%timeit -n 1 -r 1 sum(range(3))",
        "y = x  # a comment after the value",
        "y",
    )
    outputs = [shown(outcome.outputs) for outcome in ran.items]
    assert outputs[0] == []
    assert outputs[1] == [("execute_result", "", "21")]
    assert outputs[2] == []  # a trailing ; hides the value
    assert outputs[3] == [
        ("stream", "stdout", "out\n"),
        ("stream", "stderr", "err\n"),
        ("execute_result", "", "20"),
    ]
    assert outputs[4] == [("display_data", "", "1"), ("display_data", "", "'two'")]
    assert outputs[5] == []
    assert "per loop" in outputs[6][0][2]
    assert outputs[8] == [("execute_result", "", "20")]


def test_an_error_is_an_output_and_the_next_cells_run(workers: Workers) -> None:
    ran = cells(workers, "a = 1", "1/0", "a + 1")
    error_output = ran.items[1].outputs[0]
    assert (error_output.output_type, error_output.name, error_output.text) == (
        "error",
        "ZeroDivisionError",
        "division by zero",
    )
    assert any("ZeroDivisionError" in line for line in error_output.traceback)
    assert ran.items[1].exception is not None
    assert shown(ran.items[2].outputs) == [("execute_result", "", "2")]


def test_a_cell_that_crashes_fails_and_a_fresh_shell_resumes_the_notebook(
    workers: Workers,
) -> None:
    ran = cells(workers, "a = 5", "import os\nos._exit(3)", "a * 2")
    assert ran.items[1].failure is FailureKind.CRASH
    assert shown(ran.items[2].outputs) == [("execute_result", "", "10")]


@pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None,
    reason="figures need matplotlib: pip install 'sphinx-jaxcheck[test]'",
)
def test_a_figure_is_shown_as_an_image_and_its_repr(workers: Workers) -> None:
    ran = cells(workers, "import matplotlib.pyplot as plt\nplt.plot([1, 2]);")
    (figure,) = ran.items[0].outputs
    assert figure.output_type == "display_data"
    assert figure.text.startswith("<Figure size")
    assert figure.mime("image/png")


@pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None,
    reason="figures need matplotlib: pip install 'sphinx-jaxcheck[test]'",
)
def test_each_shown_value_comes_with_its_type_for_the_judge(workers: Workers) -> None:
    ran = cells(
        workers,
        "import matplotlib\nmatplotlib.use('agg')\nimport matplotlib.pyplot as plt\n"
        "fig, ax = plt.subplots()",
        "ax.set_title('t')",
        "ax.plot([1, 2])",
        "class Text:\n    def __repr__(self):\n        return \"Text(0.5, 1.0, 't')\"\nText()",
        "from IPython.display import HTML\ndisplay(HTML('<b>x</b>'))",
        "print(1)",
    )
    shows = [[(o.text, o.shows) for o in outcome.outputs] for outcome in ran.items[1:]]
    assert shows[0] == [("Text(0.5, 1.0, 't')", "matplotlib.text.Text")]
    assert shows[1][0][1] == "list[matplotlib.lines.Line2D]"
    assert shows[2] == [("Text(0.5, 1.0, 't')", "__main__.Text")]
    assert shows[3] == [("<IPython.core.display.HTML object>", "IPython.core.display.HTML")]
    assert shows[4] == [("1\n", "")]


def pytest_run(root: Path) -> subprocess.CompletedProcess[str]:
    """``pytest --jaxcheck ROOT`` in a fresh process, as a user runs it."""
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST_", "PYTEST_CURRENT"))
    }
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--jaxcheck", str(root)],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
    )


def notebook_project(tmp_path: Path, *cells_: object, conf: str = "") -> Path:
    root = write_project(tmp_path / "docs", {"index.md": INDEX}, conf=CONF + conf)
    write_notebook(root / "nb.ipynb", markdown("# A notebook"), *cells_)
    return root


@pytest.mark.stack
@needs_myst_nb
def test_a_build_checks_each_cell_and_myst_nb_runs_none(tmp_path: Path) -> None:
    runs = tmp_path / "runs.txt"
    root = notebook_project(
        tmp_path,
        code(f"open({str(runs)!r}, 'a').write('ran\\n')", result("4")),
        code("x = 20"),
        code("x + 1", result("21")),
        code("print(x * 3)", stdout("59\n")),
        code("int('z')", error("ValueError", "ignored"), tags=["raises-exception"]),
    )
    done = build(root)
    reported = [(r.file, r.subtype, r.message.splitlines()[0]) for r in done.reported]
    text = (root / "nb.ipynb").read_text()
    line_of = {n: text.splitlines().index(f'    "{s}"') + 1 for n, s in ((4, "print(x * 3)"),)}
    assert reported == [
        ("nb.ipynb", "drift", "nb.ipynb:cell 4: the outputs it stores are stale:"),
        ("nb.ipynb", "drift", "nb.ipynb:cell 5: the outputs it stores are stale:"),
    ]
    assert any(r.line == line_of[4] and "nb.ipynb:cell 4" in r.message for r in done.reported)
    assert any("ignored" in r.message and "nb.ipynb:cell 5" in r.message for r in done.reported)
    assert runs.read_text() == "ran\n"  # once: ours; MyST-NB ran nothing
    page = (root / "_build" / "html" / "nb.html").read_text()
    # The page shows what the cells showed in our run, each with its verdict.
    assert ">60\n</pre>" in page and ">59\n" not in page
    assert page.count("jaxcheck-status-verified") == 3
    assert page.count("jaxcheck-status-stale") == 2


@needs_myst_nb
def test_after_a_failed_cell_the_shell_goes_on_and_later_failures_are_listed_under_it(
    tmp_path: Path,
) -> None:
    runs = tmp_path / "runs.txt"
    root = notebook_project(
        tmp_path,
        code(f"open({str(runs)!r}, 'a').write('ran\\n')", result("4")),
        code("import numpy as nmp\nx = np.ones(3)"),
        code("print('still here')", stdout("still here\n")),
        code("x + 1", result("array([2., 2., 2.])")),
        code("len(x)", result("3")),
    )
    done = jaxcheck_here("check", str(root), "--format", "json")
    report = json.loads(done.stdout)
    assert runs.read_text() == "ran\n"  # no earlier cell ran again, as in a kernel
    assert [(c["cell"], c["status"], c.get("after")) for c in report["cells"]] == [
        (1, "verified", None),
        (2, "failed", None),
        (3, "verified", None),
        (4, "failed", "nb.ipynb:cell 2"),
        (5, "failed", "nb.ipynb:cell 2"),
    ]
    (finding,) = report["findings"]
    assert finding["message"].startswith("nb.ipynb:cell 2: the cell raised an exception")
    text = (root / "nb.ipynb").read_text().splitlines()
    line = text.index('    "x + 1"') + 1
    assert (
        "2 later cell(s) failed after it (the shell went on, as a kernel does; fix this cell "
        f"first):\n  nb.ipynb:cell 4 (line {line}): NameError: name 'x' is not defined\n"
        in finding["message"]
    )
    summary = "5 block(s): 2 verified, 0 stale, 1 failed, 2 failed after an earlier cell"
    assert summary in report["summary"]
    # The guide shows this notebook's report.
    (shown,) = [m for m in guide_messages() if "later cell(s) failed after it" in m]
    printed = f"nb.ipynb:{finding['line']}: error: {finding['message']}\n\n{report['summary']}"
    assert shown == printed.replace(f"(jax {report['run']['jax']})", "(jax 0.10.2)")
    build(root)
    page = html.unescape((root / "_build" / "html" / "nb.html").read_text())
    assert page.count("✗ failed</span> with jax ") == 3
    assert page.count(" after nb.ipynb:cell 2 failed (show)") == 2


@needs_myst_nb
def test_a_cell_that_changes_the_environment_is_not_run_and_the_report_says_why(
    tmp_path: Path,
) -> None:
    root = notebook_project(
        tmp_path,
        code("%pip install -q optax", stdout("stored\n")),
        code("print('next')", stdout("next\n")),
    )
    done = jaxcheck_here("check", str(root))
    assert done.returncode == 0, done.stdout + done.stderr
    (shown,) = [m for m in guide_messages() if ": not run: " in m and "environment" in m]
    assert f"/{shown}\n" in done.stdout  # as the guide shows it
    assert "2 block(s): 1 verified, 0 stale, 0 failed, 1 skipped" in done.stdout


@needs_myst_nb
def test_a_cell_runs_without_its_lines_that_change_the_environment(tmp_path: Path) -> None:
    root = notebook_project(
        tmp_path,
        # pip, run, would print an error (no such package, or no network): the cell stores none.
        code("%pip install -q jaxcheck-no-such-package\nimport math"),
        code("print(math.pi)", stdout("3.141592653589793\n")),
        code(
            "!pip install -q -U jaxcheck-no-such-package\nprint('after')",
            stdout("what pip said\nafter\n"),
        ),
    )
    report = json.loads(jaxcheck_here("check", str(root), "--format", "json").stdout)
    assert [(c["status"], c.get("left_out")) for c in report["cells"]] == [
        ("verified", "line 1: %pip install -q jaxcheck-no-such-package"),
        ("verified", None),
        ("not compared", "line 1: !pip install -q -U jaxcheck-no-such-package"),
    ]
    done = jaxcheck_here("check", str(root))
    assert done.returncode == 0, done.stdout + done.stderr
    (shown,) = [m for m in guide_messages() if "ran without its lines" in m]
    assert f"/{shown}\n" in done.stdout  # as the guide shows it
    build(root)
    page = html.unescape((root / "_build" / "html" / "nb.html").read_text())
    assert "what pip said" not in page  # the page shows what the cell showed: "after" alone
    assert "ran without line 1: !pip install -q -U jaxcheck-no-such-package" in page


@needs_myst_nb
def test_a_cell_that_changes_the_environment_runs_where_conf_py_says_run(tmp_path: Path) -> None:
    root = notebook_project(
        tmp_path,
        code("%pip uninstall -y jaxcheck-no-such-package\nprint('ran')", stdout("ran\n")),
        conf='jaxcheck_notebooks_environment = "run"\n',
    )
    done = jaxcheck_here("check", str(root))
    # pip ran in the workers' Python, and said so; the cell printed what it stores after.
    assert "1 block(s): 0 verified, 1 stale, 0 failed" in done.stdout, done.stdout
    assert "+WARNING: Skipping jaxcheck-no-such-package as it is not installed." in done.stdout
    assert "not run:" not in done.stdout


@needs_myst_nb
@pytest.mark.parametrize("number", [False, True])
def test_with_jaxcheck_notebooks_number_a_float_matches_to_its_stored_precision(
    tmp_path: Path, number: bool
) -> None:
    root = notebook_project(
        tmp_path,
        code("import math\nprint(math.pi, 4 * math.atan(1.0))", stdout("3.14 3.1416\n")),
        code("print(math.pi)", stdout("3.13\n")),
        conf=f"jaxcheck_notebooks_number = {number}\n",
    )
    report = json.loads(jaxcheck_here("check", str(root), "--format", "json").stdout)
    statuses = [c["status"] for c in report["cells"]]
    # 3.13 is no pi to two places.
    assert statuses == (["verified", "stale"] if number else ["stale", "stale"])


@needs_myst_nb
@pytest.mark.parametrize(
    ("conf", "status"),
    [
        ("", "stale"),
        # NUMBER reads 0.34292355 as within 1e-8: one float32 ulp here is 3e-8.
        ("jaxcheck_notebooks_number = True\n", "stale"),
        ("jaxcheck_notebooks_tolerance = 1e-6\n", "verified"),
        ("jaxcheck_notebooks_number = True\njaxcheck_notebooks_tolerance = 1e-6\n", "verified"),
        # One ulp is about 8.7e-8 of these numbers.
        ("jaxcheck_notebooks_tolerance = 1e-8\n", "stale"),
    ],
)
def test_jaxcheck_notebooks_tolerance_absorbs_a_float32_ulp_and_no_more(
    tmp_path: Path, conf: str, status: str
) -> None:
    root = notebook_project(
        tmp_path,
        code(
            "import numpy as np\nprint(np.float32(0.34292352), np.float32(-1.4866238))",
            # Stored as the run before wrote them: each one float32 ulp away, in full.
            stdout("0.34292355 -1.4866239\n"),
        ),
        conf=conf,
    )
    report = json.loads(jaxcheck_here("check", str(root), "--format", "json").stdout)
    assert [c["status"] for c in report["cells"]] == [status]


@needs_myst_nb
def test_update_rewrites_only_drifted_cells_and_the_next_check_passes(tmp_path: Path) -> None:
    root = notebook_project(
        tmp_path,
        code("x = 20"),
        code("x + 1", result("21")),
        code("print(x * 3)", stdout("59\n")),
        code("{'a': x}", result("{'a': 19}")),
    )
    path = root / "nb.ipynb"
    before = json.loads(path.read_text())
    done = jaxcheck_here("update", str(root))
    assert done.returncode == 0, done.stderr
    assert "rewrote 2 expectation(s) in 1 file(s)" in done.stderr
    after = json.loads(path.read_text())
    nbformat.validate(nbformat.reads(path.read_text(), as_version=4))
    assert after["cells"][:3] == before["cells"][:3]  # the title, x = 20, x + 1
    assert after["cells"][3]["outputs"][0]["text"] == ["60\n"]
    assert after["cells"][4]["outputs"][0]["data"]["text/plain"] == ["{'a': 20}"]
    again = jaxcheck_here("check", str(root), "--no-cache")
    assert again.returncode == 0, again.stdout + again.stderr


@needs_myst_nb
def test_a_cells_verdict_follows_every_edit_of_its_notebook(tmp_path: Path) -> None:
    root = notebook_project(
        tmp_path, code("x = 2"), code("x * 2", result("4")), conf="jaxcheck_cache = True\n"
    )
    assert jaxcheck_here("check", str(root)).returncode == 0
    node = nbformat.read(root / "nb.ipynb", as_version=4)
    node.cells[1].source = "x = 3"
    nbformat.write(node, root / "nb.ipynb")
    warm = jaxcheck_here("check", str(root))
    cold = jaxcheck_here("check", str(root), "--no-cache")
    assert warm.returncode == cold.returncode == 1
    assert "nb.ipynb:cell 2" in warm.stdout and "nb.ipynb:cell 2" in cold.stdout
    six = nbformat.v4.new_output("execute_result", data={"text/plain": "6"}, execution_count=1)
    node.cells[2].outputs = [six]
    nbformat.write(node, root / "nb.ipynb")
    assert jaxcheck_here("check", str(root)).returncode == 0
    assert jaxcheck_here("check", str(root), "--no-cache").returncode == 0


# The header jupytext writes on a MyST text notebook.
MYST_HEADER = """\
---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---
"""
TEXT_NOTEBOOK = (
    MYST_HEADER
    + """
# A text notebook

```{code-cell} ipython3
x = 20
x + 1
```

```{jaxcheck-output}
21
```

```{code-cell} ipython3
:tags: [raises-exception]

print("hello")
1/0
```

```{jaxcheck-output}
hello
ZeroDivisionError: division by one
```

```{code-cell} ipython3
print("no output block: not compared")
```
"""
)


@pytest.mark.stack
@needs_myst_nb
def test_a_text_notebook_compares_each_output_block_and_update_rewrites_it(
    tmp_path: Path,
) -> None:
    root = write_project(
        tmp_path / "docs",
        {"index.md": "# Notebooks\n\n```{toctree}\ntext\n```\n", "text.md": TEXT_NOTEBOOK},
        conf=CONF,
    )
    done = build(root)
    stale_line = TEXT_NOTEBOOK.splitlines().index("```{jaxcheck-output}", 20) + 2
    assert [(r.file, r.line, r.subtype) for r in done.reported] == [
        ("text.md", stale_line, "drift")
    ]
    assert "text.md:cell 3: the output block after it is stale" in done.reported[0].message
    page = (root / "_build" / "html" / "text.html").read_text()
    assert "no output block: not compared" in page  # what the cell showed
    assert page.count("jaxcheck-status-verified") == 1
    assert page.count("jaxcheck-status-not-compared") == 1
    assert jaxcheck_here("update", str(root)).returncode == 0
    updated = (root / "text.md").read_text()
    assert updated == TEXT_NOTEBOOK.replace("division by one", "division by zero")
    assert jaxcheck_here("check", str(root), "--no-cache").returncode == 0


@needs_myst_nb
def test_reports_name_each_cell_and_pytest_has_an_item_per_notebook(tmp_path: Path) -> None:
    root = notebook_project(
        tmp_path, code("x = 20"), code("print(x * 3)", stdout("59\n")), code("y = 1", count=None)
    )
    done = jaxcheck_here("check", str(root), "--format", "json")
    report = json.loads(done.stdout)
    text = (root / "nb.ipynb").read_text().splitlines()
    line = text.index('    "print(x * 3)"') + 1
    assert [(c["cell"], c["status"]) for c in report["cells"]] == [
        (1, "verified"),
        (2, "stale"),
        (3, "not compared"),
    ]
    assert report["cells"][1]["line"] == line
    assert report["cells"][1]["path"].endswith("nb.ipynb")
    tested = pytest_run(root)
    assert "1 failed" in tested.stdout and "nb.ipynb::notebook nb.ipynb" in tested.stdout
    assert f"nb.ipynb:{line}: drift: nb.ipynb:cell 2: the outputs it stores are stale" in (
        tested.stdout
    )


TWIN = (
    MYST_HEADER
    + """
# A notebook

```{code-cell} ipython3
x = 20
```

In a session: `>>> x` shows `20`.

>>> x
20

```{code-cell} ipython3
print(x * 3)
```
"""
)


@pytest.mark.stack
@needs_myst_nb
def test_a_jupytext_pair_is_one_document_reported_at_the_cell_and_the_twins_line(
    tmp_path: Path,
) -> None:
    root = notebook_project(
        tmp_path,
        code("x = 20"),
        code("print(x * 3)", stdout("59\n")),
        conf='exclude_patterns = ["_build", "nb.md"]\njaxcheck_doctests = "check"\n',
    )
    (root / "nb.md").write_text(TWIN, encoding="utf-8")
    done = jaxcheck_here("check", str(root))
    twin_line = TWIN.splitlines().index("print(x * 3)") + 1
    assert f"nb.ipynb:cell 2 (nb.md:{twin_line}): the outputs it stores are stale" in done.stdout
    # The twin is the notebook: never advised out of exclude_patterns.
    assert "exclude_patterns" not in done.stdout + done.stderr


def guide_messages() -> list[str]:
    """The ``text`` blocks of the guide's Notebooks page: what a build prints."""
    page = (REPO / "demo_docs" / "guide" / "notebooks.md").read_text("utf-8")
    return re.findall(r"^```text\n(.*?)\n```$", page, re.MULTILINE | re.DOTALL)


NOTEBOOK_CONF = (
    'extensions = ["myst_nb", "sphinx_jaxcheck"]\n'
    'source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}\n'
    # The messages end with their type, as Sphinx prints them from 8.0 on.
    "show_warning_types = True\n"
)


@pytest.mark.stack
@needs_myst_nb
def test_the_notebooks_pages_example_messages_are_what_a_build_prints(tmp_path: Path) -> None:
    root = copy_root("notebooks", tmp_path, conf=NOTEBOOK_CONF)
    built = sphinx_build("-b", "html", ".", "_build/html", cwd=root)
    assert built.returncode == 1, built.stderr
    printed = [
        f"{os.path.relpath(m['path'], root)}:{m['line']}: WARNING: {m['message']} "
        f"[jaxcheck.{m['subtype']}]"
        for m in WARNING.finditer(built.stderr)
    ]
    shown = [m for m in guide_messages() if "WARNING" in m]  # the summary line is tested apart
    assert len(shown) == 3
    for message in shown:
        assert message in printed, "\n\n".join(printed)


@needs_myst_nb
def test_a_notebook_for_an_accelerator_is_not_run_and_a_bad_option_is_reported_at_its_cell(
    tmp_path: Path,
) -> None:
    root = notebook_project(
        tmp_path,
        code("x = 1", jaxcheck={"outptu": "ignore"}),
        code("print('tpu')", stdout("tpu\n"), jaxcheck={"platforms": ["tpu"]}),
    )
    done = jaxcheck_here("check", str(root), "--format", "json")
    report = json.loads(done.stdout)
    statuses = {b["name"]: (b["status"], b.get("reason", "")) for b in report["blocks"]}
    assert statuses["nb.ipynb:cell 1"][0] == "failed"
    assert statuses["nb.ipynb:cell 2"] == ("skipped", "platforms tpu: the workers run on cpu")
    (finding,) = report["findings"]
    line = (root / "nb.ipynb").read_text().splitlines().index('    "x = 1"') + 1
    assert (finding["line"], finding["subtype"]) == (line, "option")
    assert "no option 'outptu'; did you mean 'output'?" in finding["message"]


@pytest.mark.stack
@needs_myst_nb
def test_a_cell_that_did_not_run_to_its_end_shows_what_its_notebook_stores(
    tmp_path: Path,
) -> None:
    root = notebook_project(
        tmp_path,
        code("print('ran')", stdout("stored: refused\n"), jaxcheck={"outptu": "ignore"}),
        code("import time\ntime.sleep(30)", stdout("stored: timed out\n"), jaxcheck={"timeout": 1}),
        code("print('ran')", stdout("stored: skipped\n"), tags=["skip-execution"]),
        code("print('shown')", stdout("stored: stale\n")),
    )
    done = build(root)
    assert [r.subtype for r in done.reported] == ["option", "timeout", "drift"]
    page = (root / "_build" / "html" / "nb.html").read_text()
    # Each output as a page shows it: the text, then the end of its block.
    for kept in ("stored: refused", "stored: timed out", "stored: skipped", "shown"):
        assert f"{kept}\n</pre>" in page, kept
    assert "stored: stale\n</pre>" not in page  # it ran: the page shows what it showed


# A stand-in for nbsphinx, which is not among the test dependencies: an extension of the
# project that reads each .ipynb page as a parser of its own, without MyST-NB, showing each code
# cell's source and running nothing (as nbsphinx_execute = "never").
NOTEBOOK_READER = """\
import nbformat
from docutils import nodes
from sphinx.parsers import Parser


class NotebookParser(Parser):
    supported = ("notebook",)

    def parse(self, inputstring, document):
        notebook = nbformat.reads(inputstring, as_version=4)
        section = nodes.section(ids=["notebook"], names=["notebook"])
        section += nodes.title(text="A notebook")
        for cell in notebook.cells:
            if cell.cell_type == "code":
                section += nodes.literal_block(cell.source, cell.source)
        document += section


def setup(app):
    app.add_source_suffix(".ipynb", "notebook")
    app.add_source_parser(NotebookParser)
    return {"parallel_read_safe": True}
"""
READER_CONF = (
    "import os, sys\n"
    "sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\n"
    'extensions = ["myst_parser", "notebook_reader", "sphinx_jaxcheck"]\n'
)
UNCHECKED_CELLS = (
    '2 notebook cell(s) were not checked: set jaxcheck_notebooks = "check" in conf.py to check them'
)


def read_without_myst_nb(tmp_path: Path, runs: Path, conf: str = "") -> Path:
    """A project whose notebook a parser other than MyST-NB reads, with a cell that notes each
    run of it in ``runs`` and a cell whose stored output is stale."""
    root = write_project(tmp_path / "docs", {"index.md": INDEX}, conf=READER_CONF + conf)
    (root / "notebook_reader.py").write_text(NOTEBOOK_READER, encoding="utf-8")
    write_notebook(
        root / "nb.ipynb",
        markdown("# A notebook"),
        code(f"open({str(runs)!r}, 'a').write('ran\\n')", result("4")),
        code("print(3)", stdout("2\n")),
    )
    return root


@pytest.mark.stack
@pytest.mark.parametrize("setting", [None, "report", "check", "off"])
def test_without_myst_nb_notebooks_are_counted_not_run_unless_conf_py_says_check(
    tmp_path: Path, setting: str | None
) -> None:
    runs = tmp_path / "runs.txt"
    conf = "" if setting is None else f"jaxcheck_notebooks = {setting!r}\n"
    root = read_without_myst_nb(tmp_path, runs, conf)
    done = build(root)
    if setting == "check":  # the stand-in's pages are checked as MyST-NB's are
        assert runs.read_text() == "ran\n"
        assert [(r.file, r.subtype) for r in done.reported] == [("nb.ipynb", "drift")]
        assert done.status == 1 and "notebook cell(s)" not in done.log
        return
    assert not runs.exists()
    assert (done.status, done.reported) == (0, [])
    # Nothing goes unchecked without a word, but a notebook conf.py turned off.
    assert (UNCHECKED_CELLS in done.log) == (setting != "off"), done.log
    if setting is None:  # the summary line as the guide shows it
        (summary,) = [m for m in guide_messages() if m.startswith("jaxcheck: ")]
        assert summary in done.log.splitlines(), done.log


def test_reported_cells_are_counted_in_the_json_report_and_across_shards(tmp_path: Path) -> None:
    runs = tmp_path / "runs.txt"
    root = read_without_myst_nb(tmp_path, runs)
    for n in range(3):  # sessions for the shards to split
        page = f"---\norphan: true\n---\n# Page {n}\n\n```{{jaxcheck}}\nprint({n})\n\n# {n}\n```\n"
        (root / f"page{n}.md").write_text(page, encoding="utf-8")
    full = jaxcheck_here("check", root, "--format", "json")
    assert full.returncode == 0, full.stdout + full.stderr
    whole = json.loads(full.stdout)
    assert whole["unchecked_cells"] == 2
    assert whole["summary"].endswith(f"(jax {whole['run']['jax']}); {UNCHECKED_CELLS}")
    reports = []
    for k in (1, 2):
        shard = jaxcheck_here("check", root, "--shard", f"{k}/2", "--format", "json")
        assert shard.returncode == 0, shard.stdout + shard.stderr
        (tmp_path / f"shard{k}.json").write_text(shard.stdout, "utf-8")
        reports.append(tmp_path / f"shard{k}.json")
    merged = json.loads(jaxcheck_here("merge", *reports, "--format", "json").stdout)
    assert (merged["unchecked_cells"], merged["summary"]) == (2, whole["summary"])
    assert not runs.exists()


@pytest.mark.stack
@needs_myst_nb
def test_report_with_myst_nb_counts_the_cells_and_leaves_myst_nb_to_run_them_as_conf_py_says(
    tmp_path: Path,
) -> None:
    runs = tmp_path / "runs.txt"
    # CONF sets nb_execution_mode = "force": MyST-NB runs each notebook, jaxcheck none.
    root = notebook_project(
        tmp_path,
        code(f"open({str(runs)!r}, 'a').write('ran\\n')", result("4")),
        code("print(3)", stdout("2\n")),
        conf='jaxcheck_notebooks = "report"\n',
    )
    (root / "text.md").write_text(TEXT_NOTEBOOK, encoding="utf-8")
    (root / "index.md").write_text(INDEX.replace("nb\n", "nb\ntext\n"), encoding="utf-8")
    done = jaxcheck_here("check", root, "--format", "json")
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert (report["unchecked_cells"], report["cells"], report["blocks"]) == (5, [], [])
    assert (
        '5 notebook cell(s) were not checked: set jaxcheck_notebooks = "check"'
        in (report["summary"])
    )
    assert runs.read_text() == "ran\n"  # MyST-NB's run, as conf.py has it


# Notebooks kept from being run, one per way of saying so; each would fail if it ran.
EXCLUDING_CONF = (
    'nb_execution_excludepatterns = ["notebooks/layout.*", "paired.md"]\n'
    'jaxcheck_notebooks_exclude = ["pallas/*"]\n'
    'exclude_patterns = ["_build", "notebooks/paired.md"]\n'
)
NOT_RUN = {
    "notebooks/layout.ipynb": (
        "excluded from execution by nb_execution_excludepatterns 'notebooks/layout.*' in conf.py"
    ),
    # The pattern names the jupytext twin (MyST-NB matches the document it reads).
    "notebooks/paired.ipynb": (
        "excluded from execution by nb_execution_excludepatterns 'paired.md' in conf.py"
    ),
    "pallas/quickstart.ipynb": (
        "excluded from execution by jaxcheck_notebooks_exclude 'pallas/*' in conf.py"
    ),
    "never.ipynb": 'excluded from execution by its metadata: nbsphinx "execute": "never"',
    "tpu.ipynb": "the notebook needs platforms tpu: the workers run on cpu",
}


@pytest.fixture(scope="module")
def excluding(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A project whose notebooks conf.py (or their metadata) keeps from being run, beside one
    that runs: two cells with nothing to compare, and a cell whose error comes from inside
    jax."""
    tmp_path = tmp_path_factory.mktemp("excluding")
    index = "# Notebooks\n\n```{toctree}\n" + "\n".join(n[:-6] for n in [*NOT_RUN, "ok.ipynb"])
    root = write_project(tmp_path / "docs", {"index.md": index + "\n```\n"}, CONF + EXCLUDING_CONF)
    failing = code("raise RuntimeError('it ran')", stdout("stored output\n"))
    metadata: dict[str, dict[str, object]] = {
        "never.ipynb": {"nbsphinx": {"execute": "never"}},
        "tpu.ipynb": {"jaxcheck": {"platforms": ["tpu"]}},
    }
    for name in NOT_RUN:
        (root / name).parent.mkdir(exist_ok=True)
        write_notebook(root / name, markdown("# Not run"), failing, **metadata.get(name, {}))
    (root / "notebooks" / "paired.md").write_text("# Not run\n", encoding="utf-8")
    jax_error = "import jax\njax.lax.fori_loop(0, 3, lambda i, c: c + 0.5, jax.numpy.int32(0))"
    write_notebook(
        root / "ok.ipynb",
        markdown("# Runs"),
        code("x = 1", count=None),
        code("print(x)", stdout("1\n")),
        code("y = 2", count=None),
        code(jax_error, tags=["raises-exception"], jaxcheck={"output": "ignore"}),
    )
    return root


@pytest.fixture(scope="module")
def excluding_built(excluding: Path) -> subprocess.CompletedProcess[str]:
    """The project built as sphinx-build -W builds it."""
    return sphinx_build("-W", "-b", "html", ".", "_build/html", cwd=excluding)


@pytest.fixture(scope="module")
def excluding_report(excluding: Path) -> Report:
    """The project's JSON report, as ``jaxcheck check --format json`` prints it."""
    done = jaxcheck_here("check", excluding, "--format", "json", cwd=excluding)
    report: Report = json.loads(done.stdout)
    return report


@pytest.mark.stack
@needs_myst_nb
def test_notebooks_excluded_from_execution_are_not_run_and_show_what_they_store(
    excluding: Path, excluding_built: subprocess.CompletedProcess[str]
) -> None:
    done = excluding_built
    assert done.returncode == 0, done.stderr
    (summary,) = [line for line in done.stdout.splitlines() if " verified, " in line]
    assert "5 skipped" in summary
    assert "; 5 notebook cell(s) in 5 notebook(s) were not run: " in summary
    assert f"never.ipynb ({NOT_RUN['never.ipynb']})" in summary
    assert summary.endswith(" and 2 more")  # the text report names each
    for name, reason in NOT_RUN.items():
        page = (excluding / "_build" / "html" / name.replace(".ipynb", ".html")).read_text()
        assert ">stored output\n</pre>" in page and "RuntimeError: it ran" not in page
        assert html.escape(f"not run · {reason}") in page


@needs_myst_nb
def test_the_reports_say_why_each_notebook_did_not_run(excluding_report: Report) -> None:
    report = excluding_report
    assert report["summary"].startswith("jaxcheck: 9 block(s): 1 verified, 0 stale, 0 failed")
    assert report.get("not_run_notebooks") == [
        {"path": name, "cells": 1, "reason": NOT_RUN[name]} for name in sorted(NOT_RUN)
    ]
    assert report.get("not_run_cells") == 5
    reasons = {c["path"]: (c["status"], c.get("reason")) for c in report.get("cells", [])}
    assert {p: r for p, r in reasons.items() if p != "ok.ipynb"} == {
        name: ("skipped", reason) for name, reason in NOT_RUN.items()
    }
    text = render(report, "text", False)
    for name, reason in NOT_RUN.items():
        assert f"{name}:26: not run: 1 cell(s): {reason}\n" in text
    # The guide shows this very report.
    (shown,) = [m for m in guide_messages() if "were not run" in m]
    assert text == shown + "\n"


@needs_myst_nb
def test_pytest_skips_a_notebook_that_is_not_run_saying_why(excluding: Path) -> None:
    tested = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs", "--jaxcheck", "."],
        cwd=excluding,
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")},
    )
    assert "1 passed, 5 skipped" in tested.stdout, tested.stdout + tested.stderr
    for reason in NOT_RUN.values():
        assert f": not run: {reason}\n" in tested.stdout


@needs_myst_nb
def test_the_text_report_names_the_cells_not_compared(
    excluding: Path, excluding_report: Report
) -> None:
    text = render(excluding_report, "text", False)
    lines = (excluding / "ok.ipynb").read_text().splitlines()
    first, third, fourth = (
        next(n for n, line in enumerate(lines, 1) if line.startswith(f'    "{source}'))
        for source in ("x = 1", "y = 2", "import jax")
    )
    assert (
        "not compared (ran, with nothing to compare): "
        f"ok.ipynb:{first} (cell 1), ok.ipynb:{third} (cell 3), ok.ipynb:{fourth} (cell 4)\n"
    ) in text


@pytest.mark.stack
@needs_myst_nb
def test_a_traceback_on_the_page_names_files_as_a_reader_knows_them(
    excluding: Path, excluding_built: subprocess.CompletedProcess[str]
) -> None:
    page = (excluding / "_build" / "html" / "ok.html").read_text()
    assert "TypeError: scan body function carry input and carry output" in page
    assert "jax/_src/lax/control_flow/loops.py" in page
    assert "site-packages" not in page and sys.prefix not in page


# A MyST text notebook as jupytext writes it, whose kernelspec names no language (JAX's
# complex-differentiation.md): MyST-NB's own run would store the kernel's.
NO_LANGUAGE_NOTEBOOK = """\
---
jupytext:
  formats: md:myst
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  name: python3
---

# Text

```{code-cell}
print(2 + 2)
```

```{jaxcheck-output}
5
```
"""


@pytest.mark.stack
@needs_myst_nb
def test_a_notebook_saved_without_a_run_or_a_language_builds_clean_under_w(
    tmp_path: Path,
) -> None:
    index = "# Notebooks\n\n```{toctree}\nnb\ntext\n```\n"
    root = write_project(tmp_path / "docs", {"index.md": index}, conf=CONF)
    node = nbformat.v4.new_notebook(cells=[markdown("# Bare"), code("print(1)", count=None)])
    (root / "nb.ipynb").write_text(nbformat.writes(node), encoding="utf-8")
    (root / "text.md").write_text(NO_LANGUAGE_NOTEBOOK, encoding="utf-8")
    done = sphinx_build("-b", "html", ".", "_build/html", cwd=root)  # the drift, and the pages
    # The text notebook's drift, at its file's own line (the front matter kept its lines).
    assert "text.md:19:" in done.stderr and "-5" in done.stderr and "+4" in done.stderr, done.stderr
    assert "lexer" not in done.stderr
    html = root / "_build" / "html"
    assert "highlight-ipython3" in (html / "nb.html").read_text()  # language_info's lexer
    assert "highlight-python" in (html / "text.html").read_text()  # the kernelspec's language
    assert (root / "text.md").read_text(encoding="utf-8") == NO_LANGUAGE_NOTEBOOK  # never the file
    fixed = NO_LANGUAGE_NOTEBOOK.replace("5\n```\n", "4\n```\n")
    (root / "text.md").write_text(fixed, encoding="utf-8")
    done = sphinx_build("-W", "-b", "html", ".", "_build/html", cwd=root)
    assert done.returncode == 0, done.stderr


@needs_myst_nb
def test_a_bad_jaxcheck_notebooks_exclude_is_a_configuration_error(tmp_path: Path) -> None:
    root = notebook_project(tmp_path, code("x = 1"), conf="jaxcheck_notebooks_exclude = [3]\n")
    done = jaxcheck_here("check", root)
    assert_configuration_error(
        done, "jaxcheck_notebooks_exclude: the entry 3 (int) is not a pattern", "expected e.g."
    )


needs_kernel = pytest.mark.skipif(
    any(importlib.util.find_spec(m) is None for m in ("nbclient", "ipykernel", "matplotlib")),
    reason="the figures are drawn by a Jupyter kernel: pip install 'sphinx-jaxcheck[test]'",
)
# As optax's linear_assignment notebook: a cell prints the data and others plot it; the data
# changes, the text of the one printing it drifts, and so do the pictures of one plotting it.
PLOTS = (
    "import matplotlib.pyplot as plt\nx = 2",
    "print(x)\nplt.plot([0, x])\nplt.ylim(0, 4);",
    "plt.plot([x, 0])\nplt.ylim(0, 4);",
    "plt.plot([0, 1])\nplt.ylim(0, 4);",
)


@pytest.fixture(scope="module")
def plotted() -> str:
    """A notebook whose figures a real Jupyter kernel drew (through nbclient, as MyST-NB runs
    one), its first cell then edited to ``x = 3``: cells 2 and 3 show other figures now, and
    cell 4 the same one, drawn again."""
    from nbclient import NotebookClient

    node = nbformat.v4.new_notebook(
        cells=[markdown("# Plots"), *(code(source, count=None) for source in PLOTS)],
        metadata={"kernelspec": KERNEL},
    )
    NotebookClient(node, timeout=60, kernel_name="python3").execute()
    node.cells[1].source = PLOTS[0].replace("x = 2", "x = 3")
    return nbformat.writes(node) + "\n"


def plots_project(tmp_path: Path, notebook: str, conf: str = "") -> Path:
    root = write_project(tmp_path / "docs", {"index.md": INDEX}, conf=CONF + conf)
    (root / "nb.ipynb").write_text(notebook, encoding="utf-8")
    return root


def pictures(path: Path) -> list[list[str]]:
    """Each code cell's stored images (their base64 text)."""
    node = nbformat.read(path, as_version=4)
    return [
        [o["data"]["image/png"] for o in cell.outputs if "image/png" in o.get("data", {})]
        for cell in node.cells
        if cell.cell_type == "code"
    ]


@needs_myst_nb
@needs_kernel
def test_a_cell_whose_images_were_not_compared_is_not_reported_plainly_verified(
    tmp_path: Path, plotted: str
) -> None:
    root = plots_project(tmp_path, plotted)
    report = json.loads(jaxcheck_here("check", ".", "--format", "json", cwd=root).stdout)
    assert [(c["cell"], c["status"], c.get("images_not_compared")) for c in report["cells"]] == [
        (1, "verified", None),
        (2, "stale", None),
        (3, "verified", True),  # its stored figure is x = 2's
        (4, "verified", True),
    ]
    assert (
        "4 block(s): 1 verified, 2 verified (images not compared), 1 stale, 0 failed"
        in (report["summary"])
    )
    lines = plotted.splitlines()
    third, fourth = (lines.index(f'    "{source.splitlines()[0]}\\n",') + 1 for source in PLOTS[2:])
    assert (
        f"images not compared (verified by their text alone): nb.ipynb:{third} (cell 3), "
        f'nb.ipynb:{fourth} (cell 4); jaxcheck_notebook_images = "rms" in conf.py compares '
        "them by their pixels\n"
    ) in render(report, "text", False)
    # The guide shows this report (its lines numbered as the notebook it was made with).
    (shown,) = [m for m in guide_messages() if "verified by their text alone" in m]
    shown = shown.replace("(jax 0.10.2)", f"(jax {report['run']['jax']})")
    numbered = re.compile(r"nb\.ipynb:\d+ ")
    assert numbered.sub("nb.ipynb:N ", shown) in numbered.sub(
        "nb.ipynb:N ", render(report, "text", False)
    )
    build(root)
    page = html.unescape((root / "_build" / "html" / "nb.html").read_text())
    assert page.count("✓ verified</span> · jax ") == 3
    assert page.count(" · images not compared</div>") == 2
    # update rewrites the drifted cell's outputs whole: its text and its figure, as drawn now.
    before = pictures(root / "nb.ipynb")
    assert jaxcheck_here("update", str(root)).returncode == 0
    after = pictures(root / "nb.ipynb")
    assert after[1] != before[1] and len(after[1]) == 1
    assert nbformat.read(root / "nb.ipynb", as_version=4).cells[2].outputs[0]["text"] == "3\n"
    assert after[2:] == before[2:]  # not drifted: left as they are


@needs_myst_nb
@needs_kernel
def test_compared_by_their_pixels_a_changed_plot_is_stale_and_update_rewrites_it(
    tmp_path: Path, plotted: str
) -> None:
    root = plots_project(tmp_path, plotted, conf='jaxcheck_notebook_images = "rms"\n')
    done = jaxcheck_here("check", ".", "--format", "json", cwd=root)
    report = json.loads(done.stdout)
    assert [(c["cell"], c["status"], c.get("images_not_compared")) for c in report["cells"]] == [
        (1, "verified", None),
        (2, "stale", None),
        (3, "stale", None),
        (4, "verified", None),  # drawn again as the kernel drew it
    ]
    (plot,) = [f for f in report["findings"] if f["block"] == "nb.ipynb:cell 3"]
    assert re.search(
        r"^\+\[image/png \d+x\d+, RMS [\d.]+ from the stored image: more than the tolerance 2\]$",
        plot["message"],
        re.MULTILINE,
    ), plot["message"]
    before = pictures(root / "nb.ipynb")
    done = jaxcheck_here("update", str(root))
    assert "rewrote 2 expectation(s) in 1 file(s)" in done.stderr, done.stderr
    after = pictures(root / "nb.ipynb")
    assert after[1] != before[1] and after[2] != before[2]  # no old picture under new numbers
    assert after[3] == before[3]
    again = jaxcheck_here("check", str(root), "--no-cache")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "4 block(s): 4 verified, 0 stale, 0 failed" in again.stdout
