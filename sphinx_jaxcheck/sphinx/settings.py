"""Register the ``jaxcheck_*`` config values with Sphinx; clean them once per build."""

from __future__ import annotations

import contextlib
import doctest
import os
import re
import tempfile
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import replace
from pathlib import Path
from typing import NoReturn

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.util import logging

from ..cite.pin import IN_CONF_PY, ON_COMMAND_LINE
from ..config import (
    PREFIX,
    VALUES,
    Settings,
    closest_setting,
    doctest_files,
    doctests_like_default,
    notebooks_default,
    read_settings,
)
from ..errors import ConfigurationError
from ..expect.doctest_flags import names_of_flags
from ..model import Subtype
from ..report.findings import Finding
from .compat import add_setting, unsupported_stack
from .stages import ConfigInited

logger = logging.getLogger(__name__)


# Whether the build being made takes settings on its command line too (-D, as sphinx-build and
# jaxcheck do), or from conf.py alone (the pytest plugin's builds: see conf_py_only).
_COMMAND_LINE_SETTINGS: ContextVar[bool] = ContextVar("jaxcheck_command_line", default=True)


@contextlib.contextmanager
def conf_py_only() -> Iterator[None]:
    """Builds made inside take their settings from conf.py alone, so their messages name no
    ``-D``: the pytest plugin's, whose command line takes no Sphinx setting."""
    token = _COMMAND_LINE_SETTINGS.set(False)
    try:
        yield
    finally:
        _COMMAND_LINE_SETTINGS.reset(token)


def given_in(app: Sphinx) -> str:
    """Where this build's settings were given, for a message about one."""
    conf = Path(app.confdir, "conf.py")
    return f"in {conf} or a -D option" if _COMMAND_LINE_SETTINGS.get() else f"in {conf}"


def set_with() -> str:
    """How a message's next step sets a value for this build (see :mod:`..cite.pin`)."""
    return ON_COMMAND_LINE if _COMMAND_LINE_SETTINGS.get() else IN_CONF_PY


def stop(message: str) -> NoReturn:
    """Report a configuration problem and stop the build (exit status 2)."""
    text = f"jaxcheck: {message}"
    logger.error(text)
    raise ConfigurationError(text)


def setup_settings(app: Sphinx) -> None:
    """Every value re-checks all documents when it changes (rebuild="env"), but the cache's
    and the number of workers, on which no document's blocks depend (a build that reads no
    cache checks every document anyway: see :mod:`.checking.check`).

    Values with a number or yes/no default are registered with the default
    None (the cleaner supplies the real one): then Sphinx hands ``-D`` values
    over as the text typed, so that one cleaner judges conf.py and the command
    line alike (Sphinx itself would drop a number it cannot parse with a mere
    warning, and answer a bad yes/no with its crash report).
    """
    outside = unsupported_stack()
    if outside:
        stop(f"configuration error: {outside}")
    for value in VALUES:
        default = None if isinstance(value.default, (bool, int, float)) else value.default
        add_setting(app, value.name, default, value.help, rereads=value.rereads)
    app.connect("config-inited", _validate, priority=ConfigInited.SETTINGS)
    # Before Sphinx creates the output folder, which it would answer with a crash report.
    for what, folder in (("output folder", app.outdir), ("doctree folder", app.doctreedir)):
        ensure_writable(
            folder, f"the {what} of this build", "choose a build folder you can write to"
        )


def _validate(app: Sphinx, config: Config) -> None:
    try:
        settings = remember_settings(config)
        doctest_files(app.confdir, settings.doctest_files)  # each entry names a file
    except ConfigurationError as problem:
        stop(f"configuration error: {problem} ({given_in(app)})")
    object.__setattr__(config, _UNKNOWN, _unknown_settings(config, Path(app.confdir, "conf.py")))
    if settings.writes_cache:
        ensure_writable(
            cache_directory(app.confdir, settings),
            "the jaxcheck cache",
            "set jaxcheck_cache_dir to a folder you can write to, or switch the cache off "
            "(jaxcheck_cache = False, -D jaxcheck_cache=0)",
        )


DEFAULT_CACHE_FOLDER = ".jaxcheck_cache"  # beside conf.py


def cache_directory(confdir: str | os.PathLike[str], settings: Settings) -> str:
    """Where cached outcomes live: configurable (relative to conf.py), by default beside conf.py."""
    return os.path.join(confdir, settings.cache_dir or DEFAULT_CACHE_FOLDER)


