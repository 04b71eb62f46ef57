"""``jaxcheck update``: rewrite the expectations that drifted, in place (or show the diff)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from .arguments import add_project_options
from .command_lines import suggest
from .project import Built, build_project, mkdocs_config, mkdocs_settings

if TYPE_CHECKING:
    from pathlib import Path

    from ..report.findings import Finding
    from ..rewrite.update import UpdateReport

EXIT_OK, EXIT_FAILED = 0, 1


def add_parser(commands: Any) -> None:
    """Add ``update`` to the ``jaxcheck`` parser's subcommands."""
    update = commands.add_parser("update", help="rewrite the expectations that drifted, in place")
    add_project_options(update)
    update.add_argument("--dry-run", action="store_true", help="print the diff and write nothing")
    update.add_argument(
        "--allow-outside",
        action="store_true",
        help="also write files outside SOURCEDIR (symlinked or included from elsewhere)",
    )
    update.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Build, rewrite what a second run confirms, say what is left; 1 when problems remain."""
    config = mkdocs_config(args.paths or ["."])
    if config is not None:
        return _update_mkdocs(args, config)
    built = build_project(args)
    return built.ended(_update(args, built))


def _update(args: argparse.Namespace, built: Built) -> int:
    # Only now: they load Sphinx, which build_project loads once jax's import has begun.
    from ..kinds import rules_of
    from ..rewrite.update import update_sources
    from ..sphinx.checking.rereading import reread_of
    from ..sphinx.checking.sessions import second_run
    from ..sphinx.domain import domain_of
    from ..sphinx.settings import settings_of

    app = built.app
    domain = domain_of(app.env)
    report = update_sources(
        domain.checked_blocks(),
        kinds=rules_of,
        rerun=second_run(app),
        dry_run=args.dry_run,
        root=str(built.srcdir),
        allow_outside=args.allow_outside or settings_of(app.config).update_allow_outside,
        reread=reread_of(app),
    )
    return _told(args, report, list(domain.all_findings()))


def _update_mkdocs(args: argparse.Namespace, config: Path) -> int:
    """Update the MkDocs project of this ``mkdocs.yml``: no Sphinx, the same planner."""
    from dataclasses import replace

    from ..mkdocs.check import update_project
    from ..mkdocs.project import read_project, unchecked_entries

    settings = mkdocs_settings(args)
    if args.allow_outside:
        settings = replace(settings, update_allow_outside=True)
    project = read_project(config)
    for line in unchecked_entries(project):
        print(line, file=sys.stderr)
    report, checked = update_project(
        project, settings, dry_run=args.dry_run, update=suggest(args.argv, "update")
    )
    return _told(args, report, checked.findings)


def _told(args: argparse.Namespace, report: UpdateReport, findings: list[Finding]) -> int:
    """Print what update did and what it leaves; 1 when problems remain."""
    from ..model import Subtype
    from ..report.colour import colour_diff, use_colour
    from ..report.records import relative
    from ..rewrite.update import describe

    for path in sorted(report.diffs):
        diff = report.diffs[path]
        print(colour_diff(diff) if use_colour(sys.stdout) else diff, end="")
    for line in describe(report, dry_run=args.dry_run):
        print(line, file=sys.stderr)
    remaining = [
        f for f in findings if not (f.is_drift and (f.path, f.line) in report.rewritten_at)
    ]
    if args.dry_run:
        return EXIT_FAILED if report.diffs or report.refused else EXIT_OK
    # Every open problem but the drift of expectations, which update rewrote or refused above.
    others = [f for f in remaining if f.subtype is not Subtype.DRIFT]
    check = suggest(args.argv, "check")
    for finding in others:  # what update leaves alone, each with its reason
        first, _, more = finding.message.partition("\n")
        if more:  # a detail follows (a quote's closest passage): the check shows it
            first = f"{first.rstrip(':')} (`{check}` shows the rest)"
        print(f"{relative(finding.path)}:{finding.line}: not updated: {first}", file=sys.stderr)
    if report.refused or others:
        print(
            f"jaxcheck: {len(report.refused)} expectation(s) could not be rewritten and "
            f"{len(others)} other problem(s) remain; `{check}` lists them",
            file=sys.stderr,
        )
        return EXIT_FAILED
    return EXIT_OK
