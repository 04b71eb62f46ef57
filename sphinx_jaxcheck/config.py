"""The ``jaxcheck_*`` configuration values: one declaration each, with default, validation and help.

Like MyST-Parser's config dataclass: each field of :class:`Settings` is one
value (``jaxcheck_`` + its name), and its metadata holds the help text and the
cleaner that checks what conf.py (or ``-D``) gave. Sphinx registers the values
from these fields (``sphinx/settings.py``), and the settings are cleaned once per build.
"""

from __future__ import annotations

import difflib
import glob
import math
import os
import re
import sys
from collections.abc import Callable
from dataclasses import Field, dataclass, field, fields
from typing import Any

from .cite.pin import DEFAULT_REPO
from .errors import ConfigurationError, ShardError
from .model import DEFAULT_ENV, DEFAULT_OUTPUT_LIMIT, DEFAULT_TIMEOUT

PREFIX = "jaxcheck_"
ON_DRIFT = ("error", "warning", "ignore")
DOCTESTS = ("check", "report", "off")
NOTEBOOKS = ("check", "report", "off")
# Whether a notebook's cells that install or remove packages (%pip install) run.
NOTEBOOKS_ENVIRONMENT = ("skip", "run")
# Which warnings fail the check: those that drop checks (autodoc could not import what a page
# shows), any warning at all (as ``sphinx-build -W``), or none.
FAIL_ON_WARNINGS = ("dropped-checks", "any", "off")
# Whose rules decide which ``>>>`` examples exist and which namespace each runs in.
DOCTESTS_LIKE = ("pytest", "sphinx.ext.doctest")
# Checks a configured value (named for messages) and returns it cleaned; raises ConfigurationError.
Cleaner = Callable[[str, Any], Any]


def _shown(value: Any) -> str:
    return f"{value!r} ({type(value).__name__})"


def _optional_str(name: str, value: Any) -> str | None:
    if value in (None, ""):
        return None
    if not isinstance(value, str):
        raise ConfigurationError(f"{name} = {_shown(value)} is not a string: write it in quotes")
    return value


def _repo(name: str, value: Any) -> str:
    return (_optional_str(name, value) or DEFAULT_REPO).rstrip("/")


def _commit(name: str, value: Any) -> str | None:
    if value in (None, ""):
        return None
    if not isinstance(value, str) or not re.fullmatch(r"[0-9a-f]{40}", value):
        raise ConfigurationError(
            f"{name} = {value!r} is not a full commit hash: expected 40 "
            "lowercase hex digits, as `jax.version._git_hash` prints it"
        )
    return value


def _choice(allowed: tuple[str, ...]) -> Cleaner:
    def clean(name: str, value: Any) -> str:
        if not isinstance(value, str) or value not in allowed:
            raise ConfigurationError(f"{name} = {value!r} is not one of {', '.join(allowed)}")
        return value

    return clean


def _optional_choice(allowed: tuple[str, ...]) -> Cleaner:
    chosen = _choice(allowed)
    return lambda name, value: None if value in (None, "") else chosen(name, value)


def doctests_like_default(extensions: list[str]) -> str:
    """The rules a project's own doctest tool applies: sphinx.ext.doctest's when it is loaded."""
    return "sphinx.ext.doctest" if "sphinx.ext.doctest" in extensions else "pytest"


def notebooks_default(extensions: list[str]) -> str:
    """Check notebooks where MyST-NB renders them; elsewhere (nbsphinx) only count their cells.

    A project whose pages nbsphinx renders runs its notebooks in no doctest of its own, and
    often never (``nbsphinx_execute = "never"``): running them unasked would surprise it on
    adoption. They are still counted, so none goes unchecked without a word.
    """
    return "check" if "myst_nb" in extensions else "report"


def _flag(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):  # from -D name=0 / -D name=1
        if value.strip().lower() in ("0", "false", "no", "off"):
            return False
        if value.strip().lower() in ("1", "true", "yes", "on"):
            return True
    raise ConfigurationError(
        f"{name} = {_shown(value)} is not a yes/no value: use True or False (1 or 0 with -D)"
    )


REFRESH = "refresh"  # jaxcheck_cache: take nothing from the cache, store what runs


def _cache(name: str, value: Any) -> bool | str:
    if isinstance(value, str) and value.strip().lower() == REFRESH:
        return REFRESH
    try:
        return _flag(name, value)
    except ConfigurationError:
        raise ConfigurationError(
            f"{name} = {_shown(value)} is not a yes/no value or {REFRESH!r}: use True or False "
            f"(1 or 0 with -D), or {REFRESH!r} to run every session and store what ran"
        ) from None


