"""The configuration values' cleaners (no builds)."""

from __future__ import annotations

import pytest

from sphinx_jaxcheck.config import VALUES, ConfigProblem, read_settings


def test_every_value_rejects_a_value_of_the_wrong_type() -> None:
    """The cleaners themselves: no value accepts an object of an unrelated type."""
    for spec in VALUES:
        with pytest.raises(ConfigProblem, match=spec.name):
            read_settings(lambda name, bad=spec.name: object() if name == bad else None)
