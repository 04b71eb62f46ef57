"""What ``jaxcheck update`` may write: only outputs it can show to be right.

Each check returns why an output must not be written (a message naming the
text at fault), or None. Pure: the second run is done by the caller.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from ..model import Drift, Expectation, ExpectationKind, Verdict

# doctest's own pattern for option directives in an example's source.
_DIRECTIVE = re.compile(r"#\s*doctest:\s*([^\n'\"]*)$", re.MULTILINE)
# Characters a page cannot hold as text: they end lines for some reader
# (docutils splits on every str.splitlines boundary), move the cursor, or
# vanish; surrogates cannot even be encoded.
_UNWRITABLE_CATEGORIES = ("Cc", "Cs", "Zl", "Zp")
_NAMES = {
    "\t": "tab",
    "\r": "carriage return",
    "\x00": "NUL",
    "\x1b": "ESC, which starts an ANSI escape sequence",
    "\x08": "backspace",
    "\x0b": "vertical tab",
    "\x0c": "form feed",
    "\x7f": "DEL",
}


def skipped_example(source: str) -> bool:
    """The example's source carries ``# doctest: +SKIP``."""
    return any("+SKIP" in re.split(r"[\s,]+", found) for found in _DIRECTIVE.findall(source))


def skip_reason(expectation: Expectation) -> str | None:
    """Why update never writes this example's output (it is marked ``+SKIP``), or None."""
    if expectation.kind not in (ExpectationKind.DOCTEST, ExpectationKind.REPL):
        return None
    if not (expectation.skip or skipped_example(expectation.source)):
        return None
    first = expectation.source.splitlines()[0] if expectation.source else ""
    return (
        f"the example {first!r} is marked `+SKIP`: its output is never checked, "
        "so update does not write one"
    )


def unwritable_characters(lines: Sequence[str]) -> str | None:
    """Why these output lines cannot go into a page as text, naming the characters, or None."""
    for number, line in enumerate(lines, start=1):
        found = [
            c for c in dict.fromkeys(line) if unicodedata.category(c) in _UNWRITABLE_CATEGORIES
        ]
        if found:
            names = ", ".join(f"{c!r} ({_describe(c)})" for c in found)
            shown = line if len(line) <= 60 else line[:57] + "..."
            return (
                f"the new output holds control characters a page cannot keep as text: {names}, "
                f"on output line {number} ({shown!r}); update writes none of it. Make the block "
                "print plain text (e.g. without progress bars or colours)"
            )
    return None


def _describe(char: str) -> str:
    if char in _NAMES:
        return _NAMES[char]
    return unicodedata.name(char, f"U+{ord(char):04X}")


def reproduction_problem(drift: Drift, second: Verdict | None) -> str | None:
    """Why the first run's output of ``drift`` is not proven by a second run, or None."""
    if second is None:
        return (
            "the block did not run a second time, so its new output is not proven; "
            "run the update again"
        )
    if second.problems and not second.failed_examples:  # an uncompilable example proves nothing
        return (
            "on a second run the block failed, so its new output is not proven: "
            + second.problems[0].message.splitlines()[0]
        )
    again = next((d for d in second.drifts if d.expectation == drift.expectation), None)
    if again is None:
        return (
            "on a second run the output matched the page again, so it differs from run to run; "
            "update writes only output that reproduces exactly. Write the varying part as `...`"
        )
    first, second_lines = _as_printed(drift), _as_printed(again)
    if again.actual == drift.actual and first == second_lines:
        return None
    if again.actual != drift.actual or first is None or second_lines is None:
        first, second_lines = drift.actual, again.actual
    return (
        "the output differs between two runs ("
        + _first_difference(first, second_lines)
        + "); update writes only output that reproduces exactly. Write the varying part as `...`"
    )


def _as_printed(drift: Drift) -> tuple[str, ...] | None:
    """The lines an example printed, exactly (doctest compares the spaces and blank lines at
    their end), when it raised nothing; else None."""
    if drift.printed is None or drift.raised is not None:
        return None
    return tuple(drift.printed.split("\n"))


def _first_difference(first: Sequence[str], second: Sequence[str]) -> str:
    """The first differing line of two runs, and within it the differing words."""
    number = next(
        (n for n, (a, b) in enumerate(zip(first, second, strict=False)) if a != b),
        min(len(first), len(second)),
    )
    a = first[number] if number < len(first) else None
    b = second[number] if number < len(second) else None
    if a is None or b is None:
        return f"output line {number + 1}: {a!r} then {b!r}"
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[len(a) - 1 - end] == b[len(b) - 1 - end]:
        end += 1
    # Widen to whole words, so an id or a timing shows in full.
    while start and not a[start - 1].isspace():
        start -= 1
    while end and not a[len(a) - end].isspace():
        end -= 1
    first, second = a[start : len(a) - end], b[start : len(b) - end]
    if not (first.strip() or second.strip()):  # only spaces differ: the lines show where
        first, second = a, b
    return f"output line {number + 1}: {first!r}, then {second!r}"
