"""The configuration values' cleaners (no builds)."""

from __future__ import annotations

import pytest

from sphinx_jaxcheck.config import VALUES, closest_setting, read_settings
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
