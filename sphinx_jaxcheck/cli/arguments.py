"""The options several commands share, and the configuration overrides they ask for.

Cheap to import, as every command's parser is built for ``jaxcheck --help``.
"""

from __future__ import annotations

import argparse
import os

from ..report.formats import RENDERERS


def add_project_options(command: argparse.ArgumentParser) -> None:
    """``check`` and ``update``: the paths to check, the build folder, and one run's options."""
    command.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help=(
            "the Sphinx source folder (holding conf.py), or pages in it; or the folder holding "
            "an MkDocs project's mkdocs.yml (default: .)"
        ),
    )
    command.add_argument(
        "--build-dir",
        metavar="DIR",
        help=(
            "where doctrees are kept between runs (default: SOURCEDIR/_build/jaxcheck, "
            "ignored by git)"
        ),
    )
    add_run_options(command)
    add_build_options(command)


def add_run_options(command: argparse.ArgumentParser) -> None:
    """``-j`` and ``--no-cache``: how the blocks run."""
    command.add_argument(
        "-j",
        "--jobs",
        type=_positive,
        default=None,
        help="worker processes and Sphinx readers (default: one per CPU)",
    )
    command.add_argument(
        "--no-cache",
        action="store_true",
        help=(
            "run every session, taking nothing from the cache; what ran is stored for the next "
            "run (-D jaxcheck_cache=refresh)"
        ),
    )


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
            help=(
                "another interpreter to check with (repeat for more); "
                "the current one is always checked"
            ),
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


def add_report_options(command: argparse.ArgumentParser) -> None:
    """``--format`` (a name in the registry of report formats) and ``--junit``: ``check``
    and ``merge``."""
    command.add_argument(
        "--format",
        choices=list(RENDERERS),
        default="text",
        help="how to print problems (default: text)",
    )
    command.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report to FILE")


def build_overrides(args: argparse.Namespace) -> dict[str, object]:
    """The configuration overrides a command line asks for (later ones win)."""
    overrides: dict[str, object] = dict(args.define)
    if args.jax_version:
        overrides["jaxcheck_jax_version"] = args.jax_version
    if isinstance(args.python, str):
        overrides["jaxcheck_python"] = os.path.abspath(args.python)  # relative to where we run
    if args.no_cache:
        # config.REFRESH, not imported: the parser stays cheap to build.
        overrides["jaxcheck_cache"] = "refresh"
    if args.jobs:
        overrides["jaxcheck_workers"] = args.jobs
    return overrides


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1, got {value}")
    return value


def _definition(text: str) -> tuple[str, str]:
    name, equals, value = text.partition("=")
    if not equals or not name.strip():
        raise argparse.ArgumentTypeError(f"expected name=value, got {text!r}")
    return name.strip(), value
