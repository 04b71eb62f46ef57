"""The project a command line names: its source folder and pages, found from the paths
given; its build."""

from __future__ import annotations

import argparse
import ast
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ConfigurationError, JaxcheckError
from .arguments import build_overrides
from .command_lines import suggest

if TYPE_CHECKING:
    from sphinx.application import Sphinx

    from ..config import Settings


class UsageError(JaxcheckError, Exception):
    """The command line names no Sphinx project or pages of one: exit status 2."""


@dataclass(frozen=True)
class Target:
    """What to check: a Sphinx source folder, and maybe only some of its pages."""

    srcdir: Path
    pages: tuple[Path, ...] = ()  # empty: every document


def find_target(paths: Sequence[str], argv: Sequence[str] = ("check",)) -> Target:
    """The project (the nearest folder at or above them holding conf.py) and pages the paths
    name: a folder names the whole project, pages only themselves.

    ``argv`` is the command line that named them (the words after ``jaxcheck``):
    a hint to name other paths repeats it with those.
    """
    folders = [p for p in paths if Path(p).is_dir()]
    if folders:
        if len(paths) > 1:
            raise UsageError(
                f"{' '.join(paths)}: give one source folder, or pages of one project, not both"
            )
        folder = Path(folders[0]).resolve()
        # A folder inside a project (docs/src, below docs/conf.py) names that project, as a
        # page there does: every command finds it so, wherever it is run from.
        project = next((f for f in (folder, *folder.parents) if (f / "conf.py").is_file()), None)
        if project is None:
            raise UsageError(
                f"{folders[0]}: no conf.py there; expected the Sphinx source folder (the one "
                f"holding conf.py) or pages in it{_projects_hint(folders[0], argv)}"
            )
        return Target(project)
    pages = []
    for path in paths:
        page = Path(path).resolve()
        if not page.is_file():
            raise UsageError(
                f"{path}: no such file or folder; expected the Sphinx source folder or pages "
                f"in it{_projects_hint(path, argv) if not page.exists() else ''}"
            )
        pages.append(page)
    projects = {_project_of(page, path) for page, path in zip(pages, paths, strict=True)}
    if len(projects) > 1:
        raise UsageError(
            f"{' '.join(paths)}: these pages belong to different projects "
            f"({', '.join(sorted(map(str, projects)))}); check one project at a time"
        )
    return Target(projects.pop(), tuple(pages))


def _projects_hint(given: str, argv: Sequence[str]) -> str:
    """Where a project is, near a path that names none: the command run on it."""
    from ..sphinx.source_folder import projects_near

    command = argv[0] if argv else "check"
    inside = Path(given).is_dir()
    missing = Path(given)
    while missing.parent != missing and not missing.parent.exists():
        missing = missing.parent  # ``doc/index.md``: the folder ``doc`` is what was mistyped
    near = [
        Path(os.path.relpath(folder) if not os.path.isabs(given) else folder)
        for folder in projects_near(missing)
    ]
    if inside and len(near) == 1:
        depth = "one level" if near[0].parent.samefile(given) else "two levels"
        return (
            f"; {near[0] / 'conf.py'} is {depth} down: `{suggest(argv, command, [str(near[0])])}`"
        )
    if near and not inside:  # a mistyped folder: the one most like it, with the rest of the path
        rest = Path(given).relative_to(missing)  # the page asked for, in the folder meant
        meant = near[0] / rest if (near[0] / rest).exists() else near[0]
        return f"; {near[0]} holds a conf.py: `{suggest(argv, command, [str(meant)])}`"
    if near:
        shown = ", ".join(str(folder / "conf.py") for folder in near[:3])
        return f"; below it: {shown}, e.g. `{suggest(argv, command, [str(near[0])])}`"
    example = f"`{suggest(argv, command, ['docs'])}`"
    if command != "matrix":
        example += f" or `{suggest(argv, command, ['docs/index.md'])}`"
    return f", e.g. {example}"


def _project_of(page: Path, given: str) -> Path:
    for folder in page.parents:
        if (folder / "conf.py").is_file():
            return folder
    raise UsageError(
        f"{given}: no conf.py in the folders above it; is it a page of a Sphinx project?"
    )