def _number(kind: type, *, optional: bool = False, example: str = "60") -> Cleaner:
    """A finite number greater than 0; whole for ``int``. ``-D`` gives it as text."""
    wanted = "a whole number" if kind is int else "a number"

    def clean(name: str, value: Any) -> Any:
        if optional and value in (None, ""):
            return None
        number: Any = value
        if isinstance(value, str):
            try:
                number = float(value.strip())
            except ValueError:
                number = None
        if isinstance(number, bool) or not isinstance(number, (int, float)):
            raise ConfigurationError(
                f"{name} = {_shown(value)} is not {wanted}: expected e.g. {name} = {example}"
            )
        if not math.isfinite(number) or number <= 0:
            raise ConfigurationError(
                f"{name} = {value!r} is out of range: expected {wanted} greater than 0, "
                f"e.g. {example}"
            )
        if kind is int:
            if number != int(number):
                raise ConfigurationError(
                    f"{name} = {value!r} is not a whole number: expected e.g. {name} = {example}"
                )
            return int(number)
        return float(number)

    return clean


def _no_limit_or(clean: Cleaner) -> Cleaner:
    """0 (or "0" from -D) means no limit."""
    return lambda name, value: None if value == 0 or value == "0" else clean(name, value)


def largest_memory_limit_mb() -> int:
    """The largest ``jaxcheck_memory_limit_mb`` this system accepts as a worker's RLIMIT_AS.

    ``setrlimit`` takes a C long, and no process may raise its hard limit
    (which workers inherit from this one) without privileges.
    """
    most = sys.maxsize
    try:
        import resource

        hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    except (ImportError, AttributeError, OSError, ValueError):
        hard = -1  # no RLIMIT_AS here: the workers cannot apply a limit
    else:
        if hard != resource.RLIM_INFINITY:
            most = min(most, hard)
    return most // (1024 * 1024)


def _memory_limit(name: str, value: Any) -> int | None:
    megabytes: int | None = _no_limit_or(_number(int, optional=True, example="4096"))(name, value)
    most = largest_memory_limit_mb()
    if megabytes is not None and megabytes > most:
        raise ConfigurationError(
            f"{name} = {value!r} is out of range: this system lets a process limit its address "
            f"space (RLIMIT_AS) to at most {most} MB; expected a whole number of MB up to that, "
            "e.g. 4096, or 0 for no limit"
        )
    return megabytes


def _or_cpu_count(clean: Cleaner) -> Cleaner:
    """No value means one per CPU."""

    def cleaned(name: str, value: Any) -> Any:
        found = clean(name, value)
        return (os.cpu_count() or 1) if found is None else found

    return cleaned


