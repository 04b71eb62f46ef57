"""Does an expected output match an actual one? All output checking, in one place.

A ``jaxcheck`` block's expectations (user guide: guide/matching): both sides lose trailing
whitespace per line and leading/trailing blank lines; ``...`` matches any text (also across
lines); memory addresses compare equal; numbers may compare with a relative tolerance;
jaxprs may compare up to a consistent renaming of variables and whitespace.

``>>>`` examples, as doctest and pytest compare them: stdlib ``doctest.OutputChecker``
does the comparing; :class:`PytestOutputChecker` adds the three flags pytest registers
(``NUMBER``, ``ALLOW_UNICODE``, ``ALLOW_BYTES``) with the same meaning, so an example
passes here exactly when ``pytest --doctest-glob`` passes it; :func:`example_passes` is
the decision doctest's runner makes for one example, given what it printed and the
exception it raised. Pure string functions.
"""

from __future__ import annotations

import difflib
import doctest
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..expect.doctest_flags import ALLOW_BYTES, ALLOW_UNICODE, NUMBER
from ..model import CompareMode

ELLIPSIS = "..."
TRACEBACK_HEADER = "Traceback (most recent call last):"

_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")
_NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])")
# A jaxpr binder: a variable name followed by its type, e.g. ``a:f32[3]``.
_BINDER = re.compile(r"(?<![\w.])([A-Za-z_]\w*):(?=[A-Za-z]+\d*(?:<\w+>)?\[)")
_NAME = re.compile(r"(?<![\w.])[A-Za-z_]\w*(?![\w=])")
_PUNCT_SPACE = re.compile(r"\s*([\[\]{}(),=;])\s*")


@dataclass(frozen=True)
class MatchRules:
    """How strictly to compare: the ``:compare:`` and ``:tolerance:`` options.

    A page's own ``>>>`` examples compare as doctest does: ``...`` only with
    ELLIPSIS (``ellipsis``), and memory addresses as written (``addresses`` off).
    """

    compare: CompareMode = CompareMode.TEXT
    tolerance: float | None = None
    ellipsis: bool = True
    addresses: bool = True
    optionflags: int | None = None  # doctest's checker with these flags decides instead


def normalize(lines: Sequence[str]) -> list[str]:
    """Drop trailing whitespace on every line and leading/trailing blank lines."""
    stripped = [line.rstrip() for line in lines]
    while stripped and not stripped[0]:
        stripped.pop(0)
    while stripped and not stripped[-1]:
        stripped.pop()
    return stripped


def unified_diff(expected: Sequence[str], actual: Sequence[str]) -> str:
    """A unified diff from the expected lines to the actual ones."""
    lines = difflib.unified_diff(
        normalize(expected), normalize(actual), "expected", "actual", lineterm=""
    )
    return "\n".join(lines)


def split_lines(text: str) -> list[str]:
    """Lines of a text as a program printed it."""
    return text.replace("\r\n", "\n").split("\n")


def texts_match(expected: Sequence[str], actual: Sequence[str], rules: MatchRules) -> bool:
    """The whole expected text matches the whole actual text."""
    want, got = normalize(expected), normalize(actual)
    if want and want[0] == TRACEBACK_HEADER:
        # Like doctest: only the exception lines of a traceback are compared.
        want, got = _exception_lines(want), _exception_lines(got)
    return _match("\n".join(want), "\n".join(got), rules)


def match_text(want: str, got: str, rules: MatchRules) -> bool:
    """One expected text matches one actual text (no normalizing, no traceback rule)."""
    return _match(want, got, rules)


def mask_addresses(text: str) -> str:
    """Memory addresses as ``0x?``: they compare equal whatever their digits."""
    # Most outputs hold no address: a substring test is many times cheaper than the search.
    return _ADDRESS.sub("0x?", text) if "0x" in text else text


def _match(want: str, got: str, rules: MatchRules) -> bool:
    if rules.addresses:
        want, got = mask_addresses(want), mask_addresses(got)
    if rules.compare is CompareMode.JAXPR:
        want, got = canonical_jaxpr(want), canonical_jaxpr(got)
    if rules.tolerance is not None:
        # Column padding of printed arrays follows the digits; with a tolerance
        # the digits may differ, so runs of spaces do not count either.
        want, got = _fold_spaces(want), _fold_spaces(got)
        got = _adopt_close_numbers(want, got, rules.tolerance)
    if want == got:
        return True
    if rules.optionflags is not None:
        return CHECKER.check_output(want + "\n", got + "\n", rules.optionflags)
    return rules.ellipsis and ELLIPSIS in want and ellipsis_match(want, got)


