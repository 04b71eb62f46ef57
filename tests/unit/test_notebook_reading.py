"""Reading a notebook's code cells: where each starts, what it stores, its options
(expect/notebooks.py; guide/notebooks)."""

from __future__ import annotations

import json
import warnings

import pytest
from hypothesis import given
from hypothesis import strategies as st
from notebooks import code, error, markdown, notebook_text, result, stdout

from sphinx_jaxcheck.errors import NotebookError
from sphinx_jaxcheck.expect.notebooks import (
    Notebook,
    excluding_pattern,
    notebook_blocks,
    read_notebook,
    source_lines,
    without_environment,
)
from sphinx_jaxcheck.model import CellOutput, ImageRule, OutputMode


def test_each_cell_is_found_at_the_line_its_source_starts_on() -> None:
    text = notebook_text(
        markdown("# Title"),
        code("x = 1\ny = 2"),
        markdown("between"),
        code('print("a")', stdout("a\n")),
        code(""),
    )
    lines = text.splitlines()
    notebook = read_notebook(text)
    assert [cell.index for cell in notebook.cells] == [1, 3, 4]
    assert json.loads(lines[notebook.cells[0].line - 1].strip().rstrip(",")) == "x = 1\n"
    assert json.loads(lines[notebook.cells[1].line - 1].strip().rstrip(",")) == 'print("a")'
    # An empty source is written "source": []: the line of its key.
    assert '"source": []' in lines[notebook.cells[2].line - 1]


def test_lines_are_found_in_any_json_layout() -> None:
    node = json.loads(notebook_text(code("a = 1"), code("b = 2")))
    compact = json.dumps(node, separators=(",", ":"))  # one line
    assert source_lines(compact) == {0: 1, 1: 1}
    spread = json.dumps(node, indent=4)
    found = source_lines(spread)
    assert spread.splitlines()[found[1] - 1].strip() == '"b = 2"'


def test_stored_outputs_as_nbformat_holds_them() -> None:
    notebook = read_notebook(
        notebook_text(
            code("print(1); 2", stdout("1\n"), result("2", 1, **{"text/html": "<b>2</b>"})),
            code("1/0", error("ZeroDivisionError", "division by zero")),
        )
    )
    first, second = notebook.cells
    assert first.stored == (
        CellOutput("stream", "stdout", "1\n"),
        CellOutput("execute_result", "", "2", (("text/html", "<b>2</b>"), ("text/plain", "2"))),
    )
    assert second.stored is not None
    assert second.stored[0].output_type == "error"
    assert (second.stored[0].name, second.stored[0].text) == (
        "ZeroDivisionError",
        "division by zero",
    )


def test_a_cell_saved_without_a_run_has_nothing_to_compare_one_with_a_count_expects_nothing() -> (
    None
):
    # As nbval decides: a cell is compared when it has outputs or an execution count.
    notebook = read_notebook(notebook_text(code("x = 1", count=None), code("y = 1", count=3)))
    assert [cell.stored for cell in notebook.cells] == [None, ()]


def test_options_from_the_notebook_the_cell_its_tags_and_nbval_comments() -> None:
    text = notebook_text(
        code("a = 1"),
        code("b = 1", jaxcheck={"platforms": "cpu", "compare": "jaxpr", "tolerance": 0.01}),
        code("c = 1", tags=["raises-exception"]),
        code("d = 1", tags=["skip-execution"]),
        code("# NBVAL_IGNORE_OUTPUT\ne = 1"),
        code("# a comment\n# NBVAL_RAISES_EXCEPTION\nf = 1"),
        code("g = 1  # NBVAL_SKIP is not on a line of its own"),
        code("h = 1", jaxcheck={"images": "compare"}),
        jaxcheck={"platforms": ["tpu"], "timeout": 5},
    )
    cells = read_notebook(text).cells
    assert cells[0].options.limits.platforms == ("tpu",)
    assert cells[0].options.timeout == 5
    assert cells[1].options.limits.platforms == ("cpu",)
    assert (cells[1].options.compare.value, cells[1].options.tolerance) == ("jaxpr", 0.01)
    assert cells[2].raises and not cells[0].raises
    assert cells[3].options.output is OutputMode.SKIP
    assert cells[4].options.output is OutputMode.IGNORE
    assert cells[5].raises
    assert cells[6].options.output is OutputMode.CHECK
    assert cells[7].images and not cells[6].images


