"""The configuration values' cleaners (no builds)."""

from __future__ import annotations

import pytest

from sphinx_jaxcheck.config import VALUES, closest_setting, doctests_like_default, read_settings
from sphinx_jaxcheck.errors import ConfigurationError


def test_every_value_rejects_a_value_of_the_wrong_type() -> None:
    """The cleaners themselves: no value accepts an object of an unrelated type."""
    for spec in VALUES:
        with pytest.raises(ConfigurationError, match=spec.name):
            read_settings(lambda name, bad=spec.name: object() if name == bad else None)


@pytest.mark.parametrize(
    ("typo", "meant"),
    [
        ("jaxcheck_jax_verison", "jaxcheck_jax_version"),
        ("jaxcheck_doctest", "jaxcheck_doctests"),
        ("jaxcheck_memory_limit", "jaxcheck_memory_limit_mb"),
        ("jaxcheck_everything_please", None),
    ],
)
def test_a_misspelled_setting_names_the_closest_real_one(typo: str, meant: str | None) -> None:
    assert closest_setting(typo) == meant


def test_doctests_like_names_one_of_two_tools_or_leaves_the_choice_to_extensions() -> None:
    for given in ("pytest", "sphinx.ext.doctest"):
        chosen = read_settings(
            lambda name, v=given: v if name == "jaxcheck_doctests_like" else None
        )
        assert chosen.doctests_like == given
    assert read_settings(lambda name: None).doctests_like is None
    with pytest.raises(ConfigurationError, match=r"'sphinx' is not one of pytest, sphinx\.ext"):
        read_settings(lambda name: "sphinx" if name == "jaxcheck_doctests_like" else None)
    assert doctests_like_default(["sphinx.ext.autodoc", "sphinx.ext.doctest"]) == (
        "sphinx.ext.doctest"
    )
    assert doctests_like_default(["sphinx.ext.autodoc", "sphinx_jaxcheck"]) == "pytest"
