"""Stop the build when the workers' jax is not the pinned one; give roles the pin and its source."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING

from sphinx.application import Sphinx
from sphinx.config import Config

from ..cite.pin import Installed, Pin, resolve_pin
from ..errors import PinMismatchError
from .interpreter import interpreter_of
from .settings import set_with, settings_of, stop
from .stages import ConfigInited

if TYPE_CHECKING:
    from ..cite.jax_source import SourceIndex


def setup_pin(app: Sphinx) -> None:
    """Check the pin once the config is read (after the settings are validated)."""
    app.connect("config-inited", _check_pin, priority=ConfigInited.PIN)


def _check_pin(app: Sphinx, config: Config) -> None:
    try:
        pin_of(config)
    except PinMismatchError as mismatch:
        stop(str(mismatch))


def pin_of(config: Config) -> Pin:
    """The pin links use; raises :class:`PinMismatchError` when the workers' jax differs."""
    settings = settings_of(config)
    overrides = config.overrides
    return _resolve(
        settings.jax_version,
        settings.jax_commit,
        settings.jax_repo,
        "jaxcheck_jax_version" in overrides,
        "jaxcheck_jax_commit" in overrides,
        interpreter_of(config).installed(),
        set_with(),
    )


def source_index_of(config: Config) -> SourceIndex | None:
    """The source of the workers' jax, which citations are checked against (None: no jax)."""
    from ..cite.jax_source import index_for  # only where something is cited

    root = interpreter_of(config).jax_root
    return index_for(Path(root)) if root else None


@functools.lru_cache(maxsize=8)
def _resolve(
    version: str | None,
    commit: str | None,
    repo: str,
    version_overridden: bool,
    commit_overridden: bool,
    found: Installed,
    set_with: str,
) -> Pin:
    return resolve_pin(
        version,
        commit,
        repo,
        found,
        version_overridden=version_overridden,
        commit_overridden=commit_overridden,
        set_with=set_with,
    )
