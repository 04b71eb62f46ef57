"""Replacing a file all at once leaves no temporary file behind, however it ends."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sphinx_jaxcheck.atomic import replace_file


def test_an_interruption_right_after_the_temporary_file_is_created_removes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a signal's exception does when it lands on the statement after the creation."""
    target = tmp_path / "page.md"
    target.write_bytes(b"old\n")
    real_open = os.open

    def created_then_interrupted(*args: object, **kwargs: object) -> int:
        real_open(*args, **kwargs)  # type: ignore[arg-type]
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "open", created_then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        replace_file(target, b"new\n")
    monkeypatch.undo()
    assert [p.name for p in tmp_path.iterdir()] == ["page.md"]
    assert target.read_bytes() == b"old\n"


def test_a_name_taken_by_another_file_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken = tmp_path / ".jaxcheck-0000000000000000.tmp"
    taken.write_bytes(b"someone else's\n")
    monkeypatch.setattr("secrets.token_hex", lambda _n: "0000000000000000")
    with pytest.raises(FileExistsError):
        replace_file(tmp_path / "page.md", b"new\n")
    assert taken.read_bytes() == b"someone else's\n"
    assert not (tmp_path / "page.md").exists()


def test_the_new_file_replaces_the_old_with_the_mode_asked_for(tmp_path: Path) -> None:
    target = tmp_path / "page.md"
    target.write_bytes(b"old\n")
    replace_file(target, b"new\n", mode=0o644)
    assert target.read_bytes() == b"new\n"
    assert target.stat().st_mode & 0o777 == 0o644
    replace_file(tmp_path / "fresh.json", b"{}")
    assert (tmp_path / "fresh.json").stat().st_mode & 0o777 == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fresh.json", "page.md"]
