"""Does a quoted text occur in a piece of Python source, as a reader would count it?

A reader quoting JAX's source copies what they *read*: an error message, a
docstring sentence, a comment. So, when matching,

* whitespace, line breaks and docstring indentation do not matter;
* comment markers (``#``) and string quotes (``'``, ``"``) do not matter;
* adjacent string literals read as one (implicit concatenation);
* escapes read as what they print (``\\n`` is a line break);
* each ``{...}`` field of an f-string matches any text.

Pure: works on text, knows nothing of Sphinx or of where the text came from.
"""

from __future__ import annotations

import difflib
import functools
import io
import math
import re
import textwrap
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

WILD = ""  # stands for an f-string field in the reader's stream; matches any text
_IGNORED = frozenset("'\"")
_PREFIX = re.compile(r"^([A-Za-z]*)('''|\"\"\"|'|\")")
_SIMPLE_ESCAPES = {"n": "", "t": "", "r": "", "\n": "", "\\": "\\", "'": "", '"': ""}


@dataclass(frozen=True)
class Passage:
    """Lines ``start``-``end`` of the searched text, and those lines as written."""

    start: int
    end: int
    text: str


@dataclass(frozen=True)
class QuoteResult:
    """Where a quote was found, or the passage that comes closest to it."""

    found: bool
    passage: Passage  # the matched lines, or the closest ones when not found
    similarity: float  # 1.0 when found; difflib's ratio of the closest passage otherwise

    @property
    def start(self) -> int:
        """First line of the match (or of the closest passage)."""
        return self.passage.start

    @property
    def end(self) -> int:
        """Last line of the match (or of the closest passage)."""
        return self.passage.end


@dataclass(frozen=True)
class _Char:
    char: str  # one visible character, or WILD
    line: int


def reader_text(quote: str) -> str:
    """A quote as it is compared: visible characters only, no comment markers or quotes."""
    lines = (line.strip().lstrip("#") for line in quote.splitlines())
    return "".join(c for line in lines for c in line if not c.isspace() and c not in _IGNORED)


def find_quote(
    source: str, quote: str, start: int | None = None, end: int | None = None
) -> QuoteResult:
    """Find ``quote`` in ``source`` (optionally only within lines ``start``-``end``).

    Line numbers are those of ``source``. When the quote is not there, the result
    holds the most similar passage so that callers can show a diff.
    """
    wanted = reader_text(quote)
    lines = source.splitlines()
    first, last = start or 1, end or len(lines)
    stream = [c for c in _reader_stream(source) if first <= c.line <= last]
    if wanted:
        span = _search(stream, wanted)
        if span is not None:
            return QuoteResult(True, _passage(lines, *span), 1.0)
    return _closest(lines, stream, wanted, first, last)


def quote_diff(quote: str, result: QuoteResult, where: str) -> str:
    """A unified diff from the quote (as written) to the closest passage of ``where``."""
    quoted = [line.strip() for line in quote.strip().splitlines()]
    passage = textwrap.dedent(result.passage.text).splitlines()
    return "\n".join(
        difflib.unified_diff(
            quoted,
            passage,
            fromfile="quoted",
            tofile=f"{where}#L{result.start}-L{result.end} (closest passage)",
            lineterm="",
        )
    )


