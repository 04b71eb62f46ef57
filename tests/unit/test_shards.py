"""Splitting sessions into shards and remembering their durations (fast, no builds)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from sphinx_jaxcheck.errors import ShardError
from sphinx_jaxcheck.kinds import rules_of
from sphinx_jaxcheck.model import Shard
from sphinx_jaxcheck.report.merge import merge
from sphinx_jaxcheck.report.records import build_report
from sphinx_jaxcheck.run.shards import chooser, load_durations, save_durations, split


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


def test_a_shard_chooses_its_own_sessions_of_those_it_is_given() -> None:
    sessions = [(f"doc{n}", "") for n in range(5)]
    assignment = split(sessions, {}, 2)
    chosen = [chooser(assignment, k)(sessions) for k in (1, 2)]
    assert chosen[0] | chosen[1] == set(sessions) and not chosen[0] & chosen[1]
    assert chooser(assignment, 1)([*sessions[:2], ("unknown", "")]) <= set(sessions[:2])


def test_merged_shards_name_the_files_every_shard_depended_on() -> None:
    def shard(k: int, depended: dict[str, str]) -> tuple[str, dict]:
        run = {"shard": f"{k}/2", "split": "s", "jax": "0.10.2", "depended": depended}
        return f"{k}.json", dict(build_report([], [], kinds=rules_of, summary="", run=run))

    merged = merge([shard(1, {"b.txt": "2", "a.txt": "1"}), shard(2, {"a.txt": "1", "c.txt": "3"})])
    assert merged["run"]["depended"] == {"a.txt": "1", "b.txt": "2", "c.txt": "3"}
    assert merged["run"]["shard"] is None
