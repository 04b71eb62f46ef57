"""The ``jaxcheck`` command line: ``check`` and ``update`` without writing HTML.

Both are a Sphinx build with the ``jaxcheck`` builder (every document read,
every block run, nothing written; ``make jaxcheck`` runs the same builder),
keeping doctrees in ``SOURCEDIR/_build/jaxcheck`` (which git ignores) or
``--build-dir``, so repeated runs are incremental. Given pages instead of the
source folder, they check only those documents. Exit status: 0 when everything
holds, 1 on drift or errors, 2 on usage or configuration errors.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import os
import re
import signal
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ..errors import ConfigurationError, InterruptError, JaxcheckError, ShardError
from ..report.matrix import MATRIX_RENDERERS
from ..run.interrupt import interruptible, message
from ..version import __version__
from .arguments import add_report_options

# Only what parsing the command line needs: the rest is imported where it is
# used, so that `--help`, `merge` and `cache` never load Sphinx's application.
from .cache import add_cache_parser, run_cache_command
from .merge import merge_parser, run_merge

if TYPE_CHECKING:
    from sphinx.application import Sphinx

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_LINE_END = re.compile(r"[\r\n]")


class _StatusFilter(io.TextIOBase):
    """Pass only our own progress lines from Sphinx's status stream to stderr.

    Sphinx's progress display ends a line with a carriage return on a terminal,
    so that the next one overwrites it; so does this filter.
    """

    def __init__(self, target: TextIO) -> None:
        self.target = target
        self.pending = ""
        self.overwrite = bool(getattr(target, "isatty", lambda: False)())
        self.line_open = False  # a progress line waits to be overwritten

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.pending += text
        while (end := _LINE_END.search(self.pending)) is not None:
            line, ending = self.pending[: end.start()], end.group()
            self.pending = self.pending[end.end() :]
            plain = _ANSI.sub("", line)
            if plain.startswith("jaxcheck: running"):
                newline = "\r" if ending == "\r" and self.overwrite else "\n"
                self.target.write(("\x1b[2K" if self.overwrite else "") + plain + newline)
                self.target.flush()
                self.line_open = newline == "\r"
            elif self.line_open and ending == "\n":  # the display ended: keep its last line
                self.target.write("\n")
                self.line_open = False
        return len(text)


def parser() -> argparse.ArgumentParser:
    """The argument parser of ``jaxcheck``."""
    top = argparse.ArgumentParser(
        prog="jaxcheck",
        description="Run every jaxcheck block and citation of a Sphinx project; rewrite stale outputs.",
    )
    top.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__} (sphinx-jaxcheck)"
    )
    commands = top.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="verify every block and citation (no HTML written)")
    update = commands.add_parser("update", help="rewrite the expectations that drifted, in place")
    merge_parser(commands)
    for command in (check, update):
        command.add_argument(
            "paths",
            nargs="*",
            metavar="PATH",
            help="the Sphinx source folder (holding conf.py), or pages in it (default: .)",
        )
        command.add_argument(
            "--build-dir",
            metavar="DIR",
            help="where doctrees are kept between runs (default: SOURCEDIR/_build/jaxcheck, ignored by git)",
        )
        command.add_argument(
            "-j",
            "--jobs",
            type=_positive,
            default=None,
            help="worker processes (and Sphinx readers)",
        )
        command.add_argument(
            "--no-cache", action="store_true", help="run every session, ignoring cached results"
        )
        add_build_options(command)
    add_report_options(check)
    check.add_argument(
        "--shard",
        metavar="K/N",
        type=_shard,
        help="check only shard K of N (a deterministic split of the sessions); merge the JSON reports with `jaxcheck merge`",
    )
    update.add_argument("--dry-run", action="store_true", help="print the diff and write nothing")
    update.add_argument(
        "--allow-outside",
        action="store_true",
        help="also write files outside SOURCEDIR (symlinked or included from elsewhere)",
    )
    matrix = commands.add_parser(
        "matrix",
        help="check under several interpreters: one row per block, one column per JAX version",
    )
    matrix.add_argument(
        "paths",
        nargs="?",
        default=".",
        metavar="SOURCEDIR",
        type=lambda path: [path],
        help="the Sphinx source folder, holding conf.py (default: .)",
    )
    matrix.add_argument(
        "-j", "--jobs", type=_positive, default=None, help="worker processes (and Sphinx readers)"
    )
    matrix.add_argument(
        "--no-cache", action="store_true", help="run every session, ignoring cached results"
    )
    add_build_options(matrix, several=True)
    matrix.add_argument(
        "--format",
        choices=list(MATRIX_RENDERERS),
        default="text",
        help="how to print the matrix (default: text)",
    )
    add_cache_parser(commands)
    return top


def add_build_options(command: argparse.ArgumentParser, several: bool = False) -> None:
    """``-D``, ``--jax-version`` and ``--python``: the configuration of one run.

    ``matrix`` (``several``) takes ``--python`` once per extra interpreter, and
    no ``--jax-version``: each column is checked against its own interpreter's JAX.
    """
    command.add_argument(
        "-D",
        dest="define",
        action="append",
        default=[],
        type=_definition,
        metavar="name=value",
        help="override a conf.py value for this run, as sphinx-build -D does",
    )
    if several:
        command.set_defaults(jax_version=None)
        command.add_argument(
            "--python",
            metavar="PATH",
            action="append",
            default=[],
            required=True,
            help="another interpreter to check with (repeat for more); the current one is always checked",
        )
        return
    command.add_argument(
        "--jax-version", metavar="X", help="the JAX version to check against (overrides the pin)"
    )
    command.add_argument(
        "--python",
        metavar="PATH",
        help="the Python the workers run, with its own jax (jaxcheck_python)",
    )


def build_overrides(args: argparse.Namespace) -> dict[str, object]:
    """The configuration overrides a command line asks for (later ones win)."""
    overrides: dict[str, object] = dict(args.define)
    if args.jax_version:
        overrides["jaxcheck_jax_version"] = args.jax_version
    if isinstance(args.python, str):
        overrides["jaxcheck_python"] = os.path.abspath(args.python)  # relative to where we run
    if args.no_cache:
        overrides["jaxcheck_cache"] = False
    if args.jobs:
        overrides["jaxcheck_workers"] = args.jobs
    return overrides


def _definition(text: str) -> tuple[str, str]:
    name, equals, value = text.partition("=")
    if not equals or not name.strip():
        raise argparse.ArgumentTypeError(f"expected name=value, got {text!r}")
    return name.strip(), value


def _shard(text: str) -> str:
    from ..run.shards import Shard

    try:
        return str(Shard.parse(text))
    except ShardError as problem:
        raise argparse.ArgumentTypeError(str(problem)) from None


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1, got {value}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``jaxcheck`` and ``python -m sphinx_jaxcheck``."""
    args = parser().parse_args(argv)
    if args.command == "merge":
        return run_merge(args)
    try:
        with interruptible():
            return _run(args)
    except InterruptError as stopped:  # the handler printed the one line
        return 128 + stopped.signum
    except KeyboardInterrupt:  # before the handler was in place
        print(message(signal.SIGINT), file=sys.stderr)
        return 128 + signal.SIGINT


