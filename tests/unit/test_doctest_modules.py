"""Docstrings collected from modules as ``pytest --doctest-modules`` collects them (no workers).

The collector runs here in the test's process over small packages of plain
Python; the tests that compare it with pytest itself, and run the examples,
are in ``tests/integration/test_doctest_modules.py``.
"""

from __future__ import annotations

import doctest
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from packages import PLAIN_PACKAGE, REEXPORTED_PACKAGE, write_package

from sphinx_jaxcheck.worker.doctest_modules import collect


@pytest.fixture
def pkg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = write_package(tmp_path, "pkg", PLAIN_PACKAGE)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield folder
    for name in [n for n in sys.modules if n == "pkg" or n.startswith("pkg.")]:
        del sys.modules[name]


def stdlib_names(module_name: str) -> list[str]:
    """The doctests with examples stdlib's finder makes of a module (pytest keeps those)."""
    module = importlib.import_module(module_name)
    return sorted(t.name for t in doctest.DocTestFinder().find(module, module_name) if t.examples)


def test_every_docstring_the_finder_makes_a_test_of_and_nothing_else(pkg: Path) -> None:
    found = collect(["pkg"])
    names = [d["name"] for d in found["docstrings"]]
    expected = [
        n for module in ("pkg", "pkg.deco", "pkg.exported", "pkg.ops") for n in stdlib_names(module)
    ]
    assert names == expected
    # A partial is no routine to the finder, so pytest never sees its docstring; neither here.
    assert "pkg.ops.nadam" not in names and "pkg.ops.scaled" in names
    assert "pkg.ops.Box.doubled" in names and "pkg.Moved" in names  # where __module__ says


def test_each_docstring_runs_in_the_module_it_was_collected_from_and_is_placed(pkg: Path) -> None:
    by_name = {d["name"]: d for d in collect(["pkg"])["docstrings"]}
    scaled = by_name["pkg.ops.scaled"]
    assert (scaled["module"], scaled["path"], "unplaced" in scaled) == (
        "pkg.ops",
        str(pkg / "ops.py"),
        False,
    )
    assert (pkg / "ops.py").read_text().splitlines()[
        scaled["line"] - 1
    ].strip() == '"""Scale ``x``.'
    moved = by_name["pkg.Moved"]
    assert (moved["module"], moved["path"]) == ("pkg", str(pkg / "exported.py"))
    made = by_name["pkg.ops.made"]
    assert "not a string literal" in made["unplaced"]
    # Reported where the function is defined.
    assert (pkg / "ops.py").read_text().splitlines()[made["line"] - 1] == "def made():"


def test_a_module_that_cannot_be_imported_is_a_problem_and_the_others_are_collected(
    pkg: Path,
) -> None:
    found = collect(["pkg"])
    assert found["problems"] == [
        {
            "module": "pkg.broken",
            "path": str(pkg / "broken.py"),
            "message": "RuntimeError: cannot be imported",
        }
    ]
    assert found["docstrings"]
    assert str(pkg / "ops.py") in found["files"] and str(pkg) in found["folders"]


def test_ignored_modules_and_their_submodules_are_not_imported(pkg: Path) -> None:
    found = collect(["pkg"], ignore=["pkg.broken", "pkg.ops"])
    assert found["problems"] == []
    assert not any(d["name"].startswith("pkg.ops") for d in found["docstrings"])
    assert "pkg.ops" not in sys.modules


def test_a_single_module_and_a_missing_one(pkg: Path) -> None:
    found = collect(["pkg.deco", "pkg.nowhere"])
    assert found["docstrings"] == []  # deco's docstrings hold no examples
    assert [(p["module"], p["message"]) for p in found["problems"]] == [
        ("pkg.nowhere", "No module named 'pkg.nowhere'")
    ]


def test_classes_exported_under_the_packages_name_are_placed_in_the_file_defining_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As jax.dtypes.extended and jax.tree_util.Partial are collected from jax.dtypes and
    jax.tree_util: at their .py lines, not at line 1 of the module that only imports them; one
    whose text is in no literal at its class line, saying so."""
    folder = write_package(tmp_path, "pkg", REEXPORTED_PACKAGE)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        by_name = {d["name"]: d for d in collect(["pkg"])["docstrings"]}
    finally:
        for name in [n for n in sys.modules if n == "pkg" or n.startswith("pkg.")]:
            del sys.modules[name]
    base = folder / "_src" / "base.py"
    lines = base.read_text("utf-8").splitlines()
    for name, first in {
        "pkg.Extended": '"""A class with no methods',
        "pkg.Partial": '"""A partial whose only method',
    }.items():
        found = by_name[name]
        assert (found["path"], "unplaced" in found) == (str(base), False)
        assert lines[found["line"] - 1].strip().startswith(first)
    made = by_name["pkg.Made"]
    assert (made["path"], lines[made["line"] - 1]) == (str(base), "@export")
    assert "not a string literal" in made["unplaced"]
