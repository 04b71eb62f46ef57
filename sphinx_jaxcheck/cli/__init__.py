"""The ``jaxcheck`` command line: the parser, and the dispatch to one module per command.

``check`` and ``update`` are a Sphinx build with the ``jaxcheck`` builder
(every document read, every block run, nothing written; ``make jaxcheck`` runs
the same builder), keeping doctrees in ``SOURCEDIR/_build/jaxcheck`` (which
git ignores) or ``--build-dir``, so repeated runs are incremental. Given pages
instead of the source folder, they check only those documents. ``matrix``
checks under several interpreters, ``merge`` combines the reports of shards,
``cache`` looks after the caches. Exit status: 0 when everything holds, 1 on
drift or errors, 2 on usage or configuration errors.

Building the parser imports only what parsing needs (each command imports the
rest when it runs), so that ``jaxcheck --help`` never loads Sphinx.
"""

from __future__ import annotations

import argparse
import gc
import signal
import sys
from collections.abc import Sequence

from ..errors import ConfigurationError, InterruptError
from ..run.interrupt import interruptible, message
from ..version import __version__
from . import cache, check, matrix, merge, update
from .project import UsageError

EXIT_USAGE = 2
# In the order ``--help`` lists them; each adds its parser, whose ``run`` default runs it.
COMMANDS = (check, update, merge, matrix, cache)


def parser() -> argparse.ArgumentParser:
    """The argument parser of ``jaxcheck``."""
    top = argparse.ArgumentParser(
        prog="jaxcheck",
        description=(
            "Run every jaxcheck block and citation of a Sphinx project; rewrite stale outputs."
        ),
    )
    top.add_argument(
        "--version", action="version", version=f"%(prog)s {__version__} (sphinx-jaxcheck)"
    )
    commands = top.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_parser(commands)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``jaxcheck`` and ``python -m sphinx_jaxcheck``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser().parse_args(argv)
    args.argv = argv  # hints repeat the command line that was run
    if args.command == "merge":  # reads files only: no workers or builds to stop on a signal
        return int(args.run(args))
    try:
        with interruptible():
            return int(args.run(args))
    except (UsageError, ConfigurationError) as error:
        print(f"jaxcheck: {str(error).removeprefix('jaxcheck: ')}", file=sys.stderr)
        return EXIT_USAGE
    except InterruptError as stopped:  # the handler printed the one line
        return 128 + stopped.signum
    except KeyboardInterrupt:  # before the handler was in place
        print(message(signal.SIGINT), file=sys.stderr)
        return 128 + signal.SIGINT


def command() -> int:
    """The ``jaxcheck`` process: :func:`main`, after which it ends without the garbage
    collector's last pass over everything the build made (about 0.15 s after a check of 150
    pages), which a process that ends needs no more than the memory it frees."""
    status = main()
    gc.freeze()
    return status


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(command())
