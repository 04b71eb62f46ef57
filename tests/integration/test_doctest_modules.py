"""Docstrings checked as ``pytest --doctest-modules`` checks them, judged by pytest itself.

Real builds (``jaxcheck check --format json``, a fresh process each) with
``jaxcheck_doctest_modules`` or autodoc pages, and real pytest runs over the
same files with JAX's conftest and flags (``doctest_oracle``): every example
must get pytest's verdict, and be reported at the line of its file that holds
it. The docstrings are jax's own as installed from the package index (and a
copy of it with corrupted outputs), and small packages of our own, one way of
wrapping a function each (``packages``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import py_compile
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import jax
import pytest
from buildkit import jaxcheck
from corpus import JAX_CONFTEST
from doctest_oracle import Verdict, agree, jaxcheck_verdicts, misplaced, pytest_verdicts
from packages import (
    JAX_PACKAGE,
    LENT_PACKAGE,
    PLAIN_PACKAGE,
    SHOWING_PACKAGE,
    STATEFUL_PACKAGE,
    write_package,
)

from sphinx_jaxcheck.model import Program
from sphinx_jaxcheck.run.pool import Workers, WorkerSettings
from sphinx_jaxcheck.worker.protocol import RunSession

REPO = Path(__file__).resolve().parents[2]
INSTALLED = Path(jax.__file__).parent  # site-packages/jax, as pip installed it
ENV = {"JAX_PLATFORMS": "cpu", "XLA_FLAGS": "--xla_force_host_platform_device_count=8"}
# As JAX's conftest and pyproject configure its doctests.
CONF = f"""\
extensions = EXTENSIONS
exclude_patterns = ["_build"]
suppress_warnings = ["docutils", "autodoc"]
jaxcheck_env = {ENV!r}
jaxcheck_doctests = "check"
jaxcheck_doctest_flags = ["NUMBER", "NORMALIZE_WHITESPACE"]
jaxcheck_setup = "import jax, jax.numpy as jnp, numpy as np; from jax import lax"
"""
# Five passing examples of jax.nn and jax.random, corrupted in a copy of jax: (file, text, new).
CORRUPTIONS = (
    ("random.py", "    Array(0.00729382, dtype=float32)", "    Array(0.5, dtype=float32)"),
    ("random.py", "dtype=key<fry>) overlaying:", "dtype=key<rbg>) overlaying:"),
    ("_src/nn/initializers.py", "[1., 1.]], dtype=float32)", "[1., 1.]], dtype=float16)"),
    (
        "_src/nn/initializers.py",
        "[-7., -7., -7.]], dtype=float32)",
        "[-7., -7., -7.]], dtype=int32)",
    ),
    (
        "_src/nn/initializers.py",
        "jnp.float32)\n  Array([[0., 0., 0.],",
        "jnp.float32)\n  Array([[0., 0., 0., 0.],",
    ),
)
pytestmark = pytest.mark.skipif(
    jax.__version__ != "0.10.2", reason="the expected verdicts are those of jax 0.10.2"
)


def project(
    root: Path, conf: str = "", extensions: str = '["sphinx_jaxcheck"]', index: str = ""
) -> Path:
    """A Sphinx project checking docstrings with JAX's flags and namespace."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "conf.py").write_text(CONF.replace("EXTENSIONS", extensions) + conf, "utf-8")
    (root / "index.rst").write_text(index or "Index\n=====\n\nThe docstrings.\n", "utf-8")
    return root


def check(root: Path, *args: str, path: Path | None = None) -> tuple[int, dict[str, Any], str]:
    """``jaxcheck check ROOT --format json`` (with ``path`` first on the workers' path); paths
    in the report made absolute."""
    pythonpath = os.pathsep.join(str(p) for p in (path, REPO) if p)
    env = {**os.environ, "PYTHONPATH": pythonpath, **ENV}
    done = jaxcheck("check", root, "--format", "json", *args, cwd=root, env=env)
    try:
        report = json.loads(done.stdout)
    except ValueError:
        pytest.fail(f"no report (exit {done.returncode}):\n{done.stdout}\n{done.stderr}")
    for item in (*report["examples"], *report["example_groups"], *report["findings"]):
        item["path"] = str((root / item["path"]).resolve())
    return done.returncode, report, done.stderr