def ellipsis_match(want: str, got: str) -> bool:
    """``...`` in ``want`` matches any text of ``got``, as doctest's ELLIPSIS."""
    pieces = want.split(ELLIPSIS)
    head, tail = pieces[0], pieces[-1]
    if not got.startswith(head) or not got.endswith(tail):
        return False
    start, end = len(head), len(got) - len(tail)
    if start > end:
        return False
    for piece in pieces[1:-1]:
        found = got.find(piece, start, end)
        if found < 0:
            return False
        start = found + len(piece)
    return True


def _exception_lines(lines: list[str]) -> list[str]:
    """The ``ExcType: message`` part of a formatted traceback."""
    return lines[traceback_head(lines) :]


def traceback_head(lines: Sequence[str]) -> int:
    """How many leading lines are a traceback's header and stack, which doctest ignores
    (0: no traceback)."""
    if not lines or lines[0] != TRACEBACK_HEADER:
        return 0
    end = 1
    while end < len(lines) and (lines[end].startswith((" ", "\t")) or lines[end] == ELLIPSIS):
        end += 1
    return end


def _adopt_close_numbers(want: str, got: str, tolerance: float) -> str:
    """Replace numbers of ``got`` by those of ``want`` where they are close enough.

    Numbers are paired by position; when the counts differ nothing is adopted
    and the texts are compared as they are.
    """
    wanted = _NUMBER.findall(want)
    found = list(_NUMBER.finditer(got))
    if len(wanted) != len(found):
        return got
    pieces, last = [], 0
    for expected, match in zip(wanted, found, strict=True):
        pieces.append(got[last : match.start()])
        close = _close(expected, match.group(), tolerance)
        pieces.append(expected if close else match.group())
        last = match.end()
    pieces.append(got[last:])
    return "".join(pieces)


def _fold_spaces(text: str) -> str:
    """Runs of spaces as one, and none just inside brackets or before a comma (NumPy pads a
    shorter number so: ``[ 0.3429235 , -0.5]``): ``[ 1.  2.5]`` -> ``[1. 2.5]``."""
    text = re.sub(r"[ \t]+", " ", text).replace(" ,", ",")
    return re.sub(r" ?([\])]) ?", lambda m: m.group(1), re.sub(r"([\[(]) ", r"\1", text))


def _close(expected: str, actual: str, tolerance: float) -> bool:
    # Both are _NUMBER matches: digits, so float() parses them and never gives NaN.
    return math.isclose(float(expected), float(actual), rel_tol=tolerance)


def canonical_jaxpr(text: str) -> str:
    """A jaxpr with variables renamed by first appearance and whitespace folded."""
    protected = re.sub(r"(\{\s*lambda\b[^;{}]*?);", lambda m: m.group(1) + " \x00", text)
    folded = _PUNCT_SPACE.sub(r"\1", " ".join(protected.replace(";", " ").split()))
    folded = folded.replace("\x00", ";")
    names: dict[str, str] = {}
    for binder in _BINDER.finditer(folded):
        name = binder.group(1)
        if name != "_" and name not in names:
            names[name] = f"v{len(names)}"

    def rename(match: re.Match[str]) -> str:
        name = match.group()
        if name not in names or _is_syntax(folded, match.start(), match.end(), name):
            return name
        return names[name]

    return _NAME.sub(rename, folded)


def _is_syntax(text: str, start: int, end: int, name: str) -> bool:
    """Whether the name at ``text[start:end]`` is a keyword or a primitive, not a variable.

    JAX names variables a, b, ..., z, ba, bb, ... so after enough equations a
    variable is called ``in``, ``let``, ``mul`` or ``sin``; only where the name
    stands tells them apart: a primitive follows ``=``, ``lambda`` follows
    ``{``, ``let`` follows the ``.`` closing the binders, ``in`` precedes ``(``.
    """
    before = text[:start].rstrip()[-1:]
    after = text[end:].lstrip()[:1]
    if before == "=":
        return True
    return (name, before) in (("lambda", "{"), ("let", ".")) or (name == "in" and after == "(")


# -- doctest's comparison, with pytest's flags ------------------------------------------

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
