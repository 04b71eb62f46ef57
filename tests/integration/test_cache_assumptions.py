"""``jaxcheck_cache_assume``: a session that learned something the cache cannot follow (here a
child process, ``cat`` of a file) runs in every check, unless a setting names its document;
then it is reused, and every report says that this reuse stands on an assumption, not on
proof: a change to the file ``cat`` reads goes unseen until ``--no-cache``.

The block appends a line to a file each time it really runs, so "it ran" is observed in the
worker itself (appending reads nothing, so it is no input of the session).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from buildkit import (
    HTML,
    assert_configuration_error,
    jaxcheck,
    sphinx_build,
    write_project,
)

from sphinx_jaxcheck.cache.outcomes import OutcomeCache
from sphinx_jaxcheck.model import Outcome
from sphinx_jaxcheck.worker.dependencies import Dependencies

CAT = (
    "# Page\n\n```{{jaxcheck}}\nwith open({ran!r}, 'a') as log:\n    log.write('ran\\n')\n"
    "import subprocess\n"
    "print(subprocess.run(['cat', {read!r}], capture_output=True, text=True).stdout)\n\n"
    "# one\n```\n"
)
WHY = "the block started the program cat (subprocess.Popen), which the cache cannot follow"


def cat_project(top: Path, conf: str = "") -> tuple[Path, Path, Path]:
    """A project whose one page cats ``greeting.txt``: (root, greeting, run log)."""
    greeting, ran = top / "greeting.txt", top / "ran.txt"
    greeting.write_text("one", "utf-8")
    page = CAT.format(ran=str(ran), read=str(greeting))
    root = write_project(top / "docs", {"sub/page.md": page}, conf="jaxcheck_cache = True\n" + conf)
    return root, greeting, ran


def runs(ran: Path) -> int:
    return len(ran.read_text().splitlines()) if ran.exists() else 0


def check(root: Path, *options: str) -> dict[str, Any]:
    done = jaxcheck("check", root, "--format", "json", *options, cwd=root.parent)
    assert done.returncode in (0, 1), done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def statuses(report: dict[str, Any]) -> list[str]:
    return [block["status"] for block in report["blocks"]]


def test_a_session_the_cache_cannot_follow_runs_in_every_check_by_default(
    tmp_path: Path,
) -> None:
    root, _, ran = cat_project(tmp_path)
    for number in (1, 2):
        report = check(root)
        assert runs(ran) == number and statuses(report) == ["verified"]
        assert report["uncached"] == [["sub/page", f"docs/sub/page.md:4: {WHY}"]]
        assert report["assumed"] == []
        assert "by assumption" not in report["summary"]


@pytest.mark.parametrize("pattern", ["sub/page", "sub/*.md", "**/page.md"])
def test_a_document_the_setting_names_is_reused_and_every_report_names_the_assumption(
    tmp_path: Path, pattern: str
) -> None:
    root, greeting, ran = cat_project(tmp_path, f"jaxcheck_cache_assume = [{pattern!r}]\n")
    assumed = [["sub/page", f"docs/sub/page.md:4: {WHY}"]]
    said = (
        "; 1 session(s) cached by assumption, not proof (jaxcheck_cache_assume): a change to "
        "what they learned by a route the cache cannot follow does not run them again; the "
        f"first: docs/sub/page.md:4: {WHY}"
    )
    first = check(root)
    assert runs(ran) == 1 and statuses(first) == ["verified"]
    assert first["uncached"] == [] and first["assumed"] == assumed
    assert first["summary"].endswith(said)

    warm = check(root)
    assert runs(ran) == 1 and statuses(warm) == ["verified"]
    assert warm["assumed"] == assumed and warm["summary"].endswith(said)

    # The assumption: the file cat reads changes, and no check sees it but one without cache.
    greeting.write_text("two", "utf-8")
    assumed_still = check(root)
    assert runs(ran) == 1 and statuses(assumed_still) == ["verified"]
    assert assumed_still["assumed"] == assumed and assumed_still["summary"].endswith(said)
    # Every document read again: the session comes from the cache entry, by assumption too.
    reread = sphinx_build("-E", "-b", "html", root, root / "_build" / "html", cwd=root.parent)
    assert runs(ran) == 1 and reread.returncode == 0, reread.stderr
    assert said.removeprefix("; ") in reread.stdout
    assert "a session's result is cached by assumption (jaxcheck_cache_assume): " in reread.stdout

    fresh = check(root, "--no-cache")
    assert runs(ran) == 2 and statuses(fresh) == ["stale"]
    assert fresh["assumed"] == assumed  # stored again, by assumption


def test_without_the_setting_a_session_cached_by_assumption_runs_again(tmp_path: Path) -> None:
    root, _, ran = cat_project(tmp_path, "jaxcheck_cache_assume = ['sub/page']\n")
    check(root)
    assert runs(ran) == 1
    dropped = check(root, "-D", "jaxcheck_cache_assume=")
    assert runs(ran) == 2
    assert dropped["assumed"] == [] and dropped["uncached"] == [
        ["sub/page", f"docs/sub/page.md:4: {WHY}"]
    ]


def test_a_pattern_that_is_not_text_is_a_configuration_error(tmp_path: Path) -> None:
    root, _, ran = cat_project(tmp_path, "jaxcheck_cache_assume = ['ffi', 3]\n")
    done = sphinx_build(*HTML, root, tmp_path / "out")
    assert_configuration_error(
        done,
        "jaxcheck_cache_assume: the entry 3 (int) is not a pattern of documents",
        'expected e.g. jaxcheck_cache_assume = ["ffi", "notebooks/*.ipynb"]',
        os.fspath(root / "conf.py"),
    )
    assert runs(ran) == 0


def test_an_entry_stored_by_assumption_is_taken_only_when_assuming_and_checked_like_any(
    tmp_path: Path,
) -> None:
    cache = OutcomeCache(tmp_path / "cache")
    used = Dependencies(untracked=(WHY,))
    cache.put("k", [Outcome(stdout="one\n")], used)
    assert cache.get("k", assume=True) is None  # not by proof, and not assumed when stored
    cache.put("k", [Outcome(stdout="one\n")], used, {WHY: 0})
    assert cache.get("k") is None and cache.discarded == []  # kept for a check that assumes
    taken = cache.get("k", assume=True)
    assert taken is not None and taken.used.untracked == (WHY,) and taken.untracked_at == {WHY: 0}
    entry = tmp_path / "cache" / "k.json"
    data = json.loads(entry.read_text("utf-8"))
    data["untracked_at"] = {"another reason": 0}
    entry.write_text(json.dumps(data), "utf-8")
    assert cache.get("k", assume=True) is None
    assert cache.discarded == [
        (
            str(entry),
            "its content does not match its checksum (edited, or written by something else)",
        )
    ]
