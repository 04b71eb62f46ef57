"""``jaxcheck matrix``: check under several interpreters, one row per block, one column
per JAX version."""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from typing import Any

from ..errors import ConfigurationError, InterpreterError
from ..report.matrix import MATRIX_RENDERERS
from .arguments import add_build_options, add_run_options, build_overrides
from .project import UsageError, find_target

EXIT_OK, EXIT_FAILED = 0, 1


def add_parser(commands: Any) -> None:
    """Add ``matrix`` to the ``jaxcheck`` parser's subcommands."""
    matrix = commands.add_parser(
        "matrix",
        help="check under several interpreters: one row per block, one column per JAX version",
    )
    matrix.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help=(
            "the Sphinx source folder (holding conf.py), or pages in it: only their blocks "
            "become rows (default: .)"
        ),
    )
    add_run_options(matrix)
    add_build_options(matrix, several=True)
    matrix.add_argument(
        "--format",
        choices=list(MATRIX_RENDERERS),
        default="text",
        help="how to print the matrix (default: text)",
    )
    matrix.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """One check per interpreter (ours first); print and save the matrix; 1 when a block
    fails anywhere."""
    from ..report.matrix import build_matrix, column_names, format_matrix, save_matrix
    from ..run.interpreter import describe, locate
    from ..run.pool import WorkerSettings
    from ..sphinx.build import run_build
    from ..sphinx.domain import domain_of

    target = find_target(args.paths or ["."], args.argv)
    srcdir = target.srcdir
    overrides = build_overrides(args)
    pythons = list(dict.fromkeys([sys.executable, *(os.path.abspath(p) for p in args.python)]))
    runs = []
    stopped = ""  # another extension's error once a column's blocks were checked
    for python in pythons:
        column = dict(overrides)
        build_dir = srcdir / "_build" / "jaxcheck"
        if python != sys.executable:
            try:
                found = describe(
                    locate(python, os.getcwd()), WorkerSettings(python=python).process_env()
                )
            except InterpreterError as problem:
                raise UsageError(str(problem)) from None
            # Each column is checked against its own JAX, whatever the docs are pinned to.
            column.update(jaxcheck_python=python, jaxcheck_jax_version=found.jax_version)
            build_dir = build_dir / f"python-{hashlib.sha256(python.encode()).hexdigest()[:12]}"
        print(f"jaxcheck: matrix: checking with {python}", file=sys.stderr)
        finished = run_build(srcdir, column, args.jobs, build_dir=build_dir, pages=target.pages)
        stopped = stopped or finished.stopped
        domain = domain_of(finished.app.env)
        runs.append((domain.build.jax_version or "unknown", list(domain.checked_blocks())))
    names = column_names([version for version, _ in runs])
    matrix = build_matrix(
        [(name, checked) for name, (_, checked) in zip(names, runs, strict=True)], str(srcdir)
    )
    save_matrix(matrix, srcdir)
    print(format_matrix(matrix, args.format), end="")
    if stopped:  # after the matrix its columns' checks made
        raise ConfigurationError(stopped)
    return EXIT_FAILED if matrix.failing() else EXIT_OK
