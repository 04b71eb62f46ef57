"""Green is proof: after a change to anything a block learned the world from, a warm check
fails as a ``--no-cache`` check does.

One project holds a page per route a block may learn by (a folder listed, a
failed open, a child process, an existence test and a size, a database, a
file opened ``"r+"``, a module ``sitecustomize`` imported before any session).
It is checked once, everything the pages learned from changes, and then a warm
check and a ``--no-cache`` check must both report every page's drift. Routes the
recorder cannot follow (a child process, a database) make their session run in
every build, and the summary says so at the block.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest
from buildkit import jaxcheck, write_project

# The pages, each a block that prints what it learned: name, code (W is the world folder).
ROUTES = {
    "listing": "import os\nprint(sorted(os.listdir(W + '/listing')))\n\n# ['a.txt']\n",
    "failed_open": (
        "try:\n    print(open(W + '/later.txt').read())\nexcept FileNotFoundError:\n"
        "    print('absent')\n\n# absent\n"
    ),
    "child_process": (
        "import subprocess\n"
        "print(subprocess.run(['cat', W + '/cat.txt'], capture_output=True, text=True).stdout)"
        "\n\n# one\n"
    ),
    "exists": "import os.path\nprint(os.path.exists(W + '/probe.txt'))\n\n# False\n",
    "size": "import os.path\nprint(os.path.getsize(W + '/sized.txt'))\n\n# 3\n",
    "database": (
        "import sqlite3\nwith sqlite3.connect(W + '/db.sqlite') as db:\n"
        "    print(db.execute('select v from t').fetchone()[0])\n\n# 1\n"
    ),
    "read_write_open": "with open(W + '/rplus.txt', 'r+') as f:\n    print(f.read())\n\n# one\n",
    "preloaded_module": "import preloaded\nprint(preloaded.NAME)\n\n# one\n",
}


def make_world(world: Path) -> None:
    (world / "listing").mkdir(parents=True)
    (world / "listing" / "a.txt").write_text("a", "utf-8")
    (world / "cat.txt").write_text("one", "utf-8")
    (world / "sized.txt").write_text("abc", "utf-8")
    (world / "rplus.txt").write_text("one", "utf-8")
    with sqlite3.connect(world / "db.sqlite") as db:
        db.execute("create table t (v integer)")
        db.execute("insert into t values (1)")
    (world / "site").mkdir()
    (world / "site" / "sitecustomize.py").write_text("import preloaded\n", "utf-8")
    (world / "site" / "preloaded.py").write_text("NAME = 'one'\n", "utf-8")


def change_world(world: Path) -> None:
    (world / "listing" / "b.txt").write_text("b", "utf-8")
    (world / "later.txt").write_text("present", "utf-8")
    (world / "cat.txt").write_text("two", "utf-8")
    (world / "probe.txt").write_text("", "utf-8")
    (world / "sized.txt").write_text("abcde", "utf-8")
    (world / "rplus.txt").write_text("two", "utf-8")
    with sqlite3.connect(world / "db.sqlite") as db:
        db.execute("update t set v = 2")
    (world / "site" / "preloaded.py").write_text("NAME = 'two'\n", "utf-8")


@dataclass(frozen=True)
class Checks:
    root: Path
    first: subprocess.CompletedProcess[str]
    warm: subprocess.CompletedProcess[str]
    no_cache: subprocess.CompletedProcess[str]

    @staticmethod
    def stale(done: subprocess.CompletedProcess[str]) -> set[str]:
        """The documents with a stale block, from the JSON report."""
        report = json.loads(done.stdout)
        return {b["document"] for b in report["blocks"] if b["status"] == "stale"}


@pytest.fixture(scope="module")
def checks(tmp_path_factory: pytest.TempPathFactory) -> Checks:
    top = tmp_path_factory.mktemp("routes")
    world = top / "world"
    make_world(world)
    pages = {
        f"{name}.md": f"# {name}\n\n```{{jaxcheck}}\nW = {str(world)!r}\n{code}```\n"
        for name, code in ROUTES.items()
    }
    conf = (
        "jaxcheck_cache = True\n"
        f'jaxcheck_env = {{"JAX_PLATFORMS": "cpu", "PYTHONPATH": {str(world / "site")!r}}}\n'
    )
    root = write_project(top / "docs", pages, conf=conf)
    first = jaxcheck("check", root, "--format", "json")
    change_world(world)
    warm = jaxcheck("check", root, "--format", "json")
    no_cache = jaxcheck("check", root, "--format", "json", "--no-cache")
    return Checks(root, first, warm, no_cache)


def test_every_route_is_verified_at_first(checks: Checks) -> None:
    assert checks.first.returncode == 0, checks.first.stdout + checks.first.stderr


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_a_warm_check_fails_as_no_cache_does_after_a_change(checks: Checks, route: str) -> None:
    assert route in Checks.stale(checks.no_cache), checks.no_cache.stderr
    assert route in Checks.stale(checks.warm), checks.warm.stderr


def test_routes_the_recorder_cannot_follow_run_uncached_and_the_summary_says_where(
    checks: Checks,
) -> None:
    """A child process and a database are not followed: their sessions are not cached, and
    the summary counts them and names the first reason at its block."""
    report = json.loads(checks.first.stdout)
    at = {doc: os.path.relpath(checks.root / f"{doc}.md") + ":4" for doc in ROUTES}
    assert report["uncached"] == [
        [
            "child_process",
            f"{at['child_process']}: the block started the program cat (subprocess.Popen), "
            "which the cache cannot follow",
        ],
        [
            "database",
            f"{at['database']}: the block opened the SQLite database "
            f"{checks.root.parent / 'world' / 'db.sqlite'} (sqlite3.connect), which the cache "
            "cannot follow",
        ],
    ]
    assert report["summary"].endswith(
        "; 2 session(s) ran but were not cached, so the next build runs them again; the first: "
        + report["uncached"][0][1]
    )
