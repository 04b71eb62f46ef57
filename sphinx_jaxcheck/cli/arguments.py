"""The output formats of the command line, in a module of their own so that the
argument parser is built without importing what renders them."""

from __future__ import annotations

import argparse

# ``jaxcheck check`` and ``jaxcheck merge``: see ``reports``.
REPORT_FORMATS = ("text", "github", "json")
# ``jaxcheck matrix``: see ``matrix``.
MATRIX_FORMATS = ("text", "json", "markdown")


def add_report_options(command: argparse.ArgumentParser) -> None:
    """``--format`` and ``--junit``, as ``jaxcheck check`` and ``jaxcheck merge`` share them."""
    command.add_argument(
        "--format",
        choices=REPORT_FORMATS,
        default="text",
        help="how to print problems (default: text)",
    )
    command.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report to FILE")