def test_nbvals_markers_count_on_any_line_of_the_cell() -> None:
    cells = read_notebook(
        notebook_text(
            code("import numpy as np\n\n# NBVAL_IGNORE_OUTPUT\nnp.random.rand()"),
            code("x = 1\n    #  NBVAL_SKIP\n"),
            code("y = 1\n# NBVAL_RAISES_EXCEPTION\n1 / 0"),
            code("z = 1", tags=["nbval-check-output", "nbval-ignore-output"]),
            code("# NBVAL_IGNORE_OUTPUT\nw = 1\n# NBVAL_CHECK_OUTPUT"),
        )
    ).cells
    assert cells[0].options.output is OutputMode.IGNORE
    assert cells[1].options.output is OutputMode.SKIP
    assert cells[2].raises
    assert cells[3].options.output is OutputMode.IGNORE  # the last tag wins
    assert cells[4].options.output is OutputMode.CHECK  # the last comment wins


MARKER_LINES = st.sampled_from(
    (
        "# NBVAL_IGNORE_OUTPUT",
        "#NBVAL_CHECK_OUTPUT",
        "  ## NBVAL_SKIP  ",
        "# NBVAL_RAISES_EXCEPTION",
        "# PYTEST_VALIDATE_IGNORE_OUTPUT",
        "x = 1  # NBVAL_SKIP",
        "# NBVAL_SKIP please",
        "print(1)",
        "",
    )
)
NBVAL_TAGS = st.sampled_from(
    (
        "nbval-ignore-output",
        "nbval-check-output",
        "nbval-skip",
        "nbval-raises-exception",
        "raises-exception",
        "pytest-validate-ignore-output",
        "other",
    )
)


@given(st.lists(MARKER_LINES, max_size=6), st.lists(NBVAL_TAGS, max_size=3, unique=True))
def test_a_cells_markers_mean_what_they_mean_to_nbval(lines: list[str], tags: list[str]) -> None:
    plugin = pytest.importorskip("nbval.plugin", reason="nbval is the oracle: pip install nbval")
    source = "\n".join(lines)
    # As nbval's collection decides a cell's options (under --nbval: unmarked cells checked).
    with warnings.catch_warnings():  # nbval warns of conflicting markers, and takes the last
        warnings.simplefilter("ignore")
        options = dict(plugin.find_metadata_tags({"tags": tags}))
        options.update(plugin.find_comment_markers(source))
    options.setdefault("check", True)
    (cell,) = read_notebook(notebook_text(code(source, tags=tags))).cells
    if options.get("skip"):
        assert cell.options.output is OutputMode.SKIP
        return
    assert cell.options.output is (OutputMode.CHECK if options["check"] else OutputMode.IGNORE)
    assert cell.raises == bool(options.get("check_exception"))


@pytest.mark.parametrize(
    ("source", "found"),
    [
        ("%pip install -q optax", "%pip install -q optax"),
        (
            "import sys\n!{sys.executable} -m pip install jax",
            "!{sys.executable} -m pip install jax",
        ),
        ("!pip install 'jax[cpu]'\nimport jax", "!pip install 'jax[cpu]'"),
        ("! python3 -m pip install -U flax", "! python3 -m pip install -U flax"),
        ("%conda install -y numpy", "%conda install -y numpy"),
        ("!conda env create -f environment.yml", "!conda env create -f environment.yml"),
        ("%uv pip install optax", "%uv pip install optax"),
        ("%pip uninstall -y jax", "%pip uninstall -y jax"),
        ("%pip list", ""),
        ("!pip freeze", ""),
        ("# %pip install optax", ""),
        ("print('%pip install optax')", ""),
        ("!ls", ""),
    ],
)
def test_a_cell_that_installs_or_removes_packages_changes_the_environment(
    source: str, found: str
) -> None:
    (cell,) = read_notebook(notebook_text(code(source))).cells
    assert cell.changes_environment == found


