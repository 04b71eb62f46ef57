"""Splitting sessions into shards and remembering their durations (fast, no builds)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from sphinx_jaxcheck.errors import ShardError
from sphinx_jaxcheck.model import Shard
from sphinx_jaxcheck.run.shards import load_durations, save_durations, split


def test_split_is_deterministic_and_balances_remembered_durations() -> None:
    sessions = [(f"doc{n}", "") for n in range(7)]
    by_count = split(sessions, {}, 3)
    assert sorted(Counter(by_count.values()).values()) == [2, 2, 3]
    assert split(list(reversed(sessions)), {}, 3) == by_count
    slow = {
        "doc0": 10.0,
        "doc1": 1.0,
        "doc2": 1.0,
        "doc3": 1.0,
        "doc4": 1.0,
        "doc5": 1.0,
        "doc6": 1.0,
    }
    timed = split(sessions, slow, 2)
    assert [key for key, shard in timed.items() if shard == timed[("doc0", "")]] == [("doc0", "")]
    # Unknown sessions weigh the mean of the known ones.
    partly = split([*sessions, ("new", "s")], slow, 2)
    assert sum(1 for shard in partly.values() if shard != partly[("doc0", "")]) == 7


def test_durations_are_remembered_atomically_and_merged(tmp_path: Path) -> None:
    save_durations(tmp_path, {"a": 1.23456})
    save_durations(tmp_path, {"b::s": 2.0})
    assert load_durations(tmp_path) == {"a": 1.235, "b::s": 2.0}
    assert [p.name for p in tmp_path.iterdir()] == ["durations.tsv"]
    (tmp_path / "durations.tsv").write_text("[broken")
    assert load_durations(tmp_path) == {}


def test_durations_as_remembered_are_not_written_again(tmp_path: Path) -> None:
    save_durations(tmp_path, {"a": 1.0, "b": 2.0})
    before = (tmp_path / "durations.tsv").stat().st_ino
    save_durations(tmp_path, {"b": 2.0})  # a fully cached build: the durations it knew
    assert (tmp_path / "durations.tsv").stat().st_ino == before
    save_durations(tmp_path, {"b": 3.0})  # a new file replaces the old one
    assert load_durations(tmp_path) == {"a": 1.0, "b": 3.0}


@pytest.mark.parametrize("text", ["0/3", "4/3", "1", "a/b", "1/0", ""])
def test_bad_shards_are_refused_with_the_expected_form(text: str) -> None:
    with pytest.raises(ShardError, match="K"):
        Shard.parse(text)
