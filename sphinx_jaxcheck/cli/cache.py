"""``jaxcheck cache info|prune|clear [SOURCEDIR]``: look at the caches, bound them, empty them.

Reads ``conf.py`` for ``jaxcheck_cache_dir`` and ``jaxcheck_cache_max_mb``
without building anything.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ConfigurationError

if TYPE_CHECKING:
    from ..config import Settings

ACTIONS = ("info", "prune", "clear")


def add_parser(commands: Any) -> None:
    """Add ``cache`` to the ``jaxcheck`` parser's subcommands."""
    cache = commands.add_parser("cache", help="show, prune or clear the result and XLA caches")
    cache.add_argument(
        "action",
        choices=ACTIONS,
        help=(
            "info: sizes; prune: results down to their share of jaxcheck_cache_max_mb; "
            "clear: everything"
        ),
    )
    cache.add_argument(
        "sourcedir", nargs="?", default=".", help="the folder holding conf.py (default: .)"
    )
    cache.add_argument(
        "-D",
        dest="define",
        action="append",
        default=[],
        metavar="name=value",
        help="override a conf.py value, e.g. -D jaxcheck_cache_max_mb=100",
    )
    cache.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run ``jaxcheck cache ...``; the exit status."""
    from ..cache.size import XLA_FOLDER, clear, human_size, prune, usage
    from ..config import compiled_share, results_share

    srcdir = Path(args.sourcedir).resolve()
    if not (srcdir / "conf.py").is_file():
        print(
            f"jaxcheck: {args.sourcedir}: no conf.py there; expected the Sphinx source folder "
            "(the one holding conf.py), e.g. `jaxcheck cache info docs`",
            file=sys.stderr,
        )
        return 2
    try:
        settings = _settings(srcdir, args.define)
    except ConfigurationError as problem:
        print(
            f"jaxcheck: configuration error: {problem} (in {srcdir / 'conf.py'} or a -D option)",
            file=sys.stderr,
        )
        return 2
    directory = srcdir / (settings.cache_dir or ".jaxcheck_cache")
    cap = int(settings.cache_max_mb * 1024 * 1024)
    if args.action == "clear":
        print(f"jaxcheck: cleared {directory}: {human_size(clear(directory))} freed")
    elif args.action == "prune":
        pruned = prune(directory, results_share(cap), compiled_share(cap))
        kept = "emptied" if pruned.emptied else "kept"
        print(
            f"jaxcheck: pruned the session outcomes in {directory} to their share of "
            f"{human_size(results_share(cap))} (jaxcheck_cache_max_mb): {pruned.removed} item(s) "
            f"removed, {human_size(pruned.freed)} freed, {human_size(pruned.left)} left; "
            f"compiled programs {kept} (their share: {human_size(compiled_share(cap))})"
        )
    else:
        found = usage(directory)
        oldest = min((i.used for i in found.items if i.kind == "outcome"), default=None)
        print(f"cache folder:      {directory}{'' if directory.is_dir() else ' (none yet)'}")
        print(
            f"session outcomes:  {found.count('outcome')} ({human_size(found.size('outcome'))}) "
            f"of at most {human_size(results_share(cap))}"
        )
        print(
            f"compiled programs: {human_size(found.compiled)} in {XLA_FOLDER}/ of at most "
            f"{human_size(compiled_share(cap))} (emptied after a build that leaves more)"
        )
        if found.count("temporary"):
            print(
                f"temporary files:   {found.count('temporary')} "
                f"({human_size(found.size('temporary'))})"
            )
        print(
            f"total:             {human_size(found.size())} of at most {human_size(cap)} "
            "(jaxcheck_cache_max_mb)"
        )
        if oldest is not None:
            print(
                "least recently used outcome: "
                f"{time.strftime('%Y-%m-%d %H:%M', time.localtime(oldest))}"
            )
    return 0


def _settings(srcdir: Path, define: list[str]) -> Settings:
    from ..config import read_settings
    from ..sphinx.compat import read_configuration

    namespace = read_configuration(srcdir / "conf.py")
    for text in define:
        name, _, value = text.partition("=")
        namespace[name.strip()] = value
    return read_settings(namespace.get)