@pytest.mark.parametrize("floats_as_written", [False, True])
def test_the_project_wide_settings_reach_every_cell(floats_as_written: bool) -> None:
    notebook = read_notebook(notebook_text(code("a = 1"), code("%pip install optax"), code("b")))
    blocks = notebook_blocks(
        "nb",
        "nb.ipynb",
        notebook,
        timeout=5.0,
        normalizers=("ansi",),
        digest="",
        floats_as_written=floats_as_written,
    )
    cells = [block.kind for block in blocks]
    assert [cell.number for cell in cells] == [floats_as_written] * 3  # type: ignore[union-attr]
    assert [bool(cell.not_run) for cell in cells] == [False, True, False]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("source", "runs", "left_out"),
    [
        # optax's linear_assignment_problem.ipynb, cell 2.
        (
            "!pip install -q -U networkx\nimport networkx as nx\nfrom jax import random",
            "pass\nimport networkx as nx\nfrom jax import random",
            "line 1: !pip install -q -U networkx",
        ),
        # Last: still no value shown, as none was (a blank line would show x).
        ("x = 1\nx\n%pip install y", "x = 1\nx\npass", "line 3: %pip install y"),
        # Its continuation lines go with it; every other line keeps its number.
        (
            "!pip install a \\\n    b\nimport a\n%conda install -y c",
            "pass\n\nimport a\npass",
            "line 1: !pip install a b; line 4: %conda install -y c",
        ),
        # IPython's other escaped lines stay, and run.
        (
            "%matplotlib inline\n%pip install -q x\n!ls\nhelp?",
            "%matplotlib inline\npass\n!ls\nhelp?",
            "line 2: %pip install -q x",
        ),
        ("if old:\n    %pip install -U jax\nimport jax", None, None),  # under an if
        ('s = """\n!pip install x\n"""\nprint(s)', None, None),  # a string's line
        ("f(1,\n!pip install x\n)", None, None),  # in brackets
        ("%%capture\n!pip install x\nimport x", None, None),  # a cell magic's body
        ("# set up\n%pip install -q optax\n\n", None, None),  # nothing else
    ],
)
def test_a_cell_runs_without_its_lines_that_change_the_environment_where_it_can(
    source: str, runs: str | None, left_out: str | None
) -> None:
    found = without_environment(source)
    assert (found.code, found.lines) == (runs, left_out) if found else runs is None
    if found:
        assert len(found.code.split("\n")) == len(source.split("\n"))


def test_a_cell_run_without_such_lines_compares_only_when_it_stores_no_output() -> None:
    notebook = read_notebook(
        notebook_text(
            code("%pip install -q optax\nimport optax"),
            code("%pip install -q optax\nimport optax", stdout("Note: restart\n")),
            code("%pip install -q optax\nimport optax", stdout("x\n"), tags=["nbval-skip"]),
            code("%pip install -q optax"),
        )
    )
    blocks = notebook_blocks("nb", "nb.ipynb", notebook, timeout=5.0, normalizers=(), digest="")
    assert [b.program.code for b in blocks] == ["pass\nimport optax"] * 3 + [
        "%pip install -q optax"
    ]
    assert [b.options.output for b in blocks[:3]] == [
        OutputMode.CHECK,
        OutputMode.IGNORE,
        OutputMode.SKIP,  # nbval's skip still wins
    ]
    kinds = [b.kind for b in blocks]
    assert [k.left_out for k in kinds] == ["line 1: %pip install -q optax"] * 3 + [""]  # type: ignore[union-attr]
    assert [bool(k.not_run) for k in kinds] == [False] * 3 + [True]  # type: ignore[union-attr]
    ran = notebook_blocks(
        "nb", "nb.ipynb", notebook, timeout=5.0, normalizers=(), digest="", environment="run"
    )
    assert [b.program.code for b in ran] == [c.source for c in notebook.cells]
    assert not any(b.kind.left_out for b in ran)  # type: ignore[union-attr]


def test_the_tolerance_is_the_cells_its_notebooks_or_the_projects() -> None:
    notebook = read_notebook(
        notebook_text(code("a"), code("b", jaxcheck={"tolerance": 1e-3}), jaxcheck={})
    )
    strict = read_notebook(notebook_text(code("a"), jaxcheck={"tolerance": "1e-9"}))

    def tolerances(notebook: Notebook, project: float | None) -> list[float | None]:
        blocks = notebook_blocks(
            "nb", "nb.ipynb", notebook, timeout=5.0, normalizers=(), digest="", tolerance=project
        )
        return [block.options.tolerance for block in blocks]

    assert tolerances(notebook, None) == [None, 1e-3]
    assert tolerances(notebook, 1e-6) == [1e-6, 1e-3]
    assert tolerances(strict, 1e-6) == [1e-9]


