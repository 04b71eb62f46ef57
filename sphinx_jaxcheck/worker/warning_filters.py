"""pytest's ``filterwarnings`` for ``>>>`` examples: entries read, and applied around a program
as pytest applies its ini filters around a test.

An entry is ``action:message:category:module:lineno``, as pytest's ini option
writes it: fields left out are empty; the message and module are regular
expressions, used as written (the warnings module matches them from the
start, the message ignoring case); the category is a builtin's name or a
dotted path to a class, imported; lineno 0 matches any line. Around each
program, as pytest around each test: the filters in force are saved and
restored after it; unless the interpreter was given ``-W`` or
``PYTHONWARNINGS``, DeprecationWarning and PendingDeprecationWarning are always
shown; then each entry is added in order, so a later one takes precedence;
and a warning no entry turns into an error is recorded and dropped (pytest
lists it in its summary; doctest compares only what an example prints).

Standard library only: the workers apply the entries, and the Sphinx side
checks each with :func:`parse` as the configuration is read.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib
import re
import sys
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, TypeGuard

Action = Literal["default", "always", "ignore", "module", "once", "error"]
# The warnings module's actions, in the order it matches an abbreviation against them.
ACTIONS: tuple[Action, ...] = ("default", "always", "ignore", "module", "once", "error")
FORM = "action:message:category:module:lineno"
_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


@dataclass(frozen=True)
class WarningFilter:
    """One entry, read: what :func:`warnings.filterwarnings` takes, the category by name."""

    action: Action
    message: str  # a regular expression ("": any)
    category: str  # a builtin's name or a dotted path ("": Warning)
    module: str  # a regular expression ("": any)
    lineno: int  # 0: any


def parse(entry: str) -> WarningFilter:
    """An entry read as pytest reads its ini ``filterwarnings``; ValueError saying what was
    expected."""
    parts = entry.split(":")
    if len(parts) > 5:
        raise ValueError(
            f"{len(parts)} fields where at most 5 are expected, separated by colons: {FORM} "
            "(a colon within a message cannot be written: match it with '.')"
        )
    action, message, category, module, lineno = (p.strip() for p in [*parts, "", "", "", ""][:5])
    return WarningFilter(
        _action(action), _regex(message), _category(category), _regex(module), _lineno(lineno)
    )


def _action(text: str) -> Action:
    # As the warnings module reads it: empty is "default", an abbreviation its first match.
    if text == "all":  # Python 3.14's name for "always"
        return "always"
    found = next((action for action in ACTIONS if action.startswith(text)), None)
    if found is None:
        raise ValueError(f"{text!r} is no action; expected one of {', '.join(ACTIONS)}")
    return found


def _regex(text: str) -> str:
    try:
        re.compile(text)
    except re.error as error:
        raise ValueError(
            f"{text!r} is not a regular expression ({error}); expected one Python's re module reads"
        ) from None
    return text


def _category(text: str) -> str:
    if text and not _DOTTED.fullmatch(text):
        raise ValueError(
            f"{text!r} is not a warning category; expected a builtin's name, e.g. UserWarning, "
            "or the dotted path of a class, e.g. numpy.exceptions.ComplexWarning"
        )
    if text and "." not in text and not _is_warning(getattr(builtins, text, None)):
        raise ValueError(
            f"{text!r} is no builtin warning category; expected e.g. UserWarning, "
            "DeprecationWarning, or the dotted path of a class of your own"
        )
    return text


def _lineno(text: str) -> int:
    try:
        number = int(text or "0")
    except ValueError:
        number = -1
    if number < 0:
        raise ValueError(f"{text!r} is not a line number; expected a whole number, 0 for any")
    return number


def _is_warning(found: object) -> TypeGuard[type[Warning]]:
    return isinstance(found, type) and issubclass(found, Warning)


Resolved = tuple[Action, str, type[Warning], str, int]  # the arguments of warnings.filterwarnings


def resolved(entries: Sequence[str]) -> tuple[Resolved, ...]:
    """The entries with their categories imported; LookupError naming an entry whose category
    is no warning class.

    As pytest does, an entry whose category's module cannot be imported is left out.
    """
    found: list[Resolved] = []
    for entry in entries:
        read = parse(entry)
        module, _, name = read.category.rpartition(".")
        if not read.category:
            category: object = Warning
        elif not module:
            category = getattr(builtins, name, None)
        else:
            try:
                category = getattr(importlib.import_module(module), name, None)
            except ImportError:
                continue
        if not _is_warning(category):
            raise LookupError(
                f"jaxcheck_filterwarnings entry {entry!r}: {read.category!r} is no warning class "
                "here; name a subclass of Warning the workers can import"
            )
        found.append((read.action, read.message, category, read.module, read.lineno))
    return tuple(found)


@contextlib.contextmanager
def applied(filters: Sequence[Resolved]) -> Iterator[None]:
    """Run the ``with`` body under these filters as pytest runs a test under its ini filters;
    with none, under the filters as they are."""
    if not filters:
        yield
        return
    with warnings.catch_warnings(record=True):
        if not sys.warnoptions:
            warnings.filterwarnings("always", category=DeprecationWarning)
            warnings.filterwarnings("always", category=PendingDeprecationWarning)
        for action, message, category, module, lineno in filters:
            warnings.filterwarnings(action, message, category, module, lineno)
        yield