def _run(args: argparse.Namespace) -> int:
    if args.command == "cache":
        return run_cache_command(args)
    try:
        target = find_target(args.paths or ["."])
    except UsageError as error:
        print(f"jaxcheck: {error}", file=sys.stderr)
        return EXIT_USAGE
    srcdir = target.srcdir
    args.sourcedir = os.path.relpath(srcdir) if target.pages else (args.paths or ["."])[0]
    overrides = build_overrides(args)
    if getattr(args, "shard", None):
        overrides["jaxcheck_shard"] = args.shard
    if args.command == "matrix":
        return run_matrix(srcdir, [os.path.abspath(p) for p in args.python], overrides, args)
    build_dir = Path(args.build_dir).resolve() if args.build_dir else srcdir / "_build" / "jaxcheck"
    try:
        app, warnings = run_build(
            srcdir, overrides, args.jobs or 0, build_dir=build_dir, pages=target.pages
        )
    except ConfigurationError as error:
        print(f"jaxcheck: {str(error).removeprefix('jaxcheck: ')}", file=sys.stderr)
        return EXIT_USAGE
    from ..model import Subtype
    from ..report.colour import colour_diff, use_colour
    from ..report.formats import render
    from ..report.junit import write_junit
    from ..report.records import build_report
    from ..rewrite.update import describe, update_sources
    from ..sphinx.domain import domain_of
    from ..sphinx.page_examples import unchecked_examples
    from ..sphinx.run_description import run_description
    from ..sphinx.sessions import second_run
    from ..sphinx.settings import settings_of
    from ..sphinx.summary import summary

    domain = domain_of(app.env)
    print(_other_warnings(warnings), end="", file=sys.stderr)
    if args.command == "update":
        report = update_sources(
            domain.checked_blocks(),
            rerun=second_run(app),
            dry_run=args.dry_run,
            root=str(srcdir),
            allow_outside=args.allow_outside or settings_of(app.config).update_allow_outside,
        )
        for path in sorted(report.diffs):
            diff = report.diffs[path]
            print(colour_diff(diff) if use_colour(sys.stdout) else diff, end="")
        for line in describe(report, dry_run=args.dry_run):
            print(line, file=sys.stderr)
        remaining = [
            f
            for f in domain.all_findings()
            if not (f.is_drift and (f.path, f.line) in report.rewritten_at)
        ]
        if args.dry_run:
            return EXIT_FAILED if report.diffs or report.refused else EXIT_OK
        others = [f for f in remaining if not f.is_drift or f.subtype is Subtype.CITATION]
        for finding in others:  # what update leaves alone, each with its reason
            print(
                f"{finding.location}: not updated: {finding.message.splitlines()[0]}",
                file=sys.stderr,
            )
        if report.refused or others:
            print(
                f"jaxcheck: {len(report.refused)} expectation(s) could not be rewritten and "
                f"{len(others)} other problem(s) remain; `jaxcheck check {args.sourcedir}` lists them",
                file=sys.stderr,
            )
            return EXIT_FAILED
        return EXIT_OK
    line, failed = summary(domain)
    checked = build_report(
        list(domain.checked_blocks()),
        list(domain.all_findings()),
        summary=line,
        unchecked_examples=unchecked_examples(domain),
        run={"sourcedir": args.sourcedir, **run_description(app)},
    )
    text = render(checked, args.format, use_colour(sys.stdout))
    print(text, end="")
    if args.junit:
        write_junit(args.junit, checked)
    return EXIT_FAILED if failed else EXIT_OK


