"""Finding a quote across f-string fields, and the closest passage when it is not there.

Half of a quote must match literally for it to count as found; the first best
occurrence wins; a stale quote is shown against the passage that holds most
of it, in a source too long to compare every passage closely.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator

import pytest

from sphinx_jaxcheck.cite.quotes import (
    Passage,
    QuoteResult,
    _reader_stream,
    find_quote,
    reader_text,
)


@pytest.fixture(autouse=True)
def fresh_reader() -> Iterator[None]:
    _reader_stream.cache_clear()
    yield


FIELDS = (
    "def check(name):\n"
    '    raise ValueError(f"{name} is bad")\n'
    "\n"
    "\n"
    "def other(name):\n"
    '    raise ValueError(f"{name} is bad")\n'
)


def found_at(source: str, quote: str) -> tuple[int, int] | None:
    result = find_quote(source, quote)
    return (result.passage.start, result.passage.end) if result.found else None


def test_a_field_stands_for_any_text_but_half_the_quote_must_be_literal() -> None:
    # 9 characters ("oopsisbad"), 5 literal: at least half, found at the first occurrence.
    assert found_at(FIELDS, "oops is bad") == (2, 2)
    assert found_at(FIELDS, "xxxxxxx is bad") is None


def test_a_literal_occurrence_beats_an_earlier_one_through_a_field() -> None:
    source = FIELDS + '\n\nMESSAGE = "oops is bad"\n'
    assert found_at(source, "oops is bad") == (9, 9)


def test_a_short_quote_is_found_only_whole() -> None:
    assert found_at("x = a + c\n", "a") == (1, 1)
    assert found_at("x = a + c\n", "ab") is None


def test_text_right_after_a_field_counts() -> None:
    assert found_at('raise ValueError(f"{name}: bad")\n', "oops: bad") == (1, 1)


def test_an_escaped_line_break_inside_a_string_moves_to_the_next_line() -> None:
    source = 'x = 1\nMESSAGE = "first part \\\nsecond part"\n'
    assert found_at(source, "second part") == (3, 3)
    assert found_at(source, "first part second part") == (2, 3)


def test_an_unfinished_field_does_not_break_the_search() -> None:
    assert find_quote('x = f"{name\n', "something else").found is False
    assert find_quote('x = f"{name"\n', "something else").found is False


def test_the_reader_text_drops_comment_markers_spaces_and_quotes_only() -> None:
    assert reader_text("XLA 'compiles'\n  #   it") == "XLAcompilesit"


NAMES = sorted(name for name in dir(builtins) if name.isalpha())[:100]
LONG = "".join(
    f'{name} = "{name[::-1]} spelled backwards, {len(name)} letters"\n' for name in NAMES
)


@pytest.mark.parametrize("line", [4, 95])
def test_the_closest_passage_is_found_among_many_lines(line: int) -> None:
    source = LONG
    name = NAMES[line - 1]
    quote = f'{name} = "{name[::-1]} spelt backwards, {len(name)} letters"'
    result = find_quote(source, quote)
    # The two lines ending with it: the line before also reaches the quote's length, and ties
    # go to the first.
    assert result == QuoteResult(
        False,
        Passage(line - 1, line, "\n".join(source.splitlines()[line - 2 : line])),
        result.similarity,
    )
    assert result.similarity > 0.9


def test_of_two_equal_passages_the_first_is_shown() -> None:
    source = "x = 1\n" + 'MSG = "the carry must keep its shape"\n' * 2
    result = find_quote(source, "MSG = 'the carry must keep its form'")
    assert (result.found, result.passage.start, result.passage.end) == (False, 2, 3)


def test_a_passage_ends_one_line_after_the_line_that_completes_the_quote() -> None:
    source = "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\n"
    result = find_quote(source, "b = 3")  # as long as line 2
    assert (result.passage.start, result.passage.end) == (2, 3)


def test_a_long_stale_quote_still_scores_as_mostly_there() -> None:
    sentence = (
        "the body function of the scan must return a carry with the same structure "
        "as the input carry "
    )
    source = f'MESSAGE = ("{sentence * 3}")\n'
    quote = (sentence * 3).replace("structure", "structures", 1)
    result = find_quote(source, quote)
    assert not result.found and result.similarity > 0.98
