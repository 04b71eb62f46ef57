"""``jaxcheck check``: verify every block and citation of a project, print the report."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from ..errors import ShardError
from .arguments import add_project_options, add_report_options
from .command_lines import suggest
from .project import build_project, mkdocs_config, mkdocs_settings

if TYPE_CHECKING:
    from pathlib import Path

EXIT_OK, EXIT_FAILED = 0, 1


def add_parser(commands: Any) -> None:
    """Add ``check`` to the ``jaxcheck`` parser's subcommands."""
    check = commands.add_parser("check", help="verify every block and citation (no HTML written)")
    add_project_options(check)
    add_report_options(check)
    check.add_argument(
        "--shard",
        metavar="K/N",
        type=_shard,
        help=(
            "check only shard K of N (a deterministic split of the sessions); "
            "merge the JSON reports with `jaxcheck merge`"
        ),
    )
    check.add_argument(
        "-W",
        dest="fail_on_warnings",
        action="store_true",
        help=(
            "any warning fails the check, as with sphinx-build -W "
            "(-D jaxcheck_fail_on_warnings=any)"
        ),
    )
    check.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Build with every block run; print the report in ``--format``; 1 on drift or errors."""
    config = mkdocs_config(args.paths or ["."])
    if config is not None:
        return _check_mkdocs(args, config)
    extra: dict[str, object] = {"jaxcheck_shard": args.shard} if args.shard else {}
    if args.fail_on_warnings:
        extra["jaxcheck_fail_on_warnings"] = "any"
    built = build_project(args, extra)
    # Only now: they load Sphinx, which build_project loads once jax's import has begun.
    from ..kinds import rules_of
    from ..report.colour import use_colour
    from ..report.formats import render
    from ..report.junit import write_junit
    from ..report.records import build_report
    from ..sphinx.checking.run_description import run_description
    from ..sphinx.checking.summary import summary
    from ..sphinx.domain import domain_of
    from ..sphinx.left_out_pages import excluded_examples
    from ..sphinx.notebooks import unchecked_cells
    from ..sphinx.page_examples import foreign_examples, unchecked_examples

    domain = domain_of(built.app.env)
    line, failed = summary(built.app)
    checked = build_report(
        list(domain.checked_blocks()),
        list(domain.all_findings()),
        kinds=rules_of,
        summary=line,
        unchecked_examples=unchecked_examples(domain),
        unchecked_cells=unchecked_cells(domain),
        excluded_examples=excluded_examples(built.app.env),
        foreign_examples=foreign_examples(domain),
        uncached=domain.uncached(),
        assumed=domain.assumed(),
        run={
            "sourcedir": built.sourcedir,
            "update": suggest(args.argv, "update"),
            **run_description(built.app),
        },
    )
    print(render(checked, args.format, use_colour(sys.stdout)), end="")
    if args.junit:
        write_junit(args.junit, checked)
    return built.ended(EXIT_FAILED if failed else EXIT_OK)


def _check_mkdocs(args: argparse.Namespace, config: Path) -> int:
    """Check the MkDocs project of this ``mkdocs.yml``: no Sphinx, the same report."""
    from ..mkdocs.check import check_project
    from ..mkdocs.project import read_project, unchecked_entries
    from ..report.colour import use_colour
    from ..report.formats import render
    from ..report.junit import write_junit

    settings = mkdocs_settings(args)
    project = read_project(config)
    for line in unchecked_entries(project):
        print(line, file=sys.stderr)
    checked = check_project(project, settings, suggest(args.argv, "update"))
    print(render(checked.report, args.format, use_colour(sys.stdout)), end="")
    if args.junit:
        write_junit(args.junit, checked.report)
    return EXIT_FAILED if checked.findings else EXIT_OK


def _shard(text: str) -> str:
    from ..model import Shard

    try:
        return str(Shard.parse(text))
    except ShardError as problem:
        raise argparse.ArgumentTypeError(str(problem)) from None
