"""The stack the extension declares: pyproject.toml and the range a build checks agree, and
a build outside it gets one message naming the range."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest
import sphinx
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name

from sphinx_jaxcheck.sphinx import compat

PYPROJECT = Path(__file__).parents[2] / "pyproject.toml"


def requirements(group: str | None = None) -> dict[str, Requirement]:
    project = tomllib.loads(PYPROJECT.read_text("utf-8"))["project"]
    listed = project["dependencies"] if group is None else project["optional-dependencies"][group]
    return {canonicalize_name(Requirement(text).name): Requirement(text) for text in listed}


def test_pyproject_declares_the_ranges_a_build_checks() -> None:
    declared = requirements()
    for name, (low, high) in compat.SUPPORTED.items():
        lowest, below = ".".join(map(str, low)), ".".join(map(str, high))
        assert declared[name].specifier == Requirement(f"x>={lowest},<{below}").specifier, name


@pytest.mark.stack
@pytest.mark.skipif(
    "JAXCHECK_TESTED_SPHINX" not in os.environ,
    reason="only a tox environment names the Sphinx it tests (tox -e sphinx73 ... sphinx90)",
)
def test_the_sphinx_a_tox_environment_names_is_the_one_running() -> None:
    # pip once replaced an environment's Sphinx while installing the package, so that the
    # "7.3" environment ran the suite on 9.0.
    assert sphinx.__version__ in SpecifierSet(os.environ["JAXCHECK_TESTED_SPHINX"])


def test_the_jax_extra_keeps_the_ml_dtypes_that_imports_fast_and_the_others_take_it() -> None:
    # ml_dtypes 0.7.0 doubles jax's import, which every worker start pays.
    assert "0.7" not in requirements("jax")["ml-dtypes"].specifier
    assert "0.6.0" in requirements("jax")["ml-dtypes"].specifier
    for group in ("test", "docs"):
        assert "jax" in requirements(group)["sphinx-jaxcheck"].extras, group


@pytest.mark.parametrize(
    ("module", "version", "words"),
    [
        (
            "sphinx",
            "7.2.6",
            "sphinx-jaxcheck supports sphinx >=7.3,<9.1, and this build runs "
            "sphinx 7.2.6: install a supported one (`pip install 'sphinx>=7.3,<9.1'`)",
        ),
        ("sphinx", "9.1.0rc1", "this build runs sphinx 9.1.0rc1"),
        ("docutils", "0.20.1", "supports docutils >=0.21,<0.23"),
    ],
)
def test_a_stack_outside_the_range_is_named_with_the_range(
    monkeypatch: pytest.MonkeyPatch, module: str, version: str, words: str
) -> None:
    assert compat.unsupported_stack() is None  # this environment's own stack fits
    monkeypatch.setattr(f"{module}.__version__", version)
    assert words in (compat.unsupported_stack() or "")
