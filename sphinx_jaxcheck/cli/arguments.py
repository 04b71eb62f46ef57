"""Options several commands share."""

from __future__ import annotations

import argparse

from ..report.formats import RENDERERS


def add_report_options(command: argparse.ArgumentParser) -> None:
    """``--format`` and ``--junit``, as ``jaxcheck check`` and ``jaxcheck merge`` share them."""
    command.add_argument(
        "--format",
        choices=list(RENDERERS),
        default="text",
        help="how to print problems (default: text)",
    )
    command.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report to FILE")