def run_matrix(
    srcdir: Path, pythons: list[str], overrides: dict[str, object], args: argparse.Namespace
) -> int:
    """``jaxcheck matrix``: one check per interpreter (ours first), one column per JAX version."""
    from ..errors import InterpreterError
    from ..report.matrix import build_matrix, column_names, format_matrix, save_matrix
    from ..run.interpreter import describe, locate
    from ..run.pool import WorkerSettings
    from ..sphinx.domain import domain_of

    pythons = list(dict.fromkeys([sys.executable, *pythons]))
    runs = []
    for python in pythons:
        ours = python == sys.executable
        run = dict(overrides)
        build_dir = srcdir / "_build" / "jaxcheck"
        if not ours:
            try:
                found = describe(
                    locate(python, os.getcwd()), WorkerSettings(python=python).process_env()
                )
            except InterpreterError as problem:
                print(f"jaxcheck: {problem}", file=sys.stderr)
                return EXIT_USAGE
            # Each column is checked against its own JAX, whatever the docs are pinned to.
            run.update(jaxcheck_python=python, jaxcheck_jax_version=found.jax_version)
            build_dir = build_dir / f"python-{hashlib.sha256(python.encode()).hexdigest()[:12]}"
        print(f"jaxcheck: matrix: checking with {python}", file=sys.stderr)
        try:
            app, _ = run_build(srcdir, run, args.jobs or 0, build_dir=build_dir)
        except ConfigurationError as error:
            print(f"jaxcheck: {str(error).removeprefix('jaxcheck: ')}", file=sys.stderr)
            return EXIT_USAGE
        domain = domain_of(app.env)
        runs.append(
            (str(domain.data.get("jax_version") or "unknown"), list(domain.checked_blocks()))
        )
    names = column_names([version for version, _ in runs])
    matrix = build_matrix(
        [(name, checked) for name, (_, checked) in zip(names, runs, strict=True)], str(srcdir)
    )
    save_matrix(matrix, srcdir)
    print(format_matrix(matrix, args.format), end="")
    return EXIT_FAILED if matrix.failing() else EXIT_OK


class UsageError(JaxcheckError, Exception):
    """The command line names no Sphinx project or pages of one: exit status 2."""


@dataclass(frozen=True)
class Target:
    """What to check: a Sphinx source folder, and maybe only some of its pages."""

    srcdir: Path
    pages: tuple[Path, ...] = ()  # empty: every document


