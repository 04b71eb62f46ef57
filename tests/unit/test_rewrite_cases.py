"""Line surgery at the edges: mixed endings, the last line, BOM and encoding, the temporary file.

Each result is checked byte for byte, and read back: the lines a reader sees
after the write are the lines the edit asked for.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sphinx_jaxcheck.rewrite.edits import (
    Edit,
    FileChangedError,
    apply_edits,
    digest,
    parse_source,
    render_source,
    write_atomically,
)


def edited(data: bytes, *edits: Edit, encoding: str = "utf-8") -> bytes:
    source = parse_source(data, encoding)
    result = apply_edits(source, list(edits))
    new = render_source(result)
    assert parse_source(new, encoding).lines == result.lines  # read back as the lines asked for
    return new


def test_replaced_lines_keep_the_endings_they_had() -> None:
    # Mostly LF; the replaced lines end in CRLF and keep them, one each.
    data = b"a\nb\r\nc\r\nd\r\ne\nf\n"
    assert edited(data, Edit(1, 4, ("B", "C", "D"))) == b"a\nB\r\nC\r\nD\r\ne\nf\n"
    # An added line takes the usual ending; the last line of the edit keeps the last one.
    assert edited(data, Edit(1, 4, ("B", "C", "D", "X"))) == b"a\nB\r\nC\r\nD\nX\r\ne\nf\n"


def test_deleting_every_line_leaves_an_empty_file() -> None:
    assert edited(b"a\nb\n", Edit(0, 2, ())) == b""
    assert edited(b"a\nb", Edit(0, 2, ())) == b""


def test_lines_added_after_a_last_line_without_newline_are_separated_from_it() -> None:
    assert edited(b"a", Edit(1, 1, ("b",))) == b"a\nb"
    # The separator is the file's usual ending, not the ending of some other line.
    assert edited(b"a\nb\nc\rd", Edit(4, 4, ("e",))) == b"a\nb\nc\rd\ne"
    assert edited(b"a\r\nb", Edit(2, 2, ("c", "d"))) == b"a\r\nb\r\nc\r\nd"


def test_a_bare_cr_line_and_an_empty_line_brought_together_stay_two_lines() -> None:
    # Deleting "b" puts "a\r" before "\n": read back, that is one CRLF line.
    assert edited(b"a\rb\n\nc\n", Edit(1, 2, ())) == b"a\rb\n\nc\n".replace(b"b\n\n", b"\r")
    assert edited(b"a\rb\n\n\nc\n", Edit(1, 2, ())) == b"a\r\r\rc\n"
    # The last line and the first are not neighbours.
    assert edited(b"\na\nb\r", Edit(1, 2, ("c",))) == b"\nc\nb\r"
    # A new empty line after a bare CR line.
    assert edited(b"a\rb\nc\n", Edit(1, 2, ("", "x"))) == b"a\r\r" + b"x\nc\n"


def test_the_bom_and_the_encoding_are_kept() -> None:
    assert edited(b"\xef\xbb\xbfa\nb\n", Edit(1, 2, ("\u00e9",))) == b"\xef\xbb\xbfa\n\xc3\xa9\n"
    assert (
        edited("a\nb\n".encode("latin-1"), Edit(1, 2, ("\u00e9",)), encoding="latin-1")
        == b"a\n\xe9\n"
    )
    assert parse_source(b"a\n", "latin-1").encoding == "latin-1"


def test_the_new_text_goes_into_a_temporary_file_beside_the_page_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # InterruptError updates leave only ".jaxcheck-*.tmp" files beside pages, which the cache
    # prune removes.
    path = tmp_path / "page.md"
    path.write_bytes(b"old\n")
    seen: list[list[str]] = []
    real_fsync = os.fsync

    def fsync_and_look(descriptor: int) -> None:
        seen.append(sorted(p.name for p in tmp_path.iterdir()))
        real_fsync(descriptor)

    monkeypatch.setattr(os, "fsync", fsync_and_look)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    write_atomically(path, b"new\n", digest(b"old\n"))
    monkeypatch.chdir(tmp_path)
    write_atomically(
        "page.md", b"newer\n", digest(b"new\n")
    )  # a path relative to where update runs
    assert path.read_bytes() == b"newer\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere", "page.md"] and not list(
        elsewhere.iterdir()
    )
    # Each write: its data is flushed while the temporary file is there, then the folder.
    temporaries = [
        [name for name in listing if name not in ("page.md", "elsewhere")] for listing in seen
    ]
    assert [len(names) for names in temporaries] == [1, 0, 1, 0]
    for (temporary,) in (temporaries[0], temporaries[2]):
        assert temporary.startswith(".jaxcheck-") and temporary.endswith(".tmp")


def test_a_changed_file_is_left_alone_with_the_next_step(tmp_path: Path) -> None:
    path = tmp_path / "page.md"
    path.write_bytes(b"edited\n")
    with pytest.raises(FileChangedError) as raised:
        write_atomically(path, b"new\n", digest(b"old\n"))
    assert str(raised.value) == (
        f"{path} changed since jaxcheck read it; nothing was written. "
        "Run the update again to rewrite it from its current text."
    )
    assert [p.name for p in tmp_path.iterdir()] == ["page.md"] and path.read_bytes() == b"edited\n"
