"""Which Python the workers run, checked once the config is read; asked about once per build."""

from __future__ import annotations

import os

from sphinx.application import Sphinx
from sphinx.config import Config

from ..cache.size import INTERPRETERS_FOLDER
from ..errors import InterpreterError
from ..expect.conditions import Runtime
from ..kinds import rules_of
from ..model import Block
from ..run.interpreter import (
    Interpreter,
    Probe,
    default_platform,
    locate,
    running_platform,
)
from ..run.pool import WorkerSettings, worker_settings
from .python_path import conf_python_path
from .settings import cache_directory, given_in, remember_settings, settings_of, stop
from .stages import ConfigInited


def setup_interpreter(app: Sphinx) -> None:
    """Resolve ``jaxcheck_python`` after validation, before the pin check needs its jax."""
    app.connect("config-inited", _resolve, priority=ConfigInited.INTERPRETER)


def _resolve(app: Sphinx, config: Config) -> None:
    try:
        if config.jaxcheck_python:
            # Relative to conf.py, once: everything after reads an absolute path.
            config.jaxcheck_python = locate(config.jaxcheck_python, str(app.confdir))
            remember_settings(config)
        settings = settings_of(config)
        if settings.reads_cache:  # the probe's answer is kept there between builds
            folder = os.path.join(cache_directory(app.confdir, settings), INTERPRETERS_FOLDER)
            object.__setattr__(config, _KEPT_IN, folder)
        interpreter_of(config)
        probe_of(config).begin()  # answers while Sphinx reads the pages
    except InterpreterError as problem:
        stop(f"configuration error: {problem} ({given_in(app)})")


# Where a config keeps the probe of its workers' interpreter: one per build, since
# packages may change between two builds (``_`` names are not pickled).
_PROBE = "_jaxcheck_probe"
_KEPT_IN = "_jaxcheck_probe_folder"


def probe_of(config: Config) -> Probe:
    """The workers' interpreter in the environment they get, for this build's settings."""
    settings = settings_of(config)
    workers = worker_settings(settings, python_path=conf_python_path(config))
    python, env = workers.python, workers.outcome_env()
    # The packages whose docstrings are checked: keyed by their files, not their version.
    tested = tuple(sorted({name.split(".")[0] for name in settings.doctest_modules}))
    kept = config.__dict__.get(_PROBE)
    if isinstance(kept, Probe) and (kept.python, kept.env, kept.modules) == (python, env, tested):
        return kept
    probe = Probe(python, env, workers.key_env(), config.__dict__.get(_KEPT_IN), tested)
    object.__setattr__(config, _PROBE, probe)
    return probe


def fingerprint(app: Sphinx) -> str:
    """The fingerprint of this build's workers: their Python, what is installed there, their
    environment; part of every cache key and of the run description."""
    return probe_of(app.config).fingerprint


def interpreter_of(config: Config) -> Interpreter:
    """The workers' interpreter and its JAX."""
    return probe_of(config).interpreter


def runtime_of(config: Config, blocks: list[Block]) -> Runtime:
    """The jax version and platform the workers run, which decide what limited blocks apply."""
    settings = settings_of(config)
    found = interpreter_of(config)
    path = conf_python_path(config)
    env = WorkerSettings(env=settings.env, python=found.python, python_path=path).process_env()
    platform = running_platform(env)
    if platform is None and any(
        b.options.limits.platforms or rules_of(b).platforms() for b in blocks
    ):
        platform = default_platform(found.python, env)  # JAX picks: ask it (imports jax there)
    return Runtime(found.jax_version, platform)
