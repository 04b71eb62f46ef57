"""The ``jaxcheck_*`` configuration values, with defaults, validation and help.

Like MyST-Parser's config dataclass: one place that says what each value means.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

DEFAULT_REPO = "https://github.com/jax-ml/jax"
ON_DRIFT = ("error", "warning", "ignore")
DOCTESTS = ("check", "report", "off")


class ConfigProblem(ValueError):
    """A configuration value that cannot be used; the message says how to fix it."""


@dataclass(frozen=True)
class ConfigValue:
    """One config value: its name, default, and a check that returns it cleaned."""

    name: str
    default: Any
    help: str
    clean: Callable[[Any], Any]


def _shown(value: Any) -> str:
    return f"{value!r} ({type(value).__name__})"


def _optional_str(name: str) -> Callable[[Any], Any]:
    def clean(value: Any) -> str | None:
        if value in (None, ""):
            return None
        if not isinstance(value, str):
            raise ConfigProblem(f"{name} = {_shown(value)} is not a string: write it in quotes")
        return value

    return clean


def _commit(value: Any) -> str | None:
    if value in (None, ""):
        return None
    if not isinstance(value, str) or not re.fullmatch(r"[0-9a-f]{40}", value):
        raise ConfigProblem(
            f"jaxcheck_jax_commit = {value!r} is not a full commit hash: expected 40 "
            "lowercase hex digits, as `jax.version._git_hash` prints it"
        )
    return value


def _choice(name: str, allowed: tuple[str, ...]) -> Callable[[Any], Any]:
    def clean(value: Any) -> str:
        if not isinstance(value, str) or value not in allowed:
            raise ConfigProblem(f"{name} = {value!r} is not one of {', '.join(allowed)}")
        return value

    return clean


def _flag(name: str) -> Callable[[Any], Any]:
    def clean(value: Any) -> bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        if isinstance(value, str):  # from -D name=0 / -D name=1
            if value.strip().lower() in ("0", "false", "no", "off"):
                return False
            if value.strip().lower() in ("1", "true", "yes", "on"):
                return True
        raise ConfigProblem(f"{name} = {_shown(value)} is not a yes/no value: use True or False (1 or 0 with -D)")

    return clean


def _number(name: str, kind: type, *, optional: bool = False, example: str = "60") -> Callable[[Any], Any]:
    """A finite number greater than 0; whole for ``int``. ``-D`` gives it as text."""
    wanted = "a whole number" if kind is int else "a number"

    def clean(value: Any) -> Any:
        if optional and value in (None, ""):
            return None
        number: Any = value
        if isinstance(value, str):
            try:
                number = float(value.strip())
            except ValueError:
                number = None
        if isinstance(number, bool) or not isinstance(number, (int, float)):
            raise ConfigProblem(f"{name} = {_shown(value)} is not {wanted}: expected e.g. {name} = {example}")
        if not math.isfinite(number) or number <= 0:
            raise ConfigProblem(f"{name} = {value!r} is out of range: expected {wanted} greater than 0, e.g. {example}")
        if kind is int:
            if number != int(number):
                raise ConfigProblem(f"{name} = {value!r} is not a whole number: expected e.g. {name} = {example}")
            return int(number)
        return float(number)

    return clean


def _no_limit_or(clean: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """0 (or "0" from -D) means no limit."""
    return lambda value: None if value == 0 or value == "0" else clean(value)


def _env(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        raise ConfigProblem(
            f"jaxcheck_env = {_shown(value)} is not a dict of environment variables: "
            "expected e.g. jaxcheck_env = {\"JAX_PLATFORMS\": \"cpu\"}"
        )
    for key, item in value.items():
        if not isinstance(key, str) or not key or "=" in key or "\0" in key:
            raise ConfigProblem(f"jaxcheck_env has the key {key!r}, which is not an environment variable name")
        if not isinstance(item, str) or "\0" in item:
            raise ConfigProblem(
                f"jaxcheck_env[{key!r}] = {_shown(item)} is not a string: environment values are text, "
                f"write it in quotes"
            )
    return dict(value)


def _names(name: str) -> Callable[[Any], Any]:
    def clean(value: Any) -> tuple[str, ...]:
        if isinstance(value, str):  # from -D name=A,B
            value = [part.strip() for part in value.split(",") if part.strip()]
        if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v and "=" not in v for v in value):
            raise ConfigProblem(
                f"{name} = {_shown(value)} is not a list of environment variable names: "
                f"expected e.g. {name} = [\"MY_TOKENLESS_SETTING\"]"
            )
        return tuple(value)

    return clean


def _doctest_flags(value: Any) -> tuple[str, ...]:
    from .doctest_flags import flags_from_names

    names = value.replace(",", " ").split() if isinstance(value, str) else value
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise ConfigProblem(
            f"jaxcheck_doctest_flags = {_shown(value)} is not a list of flag names, e.g. "
            '["NUMBER", "NORMALIZE_WHITESPACE"]'
        )
    try:
        flags_from_names(names)
    except ValueError as problem:
        raise ConfigProblem(f"jaxcheck_doctest_flags: {problem}") from None
    return tuple(names)


def _setup_code(value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ConfigProblem(f"jaxcheck_setup = {_shown(value)} is not Python source text (a str)")
    try:
        compile(value, "<jaxcheck_setup>", "exec")
    except SyntaxError as problem:
        raise ConfigProblem(
            f"jaxcheck_setup is not valid Python: line {problem.lineno}: {problem.msg}"
        ) from None
    return value


def _shard(value: Any) -> str | None:
    if value in (None, ""):
        return None
    from .sharding import Shard, ShardProblem

    try:
        return str(Shard.parse(value))
    except ShardProblem as problem:
        raise ConfigProblem(f"jaxcheck_shard: {problem}") from None


def _optional_path(name: str, what: str, example: str) -> Callable[[Any], Any]:
    def clean(value: Any) -> str | None:
        if value in (None, ""):
            return None
        if not isinstance(value, (str, os.PathLike)):
            raise ConfigProblem(
                f"{name} = {_shown(value)} is not {what}: expected a string, e.g. {name} = {example!r}"
            )
        return os.fspath(value)

    return clean


VALUES: tuple[ConfigValue, ...] = (
    ConfigValue("jaxcheck_jax_version", None, "the JAX version the docs are pinned to", _optional_str("jaxcheck_jax_version")),
    ConfigValue("jaxcheck_jax_commit", None, "the full commit of the pinned version", _commit),
    ConfigValue("jaxcheck_jax_repo", DEFAULT_REPO, "where source links point", _optional_str("jaxcheck_jax_repo")),
    ConfigValue("jaxcheck_on_drift", "error", "error: fail the build; warning: warn only; ignore", _choice("jaxcheck_on_drift", ON_DRIFT)),
    ConfigValue("jaxcheck_check_names", False, "check that `jax.` names in prose exist in the pinned source", _flag("jaxcheck_check_names")),
    ConfigValue("jaxcheck_timeout", 60, "seconds a block may run", _number("jaxcheck_timeout", float)),
    ConfigValue("jaxcheck_workers", None, "worker processes running sessions in parallel (default: CPU count)", _number("jaxcheck_workers", int, optional=True, example="2")),
    ConfigValue("jaxcheck_env", {"JAX_PLATFORMS": "cpu"}, "environment variables of the workers", _env),
    ConfigValue("jaxcheck_env_passthrough", [], "more variables the workers inherit from the build's environment (names; * ends a prefix)", _names("jaxcheck_env_passthrough")),
    ConfigValue("jaxcheck_cache", True, "reuse results of unchanged sessions across builds", _flag("jaxcheck_cache")),
    ConfigValue("jaxcheck_cache_max_mb", 512, "most disk space the result and XLA caches may take together, in MB", _number("jaxcheck_cache_max_mb", float, example="512")),
    ConfigValue("jaxcheck_cache_dir", None, "where the result cache lives (default: <confdir>/.jaxcheck_cache)", _optional_path("jaxcheck_cache_dir", "a folder path", ".jaxcheck_cache")),
    ConfigValue("jaxcheck_update", False, "rewrite stale expectations in the sources at the end of the build", _flag("jaxcheck_update")),
    ConfigValue("jaxcheck_update_allow_outside", False, "let updates write files outside the source folder (symlinked or included from elsewhere)", _flag("jaxcheck_update_allow_outside")),
    ConfigValue("jaxcheck_memory_limit_mb", None, "address-space limit of each worker, in MB (default: none)", _no_limit_or(_number("jaxcheck_memory_limit_mb", int, optional=True, example="4096"))),
    ConfigValue("jaxcheck_python", None, "the Python the workers run, with its own jax (default: the one running Sphinx)", _optional_path("jaxcheck_python", "the path of an interpreter", ".venv-jax/bin/python")),
    ConfigValue("jaxcheck_output_limit_mb", 8, "most output a block may print, in MB", _number("jaxcheck_output_limit_mb", float, example="8")),
    ConfigValue("jaxcheck_doctests", "report", "the pages' own >>> examples: check them, report how many went unchecked, or off", _choice("jaxcheck_doctests", DOCTESTS)),
    ConfigValue("jaxcheck_doctest_flags", [], "doctest option flags of every >>> example (doctest's names plus NUMBER, ALLOW_UNICODE, ALLOW_BYTES)", _doctest_flags),
    ConfigValue("jaxcheck_setup", "", "Python run, unseen, at the start of every session", _setup_code),
    ConfigValue("jaxcheck_shard", None, "check only this shard K/N of the sessions (see `jaxcheck check --shard`)", _shard),
)


@dataclass(frozen=True)
class Settings:
    """The cleaned configuration, as the rest of the package reads it."""

    jax_version: str | None
    jax_commit: str | None
    jax_repo: str
    on_drift: str
    check_names: bool
    timeout: float
    workers: int
    env: dict[str, str]
    env_passthrough: tuple[str, ...]
    cache: bool
    cache_max_mb: float
    cache_dir: str | None
    update: bool
    update_allow_outside: bool
    memory_limit_mb: int | None
    python: str | None
    output_limit_mb: float
    doctests: str = "report"
    doctest_flags: tuple[str, ...] = ()
    setup: str = ""
    shard: str | None = None

    @property
    def doctest_optionflags(self) -> int:
        """The bits of ``doctest_flags``."""
        from .doctest_flags import flags_from_names

        return flags_from_names(self.doctest_flags)


def _or_default(value: Any, spec: ConfigValue) -> Any:
    return spec.default if value is None else value


def read_settings(raw: Callable[[str], Any]) -> Settings:
    """Clean every value; ``raw(name)`` returns what the user configured."""
    cleaned = {v.name.removeprefix("jaxcheck_"): v.clean(_or_default(raw(v.name), v)) for v in VALUES}
    if cleaned["jax_repo"] is None:
        cleaned["jax_repo"] = DEFAULT_REPO
    cleaned["jax_repo"] = cleaned["jax_repo"].rstrip("/")
    if cleaned["workers"] is None:
        cleaned["workers"] = os.cpu_count() or 1
    return Settings(**cleaned)