def oracle(
    root: Path, targets: list[Path], path: Path | None = None
) -> tuple[list[Verdict], subprocess.CompletedProcess[str]]:
    """pytest's verdict on every docstring example of ``targets``, JAX's way."""
    env = {**ENV, "PYTHONPATH": str(path)} if path else ENV
    verdicts, errors, done = pytest_verdicts(root, targets, JAX_CONFTEST, env=env)
    assert errors == [], done.stdout[-3000:]
    assert verdicts, done.stdout[-3000:]
    return verdicts, done


def assert_same_verdicts(
    ours: list[Verdict], theirs: list[Verdict], unplaced: frozenset[str] = frozenset()
) -> int:
    """Example by example: pytest's verdict, at the example's own line (but in the docstrings
    named ``unplaced``); how many pytest places at that line itself."""
    assert agree(ours, theirs) == []
    problems, right = misplaced(ours, theirs, unplaced)
    assert problems == []
    return right


def failed(verdicts: list[Verdict]) -> list[tuple[str, int]]:
    return sorted((v.name, v.index) for v in verdicts if v.verdict in ("failed", "stale"))


# -- jax's own docstrings -------------------------------------------------------------------


@pytest.fixture(scope="module")
def jax_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the installed jax with five expected outputs corrupted, to put on the path."""
    folder = tmp_path_factory.mktemp("jax-copy")
    shutil.copytree(INSTALLED, folder / "jax", ignore=shutil.ignore_patterns("__pycache__"))
    for file, good, bad in CORRUPTIONS:
        path = folder / "jax" / file
        text = path.read_text("utf-8")
        assert text.count(good) == 1, (file, good)
        path.write_text(text.replace(good, bad), "utf-8")
    return folder


def test_jax_nn_and_jax_random_get_pytests_verdict_on_every_example(tmp_path: Path) -> None:
    root = project(tmp_path / "docs", 'jaxcheck_doctest_modules = ["jax.nn", "jax.random"]\n')
    status, report, _ = check(root)
    assert status == 0, report["findings"]
    ours = jaxcheck_verdicts(report)
    theirs, done = oracle(tmp_path / "oracle", [INSTALLED / "nn", INSTALLED / "random.py"])
    assert done.returncode == 0, done.stdout[-3000:]
    right = assert_same_verdicts(ours, theirs)
    # pytest places jax.random's 11 at their lines; jax.nn's 40 it reports in jax/nn/, at lines
    # of another file's function (their functions are defined in jax/_src/nn/).
    assert (len(ours), right) == (51, 11)
    assert Counter(v.verdict for v in ours) == {"verified": 39, "skipped": 12}
    assert "51 `>>>` example(s): 39 verified, 12 skipped" in report["summary"]


def test_five_corrupted_outputs_in_a_copy_of_jax_fail_in_both_and_nothing_else(
    tmp_path: Path, jax_copy: Path
) -> None:
    root = project(tmp_path / "docs", 'jaxcheck_doctest_modules = ["jax.nn", "jax.random"]\n')
    status, report, _ = check(root, path=jax_copy)
    assert status == 1
    ours = jaxcheck_verdicts(report)
    assert all(str(jax_copy) in v.path for v in ours)  # the copy, not the installed jax
    targets = [jax_copy / "jax" / "nn", jax_copy / "jax" / "random.py"]
    theirs, done = oracle(tmp_path / "oracle", targets, path=jax_copy)
    assert done.returncode == 1
    assert_same_verdicts(ours, theirs)
    assert len(failed(ours)) == len(failed(theirs)) == 5
    # Each at the line of the corrupted output's example, as a drift.
    drifts = sorted((Path(f["path"]).name, f["line"]) for f in report["findings"])
    assert drifts == sorted((Path(v.path).name, v.line) for v in ours if v.verdict == "stale")
    assert all(f["subtype"] == "drift" for f in report["findings"])


@pytest.mark.slow
def test_jax_numpy_and_jax_lax_get_pytests_verdict_on_every_example(tmp_path: Path) -> None:
    root = project(tmp_path / "docs", 'jaxcheck_doctest_modules = ["jax.numpy", "jax.lax"]\n')
    status, report, _ = check(root)
    ours = jaxcheck_verdicts(report)
    theirs, _ = oracle(tmp_path / "oracle", [INSTALLED / "numpy", INSTALLED / "lax"])
    assert status == (1 if failed(theirs) else 0), report["findings"][:3]
    assert_same_verdicts(ours, theirs)
    assert len(ours) == 2115


def test_jax_docstrings_on_an_autodoc_page_are_checked_where_jax_is_installed(
    tmp_path: Path,
) -> None:
    page = "API\n===\n\n.. autofunction:: jax.numpy.squeeze\n\n.. autofunction:: jax.numpy.append\n"
    root = project(
        tmp_path / "docs", extensions='["sphinx.ext.autodoc", "sphinx_jaxcheck"]', index=page
    )
    status, report, _ = check(root)
    assert status == 0, report["findings"]
    ours = jaxcheck_verdicts(report)
    assert [Path(v.path).name for v in ours] == ["lax_numpy.py"] * 16
    assert {v.verdict for v in ours} == {"verified"}
    assert "16 `>>>` example(s): 16 verified" in report["summary"]
    assert all(str(INSTALLED) in v.path for v in ours)


# -- our own packages, one way of wrapping each ------------------------------------------------


@pytest.fixture(scope="module")
def wrapped(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding ``jaxpkg`` (jit, custom_jvp, a decorator of another module, ...)."""
    folder = tmp_path_factory.mktemp("wrapped")
    write_package(folder, "jaxpkg", JAX_PACKAGE)
    return folder


