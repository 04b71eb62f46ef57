"""A stream's text as Jupyter stores it (worker/streams.py): each expected text is what
JupyterLab's ``removeOverwrittenChars`` (its output area's rule, the classic notebook's
before it) gives for the same text."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sphinx_jaxcheck.worker.streams import as_jupyter_stores


@pytest.mark.parametrize(
    ("printed", "stored"),
    [
        ("0/3\r1/3\r2/3\r3/3 done\n", "3/3 done\n"),  # a progress line
        ("\r[#  ]\r[## ]\r[###]\n", "[###]\n"),
        ("abc\rX", "Xbc"),  # a shorter text overwrites the line's start only
        ("ab\rcd\rX", "Xd"),
        ("x\r\ny", "x\ny"),  # a carriage return before a newline is the newline
        ("a\rb\r", "b\r"),  # one at the very end stays, for what comes next
        ("abc\r\r", "abc"),
        ("a\r\rb", "b"),
        ("ab\bc\n", "ac\n"),  # a backspace removes the character before it
        ("xyz\b\b\n", "x\n"),
        ("\b\na\b\b", "\b\n\b"),  # none before a line's start
        ("plain\ntext\n", "plain\ntext\n"),
    ],
)
def test_a_stream_is_stored_with_what_was_overwritten_gone(printed: str, stored: str) -> None:
    assert as_jupyter_stores(printed) == stored


TEXT = st.lists(st.sampled_from(["a", "b", "xyz", " ", "\n", "\r", "\b", "\r\n"]), max_size=20).map(
    "".join
)


@given(TEXT)
def test_storing_twice_stores_the_same(text: str) -> None:
    once = as_jupyter_stores(text)
    assert as_jupyter_stores(once) == once
