"""Doctest option flags and output checking, as stdlib doctest and pytest define them.

Stdlib ``doctest.OutputChecker`` does the comparing; :class:`PytestOutputChecker`
adds the three flags pytest registers (``NUMBER``, ``ALLOW_UNICODE``,
``ALLOW_BYTES``) with the same meaning, so an example passes here exactly when
``pytest --doctest-glob`` passes it. :func:`example_passes` is the decision
doctest's runner makes for one example, given what the example printed and the
exception it raised. Pure: imports only the standard library.
"""

from __future__ import annotations

import doctest
import math
import re
from collections.abc import Iterable

# pytest registers these names when it loads its doctest plugin; registering
# them here as well gives the same bits (a name already registered keeps its bit).
NUMBER = doctest.register_optionflag("NUMBER")
ALLOW_UNICODE = doctest.register_optionflag("ALLOW_UNICODE")
ALLOW_BYTES = doctest.register_optionflag("ALLOW_BYTES")

_UNICODE_PREFIX = re.compile(r"(\W|^)[uU]([rR]?['\"])")
_BYTES_PREFIX = re.compile(r"(\W|^)[bB]([rR]?['\"])")
# A number as NUMBER reads it: a decimal point or an exponent is required, so
# plain integers (shapes, counts) always compare as text.
_FLOAT = re.compile(
    r"""
    (?P<number>
      (?P<mantissa>
        (?P<integer1> [+-]?\d*)\.(?P<fraction>\d+)
        |
        (?P<integer2> [+-]?\d+)\.
      )
      (?: [Ee] (?P<exponent1> [+-]?\d+) )?
      |
      (?P<integer3> [+-]?\d+)
      (?: [Ee] (?P<exponent2> [+-]?\d+) )
    )
    """,
    re.VERBOSE,
)


def flag_names() -> tuple[str, ...]:
    """Every name ``jaxcheck_doctest_flags`` and ``# doctest:`` directives accept."""
    return tuple(sorted(doctest.OPTIONFLAGS_BY_NAME))


def flags_from_names(names: Iterable[str]) -> int:
    """The bits of these flag names; ``ValueError`` names an unknown one."""
    flags = 0
    for name in names:
        bit = doctest.OPTIONFLAGS_BY_NAME.get(name)
        if bit is None:
            raise ValueError(
                f"{name!r} is not a doctest option flag; expected one of {', '.join(flag_names())}"
            )
        flags |= bit
    return flags


def names_of_flags(flags: int) -> tuple[str, ...]:
    """The names of the bits set in ``flags`` (``doctest_default_flags`` is a number)."""
    return tuple(name for name in flag_names() if flags & doctest.OPTIONFLAGS_BY_NAME[name])


def apply_directives(flags: int, options: dict[int, bool]) -> int:
    """``flags`` after an example's ``# doctest: +X -Y`` directives (doctest's rule)."""
    for bit, on in options.items():
        flags = flags | bit if on else flags & ~bit
    return flags


class PytestOutputChecker(doctest.OutputChecker):
    """``doctest.OutputChecker`` plus pytest's ``NUMBER``, ``ALLOW_UNICODE`` and ``ALLOW_BYTES``.

    As in pytest, the extra flags only get a say when plain doctest rejects
    the output: then ``u''``/``b''`` prefixes are dropped from both sides and
    numbers of the actual output that agree with the expected ones to the
    precision written are replaced by the expected text, and doctest compares again.
    """

    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        if super().check_output(want, got, optionflags):
            return True
        if not optionflags & (NUMBER | ALLOW_UNICODE | ALLOW_BYTES):
            return False
        if optionflags & ALLOW_UNICODE:
            want, got = _UNICODE_PREFIX.sub(r"\1\2", want), _UNICODE_PREFIX.sub(r"\1\2", got)
        if optionflags & ALLOW_BYTES:
            want, got = _BYTES_PREFIX.sub(r"\1\2", want), _BYTES_PREFIX.sub(r"\1\2", got)
        if optionflags & NUMBER:
            got = adopt_written_precision(want, got)
        return super().check_output(want, got, optionflags)


def adopt_written_precision(want: str, got: str) -> str:
    """``got`` with each number that equals its expected twin to the written precision
    replaced by it.

    Numbers pair up by position; when the two texts hold different counts of
    numbers nothing is replaced. ``3.14`` accepts anything within 0.01,
    ``1.5e3`` anything within 100, ``2.`` anything within 1.
    """
    wanted = list(_FLOAT.finditer(want))
    found = list(_FLOAT.finditer(got))
    if len(wanted) != len(found):
        return got
    pieces: list[str] = []
    last = 0
    for expected, actual in zip(wanted, found, strict=True):
        pieces.append(got[last : actual.start()])
        pieces.append(
            expected.group() if _within_precision(expected, actual.group()) else actual.group()
        )
        last = actual.end()
    pieces.append(got[last:])
    return "".join(pieces)


def _within_precision(expected: re.Match[str], actual: str) -> bool:
    fraction = expected.group("fraction")
    exponent = expected.group("exponent1") or expected.group("exponent2")
    digits = len(fraction) if fraction is not None else 0
    if exponent is not None:
        digits -= int(exponent)
    a, b = float(expected.group()), float(actual)
    if a == b:
        return True
    if math.isnan(a) or math.isinf(a) or math.isnan(b) or math.isinf(b):
        return False  # pytest.approx: no tolerance makes these equal to anything else
    return abs(b - a) <= 10.0**-digits


CHECKER = PytestOutputChecker()


def spoofed_output(printed: str) -> str:
    """Output as doctest's capture returns it: a last newline added when missing."""
    return printed if not printed or printed.endswith("\n") else printed + "\n"


def example_passes(
    want: str, wanted_exception: str | None, got: str, raised: str | None, optionflags: int
) -> bool:
    """Doctest's verdict on one example.

    ``want``/``wanted_exception`` are what the parser found (the example's
    ``want`` and ``exc_msg``); ``got`` is what it printed and ``raised`` the
    exception text as doctest formats it (None when it raised nothing).
    """
    if raised is None:
        return CHECKER.check_output(want, spoofed_output(got), optionflags)
    if wanted_exception is None:
        return False
    if CHECKER.check_output(wanted_exception, raised, optionflags):
        return True
    if optionflags & doctest.IGNORE_EXCEPTION_DETAIL:
        return CHECKER.check_output(
            _exception_name(wanted_exception), _exception_name(raised), optionflags
        )
    return False


def _exception_name(message: str) -> str:
    """``pkg.mod.Error: detail`` -> ``Error``, as IGNORE_EXCEPTION_DETAIL compares."""
    first = message.split("\n", 1)[0]
    head = first.split(":", 1)[0]
    return head.rsplit(".", 1)[-1]
