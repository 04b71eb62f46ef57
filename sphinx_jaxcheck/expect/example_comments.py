"""The ``# jaxcheck: NAME VALUE`` comments of ``>>>`` examples: their limits and timeout.

A group of examples (a page's, a docstring's, a ``sphinx.ext.doctest`` test)
has no directive to carry options, so it states them in comment lines of its
own, each on a line of its own, with or without a prompt::

    >>> # jaxcheck: jax-version <0.5
    >>> # jaxcheck: platforms gpu
    >>> # jaxcheck: timeout 300

Each holds for the whole block the comment stands in, as the option of the
same name holds for a ``jaxcheck`` block. Pure: the values are checked here,
their meaning is :mod:`.conditions`' and the workers'.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from ..model import BlockOptions, Limits
from .conditions import PLATFORMS_EXAMPLE, SPECIFIER_EXAMPLE, platforms, specifier

TIMEOUT_EXAMPLE = "a number of seconds greater than 0, e.g. 300"
_KNOWN = (
    "`# jaxcheck: jax-version SPEC`, `# jaxcheck: platforms cpu|gpu|tpu` "
    "or `# jaxcheck: timeout SECONDS`"
)
# ``# jaxcheck: jax-version <0.5`` / ``>>> # jaxcheck: platforms gpu, tpu``
_COMMENT = re.compile(
    r"^\s*(?:(?:>>>|\.\.\.)\s+)?#\s*jaxcheck:\s*(?P<name>[\w-]+)\s*(?P<value>.*?)\s*$"
)


def comment_directive(line: str) -> tuple[str, str] | None:
    """``(name, value)`` of a ``# jaxcheck: NAME VALUE`` comment line (after a prompt, too),
    else None.

    The name is returned whatever it is, so the caller can report unknown ones.
    """
    match = _COMMENT.match(line)
    if match is None:
        return None
    return match["name"], match["value"]


def seconds(text: str) -> float:
    """A timeout written as text: a finite number greater than 0; ValueError otherwise."""
    try:
        number = float(text.strip())
    except ValueError:
        raise ValueError(text) from None
    if not (math.isfinite(number) and number > 0):
        raise ValueError(text)
    return number


_EXPECTED = {
    "jax-version": SPECIFIER_EXAMPLE,
    "platforms": PLATFORMS_EXAMPLE,
    "timeout": TIMEOUT_EXAMPLE,
}


def comment_options(lines: Sequence[str]) -> tuple[BlockOptions, list[tuple[int, str]]]:
    """The options that ``# jaxcheck:`` comment lines state (the last of each name holds), and
    (1-based line, message) per bad one."""
    version: str | None = None
    named: tuple[str, ...] = ()
    timeout: float | None = None
    problems: list[tuple[int, str]] = []
    for number, line in enumerate(lines, start=1):
        found = comment_directive(line)
        if found is None:
            continue
        name, value = found
        if name not in _EXPECTED:
            problems.append((number, f"unknown directive {line.strip()!r}; expected {_KNOWN}"))
            continue
        try:
            if name == "jax-version":
                version = specifier(value)
            elif name == "platforms":
                named = platforms(value)
            else:
                timeout = seconds(value)
        except ValueError:
            problems.append((number, f"`# jaxcheck: {name}`: {value!r} is not {_EXPECTED[name]}"))
    return BlockOptions(limits=Limits(version, named), timeout=timeout), problems