def test_images_are_compared_as_the_cell_its_notebook_or_the_project_says() -> None:
    notebook = read_notebook(
        notebook_text(
            code("a = 1"),
            code("b = 1", jaxcheck={"images": "compare"}),
            code("c = 1", jaxcheck={"images": "rms:0.5"}),
            code("d = 1", jaxcheck={"images": "ignore"}),
            jaxcheck={"images": "rms"},
        )
    )
    rules = [
        block.kind.images  # type: ignore[union-attr]
        for project in ("ignore", "rms:9")
        for block in notebook_blocks(
            "nb", "nb.ipynb", notebook, timeout=5.0, normalizers=(), digest="", images=project
        )
    ]
    # The notebook's metadata sets "rms" (pytest-mpl's tolerance, 2) over the project's value.
    assert rules == [ImageRule(2.0), ImageRule(), ImageRule(0.5), None] * 2
    alone = read_notebook(notebook_text(code("a = 1")))
    (block,) = notebook_blocks(
        "nb", "nb.ipynb", alone, timeout=5.0, normalizers=(), digest="", images="rms:9"
    )
    assert block.kind.images == ImageRule(9.0)  # type: ignore[union-attr]


def test_bad_options_are_problems_naming_what_was_found_and_expected() -> None:
    cells = read_notebook(
        notebook_text(
            code("a = 1", jaxcheck={"outptu": "ignore"}),
            code("b = 1", jaxcheck={"output": "sometimes"}),
            code("c = 1", jaxcheck="ignore"),
            code("d = 1", jaxcheck={"images": "yes"}),
            code("e = 1", jaxcheck={"images": "rms:-1"}),
            code("f = 1", jaxcheck={"images": "rsm"}),
        )
    ).cells
    assert "no option 'outptu'" in cells[0].problems[0]
    assert "output" in cells[0].problems[0]
    assert "'sometimes' is not allowed" in cells[1].problems[0]
    assert "expected a mapping" in cells[2].problems[0]
    assert "'yes' is not allowed" in cells[3].problems[0]
    assert "ignore, compare" in cells[3].problems[0]
    assert cells[4].problems == (
        '"jaxcheck" directive, option ":images:": \'rms:-1\' is not allowed; expected one of '
        "ignore, compare, rms, rms:<tolerance> (a number, 0 or more)",
    )
    assert "'rsm' is not allowed; did you mean 'rms'?" in cells[5].problems[0]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("{not json", "not a notebook nbformat can read"),
        (
            '{"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": []}',
            "expected version 4",
        ),
    ],
)
def test_what_is_no_notebook_says_what_was_found(text: str, words: str) -> None:
    with pytest.raises(NotebookError, match=words):
        read_notebook(text)


def test_the_kernel_language_is_read() -> None:
    text = notebook_text(code("1"), kernelspec={"name": "ir", "display_name": "R", "language": "R"})
    assert read_notebook(text).language == "R"


@pytest.mark.parametrize(
    ("pattern", "matched"),
    [
        ("notebooks/layout.*", True),  # JAX's own patterns
        ("layout.ipynb", True),  # matched from the right, as MyST-NB matches
        ("*.ipynb", True),
        ("docs/notebooks/*", True),
        ("pallas/*", False),
        ("layout", False),
        ("notebooks/*/layout.ipynb", False),  # one folder a *, as PurePosixPath.match has it
    ],
)
def test_a_pattern_matches_a_notebooks_path_as_myst_nb_matches_it(
    pattern: str, matched: bool
) -> None:
    path = "/home/me/docs/notebooks/layout.ipynb"
    assert (excluding_pattern([path], ["other/*", pattern]) == pattern) is matched


def test_a_pattern_may_match_the_jupytext_twin_instead() -> None:
    paths = ["/docs/notebooks/layout.ipynb", "/docs/notebooks/layout.md"]
    assert excluding_pattern(paths, ["notebooks/*.md"]) == "notebooks/*.md"
    assert excluding_pattern(paths[:1], ["notebooks/*.md"]) is None


def test_a_notebooks_metadata_may_keep_it_from_being_run() -> None:
    cell = code("x = 1")
    never = read_notebook(notebook_text(cell, nbsphinx={"execute": "never"}))
    assert never.not_run == 'excluded from execution by its metadata: nbsphinx "execute": "never"'
    assert read_notebook(notebook_text(cell, nbsphinx={"execute": "always"})).not_run == ""
    tpu = read_notebook(notebook_text(cell, jaxcheck={"platforms": ["tpu", "gpu"]}))
    assert (tpu.not_run, tpu.platforms) == ("", ("tpu", "gpu"))
    assert read_notebook(notebook_text(cell, jaxcheck={"platforms": ["tpuu"]})).platforms == ()