def test_each_way_of_wrapping_gets_pytests_verdict_at_its_own_line(
    tmp_path: Path, wrapped: Path
) -> None:
    root = project(tmp_path / "docs", 'jaxcheck_doctest_modules = ["jaxpkg"]\n')
    status, report, _ = check(root, path=wrapped)
    assert status == 1
    ours = jaxcheck_verdicts(report)
    theirs, _ = oracle(tmp_path / "oracle", [wrapped / "jaxpkg"], path=wrapped)
    assert assert_same_verdicts(ours, theirs) == len(ours)
    # A NameError of an unknown name, and of a name only an earlier docstring bound.
    assert failed(ours) == [("jaxpkg.ops.triple", 1), ("jaxpkg.ops.uses", 2)]
    names = {v.name for v in ours}
    assert {"jaxpkg.ops.double", "jaxpkg.ops.identity", "jaxpkg.ops"} <= names
    assert "jaxpkg.ops.nadam" not in names  # a partial: pytest's finder never sees it
    # Reported in ops.py, where the example is, not in deco.py, where the wrapper's code is.
    (error,) = [f for f in report["findings"] if "undefined" in f["message"]]
    assert Path(error["path"]).name == "ops.py" and "NameError" in error["message"]


def test_docstrings_on_an_autodoc_page_run_each_in_their_modules_globals_as_pytest_runs_them(
    tmp_path: Path, wrapped: Path
) -> None:
    shown = ("double", "triple", "identity", "nadam", "binds", "uses")
    page = "API\n===\n\n>>> y = 5\n\n.. automodule:: jaxpkg.ops\n" + "".join(
        f"\n.. autofunction:: jaxpkg.ops.{name}\n" for name in shown
    )
    conf = f"import sys\nsys.path.insert(0, {str(wrapped)!r})\n"
    root = project(
        tmp_path / "docs", conf, extensions='["sphinx.ext.autodoc", "sphinx_jaxcheck"]', index=page
    )
    status, report, _ = check(root, path=wrapped)
    assert status == 1
    ours = jaxcheck_verdicts(report)
    nadam = [v for v in ours if v.name == "jaxpkg.ops.nadam"]
    ours = [v for v in ours if v.name != "jaxpkg.ops.nadam"]
    theirs, _ = oracle(tmp_path / "oracle", [wrapped / "jaxpkg" / "ops.py"], path=wrapped)
    assert_same_verdicts(ours, theirs)
    # The page's `y` is not the docstrings' (one namespace per docstring, as pytest's).
    assert failed(ours) == [("jaxpkg.ops.triple", 1), ("jaxpkg.ops.uses", 2)]
    # The partial autodoc shows: checked, and placed at the literal assigned to its __doc__;
    # pytest judges its text where it runs the same (a module with ops' globals).
    oracle_module = wrapped / "nadam_oracle.py"
    oracle_module.write_text(
        "from jaxpkg import ops\n\n"
        "globals().update({k: v for k, v in vars(ops).items() if not k.startswith('__')})\n"
        "__test__ = {'nadam': ops.nadam.__doc__}\n",
        "utf-8",
    )
    try:
        (judged,), _ = oracle(tmp_path / "nadam", [oracle_module], path=wrapped)
    finally:
        oracle_module.unlink()
    assert [(v.verdict, Path(v.path).name) for v in nadam] == [("verified", "ops.py")]
    assert judged.verdict == "passed"
    assert misplaced(
        nadam, [Verdict("jaxpkg.ops.nadam", 0, "passed", "", None, judged.source)]
    ) == ([], 0)


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("plain")
    write_package(folder, "pkg", PLAIN_PACKAGE)
    return folder


