"""The configuration values' cleaners (no builds)."""

from __future__ import annotations

import pytest

from sphinx_jaxcheck.config import VALUES, read_settings
from sphinx_jaxcheck.errors import ConfigurationError


def test_every_value_rejects_a_value_of_the_wrong_type() -> None:
    """The cleaners themselves: no value accepts an object of an unrelated type."""
    for spec in VALUES:
        with pytest.raises(ConfigurationError, match=spec.name):
            read_settings(lambda name, bad=spec.name: object() if name == bad else None)
