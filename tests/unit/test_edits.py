"""Writing a source file only if it is still the one read (no builds).

An editor's save while update writes is never lost to the rename (fault
injection: the save happens during the flush to disk, the slowest step).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sphinx_jaxcheck.rewrite import edits
from sphinx_jaxcheck.rewrite.edits import FileChangedError, digest, write_atomically


def test_an_editors_save_during_the_write_is_kept_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "page.md"
    path.write_bytes(b"old\n")
    real_fsync = os.fsync

    def fsync_while_an_editor_saves(descriptor: int) -> None:
        if not path.read_bytes().startswith(b"saved"):
            path.write_bytes(b"saved by the editor\n")
        real_fsync(descriptor)

    monkeypatch.setattr(os, "fsync", fsync_while_an_editor_saves)
    with pytest.raises(
        FileChangedError, match="changed since jaxcheck read it; nothing was written"
    ):
        write_atomically(path, b"new\n", digest(b"old\n"))
    assert path.read_bytes() == b"saved by the editor\n"
    assert [p.name for p in tmp_path.iterdir()] == ["page.md"]
    # Without a racing save the same write goes through.
    monkeypatch.setattr(os, "fsync", real_fsync)
    write_atomically(path, b"new\n", digest(b"saved by the editor\n"))
    assert path.read_bytes() == b"new\n"
    assert edits.digest(path.read_bytes()) == digest(b"new\n")