def test_from_the_command_line_with_a_module_that_cannot_be_imported_and_one_left_out(
    tmp_path: Path, plain: Path
) -> None:
    root = project(tmp_path / "docs")
    status, report, _ = check(root, "-D", "jaxcheck_doctest_modules=pkg", path=plain)
    assert status == 1
    (problem,) = [f for f in report["findings"] if f["subtype"] != "drift"]
    assert (Path(problem["path"]).name, problem["line"], problem["subtype"]) == (
        "broken.py",
        1,
        "error",
    )
    assert "pkg.broken cannot be imported" in problem["message"]
    assert "RuntimeError: cannot be imported" in problem["message"]
    assert "jaxcheck_doctest_modules_ignore" in problem["message"]
    ours = jaxcheck_verdicts(report)
    theirs, _ = oracle(
        tmp_path / "oracle",
        [plain / "pkg" / n for n in ("__init__.py", "ops.py", "exported.py")],
        path=plain,
    )
    assert_same_verdicts(ours, theirs, unplaced=frozenset({"pkg.ops.made"}))
    # The docstring made at import time: checked, reported where its function is defined.
    made = [v for v in ours if v.name == "pkg.ops.made"]
    assert [(v.verdict, Path(v.path).name) for v in made] == [("verified", "ops.py")]
    assert (plain / "pkg" / "ops.py").read_text().splitlines()[made[0].line - 1] == "def made():"

    status, report, _ = check(
        root,
        "-D",
        "jaxcheck_doctest_modules=pkg",
        "-D",
        "jaxcheck_doctest_modules_ignore=pkg.broken",
        path=plain,
    )
    assert [f["subtype"] for f in report["findings"]] == ["drift"]
    assert jaxcheck_verdicts(report) == ours