# -- the reader's stream --------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _reader_stream(source: str) -> tuple[_Char, ...]:
    """Every visible character a reader sees in ``source``, with its line."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        # Not Python (or cut mid-string): compare the plain characters.
        return tuple(_plain(source, 1))
    chars: list[_Char] = []
    for token in tokens:
        if token.type == tokenize.STRING:
            chars.extend(_string(token.string, token.start[0]))
        elif token.type == tokenize.COMMENT:
            chars.extend(_plain(token.string.lstrip("#"), token.start[0]))
        elif token.type not in (tokenize.ENCODING, tokenize.ENDMARKER):
            chars.extend(_plain(token.string, token.start[0]))
    return tuple(chars)


def _plain(text: str, line: int) -> Iterator[_Char]:
    for char in text:
        if char == "\n":
            line += 1
        elif not char.isspace() and char not in _IGNORED:
            yield _Char(char, line)


def _string(literal: str, line: int) -> Iterator[_Char]:
    """The characters a string literal reads as; f-string fields become WILD."""
    match = _PREFIX.match(literal)
    if not match:
        yield from _plain(literal, line)
        return
    prefix, quote = match.group(1).lower(), match.group(2)
    body = literal[match.end() : len(literal) - len(quote)]
    raw, formatted = "r" in prefix, "f" in prefix
    position = 0
    while position < len(body):
        char = body[position]
        if char == "\n":
            line += 1
            position += 1
        elif formatted and body.startswith(("{{", "}}"), position):
            yield _Char(char, line)
            position += 2
        elif formatted and char == "{":
            yield _Char(WILD, line)
            position, line = _skip_field(body, position, line)
        elif char == "\\" and not raw and position + 1 < len(body):
            escaped = body[position + 1]
            if escaped == "\n":
                line += 1
            shown = _SIMPLE_ESCAPES.get(escaped, "\\" + escaped)
            yield from (_Char(c, line) for c in shown if c not in _IGNORED)
            position += 2
        else:
            if not char.isspace() and char not in _IGNORED:
                yield _Char(char, line)
            position += 1


def _skip_field(body: str, position: int, line: int) -> tuple[int, int]:
    """Skip an f-string field starting at ``body[position] == "{"`` (nested braces too)."""
    depth = 0
    while position < len(body):
        char = body[position]
        if char == "\n":
            line += 1
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return position + 1, line
        position += 1
    return position, line


# -- matching -------------------------------------------------------------------


def _search(stream: Sequence[_Char], wanted: str) -> tuple[int, int] | None:
    """First and last line of the best occurrence of ``wanted`` in ``stream``.

    An f-string field may stand for any part of the quote, also its start or
    end; but at least half of the quote must match literally, so that a quote
    is never "found" inside fields alone.
    """
    size = len(wanted)
    needed = max(1, math.ceil(size / 2))
    best: tuple[int, int, int] | None = None  # (literal characters, first line, last line)
    for begin, item in enumerate(stream):
        if item.char != WILD and item.char != wanted[0]:
            continue
        reach: dict[int, int] = {0: 0}  # quote characters consumed -> literal matches
        for position in range(begin, len(stream)):
            reach = _step(reach, stream[position].char, wanted)
            if not reach:
                break
            literal = reach.pop(size, -1)
            if literal >= needed and (best is None or literal > best[0]):
                best = (literal, stream[begin].line, stream[position].line)
                if literal == size:
                    return best[1], best[2]
    return None if best is None else (best[1], best[2])


def _step(reach: dict[int, int], char: str, wanted: str) -> dict[int, int]:
    if char != WILD:
        return {
            consumed + 1: literal + 1
            for consumed, literal in reach.items()
            if consumed < len(wanted) and wanted[consumed] == char
        }
    # A field consumes any number of quote characters, none of them literally.
    after: dict[int, int] = {}
    best = -1
    for consumed in range(min(reach), len(wanted) + 1):
        best = max(best, reach.get(consumed, -1))
        after[consumed] = best
    return after


def _passage(lines: Sequence[str], first: int, last: int) -> Passage:
    return Passage(first, last, "\n".join(lines[first - 1 : last]))


def _closest(
    lines: Sequence[str], stream: Sequence[_Char], wanted: str, first: int, last: int
) -> QuoteResult:
    """The run of lines whose reader text is most like ``wanted``."""
    per_line: dict[int, str] = {}
    for item in stream:
        per_line[item.line] = per_line.get(item.line, "") + (item.char or "{…}")
    numbers = sorted(per_line)
    if not numbers:
        return QuoteResult(False, _passage(lines, first, min(first, last)), 0.0)
    windows: list[tuple[int, int, str]] = []
    for index, begin in enumerate(numbers):
        # From each line, enough lines to hold the quote, plus one: a quote may start mid-line.
        text, stop, extra = "", begin, 1
        for number in numbers[index:]:
            text += per_line[number]
            stop = number
            if len(text) >= len(wanted):
                if extra == 0:
                    break
                extra -= 1
        windows.append((begin, stop, text))

    def rough(window: tuple[int, int, str]) -> float:
        return difflib.SequenceMatcher(None, wanted, window[2], autojunk=False).quick_ratio()

    def covered(text: str) -> float:
        # How much of the quote the passage holds, in order; extra passage text is no fault.
        matcher = difflib.SequenceMatcher(None, wanted, text, autojunk=False)
        return sum(block.size for block in matcher.get_matching_blocks()) / max(1, len(wanted))

    shortlist = sorted(windows, key=rough, reverse=True)[:60]
    scored = [
        (covered(text), -(stop - begin), -begin, begin, stop) for begin, stop, text in shortlist
    ]
    ratio, _, _, begin, stop = max(scored)
    return QuoteResult(False, _passage(lines, begin, stop), ratio)
