"""The command lines messages suggest: the one that was run, aimed at other paths or
turned into another command.

A hint names the command the user typed, with the options they gave that the
suggested command takes too (``jaxcheck update --dry-run`` run one folder too
high suggests ``jaxcheck update source --dry-run``, not a bare ``check``), so
following it does what was asked.
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Sequence
from functools import cache

# What decides which blocks and verdicts a run has: kept when a hint turns one command
# into another (``check`` into ``update``); how it runs (-j, --no-cache, a format) is not.
_CONFIGURATION = frozenset(["-D", "--jax-version", "--python", "--build-dir"])


def suggest(argv: Sequence[str], command: str, paths: Sequence[str] | None = None) -> str:
    """``jaxcheck COMMAND PATHS OPTIONS``: ``argv`` (the words after ``jaxcheck``, the
    command first) as ``command``, with ``paths`` in place of the paths it named (None:
    the same paths). The same command keeps every option; another keeps the options of
    the configuration that it takes too."""
    given, options = _split(argv)
    takes = _options(command)
    same = bool(argv) and argv[0] == command
    kept: list[str] = []
    for option, value in options:
        if option in takes and (same or option in _CONFIGURATION):
            kept += [option] if value is None else [option, value]
    return shlex.join(["jaxcheck", command, *(given if paths is None else paths), *kept])


def _split(argv: Sequence[str]) -> tuple[list[str], list[tuple[str, str | None]]]:
    """The paths and the options (with their values) of a command line."""
    takes = _options(argv[0]) if argv else {}
    paths: list[str] = []
    options: list[tuple[str, str | None]] = []
    words = iter(argv[1:])
    for word in words:
        if word == "--":
            paths += list(words)
        elif word.startswith("-") and word != "-":
            name, equals, value = word.partition("=")
            if not equals and takes.get(word):
                options.append((word, next(words, "")))
            else:
                options.append((name, value if equals else None))
        else:
            paths.append(word)
    return paths, options


@cache
def _options(command: str) -> dict[str, bool]:
    """Every option of ``command``, and whether it takes a value."""
    from . import COMMANDS

    commands = argparse.ArgumentParser(prog="jaxcheck").add_subparsers(dest="command")
    for module in COMMANDS:
        module.add_parser(commands)
    parser = commands.choices.get(command)
    if not isinstance(parser, argparse.ArgumentParser):
        return {}
    # argparse keeps the option strings only in this attribute; the parsers are ours.
    actions = parser._option_string_actions
    return {name: action.nargs != 0 for name, action in actions.items()}
