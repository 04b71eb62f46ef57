"""The pinned JAX: which version and commit the docs cite, and links into it.

Pure: reads package metadata and parses ``jax/version.py`` with :mod:`ast`;
never imports jax (the Sphinx process must stay free of it).
"""

from __future__ import annotations

import ast
import importlib.metadata
import importlib.util
from dataclasses import dataclass
from pathlib import Path

from ..errors import PinMismatchError

DEFAULT_REPO = "https://github.com/jax-ml/jax"


@dataclass(frozen=True)
class Installed:
    """What is installed: jax's version, its recorded commit, and where its files live."""

    version: str | None
    commit: str | None
    root: Path | None  # the folder holding the ``jax/`` package (site-packages)


@dataclass(frozen=True)
class Pin:
    """The JAX the links point into."""

    version: str | None
    commit: str | None
    repo: str = DEFAULT_REPO

    @property
    def ref(self) -> str:
        """The git ref of links: the commit when known, else the release tag."""
        if self.commit:
            return self.commit
        if self.version:
            return f"jax-v{self.version}"
        return "main"  # nothing pinned and nothing installed: links can only float

    def link(self, path: str, start: int | None = None, end: int | None = None) -> str:
        """``{repo}/blob/{ref}/{path}#L{start}-L{end}`` (no anchor without lines)."""
        url = f"{self.repo.rstrip('/')}/blob/{self.ref}/{path}"
        if start is None:
            return url
        if end is None or end == start:
            return f"{url}#L{start}"
        return f"{url}#L{start}-L{end}"


def jax_root() -> Path | None:
    """The folder that holds the installed ``jax`` package, found without importing it."""
    # find_spec of a top-level name only locates the package; it runs none of its code.
    spec = importlib.util.find_spec("jax")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))).parent


def installed_version(package: str) -> str | None:
    """The installed version of a distribution, from its metadata (never imports it); None
    if absent."""
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def recorded_commit(version_file: Path) -> str | None:
    """The ``_git_hash`` that release builds write into ``jax/version.py``, if any."""
    try:
        tree = ast.parse(version_file.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return None
    for statement in tree.body:
        target: ast.expr | None = None
        value: ast.expr | None = None
        if isinstance(statement, ast.AnnAssign):
            target, value = statement.target, statement.value
        elif isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
        if (
            isinstance(target, ast.Name)
            and target.id == "_git_hash"
            and isinstance(value, ast.Constant)
            and isinstance(value.value, str)
            and value.value
        ):
            return value.value
    return None


def installed() -> Installed:
    """What jax this Python has, read from metadata and source files only."""
    root = jax_root()
    commit = recorded_commit(root / "jax" / "version.py") if root else None
    return Installed(version=installed_version("jax"), commit=commit, root=root)


# How a next step sets a value for one build: sphinx-build's and jaxcheck's command lines
# take -D; the pytest plugin takes no setting, so its builds say conf.py.
ON_COMMAND_LINE = "`-D {name}={value}`"
IN_CONF_PY = '`{name} = "{value}"` in conf.py'


def resolve_pin(
    version: str | None,
    commit: str | None,
    repo: str,
    found: Installed,
    *,
    version_overridden: bool = False,
    commit_overridden: bool = False,
    set_with: str = ON_COMMAND_LINE,
) -> Pin:
    """Check the configured pin against the installed jax and return the pin links use.

    Raises :class:`PinMismatchError` naming both versions (or commits) and the next step.
    ``version_overridden`` says the version came from ``-D`` on the command line
    while the commit did not: the configured commit then belongs to the old pin,
    so it is neither checked nor used, and links fall back to the tag of the
    overriding version. ``set_with`` is how the next step sets a value where the build was
    started (:data:`ON_COMMAND_LINE`, :data:`IN_CONF_PY`).
    """
    if version is None:
        # Not pinned: cite whatever is installed, by its tag (conf.py named no commit).
        return Pin(version=found.version, commit=commit, repo=repo)
    if found.version is None:
        raise PinMismatchError(
            f"jax is not installed, but the docs are pinned to jax {version} "
            f"(jaxcheck_jax_version). Install the pin: pip install jax=={version}"
        )
    if found.version != version:
        raise PinMismatchError(
            f"installed jax {found.version} differs from the pinned jax {version} "
            f"(jaxcheck_jax_version). Install the pin with `pip install jax=={version}`, "
            "or build against the installed one with "
            + set_with.format(name="jaxcheck_jax_version", value=found.version)
        )
    if version_overridden and not commit_overridden:
        commit = None
    if commit and found.commit and commit != found.commit:
        raise PinMismatchError(
            f"installed jax {found.version} was built from commit {found.commit}, "
            f"but the docs are pinned to jax {version} at commit {commit} "
            f"(jaxcheck_jax_commit). Reinstall the pin with "
            f"`pip install --force-reinstall jax=={version}`, or set "
            f"jaxcheck_jax_commit = {found.commit!r} if that build is the one to cite"
        )
    return Pin(version=version, commit=commit, repo=repo)
