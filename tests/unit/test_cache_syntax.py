"""The record of block code known to compile: what it keeps, what it ignores, per interpreter."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from sphinx_jaxcheck.cache.size import clear
from sphinx_jaxcheck.cache.syntax import (
    code_digest,
    known_to_compile,
    record_path,
    remember_compiled,
)


def test_remembered_digests_are_known_and_an_unchanged_record_is_not_written(
    tmp_path: Path,
) -> None:
    first, second = code_digest("x = 1\n"), code_digest("y = 2\n")
    assert known_to_compile(tmp_path) == frozenset()
    remember_compiled(tmp_path, [first])
    remember_compiled(tmp_path, [second, first])
    assert known_to_compile(tmp_path) == {first, second}
    record = Path(record_path(tmp_path))
    before = record.stat().st_mtime_ns
    remember_compiled(tmp_path, [first, second])
    assert record.stat().st_mtime_ns == before


def test_the_digest_is_of_the_exact_text(tmp_path: Path) -> None:
    assert code_digest("x = 1\n") != code_digest("x = 1 \n")
    assert code_digest("x = 1\n") != code_digest("x = 1\r\n")
    assert code_digest("s = '\udc80'\n")  # a lone surrogate (undecodable bytes) is digested


def test_damaged_lines_match_nothing(tmp_path: Path) -> None:
    good = code_digest("x = 1\n")
    record = Path(record_path(tmp_path))
    record.parent.mkdir(parents=True)
    record.write_bytes(f"{good}\n{good[:-1]}\n{good.upper()}\nnot a digest\n\xff\n".encode())
    assert known_to_compile(tmp_path) == {good}
    remember_compiled(tmp_path, ["not a digest"])
    assert known_to_compile(tmp_path) == {good}


def test_another_interpreter_build_has_its_own_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    digest = code_digest("match x:\n    case 1:\n        pass\n")
    remember_compiled(tmp_path, [digest])
    monkeypatch.setattr(sys, "version", sys.version + " (another build)")
    assert known_to_compile(tmp_path) == frozenset()


def test_clearing_the_cache_removes_the_record(tmp_path: Path) -> None:
    remember_compiled(tmp_path, [code_digest("x = 1\n")])
    clear(tmp_path)
    assert not Path(record_path(tmp_path)).exists()
