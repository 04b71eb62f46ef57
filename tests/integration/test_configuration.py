"""Configuration errors: every bad value stops every entry point with one message and exit status 2.

Each project here holds a block that leaves a mark when it runs, so "stopped
before any block ran" is observed, not assumed.
"""

from __future__ import annotations

import contextlib
import os
import resource
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from buildkit import HTML, assert_configuration_error, jaxcheck, sphinx_build, write_project

MARKED = "# Page\n\n```{{jaxcheck}}\nopen({mark!r}, 'w').close()\nprint(1)\n\n# 1\n```\n"


def marked_project(root: Path, conf: str = "") -> tuple[Path, Path]:
    mark = root.parent / f"{root.name}-ran"
    return write_project(root, {"page.md": MARKED.format(mark=str(mark))}, conf=conf), mark


BAD_CONF = [
    ("jaxcheck_cache_dir = 42", ["jaxcheck_cache_dir = 42", "folder path"]),
    (
        "jaxcheck_notebooks_exclude = ['slow/*', None]",
        ["jaxcheck_notebooks_exclude: the entry None (NoneType) is not a pattern", "expected e.g."],
    ),
    (
        "jaxcheck_notebook_images = 2",
        ["jaxcheck_notebook_images = 2 (int) is not one of ignore, compare", 'write "rms:2"'],
    ),
    (
        "jaxcheck_notebooks_tolerance = '1e-6 relative'",
        ["jaxcheck_notebooks_tolerance = '1e-6 relative' (str) is not a number", "e.g."],
    ),
    (
        "jaxcheck_output_limit_mb = float('inf')",
        ["jaxcheck_output_limit_mb = inf", "greater than 0"],
    ),
    ("jaxcheck_timeout = float('nan')", ["jaxcheck_timeout = nan", "greater than 0"]),
    ("jaxcheck_workers = 2.5", ["jaxcheck_workers = 2.5", "whole number"]),
    ("jaxcheck_timeout = True", ["jaxcheck_timeout = True", "not a number"]),
    (
        "jaxcheck_env = {'JAX_ENABLE_X64': 1}",
        ["jaxcheck_env['JAX_ENABLE_X64'] = 1", "not a string"],
    ),
    ("jaxcheck_cache = 'sometimes'", ["jaxcheck_cache = 'sometimes'", "yes/no"]),
    ("jaxcheck_on_drift = 'loud'", ["jaxcheck_on_drift = 'loud'", "error, warning, ignore"]),
    (
        "jaxcheck_filterwarnings = ['error', 'ignore::Deprecation']",
        ["jaxcheck_filterwarnings", "'ignore::Deprecation'", "expected e.g. UserWarning"],
    ),
    (
        "jaxcheck_memory_limit_mb = 2**43",
        ["jaxcheck_memory_limit_mb = 8796093022208", "(RLIMIT_AS) to at most 8796093022207 MB"],
    ),
]


@pytest.mark.parametrize(
    ("line", "words"),
    BAD_CONF,
    ids=[line.split(" =")[0] + str(i) for i, (line, _) in enumerate(BAD_CONF)],
)
def test_a_bad_value_in_conf_py_stops_sphinx_build_with_exit_2_before_any_block_runs(
    tmp_path: Path, line: str, words: list[str]
) -> None:
    root, mark = marked_project(tmp_path / "docs", line + "\n")
    done = sphinx_build(*HTML, root, tmp_path / "out")
    assert_configuration_error(done, *words, str(root / "conf.py"))
    assert not mark.exists()


@pytest.mark.parametrize(
    ("define", "words"),
    [
        ("jaxcheck_timeout=nan", ["jaxcheck_timeout = 'nan'"]),
        ("jaxcheck_workers=two", ["jaxcheck_workers = 'two'"]),
        ("jaxcheck_cache=maybe", ["jaxcheck_cache = 'maybe'"]),
        ("jaxcheck_memory_limit_mb=-5", ["jaxcheck_memory_limit_mb = '-5'"]),
        ("jaxcheck_filterwarnings=shout", ["jaxcheck_filterwarnings", "'shout' is no action"]),
    ],
)
def test_a_bad_value_given_with_minus_d_stops_sphinx_build_with_exit_2(
    tmp_path: Path, define: str, words: list[str]
) -> None:
    root, mark = marked_project(tmp_path / "docs")
    done = sphinx_build(*HTML, "-D", define, root, tmp_path / "out")
    assert_configuration_error(done, *words)
    assert not mark.exists()


@pytest.mark.parametrize("command", ["check", "update"])
def test_the_jaxcheck_commands_stop_with_exit_2_on_a_bad_value(
    tmp_path: Path, command: str
) -> None:
    root, mark = marked_project(tmp_path / "docs", "jaxcheck_output_limit_mb = float('inf')\n")
    assert_configuration_error(jaxcheck(command, str(root)), "jaxcheck_output_limit_mb = inf")
    assert not mark.exists()