def test_a_module_the_workers_cannot_import_is_a_configuration_error(tmp_path: Path) -> None:
    root = project(tmp_path / "docs", 'jaxcheck_doctest_modules = ["no_such_package"]\n')
    done = jaxcheck("check", root, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode == 2, done.stderr
    assert "jaxcheck_doctest_modules names no_such_package" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_warm_build_takes_the_collection_from_the_cache_until_a_module_changes(
    tmp_path: Path,
) -> None:
    package = tmp_path / "src"
    write_package(package, "pkg", {k: v for k, v in PLAIN_PACKAGE.items() if k != "broken.py"})
    # Each start of a worker supervisor (which imports jax) is noted.
    starts = tmp_path / "starts"
    starts.write_text("", "utf-8")
    (package / "sitecustomize.py").write_text(
        "import sys\n"
        "if 'sphinx_jaxcheck.worker.zygote' in sys.orig_argv:\n"
        f"    open({str(starts)!r}, 'a').write('start\\n')\n",
        "utf-8",
    )
    conf = f'jaxcheck_doctest_modules = ["pkg"]\njaxcheck_cache_dir = {str(tmp_path / "cache")!r}\n'
    root = project(tmp_path / "docs", conf)
    first = check(root, path=package)
    assert starts.read_text().count("start") == 1
    assert failed(jaxcheck_verdicts(first[1])) == [("pkg.ops.uses", 2)]  # `y`: pytest's NameError
    second = check(root, path=package)
    assert starts.read_text().count("start") == 1  # nothing imported, nothing run
    assert jaxcheck_verdicts(second[1]) == jaxcheck_verdicts(first[1])
    ops = package / "pkg" / "ops.py"
    ops.write_text(ops.read_text().replace(">>> scaled(2)\n    6", ">>> scaled(2)\n    7"), "utf-8")
    third = check(root, path=package)
    assert starts.read_text().count("start") == 2
    assert failed(jaxcheck_verdicts(third[1])) == [("pkg.ops.scaled", 0), ("pkg.ops.uses", 2)]


def test_a_same_size_edit_within_the_second_is_collected_from_the_source(tmp_path: Path) -> None:
    """The module's .pyc still matches the edited file's size and whole-second time: the
    docstrings are those of the file as it is now, not of the bytecode."""
    package = tmp_path / "src"
    write_package(package, "pkg", {k: v for k, v in PLAIN_PACKAGE.items() if k != "broken.py"})
    ops = package / "pkg" / "ops.py"
    py_compile.compile(str(ops), cfile=importlib.util.cache_from_source(str(ops)), doraise=True)
    conf = f'jaxcheck_doctest_modules = ["pkg"]\njaxcheck_cache_dir = {str(tmp_path / "cache")!r}\n'
    root = project(tmp_path / "docs", conf)
    assert failed(jaxcheck_verdicts(check(root, path=package)[1])) == [("pkg.ops.uses", 2)]
    old = ops.stat()
    ops.write_text(ops.read_text().replace(">>> scaled(2)\n    6", ">>> scaled(2)\n    7"), "utf-8")
    os.utime(ops, ns=(old.st_atime_ns, old.st_mtime_ns))
    edited = check(root, path=package)
    assert failed(jaxcheck_verdicts(edited[1])) == [("pkg.ops.scaled", 0), ("pkg.ops.uses", 2)]


# -- docstrings in one worker process --------------------------------------------------------


def test_a_docstring_that_kills_its_worker_fails_alone_and_the_others_keep_their_namespaces(
    tmp_path: Path,
) -> None:
    runs = tmp_path / "runs"
    runs.mkdir()

    def note(name: str) -> Program:
        code = f"open({str(runs / name)!r}, 'a').write('x')\nmine = {name!r}"
        return Program(code, f"<{name}>", module_globals="json")

    programs = {
        "first": [note("first"), Program("print(mine, dumps(1))", "<a>", module_globals="json")],
        "dies": [note("dies"), Program("import os\nos._exit(3)", "<b>", module_globals="json")],
        "after": [note("dies-after"), Program("print(mine)", "<c>", module_globals="json")],
        "fresh": [Program("print('mine' in globals())", "<d>", module_globals="json")],
    }
    workers = Workers(WorkerSettings(workers=1))
    try:
        results = workers.run({k: RunSession(k, (), tuple(p)) for k, p in programs.items()})
    finally:
        workers.close()
    outcomes = {key: result.items for key, result in results.items()}
    assert outcomes["first"][1].stdout == "first 1\n"  # json's globals (dumps), then its own
    assert "exited with status 3" in outcomes["dies"][1].message
    assert outcomes["after"][1].stdout == "dies-after\n"
    assert outcomes["fresh"][0].stdout == "False\n"
    # Nothing ran again but what had to: the dead docstring's session ended with it.
    assert {p.name: p.read_text() for p in runs.iterdir()} == {
        "first": "x",
        "dies": "x",
        "dies-after": "x",
    }


@pytest.mark.parametrize("shown", ["collected", "autodoc", "both"])
def test_a_later_docstring_sees_what_an_earlier_one_of_its_module_did_as_under_pytest(
    tmp_path: Path, shown: str
) -> None:
    """A module's docstrings run in one process in pytest's order, each in a fresh copy of
    the module's globals with the setup's names: pytest's verdict on each example, each
    example once however many pages show it."""
    folder = tmp_path / "src"
    write_package(folder, "statepkg", STATEFUL_PACKAGE)
    conf = f"import sys\nsys.path.insert(0, {str(folder)!r})\n"
    if shown != "autodoc":
        conf += 'jaxcheck_doctest_modules = ["statepkg"]\n'
    if shown == "collected":
        root = project(tmp_path / "docs", conf)
    else:
        page = (
            "Log\n===\n\n.. toctree::\n\n   again\n\n.. automodule:: statepkg.log\n   :members:\n"
        )
        extensions = '["sphinx.ext.autodoc", "sphinx_jaxcheck"]'
        root = project(tmp_path / "docs", conf, extensions=extensions, index=page)
        again = "Again\n=====\n\n.. autofunction:: statepkg.log.b_entries\n"
        (root / "again.rst").write_text(again, "utf-8")
    status, report, stderr = check(root, path=folder)
    ours = jaxcheck_verdicts(report)
    theirs, _ = oracle(tmp_path / "oracle", [folder / "statepkg" / "log.py"], path=folder)
    assert_same_verdicts(ours, theirs)
    assert failed(ours) == [], stderr
    assert status == 0, stderr
    assert {v.name for v in ours} == {
        f"statepkg.log.{n}" for n in ("a_record", "b_entries", "c_namespace")
    }
    assert len(ours) == len(theirs) == 6  # each example once, at its line in log.py
    if shown == "both":  # every page shows the verdict of the one run
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, (folder, REPO))), **ENV}
        html = tmp_path / "html"
        done = subprocess.run(
            [sys.executable, "-m", "sphinx", "-b", "html", "-q", str(root), str(html)],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        for page, count in (("index", 3), ("again", 1)):
            text = (html / f"{page}.html").read_text("utf-8")
            assert text.count("jaxcheck-block jaxcheck-verified") == count, page


def test_another_packages_docstring_a_page_shows_is_counted_not_run_until_named(
    tmp_path: Path,
) -> None:
    """As pytest --doctest-modules of the project never runs NumPy's docstrings that
    jax.numpy re-exports: counted in the summary and the report, with the setting."""
    folder = tmp_path / "src"
    write_package(folder, "showing", SHOWING_PACKAGE)
    write_package(folder, "lent", LENT_PACKAGE)
    conf = f"import sys\nsys.path.insert(0, {str(folder)!r})\n"
    page = "API\n===\n\n.. autofunction:: showing.borrowed\n"
    extensions = '["sphinx.ext.autodoc", "sphinx_jaxcheck"]'
    root = project(tmp_path / "docs", conf, extensions=extensions, index=page)
    status, report, stderr = check(root, path=folder)
    assert status == 0, stderr
    assert report["examples"] == []
    assert report["foreign_examples"] == {"lent": 1}
    assert (
        "1 `>>>` example(s) of docstrings from other packages (lent) that pages show were not "
        "run: add 'lent' to jaxcheck_docstring_packages to check them" in report["summary"]
    )
    status, report, _ = check(root, "-D", "jaxcheck_docstring_packages=lent", path=folder)
    assert status == 1
    assert [(e["status"], Path(e["path"]).parent.name) for e in report["examples"]] == [
        ("stale", "lent")
    ]
    assert report["foreign_examples"] == {}


def test_an_autodoc_docstring_in_no_file_is_checked_and_reported_at_the_page_line(
    tmp_path: Path, plain: Path
) -> None:
    page = (
        "API\n===\n\n"
        ".. autofunction:: pkg.ops.made\n\n"
        ".. autofunction:: pkg.ops.nadam\n\n"
        ".. autoclass:: pkg.Moved\n"
    )
    conf = f"import sys\nsys.path.insert(0, {str(plain)!r})\n"
    root = project(
        tmp_path / "docs", conf, extensions='["sphinx.ext.autodoc", "sphinx_jaxcheck"]', index=page
    )
    status, report, _ = check(root, path=plain)
    assert status == 0, report["findings"]
    where = {v.name: (Path(v.path).name, v.line, v.verdict) for v in jaxcheck_verdicts(report)}
    ops = (plain / "pkg" / "ops.py").read_text().splitlines()
    exported = (plain / "pkg" / "exported.py").read_text().splitlines()
    assert where == {
        "pkg.ops.made": ("index.rst", 4, "verified"),  # the line of its autofunction
        "pkg.ops.nadam": ("ops.py", ops.index("    >>> nadam(0.5)") + 1, "verified"),
        "pkg.Moved": ("exported.py", exported.index("    >>> Moved().where()") + 1, "verified"),
    }