def ensure_writable(folder: str | os.PathLike[str], what: str, remedy: str) -> None:
    """Create ``folder`` and a file in it now, so a folder we cannot use stops the build
    before any block runs."""
    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
        handle, probe = tempfile.mkstemp(dir=folder, prefix=".jaxcheck-probe-")
        os.close(handle)
        with contextlib.suppress(OSError):
            os.unlink(probe)
    except OSError as error:
        reason = error.strerror or str(error)
        stop(
            f"configuration error: cannot write to {os.fspath(folder)}, {what} ({reason}): {remedy}"
        )


# Where a config keeps its cleaned settings; Sphinx leaves ``_`` names out of the pickled
# environment.
_CACHED = "_jaxcheck_settings"


def remember_settings(config: Config) -> Settings:
    """Clean the config's values now (raises :class:`ConfigurationError`) and keep the result on it.

    Called when the config is read, and again by whatever changes a value after that.
    """
    settings = _resolved(read_settings(lambda name: _given(config, name)), config)
    object.__setattr__(config, _CACHED, settings)
    return settings


# The values that are lists: Sphinx splits one given with -D at its commas, an empty one into
# [""], which no cleaner could tell from a list holding one empty name.
_LISTS = frozenset(value.name for value in VALUES if isinstance(value.default, list))


def _given(config: Config, name: str) -> object:
    """What the user configured: a list's ``-D`` text as typed (``-D name=`` is an empty list),
    which its cleaner splits; anything else as Sphinx read it."""
    typed = config.overrides.get(name)
    if name in _LISTS and isinstance(typed, str):
        return typed
    return getattr(config, name)


def _resolved(settings: Settings, config: Config) -> Settings:
    """The defaults that depend on the rest of conf.py: whose doctest rules, and their flags;
    whether notebooks are checked.

    Under sphinx.ext.doctest's rules its ``doctest_default_flags`` apply (its
    own default when the extension is not loaded) unless
    ``jaxcheck_doctest_flags`` names some.
    """
    extensions = list(config.extensions)
    like = settings.doctests_like or doctests_like_default(extensions)
    flags = settings.doctest_flags
    if like == "sphinx.ext.doctest" and not flags:
        default = (
            doctest.DONT_ACCEPT_TRUE_FOR_1 | doctest.ELLIPSIS | doctest.IGNORE_EXCEPTION_DETAIL
        )
        given = getattr(config, "doctest_default_flags", default)
        flags = names_of_flags(given if isinstance(given, int) else default)
    notebooks = settings.notebooks or notebooks_default(extensions)
    return replace(settings, doctests_like=like, doctest_flags=flags, notebooks=notebooks)


def settings_of(config: Config) -> Settings:
    """The cleaned settings of a Sphinx config: cleaned once per build, then read from the
    config."""
    cached = config.__dict__.get(_CACHED)
    return cached if isinstance(cached, Settings) else remember_settings(config)


# Where a config keeps the findings about ``jaxcheck_*`` names that are no setting.
_UNKNOWN = "_jaxcheck_unknown_settings"


def unknown_settings(config: Config) -> list[Finding]:
    """A finding for every ``jaxcheck_*`` name conf.py or ``-D`` sets that is no setting.

    Sphinx keeps such a name without a word (conf.py) or ignores it with a
    warning that names no alternative (``-D``): a misspelled pin would then pin nothing.
    """
    found: list[Finding] = config.__dict__.get(_UNKNOWN, [])
    return found


def _unknown_settings(config: Config, conf_py: Path) -> list[Finding]:
    known = {value.name for value in VALUES}
    raw: dict[str, object] = getattr(config, "_raw_config", {})
    given = [(name, "conf.py") for name in raw] + [(name, "-D") for name in config.overrides]
    try:
        text = conf_py.read_text("utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    findings = []
    for name, where in dict.fromkeys(given):
        if not name.startswith(PREFIX) or name in known:
            continue
        closest = closest_setting(name)
        hint = f"did you mean {closest}?" if closest else "no setting has a similar name"
        found = re.search(rf"^{re.escape(name)}\s*[:=]", text, re.MULTILINE)
        line = text.count("\n", 0, found.start()) + 1 if found and where == "conf.py" else 1
        findings.append(
            Finding(
                Subtype.SETTING,
                f"{name} ({'in conf.py' if where == 'conf.py' else 'given with -D'}) is not a "
                f"setting of sphinx-jaxcheck, so it does nothing: {hint} Rename it to one of the "
                "settings the guide's Configuration page lists",
                str(conf_py),
                line,
            )
        )
    return findings
