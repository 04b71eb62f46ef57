"""Which Python the workers run, checked once the config is read."""

from __future__ import annotations

import sys
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config

from ..errors import InterpreterError
from ..expect.conditions import Runtime
from ..model import Block
from ..run.interpreter import (
    Interpreter,
    default_platform,
    describe,
    locate,
    running_platform,
)
from ..run.pool import WorkerSettings
from .settings import remember_settings, settings_of, stop


def setup_interpreter(app: Sphinx) -> None:
    """Resolve ``jaxcheck_python`` after validation, before the pin check needs its jax."""
    app.connect("config-inited", _resolve, priority=500)


def _resolve(app: Sphinx, config: Config) -> None:
    try:
        if config.jaxcheck_python:
            # Relative to conf.py, once: everything after reads an absolute path.
            config.jaxcheck_python = locate(config.jaxcheck_python, str(app.confdir))
            remember_settings(config)
        interpreter_of(config)
    except InterpreterError as problem:
        stop(f"configuration error: {problem} (in {Path(app.confdir, 'conf.py')} or a -D option)")


def interpreter_of(config: Config) -> Interpreter:
    """The workers' interpreter and its JAX (asked once per interpreter and environment)."""
    settings = settings_of(config)
    python = settings.python or sys.executable
    # Asked in the workers' environment: their PYTHONPATH, their variables.
    return describe(python, WorkerSettings(env=settings.env, python=python).process_env())


def runtime_of(config: Config, blocks: list[Block]) -> Runtime:
    """The jax version and platform the workers run, which decide what limited blocks apply."""
    settings = settings_of(config)
    found = interpreter_of(config)
    env = WorkerSettings(env=settings.env, python=found.python).process_env()
    platform = running_platform(env)
    if platform is None and any(b.options.limits.platforms for b in blocks):
        platform = default_platform(found.python, env)  # JAX picks: ask it (imports jax there)
    return Runtime(found.jax_version, platform)