@dataclass(frozen=True)
class Built:
    """A finished build of the project a command line named."""

    app: Sphinx
    srcdir: Path
    sourcedir: str  # the source folder as the user named it, for messages and reports
    # What stopped the build once every block was checked (another extension's error at
    # its end): said after the report, which is whole; "" when the build completed.
    stopped: str = ""

    def ended(self, status: int) -> int:
        """A command's exit status once it has said what it found: ``status``, unless the
        build was stopped after its checks (then the error, as a configuration problem)."""
        if self.stopped:
            raise ConfigurationError(
                f"the build stopped after every block was checked (what is above is whole): "
                f"{self.stopped}"
            )
        return status


def build_project(args: argparse.Namespace, extra: Mapping[str, object] | None = None) -> Built:
    """Find the project ``args.paths`` name, build it (``extra`` overrides too), print
    Sphinx's own warnings.

    Raises :class:`UsageError` when the paths name no project, and
    :class:`~sphinx_jaxcheck.errors.ConfigurationError` when its build cannot start.
    """
    from ..run.early_zygote import end_waiting_zygote
    from ..run.pool import start_early_zygote
    from ..sphinx.build_folder import default_build_dir, kept_build

    target = find_target(args.paths or ["."], args.argv)
    srcdir = target.srcdir
    sourcedir = os.path.relpath(srcdir) if target.pages else (args.paths or ["."])[0]
    build_dir = Path(args.build_dir).resolve() if args.build_dir else default_build_dir(srcdir)
    if args.no_cache or not (kept_build(build_dir) or _has_outcomes(srcdir / ".jaxcheck_cache")):
        # Likely a cold build, which waits for jax: its import starts before the build's.
        start_early_zygote(literal_env(srcdir / "conf.py"))
    from ..sphinx.build import other_warnings, run_build  # imports Sphinx: after the start

    try:
        finished = run_build(
            srcdir,
            {**build_overrides(args), **(extra or {})},
            args.jobs,
            build_dir=build_dir,
            pages=target.pages,
        )
    finally:
        end_waiting_zygote()
    print(other_warnings(finished.warnings), end="", file=sys.stderr)
    return Built(finished.app, srcdir, sourcedir, finished.stopped)


def literal_env(conf: Path) -> dict[str, str]:
    """The ``jaxcheck_env`` that ``conf`` assigns as a literal, else the default: a guess made
    before Sphinx runs the file, which only decides whether the early zygote fits."""
    from ..model import DEFAULT_ENV

    try:
        tree = ast.parse(conf.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return dict(DEFAULT_ENV)
    found: object = DEFAULT_ENV
    for node in tree.body:  # the last assignment is the one Sphinx sees
        if isinstance(node, ast.Assign) and [
            getattr(target, "id", None) for target in node.targets
        ] == ["jaxcheck_env"]:
            try:
                found = ast.literal_eval(node.value)
            except (ValueError, TypeError, RecursionError):  # computed: not guessed
                found = DEFAULT_ENV
    if not isinstance(found, dict):
        found = DEFAULT_ENV
    return {str(name): str(value) for name, value in found.items()}


def _has_outcomes(folder: Path) -> bool:
    """Whether the cache folder (where it is by default) holds results: then, as after an
    earlier build into the same folder, most sessions need no worker."""
    from ..cache.outcomes import OutcomeCache

    return OutcomeCache(folder).has_entries()


def mkdocs_config(paths: Sequence[str]) -> Path | None:
    """The ``mkdocs.yml`` a command line names: the file, or the one in the one folder given
    when that folder holds no ``conf.py`` (None: the paths name no MkDocs project)."""
    from ..mkdocs.project import config_file

    if len(paths) != 1 or (Path(paths[0]) / "conf.py").is_file():
        return None
    return config_file(Path(paths[0]))


def mkdocs_settings(args: argparse.Namespace) -> Settings:
    """The settings of a check of an MkDocs project: the defaults, less what the command line
    overrides (``-D jaxcheck_timeout=60``, ``--no-cache``, ``-j``, ``--python``, ``--shard``)."""
    from ..config import VALUES, closest_setting, read_settings

    overrides = build_overrides(args)
    if getattr(args, "shard", None):  # ``check --shard K/N``, as a Sphinx project takes it
        overrides["jaxcheck_shard"] = args.shard
    known = {value.name for value in VALUES}
    for name in sorted(overrides.keys() - known):
        meant = closest_setting(name)
        raise UsageError(
            f"-D {name}: no jaxcheck setting has this name; "
            + (f"did you mean {meant}?" if meant else "e.g. -D jaxcheck_timeout=60")
        )
    return read_settings(overrides.get)
