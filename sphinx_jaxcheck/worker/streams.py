"""A stream's text as Jupyter stores it: what a backspace or a carriage return overwrote is
gone, so a progress bar (tqdm's) stores its last state.

These are JupyterLab's rules (``removeOverwrittenChars`` of its output area, the classic
notebook's before it), which a notebook saved from it holds: a character followed by a
backspace is removed, until none is left; then text after a carriage return overwrites the
line from its start, the rest of a longer line staying. nbclient and nbval mean to do the
same, but their backspace rule never runs, and their carriage return drops the whole line
before it; both rules give the same text for a line that only grows, as a progress bar does.
"""

from __future__ import annotations

import re

_BACKSPACE = re.compile("[^\n]\b")
# JavaScript's ``.``, ``^`` and ``$`` (multiline), which JupyterLab's rules are written in:
# a carriage return ends a line there too.
_CHAR = "[^\n\r\u2028\u2029]"
_START = r"(?:(?<=[\n\r\u2028\u2029])|\A)"
_END = r"(?=[\n\r\u2028\u2029]|\Z)"
_CR_NEWLINE = re.compile("\r+\n")
_CR_FOLLOWED = re.compile("\r[^$]")
_BASE = re.compile(f"{_START}({_CHAR}*)\r+")
_INSERT = re.compile(f"\r+({_CHAR}*){_END}")
_INSERTED = re.compile(f"\r+{_CHAR}*{_END}")
_BASE_LINE = re.compile(f"{_START}{_CHAR}*\r")


def as_jupyter_stores(text: str) -> str:
    """``text`` as a notebook saved by Jupyter stores a stream that printed it."""
    if "\b" in text:
        old = None
        while old is None or len(text) < len(old):
            old, text = text, _BACKSPACE.sub("", text)
    if "\r" in text:
        text = _CR_NEWLINE.sub("\n", text)
        while _CR_FOLLOWED.search(text):
            base = _BASE.search(text)
            insert = _INSERT.search(text)
            assert base is not None and insert is not None  # a \r followed by more: both hold
            overwrite = insert.group(1) + base.group(1)[len(insert.group(1)) :]
            text = _INSERTED.sub("\r", text, count=1)
            # Taken as it is (JupyterLab's String.replace reads ``$$`` in it as ``$``: a slip).
            text = _BASE_LINE.sub(overwrite.replace("\\", "\\\\"), text, count=1)
    return text