def _env(name: str, value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        raise ConfigurationError(
            f"{name} = {_shown(value)} is not a dict of environment variables: "
            'expected e.g. jaxcheck_env = {"JAX_PLATFORMS": "cpu"}'
        )
    for key, item in value.items():
        if not isinstance(key, str) or not key or "=" in key or "\0" in key:
            raise ConfigurationError(
                f"{name} has the key {key!r}, which is not an environment variable name"
            )
        if not isinstance(item, str) or "\0" in item:
            raise ConfigurationError(
                f"{name}[{key!r}] = {_shown(item)} is not a string: environment values are text, "
                f"write it in quotes"
            )
    return dict(value)


def _names(name: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):  # from -D name=A,B
        value = [part.strip() for part in value.split(",") if part.strip()]
    if not isinstance(value, (list, tuple)) or not all(
        isinstance(v, str) and v and "=" not in v for v in value
    ):
        raise ConfigurationError(
            f"{name} = {_shown(value)} is not a list of environment variable names: "
            f'expected e.g. {name} = ["MY_TOKENLESS_SETTING"]'
        )
    return tuple(value)


def _doctest_flags(name: str, value: Any) -> tuple[str, ...]:
    from .expect.doctest_flags import flags_from_names

    names = value.replace(",", " ").split() if isinstance(value, str) else value
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise ConfigurationError(
            f"{name} = {_shown(value)} is not a list of flag names, e.g. "
            '["NUMBER", "NORMALIZE_WHITESPACE"]'
        )
    try:
        flags_from_names(names)
    except ValueError as problem:
        raise ConfigurationError(f"{name}: {problem}") from None
    return tuple(names)


_MODULE_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


def _normalizers(name: str, value: Any) -> tuple[str, ...]:
    from .judge.notebooks import NORMALIZERS

    names = value.replace(",", " ").split() if isinstance(value, str) else value  # -D a,b
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise ConfigurationError(
            f"{name} = {_shown(value)} is not a list of normalizer names, e.g. "
            f"{list(NORMALIZERS)!r}"
        )
    for found in names:
        if found not in NORMALIZERS:
            guess = difflib.get_close_matches(found, list(NORMALIZERS), 1)
            hint = f"; did you mean {guess[0]!r}?" if guess else ""
            raise ConfigurationError(
                f"{name}: {found!r} is no normalizer{hint} Expected some of "
                f"{', '.join(NORMALIZERS)}"
            )
    return tuple(n for n in NORMALIZERS if n in names)  # in the order they apply


def _module_names(name: str, value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    names = value.replace(",", " ").split() if isinstance(value, str) else value  # -D a,b
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise ConfigurationError(
            f'{name} = {_shown(value)} is not a list of module names, e.g. ["jax.numpy", "jax.lax"]'
        )
    for module in names:
        if not _MODULE_NAME.fullmatch(module):
            dotted = module.removesuffix(".py").replace("/", ".").replace(os.sep, ".").strip(".")
            hint = (
                f": write the module's name, {dotted!r}" if _MODULE_NAME.fullmatch(dotted) else ""
            )
            raise ConfigurationError(f"{name}: {module!r} is not a module name{hint}")
    return tuple(names)


def _file_patterns(name: str, value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):  # from -D a,b (nothing: none)
        value = [p.strip() for p in value.split(",") if p.strip()]
    patterns = value
    if not isinstance(patterns, (list, tuple)) or not all(
        isinstance(p, (str, os.PathLike)) and os.fspath(p) for p in patterns
    ):
        raise ConfigurationError(
            f"{name} = {_shown(value)} is not a list of paths or globs, relative to the folder "
            f'of conf.py: expected e.g. {name} = ["../README.md"]'
        )
    return tuple(os.fspath(p) for p in patterns)


def _notebook_images(name: str, value: Any) -> str:
    from .expect.notebooks import IMAGES_EXPECTED, image_rule

    try:
        image_rule(value if isinstance(value, str) else "")
    except ValueError:
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        hint = f': write "rms:{value:g}" for that tolerance' if number else ""
        raise ConfigurationError(
            f"{name} = {_shown(value)} is not {IMAGES_EXPECTED}{hint}"
        ) from None
    return str(value).strip()


def _patterns(of: str, matched: str, example: str) -> Cleaner:
    """A list of non-empty glob patterns of ``of`` (``-D`` gives them comma-separated)."""

    def clean(name: str, value: Any) -> tuple[str, ...]:
        patterns = (
            [p.strip() for p in value.split(",") if p.strip()] if isinstance(value, str) else value
        )
        expected = f"expected e.g. {name} = {example}"
        if not isinstance(patterns, (list, tuple)):
            raise ConfigurationError(
                f"{name} = {_shown(value)} is not a list of patterns of {of} ({matched}): "
                f"{expected}"
            )
        for pattern in patterns:
            if not isinstance(pattern, str) or not pattern:
                raise ConfigurationError(
                    f"{name}: the entry {_shown(pattern)} is not a pattern of {of} (a non-empty "
                    f"str): {expected}"
                )
        return tuple(patterns)

    return clean


def doctest_files(confdir: str | os.PathLike[str], patterns: tuple[str, ...]) -> list[str]:
    """The files ``jaxcheck_doctest_files`` names, each once, in the order named (a glob's in
    sorted order), as paths from ``confdir``; raises :class:`ConfigurationError` for an entry
    that names no file."""
    folder = os.path.abspath(confdir)
    found: dict[str, str] = {}  # real path -> the path as named
    for pattern in patterns:
        named = os.path.join(folder, pattern)
        wild = any(mark in pattern for mark in "*?[")
        matches = sorted(glob.glob(named, recursive=True)) if wild else [named]
        files = [match for match in matches if os.path.isfile(match)]
        if not files:
            what = "is a folder, not a file" if os.path.isdir(named) else "matches no file"
            raise ConfigurationError(
                f"{PREFIX}doctest_files: {pattern!r}, looked for in {folder} (entries are paths "
                f"or globs relative to the folder of conf.py), {what}: correct the entry, or "
                "remove it"
            )
        for match in files:
            found.setdefault(os.path.realpath(match), os.path.normpath(match))
    return list(found.values())


def _warning_filters(name: str, value: Any) -> tuple[str, ...]:
    from .worker.warning_filters import FORM, parse

    # One entry from -D: a comma is part of a message, never a separator; nothing: none.
    entries = ([value] if value.strip() else []) if isinstance(value, str) else value
    if not isinstance(entries, (list, tuple)) or not all(isinstance(e, str) for e in entries):
        raise ConfigurationError(
            f"{name} = {_shown(value)} is not a list of warning filters in pytest's "
            f'filterwarnings syntax ({FORM}), e.g. ["error", "ignore::DeprecationWarning"]'
        )
    for entry in entries:
        try:
            parse(entry)
        except ValueError as problem:
            raise ConfigurationError(
                f"{name}: the entry {entry!r} is not a warning filter: {problem}"
            ) from None
    return tuple(entries)


def _setup_code(name: str, value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ConfigurationError(f"{name} = {_shown(value)} is not Python source text (a str)")
    try:
        compile(value, "<jaxcheck_setup>", "exec", dont_inherit=True)
    except SyntaxError as problem:
        raise ConfigurationError(
            f"{name} is not valid Python: line {problem.lineno}: {problem.msg}"
        ) from None
    return value


def _shard(name: str, value: Any) -> str | None:
    if value in (None, ""):
        return None
    from .model import Shard

    try:
        return str(Shard.parse(value))
    except ShardError as problem:
        raise ConfigurationError(f"{name}: {problem}") from None


def _optional_path(what: str, example: str) -> Cleaner:
    def clean(name: str, value: Any) -> str | None:
        if value in (None, ""):
            return None
        if not isinstance(value, (str, os.PathLike)):
            raise ConfigurationError(
                f"{name} = {_shown(value)} is not {what}: "
                f"expected a string, e.g. {name} = {example!r}"
            )
        return os.fspath(value)

    return clean


# Shares of jaxcheck_cache_max_mb. A compiled program (a few KB) is about ten
# times an outcome (a few hundred bytes).
COMPILED_SHARE = 0.75
RESULTS_SHARE = 0.25


def compiled_share(max_bytes: int) -> int:
    """The bytes ``xla/`` may keep after a build under a cache limit of ``max_bytes``."""
    return int(max_bytes * COMPILED_SHARE)


def results_share(max_bytes: int) -> int:
    """The bytes session outcomes may take under a cache limit of ``max_bytes``."""
    return int(max_bytes * RESULTS_SHARE)


def _value(default: Any, help: str, clean: Cleaner, *, rereads: bool = True) -> Any:
    """A field of :class:`Settings`: its default as conf.py would write it, its help, its
    cleaner; ``rereads``: whether a change reads every document again (False only for a value
    no document's blocks or findings depend on)."""
    return field(default=default, metadata={"help": help, "clean": clean, "rereads": rereads})


@dataclass(frozen=True)
class Settings:
    """The cleaned configuration, as the rest of the package reads it; one field per
    ``jaxcheck_*`` value.

    Made by :func:`read_settings`, which cleans each value; a field's default is
    the value as conf.py would write it (``workers``: None, one per CPU).
    """

    jax_version: str | None = _value(None, "the JAX version the docs are pinned to", _optional_str)
    jax_commit: str | None = _value(None, "the full commit of the pinned version", _commit)
    jax_repo: str = _value(DEFAULT_REPO, "where source links point", _repo)
    on_drift: str = _value(
        "error", "error: fail the build; warning: warn only; ignore", _choice(ON_DRIFT)
    )
    fail_on_warnings: str = _value(
        "dropped-checks",
        "which warnings fail the check: dropped-checks (autodoc could not import what a page "
        "shows, so its docstrings' examples are gone), any (as sphinx-build -W), or off",
        _choice(FAIL_ON_WARNINGS),
    )
    check_names: bool = _value(
        False, "check that `jax.` names in prose exist in the pinned source", _flag
    )
    timeout: float = _value(DEFAULT_TIMEOUT, "seconds a block may run", _number(float))
    workers: int = _value(
        None,
        "worker processes running sessions in parallel (default: CPU count)",
        _or_cpu_count(_number(int, optional=True, example="2")),
        rereads=False,
    )
    env: dict[str, str] = field(
        default_factory=lambda: dict(DEFAULT_ENV),
        metadata={"help": "environment variables of the workers", "clean": _env},
    )
    env_passthrough: tuple[str, ...] = _value(
        (),
        "more variables the workers inherit from the build's environment (names; * ends a prefix)",
        _names,
    )
    cache: bool | str = _value(
        True,
        "reuse results of unchanged sessions across builds (refresh: run every session, and "
        "store what ran for the next build)",
        _cache,
        # Not read again: a build that reads no cache runs every document's sessions anyway.
        rereads=False,
    )
    cache_max_mb: float = _value(
        512,
        f"most disk space the cache folder may take, in MB: {RESULTS_SHARE:.0%} for session "
        f"results (pruned after every build), {COMPILED_SHARE:.0%} for compiled programs "
        "(emptied after a build that leaves more)",
        _number(float, example="512"),
        rereads=False,
    )
    cache_dir: str | None = _value(
        None,
        "where the result cache lives (default: <confdir>/.jaxcheck_cache)",
        _optional_path("a folder path", ".jaxcheck_cache"),
    )
    cache_assume: tuple[str, ...] = _value(
        (),
        "documents whose sessions are cached although they learned something by a route the "
        "cache cannot follow (a child process, a database, a socket): their results are reused "
        "on the assumption that what they learned that way did not change, and the reports say "
        "so",
        _patterns(
            "documents",
            "their names or source paths from the source folder, as exclude_patterns matches",
            '["ffi", "notebooks/*.ipynb"]',
        ),
    )
    update: bool = _value(
        False, "rewrite stale expectations in the sources at the end of the build", _flag
    )
    update_allow_outside: bool = _value(
        False,
        "let updates write files outside the source folder (symlinked or included from elsewhere)",
        _flag,
    )
    memory_limit_mb: int | None = _value(
        None,
        "address-space limit of each worker, in MB (default: none)",
        _memory_limit,
    )
    python: str | None = _value(
        None,
        "the Python the workers run, with its own jax (default: the one running Sphinx)",
        _optional_path("the path of an interpreter", ".venv-jax/bin/python"),
    )
    output_limit_mb: float = _value(
        DEFAULT_OUTPUT_LIMIT // (1024 * 1024),
        "most output a block may print, in MB",
        _number(float, example="8"),
    )
    doctests: str = _value(
        "report",
        "the pages' own >>> examples: check them, report how many went unchecked, or off",
        _choice(DOCTESTS),
    )
    doctests_like: str | None = _value(
        None,
        "whose rules decide which >>> examples exist and which namespace each runs in: pytest "
        "or sphinx.ext.doctest (default: sphinx.ext.doctest when that extension is loaded)",
        _optional_choice(DOCTESTS_LIKE),
    )
    doctest_flags: tuple[str, ...] = _value(
        (),
        (
            "doctest option flags of every >>> example (doctest's names plus NUMBER, "
            "ALLOW_UNICODE, ALLOW_BYTES)"
        ),
        _doctest_flags,
    )
    doctest_modules: tuple[str, ...] = _value(
        (),
        (
            "modules whose docstrings' >>> examples are checked, with their submodules, "
            "as pytest --doctest-modules collects them"
        ),
        _module_names,
    )
    doctest_modules_ignore: tuple[str, ...] = _value(
        (),
        "modules of jaxcheck_doctest_modules left out, with their submodules (pytest's --ignore)",
        _module_names,
    )
    docstring_packages: tuple[str, ...] = _value(
        (),
        (
            "more packages whose docstrings' >>> examples are checked where pages show them "
            "(their top-level names); those of the documented names and of "
            "jaxcheck_doctest_modules always are"
        ),
        _module_names,
    )
    doctest_files: tuple[str, ...] = _value(
        (),
        (
            "text files beside the project (a README; paths or globs relative to the folder of "
            "conf.py) whose >>> examples are checked as pytest --doctest-glob checks them"
        ),
        _file_patterns,
    )
    notebooks: str | None = _value(
        None,
        "the code cells of notebooks (.ipynb pages, MyST text notebooks): check (run them and "
        "compare their stored outputs), report how many went unchecked, or off (default: check "
        "when myst_nb is in extensions, else report)",
        _optional_choice(NOTEBOOKS),
    )
    notebook_normalizers: tuple[str, ...] = _value(
        ("ansi", "addresses", "matplotlib", "timeit", "cell-files"),
        "the noise removed from a notebook cell's outputs, stored and fresh, before they are "
        "compared",
        _normalizers,
    )
    notebook_images: str = _value(
        "ignore",
        "how notebook cells' images are compared with those stored, where neither the cell nor "
        "its notebook says: ignore (not compared: such a cell is reported verified with images "
        "not compared), compare (by their bytes), rms or rms:<tolerance> (by their decoded "
        "pixels, as pytest-mpl compares figures; rms alone: its tolerance, 2)",
        _notebook_images,
    )
    notebooks_exclude: tuple[str, ...] = _value(
        (),
        "notebooks not run, as MyST-NB's nb_execution_excludepatterns: globs matched from the "
        "right of each notebook's path (its cells are reported not run, its page shows the "
        "outputs it stores)",
        _patterns(
            "notebooks' paths",
            "matched as MyST-NB matches nb_execution_excludepatterns",
            '["notebooks/layout.*", "pallas/*.ipynb"]',
        ),
    )
    notebooks_number: bool = _value(
        False,
        "compare the numbers of notebook cells' outputs as doctest's NUMBER does: a float "
        "matches to the precision its stored output writes it with",
        _flag,
    )
    notebooks_tolerance: float | None = _value(
        None,
        "the relative tolerance within which the numbers of notebook cells' outputs match the "
        "stored ones, where neither the cell's nor its notebook's metadata sets one (a number "
        "greater than 0, e.g. 1e-6; None: numbers compare as text)",
        _number(float, optional=True, example="1e-6"),
    )
    notebooks_environment: str = _value(
        "skip",
        "notebook cells' lines that change the environment (%pip install, !pip install, "
        "%conda install): skip them (a cell runs without them, or is reported not run when it "
        "holds nothing else) or run them",
        _choice(NOTEBOOKS_ENVIRONMENT),
    )
    filterwarnings: tuple[str, ...] = _value(
        (),
        "warning filters, in pytest's filterwarnings syntax and with its semantics, of the "
        ">>> examples pytest would run: docstrings' (and the imports collecting them), and "
        "pages' under jaxcheck_doctests_like = pytest",
        _warning_filters,
    )
    setup: str = _value("", "Python run, unseen, at the start of every session", _setup_code)
    shard: str | None = _value(
        None, "check only this shard K/N of the sessions (see `jaxcheck check --shard`)", _shard
    )

    @property
    def reads_cache(self) -> bool:
        """Whether results are taken from the cache (else every session runs)."""
        return self.cache is True

    @property
    def writes_cache(self) -> bool:
        """Whether what runs is stored in the cache (``"refresh"`` too)."""
        return bool(self.cache)

    @property
    def doctest_optionflags(self) -> int:
        """The bits of ``doctest_flags``."""
        from .expect.doctest_flags import flags_from_names

        return flags_from_names(self.doctest_flags)


@dataclass(frozen=True)
class ConfigValue:
    """One configuration value as Sphinx registers it: name, default (as conf.py writes it),
    help."""

    name: str
    default: Any
    help: str
    rereads: bool = True  # a change reads every document again (Sphinx's rebuild "env")


def _default(spec: Field[Any]) -> Any:
    value = spec.default_factory() if callable(spec.default_factory) else spec.default
    return list(value) if isinstance(value, tuple) else value


VALUES: tuple[ConfigValue, ...] = tuple(
    ConfigValue(
        PREFIX + spec.name,
        _default(spec),
        spec.metadata["help"],
        spec.metadata.get("rereads", True),
    )
    for spec in fields(Settings)
)


def read_settings(raw: Callable[[str], Any]) -> Settings:
    """Clean every value; ``raw(name)`` returns what the user configured (None: not set)."""
    cleaned = {}
    for spec in fields(Settings):
        name = PREFIX + spec.name
        given = raw(name)
        cleaned[spec.name] = spec.metadata["clean"](
            name, _default(spec) if given is None else given
        )
    return Settings(**cleaned)


def closest_setting(name: str) -> str | None:
    """The setting a ``jaxcheck_*`` name that is none most likely means (None: none is close)."""
    # Without the prefix all names share, which would make any two look alike.
    wanted = name.removeprefix(PREFIX)
    found = difflib.get_close_matches(wanted, [spec.name for spec in fields(Settings)], 1, 0.6)
    return PREFIX + found[0] if found else None