def test_a_cache_folder_under_a_file_is_a_configuration_error_on_every_entry_point(
    tmp_path: Path,
) -> None:
    root, mark = marked_project(
        tmp_path / "docs", "jaxcheck_cache = True\njaxcheck_cache_dir = 'conf.py/cache'\n"
    )
    for done in (
        sphinx_build(*HTML, root, tmp_path / "out"),
        jaxcheck("check", str(root)),
        jaxcheck("update", str(root)),
    ):
        assert_configuration_error(
            done, str(root / "conf.py" / "cache"), "the jaxcheck cache", "jaxcheck_cache_dir"
        )
    assert not mark.exists()


def test_a_build_folder_under_a_file_is_a_configuration_error(tmp_path: Path) -> None:
    root, mark = marked_project(tmp_path / "docs")
    (tmp_path / "file").write_text("")
    assert_configuration_error(
        sphinx_build(*HTML, root, tmp_path / "file" / "html"), "output folder"
    )
    assert not mark.exists()


@contextlib.contextmanager
def read_only(folder: Path) -> Iterator[None]:
    """``folder`` read-only, also for root (who ignores file modes): a read-only bind mount."""
    if os.geteuid() != 0:
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(0o755)
        return
    subprocess.run(["mount", "--bind", str(folder), str(folder)], check=True)
    try:
        subprocess.run(["mount", "-o", "remount,bind,ro", str(folder)], check=True)
        yield
    finally:
        subprocess.run(["umount", str(folder)], check=True)


def test_a_read_only_source_folder_is_a_configuration_error_unless_the_cache_is_elsewhere(
    tmp_path: Path,
) -> None:
    root, mark = marked_project(tmp_path / "docs", "jaxcheck_cache = True\n")
    with read_only(root):
        assert_configuration_error(
            sphinx_build(*HTML, root, tmp_path / "out"), str(root / ".jaxcheck_cache"), "Read-only"
        )
        assert not mark.exists()
        # jaxcheck keeps its build inside the source folder
        assert_configuration_error(jaxcheck("check", str(root)), str(root / "_build"))
        assert not mark.exists()
        elsewhere = sphinx_build(
            *HTML, "-D", f"jaxcheck_cache_dir={tmp_path / 'cache'}", root, tmp_path / "out"
        )
        assert elsewhere.returncode == 0, elsewhere.stderr
        assert mark.exists()


def test_a_misspelled_setting_is_reported_with_the_closest_setting_and_fails_the_check(
    tmp_path: Path,
) -> None:
    typos = 'project = "typos"\njaxcheck_jax_verison = "0.9.0"\njaxcheck_doctest = "check"\n'
    root, mark = marked_project(tmp_path / "docs", typos)
    done = jaxcheck("check", root)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "conf.py:6: setting: jaxcheck_jax_verison (in conf.py) is not a setting" in done.stdout
    assert "so it does nothing: did you mean jaxcheck_jax_version?" in done.stdout
    assert "conf.py:7: setting: jaxcheck_doctest (in conf.py)" in done.stdout
    assert "did you mean jaxcheck_doctests?" in done.stdout
    assert "2 unknown setting(s)" in done.stdout and mark.exists()
    html = sphinx_build(*HTML, root, tmp_path / "out")
    assert html.returncode == 1 and html.stderr.count("[jaxcheck.setting]") == 2, html.stderr
    given = jaxcheck("check", root, "-D", "jaxcheck_tmeout=5")
    assert "jaxcheck_tmeout (given with -D) is not a setting" in given.stdout
    assert "did you mean jaxcheck_timeout?" in given.stdout
    # Spelled right, the pin holds: the running jax is not 0.9.0.
    (root / "conf.py").write_text(
        (root / "conf.py")
        .read_text()
        .replace("verison", "version")
        .replace("doctest ", "doctests ")
    )
    pinned = jaxcheck("check", root)
    assert pinned.returncode == 2 and "differs from the pinned jax 0.9.0" in pinned.stderr
    assert "not a setting" not in pinned.stdout + pinned.stderr


def test_a_memory_limit_above_the_hard_limit_of_the_build_is_a_configuration_error(
    tmp_path: Path,
) -> None:
    """Workers inherit the build's hard RLIMIT_AS, which no process may raise unprivileged."""
    root, mark = marked_project(tmp_path / "docs", "jaxcheck_memory_limit_mb = 100_000\n")

    def at_most_64_gb() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (64 << 30, 64 << 30))

    done = subprocess.run(
        [sys.executable, "-m", "sphinx_jaxcheck", "check", str(root)],
        capture_output=True,
        text=True,
        preexec_fn=at_most_64_gb,
    )
    assert_configuration_error(
        done, "jaxcheck_memory_limit_mb = 100000", "to at most 65536 MB", "or 0 for no limit"
    )
    assert not mark.exists()


