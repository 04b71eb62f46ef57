"""Line surgery on source files: every byte outside the edited lines stays, endings included."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

import pytest

from sphinx_jaxcheck.rewrite.edits import (
    Edit,
    FileChangedError,
    SourceText,
    apply_edits,
    digest,
    file_digest,
    parse_source,
    render_source,
    write_atomically,
)


def edited(data: bytes, *edits: Edit) -> bytes:
    return render_source(apply_edits(parse_source(data), list(edits)))


def test_lines_keep_their_own_endings_and_the_bom() -> None:
    source = parse_source(b"\xef\xbb\xbfa\r\nb\nc\rd")
    assert source == SourceText(("a", "b", "c", "d"), ("\r\n", "\n", "\r", ""), bom=True)
    assert parse_source(b"") == SourceText((), ())
    assert parse_source(b"a\n\n") == SourceText(("a", ""), ("\n", "\n"))
    assert render_source(source) == b"\xef\xbb\xbfa\r\nb\nc\rd"
    assert parse_source("é\n".encode("latin-1"), "latin-1").lines == ("é",)


def test_a_files_digest_is_the_sha256_of_its_bytes_and_empty_when_unreadable(
    tmp_path: Path,
) -> None:
    page = tmp_path / "page.md"
    page.write_bytes(b"\xef\xbb\xbfa\r\nb")
    assert file_digest(str(page)) == digest(page.read_bytes())
    assert digest(b"a\r\nb") == hashlib.sha256(b"a\r\nb").hexdigest()
    assert file_digest(str(tmp_path / "missing.md")) == ""
    assert file_digest(str(tmp_path)) == ""  # a folder


def test_the_usual_ending_is_the_most_common_one() -> None:
    assert parse_source(b"a\r\nb\r\nc\n").usual_ending == "\r\n"
    assert parse_source(b"a\nb\nc\r\n").usual_ending == "\n"
    assert parse_source(b"a\rb\r").usual_ending == "\r"
    assert parse_source(b"no newline").usual_ending == "\n"
    assert parse_source(b"").usual_ending == "\n"


def test_a_replaced_line_keeps_its_ending() -> None:
    assert edited(b"a\r\nb\nc\r\n", Edit(1, 2, ("B",))) == b"a\r\nB\nc\r\n"


def test_added_lines_take_the_files_usual_ending() -> None:
    crlf = b"x\r\n# 1\r\n```\r\n"
    assert edited(crlf, Edit(1, 2, ("# 1", "# 2", "# 3"))) == b"x\r\n# 1\r\n# 2\r\n# 3\r\n```\r\n"
    # The last new line keeps the ending of the last old one; the others take the usual one.
    mixed = b"a\r\nb\r\nc\n"
    assert edited(mixed, Edit(2, 3, ("c", "d"))) == b"a\r\nb\r\nc\r\nd\n"
    assert edited(mixed, Edit(0, 0, ("new",))) == b"new\r\na\r\nb\r\nc\n"


def test_removed_lines_take_their_endings_with_them() -> None:
    assert edited(b"a\r\nb\nc\r\n", Edit(1, 2, ())) == b"a\r\nc\r\n"
    # The file still lacks a last newline.
    assert edited(b"a\nb\nc", Edit(1, 3, ())) == b"a"


def test_the_file_keeps_or_keeps_lacking_its_last_newline() -> None:
    assert edited(b"a\nb", Edit(1, 2, ("B", "C"))) == b"a\nB\nC"
    assert edited(b"a\nb\n", Edit(1, 2, ("B", "C"))) == b"a\nB\nC\n"
    # Lines added after a last line without a newline: the old last line gets one.
    assert edited(b"a\r\nb", Edit(2, 2, ("c",))) == b"a\r\nb\r\nc"
    assert edited(b"", Edit(0, 0, ("a",))) == b"a\n"


def test_several_edits_apply_from_the_bottom_up() -> None:
    data = b"0\n1\n2\n3\n4\n"
    assert edited(data, Edit(3, 4, ("x", "y")), Edit(1, 2, ())) == b"0\n2\nx\ny\n4\n"
    assert render_source(apply_edits(parse_source(data), [])) == data


def test_overlapping_or_outside_edits_are_refused() -> None:
    source = parse_source(b"0\n1\n2\n")
    with pytest.raises(ValueError, match=r"edits 0:2 and 1:3 overlap"):
        apply_edits(source, [Edit(1, 3, ()), Edit(0, 2, ())])
    apply_edits(source, [Edit(0, 1, ()), Edit(1, 2, ())])  # touching is fine
    with pytest.raises(ValueError, match=r"edit 2:4 is outside the file"):
        apply_edits(source, [Edit(2, 4, ())])
    with pytest.raises(ValueError, match=r"edit 2:1 is outside the file"):
        apply_edits(source, [Edit(2, 1, ())])


def test_write_atomically_replaces_the_file_and_keeps_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "doc.md"
    path.write_bytes(b"old\n")
    os.chmod(path, 0o640)
    write_atomically(path, b"new\n", digest(b"old\n"))
    assert path.read_bytes() == b"new\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["doc.md"]


def test_write_atomically_leaves_a_changed_file_alone(tmp_path: Path) -> None:
    path = tmp_path / "doc.md"
    path.write_bytes(b"edited by hand\n")
    with pytest.raises(
        FileChangedError, match="changed since jaxcheck read it; nothing was written"
    ):
        write_atomically(path, b"new\n", digest(b"old\n"))
    assert path.read_bytes() == b"edited by hand\n"
    assert [p.name for p in tmp_path.iterdir()] == ["doc.md"]


def test_digest_is_the_sha256_of_the_bytes() -> None:
    assert digest(b"") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
