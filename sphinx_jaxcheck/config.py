"""The ``jaxcheck_*`` configuration values, with defaults, validation and help.

Like MyST-Parser's config dataclass: one place that says what each value means.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

DEFAULT_REPO = "https://github.com/jax-ml/jax"
ON_DRIFT = ("error", "warning", "ignore")


class ConfigProblem(ValueError):
    """A configuration value that cannot be used; the message says how to fix it."""


@dataclass(frozen=True)
class ConfigValue:
    """One config value: its name, default, and a check that returns it cleaned."""

    name: str
    default: Any
    help: str
    clean: Callable[[Any], Any]


def _optional_str(name: str) -> Callable[[Any], Any]:
    def clean(value: Any) -> str | None:
        if value in (None, ""):
            return None
        return str(value)

    return clean


def _commit(value: Any) -> str | None:
    if value in (None, ""):
        return None
    if not re.fullmatch(r"[0-9a-f]{40}", str(value)):
        raise ConfigProblem(
            f"jaxcheck_jax_commit = {value!r} is not a full commit hash: expected 40 "
            "lowercase hex digits, as `jax.version._git_hash` prints it"
        )
    return str(value)


def _choice(name: str, allowed: tuple[str, ...]) -> Callable[[Any], Any]:
    def clean(value: Any) -> str:
        if str(value) not in allowed:
            raise ConfigProblem(f"{name} = {value!r} is not one of {', '.join(allowed)}")
        return str(value)

    return clean


def _flag(name: str) -> Callable[[Any], Any]:
    def clean(value: Any) -> bool:
        if isinstance(value, str):  # from -D name=0 / -D name=1
            if value.strip().lower() in ("0", "false", "no", "off", ""):
                return False
            if value.strip().lower() in ("1", "true", "yes", "on"):
                return True
            raise ConfigProblem(f"{name} = {value!r} is not a yes/no value: use 1 or 0")
        return bool(value)

    return clean


def _positive(name: str, kind: type) -> Callable[[Any], Any]:
    def clean(value: Any) -> Any:
        try:
            number = kind(value)
        except (TypeError, ValueError):
            raise ConfigProblem(f"{name} = {value!r} is not a number") from None
        if number <= 0:
            raise ConfigProblem(f"{name} = {value!r} must be greater than 0")
        return number

    return clean


def _env(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        raise ConfigProblem(f"jaxcheck_env = {value!r} is not a dict of environment variables")
    return {str(k): str(v) for k, v in value.items()}


def _optional_path(value: Any) -> str | None:
    return None if value in (None, "") else os.fspath(value)


VALUES: tuple[ConfigValue, ...] = (
    ConfigValue("jaxcheck_jax_version", None, "the JAX version the docs are pinned to", _optional_str("jaxcheck_jax_version")),
    ConfigValue("jaxcheck_jax_commit", None, "the full commit of the pinned version", _commit),
    ConfigValue("jaxcheck_jax_repo", DEFAULT_REPO, "where source links point", _optional_str("jaxcheck_jax_repo")),
    ConfigValue("jaxcheck_on_drift", "error", "error: fail the build; warning: warn only; ignore", _choice("jaxcheck_on_drift", ON_DRIFT)),
    ConfigValue("jaxcheck_timeout", 60, "seconds a block may run", _positive("jaxcheck_timeout", float)),
    ConfigValue("jaxcheck_workers", None, "worker processes running sessions in parallel (default: CPU count)", lambda v: None if v in (None, "") else _positive("jaxcheck_workers", int)(v)),
    ConfigValue("jaxcheck_env", {"JAX_PLATFORMS": "cpu"}, "environment variables of the workers", _env),
    ConfigValue("jaxcheck_cache", True, "reuse results of unchanged sessions across builds", _flag("jaxcheck_cache")),
    ConfigValue("jaxcheck_cache_dir", None, "where the result cache lives (default: <confdir>/.jaxcheck_cache)", _optional_path),
    ConfigValue("jaxcheck_update", False, "rewrite stale expectations in the sources at the end of the build", _flag("jaxcheck_update")),
    ConfigValue("jaxcheck_memory_limit_mb", None, "address-space limit of each worker, in MB (default: none)", lambda v: None if v in (None, "", 0) else _positive("jaxcheck_memory_limit_mb", int)(v)),
    ConfigValue("jaxcheck_output_limit_mb", 8, "most output a block may print, in MB", _positive("jaxcheck_output_limit_mb", float)),
)


@dataclass(frozen=True)
class Settings:
    """The cleaned configuration, as the rest of the package reads it."""

    jax_version: str | None
    jax_commit: str | None
    jax_repo: str
    on_drift: str
    timeout: float
    workers: int
    env: dict[str, str]
    cache: bool
    cache_dir: str | None
    update: bool
    memory_limit_mb: int | None
    output_limit_mb: float


def read_settings(raw: Callable[[str], Any]) -> Settings:
    """Clean every value; ``raw(name)`` returns what the user configured."""
    cleaned = {v.name.removeprefix("jaxcheck_"): v.clean(raw(v.name)) for v in VALUES}
    if cleaned["jax_repo"] is None:
        cleaned["jax_repo"] = DEFAULT_REPO
    cleaned["jax_repo"] = cleaned["jax_repo"].rstrip("/")
    if cleaned["workers"] is None:
        cleaned["workers"] = os.cpu_count() or 1
    return Settings(**cleaned)