def find_target(paths: Sequence[str]) -> Target:
    """The project (the nearest folder above holding conf.py) and pages the paths name."""
    folders = [p for p in paths if Path(p).is_dir()]
    if folders:
        if len(paths) > 1:
            raise UsageError(
                f"{' '.join(paths)}: give one source folder, or pages of one project, not both"
            )
        if not (Path(folders[0]) / "conf.py").is_file():
            below = sorted(p.parent for p in Path(folders[0]).glob("*/conf.py"))
            hint = (
                f"; {below[0] / 'conf.py'} is one level down: `jaxcheck check {below[0]}`"
                if len(below) == 1
                else ", e.g. `jaxcheck check docs` or `jaxcheck check docs/index.md`"
            )
            raise UsageError(
                f"{folders[0]}: no conf.py there; expected the Sphinx source folder (the one "
                f"holding conf.py) or pages in it{hint}"
            )
        return Target(Path(folders[0]).resolve())
    pages = []
    for path in paths:
        page = Path(path).resolve()
        if not page.is_file():
            raise UsageError(
                f"{path}: no such file or folder; expected the Sphinx source folder or pages in it"
            )
        pages.append(page)
    projects = {_project_of(page, path) for page, path in zip(pages, paths, strict=True)}
    if len(projects) > 1:
        raise UsageError(
            f"{' '.join(paths)}: these pages belong to different projects "
            f"({', '.join(sorted(map(str, projects)))}); check one project at a time"
        )
    return Target(projects.pop(), tuple(pages))


def _project_of(page: Path, given: str) -> Path:
    for folder in page.parents:
        if (folder / "conf.py").is_file():
            return folder
    raise UsageError(
        f"{given}: no conf.py in the folders above it; is it a page of a Sphinx project?"
    )


def run_build(
    srcdir: Path,
    overrides: dict[str, object],
    jobs: int,
    *,
    build_dir: Path | None = None,
    pages: Sequence[Path] = (),
    read_only: bool = False,
) -> tuple[Sphinx, str]:
    """A ``jaxcheck``-builder build of ``srcdir`` (of only ``pages``, if any); the app and its warnings.

    ``read_only``: read every document (blocks, citations, cards) but run no block.
    """
    from sphinx.application import Sphinx
    from sphinx.errors import ConfigError, ExtensionError, SphinxError
    from sphinx.util.docutils import docutils_namespace, patch_docutils

    from ..sphinx.domain import domain_of
    from ..sphinx.read_only import read_only as only_read

    build_dir = build_dir or srcdir / "_build" / "jaxcheck"
    _ignored_by_git(build_dir, srcdir)
    warnings = io.StringIO()
    status = _StatusFilter(sys.stderr)
    try:
        with patch_docutils(srcdir), docutils_namespace():
            app = Sphinx(
                srcdir,
                srcdir,
                build_dir / "out",
                build_dir / "doctrees",
                "jaxcheck",
                confoverrides=overrides,
                status=status,  # type: ignore[arg-type]
                warning=warnings,
                parallel=jobs,
                keep_going=True,
            )
            if "sphinx_jaxcheck" not in app.config.extensions:
                raise ConfigurationError(
                    f"{srcdir / 'conf.py'} does not load the extension: add "
                    '"sphinx_jaxcheck" to `extensions`'
                )
            if pages:
                domain_of(app.env).scope = frozenset(_docnames(app, pages))
            if read_only:
                only_read(app)
            app.build()
    except (ConfigError, ExtensionError) as error:
        raise ConfigurationError(str(error)) from None
    except SphinxError as error:
        raise ConfigurationError(f"{type(error).__name__}: {error}") from None
    return app, warnings.getvalue()


def _docnames(app: Sphinx, pages: Sequence[Path]) -> list[str]:
    app.env.find_files(app.config, app.builder)  # as reading will (exclude_patterns applied)
    found = []
    for page in pages:
        docname = app.env.path2doc(page)
        if docname is None or docname not in app.env.found_docs:
            suffixes = ", ".join(app.config.source_suffix)
            raise ConfigurationError(
                f"{os.path.relpath(page)}: not a document of the project in {os.path.relpath(app.srcdir)} "
                f"(its source suffixes: {suffixes}; excluded pages are not built)"
            )
        found.append(docname)
    return found


def _ignored_by_git(build_dir: Path, srcdir: Path) -> None:
    """A build folder inside the sources carries a .gitignore, so `git status` stays clean."""
    if not build_dir.is_relative_to(srcdir):
        return
    try:
        build_dir.mkdir(parents=True, exist_ok=True)
        ignore = build_dir / ".gitignore"
        if not ignore.exists():
            ignore.write_text(
                "# Written by jaxcheck: doctrees kept between runs.\n*\n", encoding="utf-8"
            )
    except OSError as error:
        raise ConfigurationError(
            f"configuration error: cannot write to {build_dir}, the build folder of jaxcheck "
            f"({error.strerror or error}): choose one you can write to with --build-dir"
        ) from None


def _other_warnings(text: str) -> str:
    """Sphinx's own warnings (not ours, which are reported structurally), one block a line."""
    blocks = re.split(r"\n(?=\S+: WARNING: |\S+: ERROR: |WARNING: |ERROR: )", _ANSI.sub("", text))
    return "".join(
        block.rstrip() + "\n" for block in blocks if block.strip() and "[jaxcheck." not in block
    )


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