def test_a_myst_include_cycle_is_one_configuration_error_naming_the_files(tmp_path: Path) -> None:
    mark = tmp_path / "ran"
    pages = {
        "marked.md": MARKED.format(mark=str(mark)),
        # MyST resolves every include of a document against the document's folder.
        "page.md": "# Page\n\nText.\n\n```{include} parts/a.md\n```\n",
        "parts/a.md": "A\n\n````{note}\n```{include} parts/b.md\n```\n````\n",
        "parts/b.md": "B\n\n```{include} /parts/a.md\n```\n",
        # Shown as code, a file may include itself.
        "quoted.md": "# Quoted\n\n```{include} quoted.md\n:literal:\n```\n",
    }
    root = write_project(tmp_path / "docs", pages, conf='exclude_patterns += ["parts"]\n')
    expected = (
        "a MyST include cycle, read for page.md: parts/a.md includes parts/b.md (at "
        "parts/a.md:4), which includes parts/a.md (at parts/b.md:3); expected includes that end"
    )
    assert_configuration_error(jaxcheck("check", root), expected)
    assert_configuration_error(sphinx_build(*HTML, root, tmp_path / "out"), expected)
    assert not mark.exists()
    (root / "parts" / "b.md").write_text("B\n")
    done = jaxcheck("check", root)
    assert done.returncode == 0 and mark.exists(), done.stdout + done.stderr


def test_markdown_an_rst_page_includes_going_round_is_one_error_with_parallel_readers(
    tmp_path: Path,
) -> None:
    """Found before the parallel readers start: in one of them the stop was a crash report."""
    pages = {
        "page.rst": "Page\n====\n\n.. include:: part.md\n   :parser: myst_parser.sphinx_\n",
        "part.md": "# Part\n\n```{include} part.md\n```\n",
        **{f"other{n}.rst": f"Other {n}\n=======\n\nText.\n" for n in range(4)},
    }
    root = write_project(tmp_path / "docs", pages, conf='exclude_patterns += ["part.md"]\n')
    expected = "a MyST include cycle, read for page.rst: part.md includes part.md (at part.md:3)"
    assert_configuration_error(jaxcheck("check", root, "-j", "2"), expected)
    assert_configuration_error(sphinx_build(*HTML, "-j", "2", root, tmp_path / "out"), expected)


def test_markdown_pages_without_a_markdown_parser_are_a_configuration_error_naming_myst_parser(
    tmp_path: Path,
) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    (root / "conf.py").write_text(
        'extensions = ["sphinx_jaxcheck"]\nexclude_patterns = ["_build", "drafts"]\n'
    )
    mark = tmp_path / "ran"
    (root / "index.rst").write_text(
        "Index\n=====\n\n.. toctree::\n\n   page\n\n.. jaxcheck::\n\n"
        f"   open({str(mark)!r}, 'w').close()\n"
    )
    (root / "README.md").write_text("# Docs\n\nProse only: no page of the build.\n")
    (root / "drafts").mkdir()
    (root / "drafts" / "draft.md").write_text(MARKED.format(mark=str(mark)))  # excluded
    (root / "page.md").write_text(MARKED.format(mark=str(mark)))
    expected = [
        "page.md holds a jaxcheck block, but no parser reads Markdown pages in this project",
        'add "myst_parser" to `extensions`',
    ]
    assert_configuration_error(jaxcheck("check", root), *expected)
    assert_configuration_error(sphinx_build(*HTML, root, tmp_path / "out"), *expected)
    assert not mark.exists()
    (root / "page.md").write_text("# Page\n\n```python\n>>> 1 + 1\n2\n```\n")
    examples = jaxcheck("check", root)
    assert_configuration_error(examples, "page.md holds `>>>` examples", "myst_parser")
    off = jaxcheck("check", root, "-D", "jaxcheck_doctests=off")
    assert off.returncode == 0 and mark.exists(), off.stdout + off.stderr


ENDING = """\
def _fail(app, problem):
    raise RuntimeError("the gallery could not be written")


def setup(app):
    app.connect("build-finished", _fail)
    return {"parallel_read_safe": True}
"""


def test_another_extensions_error_at_the_end_of_the_build_keeps_the_report(
    tmp_path: Path,
) -> None:
    """An extension that fails once every block was checked (sphinx-gallery raising at
    ``build-finished``) still stops the command with status 2, but after the report of what
    was checked, which is whole."""
    root = write_project(
        tmp_path,
        {"page.md": "# Page\n\n```{jaxcheck}\nprint(1 + 1)\n\n# 3\n```\n"},
        conf="import sys\nsys.path.insert(0, '.')\nextensions.append('ending')\n",
    )
    (root / "ending.py").write_text(ENDING, "utf-8")
    done = jaxcheck("check", root, cwd=root)
    assert done.returncode == 2, done.stderr
    assert "page.md:6: drift:" in done.stdout and "1 stale" in done.stdout
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("jaxcheck: the build stopped after every block was checked")
    assert "the gallery could not be written" in last
    assert "Traceback" not in done.stderr
