"""Register the ``jaxcheck_*`` config values with Sphinx and read them back cleaned."""

from __future__ import annotations

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ConfigError

from ..config import VALUES, ConfigProblem, Settings, read_settings


def setup_settings(app: Sphinx) -> None:
    """Every value re-checks all documents when it changes (rebuild="env")."""
    for value in VALUES:
        app.add_config_value(value.name, value.default, "env", description=value.help)
    app.connect("config-inited", _validate, priority=100)


def _validate(app: Sphinx, config: Config) -> None:
    try:
        settings_of(config)
    except ConfigProblem as problem:
        raise ConfigError(f"{problem} (in conf.py or -D)") from None


def settings_of(config: Config) -> Settings:
    """The cleaned settings of a Sphinx config."""
    return read_settings(lambda name: getattr(config, name))
