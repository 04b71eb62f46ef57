"""The files update would write read as their new bytes while the documents are read again
(sphinx/checking/rereading.py), through every way Python opens a file by name."""

from __future__ import annotations

import builtins
import io
import os
from pathlib import Path

from sphinx_jaxcheck.sphinx.checking.rereading import files_read_as


def test_a_file_reads_as_its_new_bytes_by_any_name_and_only_inside(tmp_path: Path) -> None:
    page, other = tmp_path / "page.md", tmp_path / "other.md"
    page.write_bytes(b"old\r\n")
    other.write_text("other\n")
    (tmp_path / "link.md").symlink_to(page)
    new = "né\r\n".encode()
    with files_read_as({os.path.realpath(page): new}):
        with open(page, encoding="utf-8") as handle:
            assert handle.read() == "né\n" and handle.name == str(page)
        with open(str(tmp_path / "link.md"), "rb") as raw:
            assert raw.read() == new
        assert page.read_text("utf-8") == "né\n" and page.read_bytes() == new
        with open(page, encoding="utf-8", newline="") as kept:
            assert kept.read() == "né\r\n"
        assert other.read_text() == "other\n"
        with open(page, "ab") as appended:  # written to as itself
            appended.write(b"more\n")
    assert page.read_bytes() == b"old\r\nmore\n"
    assert builtins.open is io.open and open is io.open
