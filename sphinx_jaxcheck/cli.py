"""The ``jaxcheck`` command line (SPEC 7): ``check`` and ``update`` without writing HTML.

Both run a real Sphinx build with the ``dummy`` builder (every document read,
every block run, nothing written), keeping doctrees and the result cache under
``SOURCEDIR/_build/jaxcheck`` so repeated runs are incremental. Exit status: 0
when everything holds, 1 on drift or errors, 2 on usage or configuration errors.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from .reports import FORMATS, colour_diff, format_findings, use_colour, write_junit
from .update import describe, update_sources

if TYPE_CHECKING:
    from sphinx.application import Sphinx

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


class _StatusFilter(io.TextIOBase):
    """Pass only our own progress lines from Sphinx's status stream to stderr."""

    def __init__(self, target: TextIO) -> None:
        self.target = target
        self.pending = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.pending += text
        while "\n" in self.pending:
            line, self.pending = self.pending.split("\n", 1)
            plain = _ANSI.sub("", line)
            if plain.startswith("jaxcheck: [") or plain.startswith("jaxcheck: running"):
                self.target.write(plain + "\n")
                self.target.flush()
        return len(text)


def parser() -> argparse.ArgumentParser:
    """The argument parser of ``jaxcheck``."""
    top = argparse.ArgumentParser(
        prog="jaxcheck",
        description="Run every jaxcheck block and citation of a Sphinx project; rewrite stale outputs.",
    )
    commands = top.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="verify every block and citation (no HTML written)")
    update = commands.add_parser("update", help="rewrite the expectations that drifted, in place")
    for command in (check, update):
        command.add_argument("sourcedir", nargs="?", default=".", help="the folder holding conf.py (default: .)")
        command.add_argument("-j", "--jobs", type=_positive, default=None, help="worker processes (and Sphinx readers)")
        command.add_argument("--no-cache", action="store_true", help="run every session, ignoring cached results")
        add_build_options(command)
    check.add_argument("--format", choices=FORMATS, default="text", help="how to print problems (default: text)")
    check.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report to FILE")
    update.add_argument("--dry-run", action="store_true", help="print the diff and write nothing")
    return top


def add_build_options(command: argparse.ArgumentParser) -> None:
    """``-D``, ``--jax-version`` and ``--python``: the configuration of one run."""
    command.add_argument(
        "-D", dest="define", action="append", default=[], type=_definition, metavar="name=value",
        help="override a conf.py value for this run, as sphinx-build -D does",
    )
    command.add_argument(
        "--jax-version", metavar="X", help="the JAX version to check against (overrides the pin)"
    )
    command.add_argument(
        "--python", metavar="PATH", help="the Python the workers run, with its own jax (jaxcheck_python)"
    )


def build_overrides(args: argparse.Namespace) -> dict[str, object]:
    """The configuration overrides a command line asks for (later ones win)."""
    overrides: dict[str, object] = dict(args.define)
    if args.jax_version:
        overrides["jaxcheck_jax_version"] = args.jax_version
    if args.python:
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
    srcdir = Path(args.sourcedir).resolve()
    if not (srcdir / "conf.py").is_file():
        print(
            f"jaxcheck: {args.sourcedir}: no conf.py there; expected the Sphinx source folder "
            "(the one holding conf.py), e.g. `jaxcheck check docs`",
            file=sys.stderr,
        )
        return EXIT_USAGE
    overrides = build_overrides(args)
    try:
        app, warnings = run_build(srcdir, overrides, args.jobs or 0)
    except _ConfigurationError as error:
        print(f"jaxcheck: {str(error).removeprefix('jaxcheck: ')}", file=sys.stderr)
        return EXIT_USAGE
    from .sphinx.checking import all_findings, checked_blocks, domain_of, summary

    domain = domain_of(app.env)
    _show_other_warnings(warnings)
    if args.command == "update":
        report = update_sources(checked_blocks(domain), dry_run=args.dry_run)
        for path in sorted(report.diffs):
            diff = report.diffs[path]
            print(colour_diff(diff) if use_colour(sys.stdout) else diff, end="")
        for line in describe(report, dry_run=args.dry_run):
            print(line, file=sys.stderr)
        remaining = [
            f for f in all_findings(domain) if not (f.is_drift and (f.path, f.line) in report.rewritten_at)
        ]
        if args.dry_run:
            return EXIT_FAILED if report.diffs or report.refused else EXIT_OK
        others = [f for f in remaining if not f.is_drift or f.subtype.value == "citation"]
        if report.refused or others:
            print(
                f"jaxcheck: {len(report.refused)} expectation(s) could not be rewritten and "
                f"{len(others)} other problem(s) remain; `jaxcheck check {args.sourcedir}` lists them",
                file=sys.stderr,
            )
            return EXIT_FAILED
        return EXIT_OK
    findings = list(all_findings(domain))
    line, failed = summary(domain)
    text = format_findings(
        findings,
        args.format,
        use_colour(sys.stdout),
        summary=line,
        sourcedir=args.sourcedir,
        checked=list(checked_blocks(domain)),
    )
    print(text, end="")
    if args.junit:
        write_junit(args.junit, checked_blocks(domain), domain.read_findings())
    return EXIT_FAILED if failed else EXIT_OK


class _ConfigurationError(RuntimeError):
    """conf.py, a -D value or the pin is wrong: exit status 2."""


def run_build(srcdir: Path, overrides: dict[str, object], jobs: int) -> tuple[Sphinx, str]:
    """A dummy-builder Sphinx build of ``srcdir``; returns the app and its warnings."""
    from sphinx.application import Sphinx
    from sphinx.errors import ConfigError, ExtensionError, SphinxError
    from sphinx.util.docutils import docutils_namespace, patch_docutils

    from .sphinx.settings import ConfigurationExit

    build_dir = srcdir / "_build" / "jaxcheck"
    warnings = io.StringIO()
    status = _StatusFilter(sys.stderr)
    try:
        with patch_docutils(srcdir), docutils_namespace():
            app = Sphinx(
                srcdir,
                srcdir,
                build_dir / "out",
                build_dir / "doctrees",
                "dummy",
                confoverrides=overrides,
                status=status,  # type: ignore[arg-type]
                warning=warnings,
                parallel=jobs,
                keep_going=True,
            )
            if "sphinx_jaxcheck" not in app.config.extensions:
                raise _ConfigurationError(
                    f"{srcdir / 'conf.py'} does not load the extension: add "
                    '"sphinx_jaxcheck" to `extensions`'
                )
            app.build()
    except ConfigurationExit as stopped:
        raise _ConfigurationError(stopped.message) from None
    except (ConfigError, ExtensionError) as error:
        raise _ConfigurationError(str(error)) from None
    except SphinxError as error:
        raise _ConfigurationError(f"{type(error).__name__}: {error}") from None
    return app, warnings.getvalue()


def _show_other_warnings(text: str) -> None:
    """Sphinx's own warnings (not ours, which are reported structurally)."""
    for block in re.split(r"\n(?=\S+: WARNING: |\S+: ERROR: |WARNING: |ERROR: )", _ANSI.sub("", text)):
        if block.strip() and "[jaxcheck." not in block:
            print(block.rstrip(), file=sys.stderr)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
