"""``jaxcheck merge``: the shard reports of one run, printed as the full run would print them."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any, cast

from .arguments import add_report_options

if TYPE_CHECKING:
    from ..report.records import Report

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def add_parser(commands: Any) -> None:
    """Add ``merge`` to the ``jaxcheck`` parser's subcommands."""
    command: argparse.ArgumentParser = commands.add_parser(
        "merge",
        help="combine the JSON reports of `check --shard K/N` into the report of one full run",
    )
    command.add_argument(
        "reports", nargs="+", metavar="REPORT.json", help="one JSON report per shard"
    )
    add_report_options(command)
    command.add_argument(
        "--durations",
        metavar="CACHEDIR",
        help="remember how long each session took in CACHEDIR (the result cache folder), "
        "so the next split balances by it",
    )
    command.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Merge, print, and exit as the full run would (0 or 1); 2 for reports that do not
    belong together."""
    from ..errors import ShardError
    from ..report.colour import use_colour
    from ..report.formats import render
    from ..report.junit import write_junit
    from ..report.merge import merge, report_durations
    from ..run.shards import save_durations

    reports: list[tuple[str, Report]] = []
    for name in args.reports:
        try:
            with open(name, encoding="utf-8") as handle:
                data = json.load(handle)
        except OSError as error:
            return _refuse(f"{name}: cannot read it ({error.strerror or error})")
        except ValueError as error:
            return _refuse(
                f"{name}: not a JSON report ({error}); make it with "
                "`jaxcheck check --shard K/N --format json`"
            )
        if not isinstance(data, dict) or not {"blocks", "findings", "summary"} <= data.keys():
            return _refuse(
                f"{name}: not a jaxcheck report (expected the output of "
                "`jaxcheck check --format json`)"
            )
        reports.append((name, cast("Report", data)))
    try:
        merged = merge(reports)
    except ShardError as problem:
        return _refuse(str(problem))
    except (KeyError, TypeError, IndexError) as error:
        return _refuse(f"a report is incomplete or was edited ({type(error).__name__}: {error})")
    print(render(merged, args.format, use_colour(sys.stdout)), end="")
    if args.junit:
        write_junit(args.junit, merged)
    if args.durations:
        save_durations(args.durations, report_durations(merged))
    return EXIT_FAILED if merged["findings"] else EXIT_OK


def _refuse(message: str) -> int:
    print(f"jaxcheck merge: {message}", file=sys.stderr)
    return EXIT_USAGE
