"""Docstrings placed in their files through the wrappers around their objects (no workers)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from packages import PLAIN_PACKAGE, REEXPORTED_PACKAGE, write_package

from sphinx_jaxcheck.worker.docstring_places import (
    Place,
    literal_line,
    place_docstring,
    wrapper_chain,
)


@pytest.fixture
def pkg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = write_package(tmp_path, "pkg", PLAIN_PACKAGE)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield folder
    for name in [n for n in sys.modules if n == "pkg" or n.startswith("pkg.")]:
        del sys.modules[name]


@pytest.fixture
def reexported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """``pkg``, re-exporting what ``pkg/_src/base.py`` defines; returns that file."""
    folder = write_package(tmp_path, "pkg", REEXPORTED_PACKAGE)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield folder / "_src" / "base.py"
    for name in [n for n in sys.modules if n == "pkg" or n.startswith("pkg.")]:
        del sys.modules[name]


def ops() -> ModuleType:
    return importlib.import_module("pkg.ops")


def line_of(path: Path, text: str) -> int:
    """The 1-based line of the first line of ``path`` that holds ``text``."""
    return next(n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def test_a_function_wrapped_by_a_decorator_of_another_module_is_placed_where_it_is_written(
    pkg: Path,
) -> None:
    scaled = ops().scaled
    assert scaled.__code__.co_filename.endswith("deco.py")  # the wrapper's code is elsewhere
    assert place_docstring(scaled, scaled.__doc__) == Place(
        str(pkg / "ops.py"), line_of(pkg / "ops.py", '"""Scale ``x``.')
    )


def test_a_partial_with_an_assigned_docstring_is_placed_at_the_assigned_literal(
    pkg: Path,
) -> None:
    module = ops()
    assert place_docstring(module.nadam, module.nadam.__doc__, [module]) == Place(
        str(pkg / "ops.py"), line_of(pkg / "ops.py", 'nadam.__doc__ = """NAdam.')
    )


def test_a_docstring_made_at_import_time_cannot_be_placed(pkg: Path) -> None:
    module = ops()
    assert place_docstring(module.made, module.made.__doc__, [module]) is None


def test_classes_properties_and_modules_are_placed(pkg: Path) -> None:
    module = ops()
    box, doubled = module.Box, vars(module.Box)["doubled"]
    assert place_docstring(box, box.__doc__) == Place(
        str(pkg / "ops.py"), line_of(pkg / "ops.py", '"""A box.')
    )
    assert place_docstring(doubled, doubled.__doc__) == Place(
        str(pkg / "ops.py"), line_of(pkg / "ops.py", '"""Twice the value.')
    )
    package = importlib.import_module("pkg")
    assert place_docstring(package, package.__doc__) == Place(str(pkg / "__init__.py"), 1)


def test_a_class_exported_under_another_modules_name_is_found_by_its_methods_file(
    pkg: Path,
) -> None:
    moved = importlib.import_module("pkg").Moved
    assert moved.__module__ == "pkg"  # inspect looks for it in pkg/__init__.py
    assert place_docstring(moved, moved.__doc__) == Place(
        str(pkg / "exported.py"), line_of(pkg / "exported.py", '"""Moved.')
    )


def test_a_docstring_with_escaped_line_breaks_cannot_be_placed(tmp_path: Path) -> None:
    source = tmp_path / "escaped.py"
    source.write_text('def f():\n    "One.\\n\\n>>> 1\\n1\\n"\n', "utf-8")
    namespace: dict[str, object] = {}
    exec(compile(source.read_text(), str(source), "exec"), namespace)
    function = namespace["f"]
    assert place_docstring(function, function.__doc__) is None  # type: ignore[attr-defined]


def test_the_wrapper_chain_follows_wrapped_partials_and_properties_and_stops_on_a_loop(
    pkg: Path,
) -> None:
    module = ops()
    assert wrapper_chain(module.scaled)[-1].__code__.co_filename.endswith("ops.py")
    assert wrapper_chain(module.nadam)[1] is module.adam
    loop = type("Loop", (), {})()
    loop.__wrapped__ = loop
    assert wrapper_chain(loop) == [loop]


def test_a_file_rewritten_at_once_with_the_same_size_is_read_again(tmp_path: Path) -> None:
    """Within one tick of the file system's clock a rewrite keeps the file's times and size:
    the literal is looked for in what the file holds now."""
    path = tmp_path / "mod.py"
    literal, other = '""">>> 1\n1\n"""\n', "x = 1\n"
    for n in range(20):
        first = n % 2 == 0
        path.write_text(literal + other if first else other + literal)
        assert literal_line(str(path), ">>> 1\n1\n") == (1 if first else 2)


def placed_where(obj: object, base: Path) -> tuple[str, str]:
    """(file, the line its docstring is placed at), as the Sphinx side looks: with the module
    named by the object and the public one."""
    public = importlib.import_module("pkg")
    near = [public, sys.modules[getattr(obj, "__module__", "pkg")]]
    place = place_docstring(obj, obj.__doc__, near)  # type: ignore[arg-type]
    assert place is not None
    return place.path, base.read_text("utf-8").splitlines()[place.line - 1].strip()


def test_classes_that_say_they_belong_where_they_are_exported_are_placed_where_defined(
    reexported: Path,
) -> None:
    """JAX's jax.dtypes.extended (no methods) and jax.tree_util.Partial (only a __new__): their
    __module__ names a file that only imports them."""
    pkg = importlib.import_module("pkg")
    assert pkg.Extended.__module__ == pkg.Partial.__module__ == "pkg"
    assert placed_where(pkg.Extended, reexported) == (
        str(reexported),
        '"""A class with no methods, exported under the package\'s name.',
    )
    assert placed_where(pkg.Partial, reexported) == (
        str(reexported),
        '"""A partial whose only method is its __new__.',
    )


def test_re_exported_functions_methods_properties_and_assigned_docstrings_are_placed(
    reexported: Path,
) -> None:
    """Two-space indentation (haiku's), a method, a property, a ``__doc__`` assigned from a
    constant: each at the line its text starts on."""
    pkg = importlib.import_module("pkg")
    shapes = {
        pkg.with_rng: '"""Returns ``key``.',
        pkg.Module: (
            '"""Module, its examples indented as haiku\'s DeepRNN\'s (a block quote in the page).'
        ),
        pkg.Module.method: '"""Method.',
        vars(pkg.Module)["prop"]: '"""Prop.',
        pkg.assigned: '_SHARED = """Assigned.',
    }
    for obj, line in shapes.items():
        assert placed_where(obj, reexported) == (str(reexported), line)
