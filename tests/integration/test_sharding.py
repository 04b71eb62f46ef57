"""``jaxcheck check --shard K/N`` and ``jaxcheck merge``: shards run every session once,
merge equals a full run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from buildkit import copy_root, jaxcheck, jaxcheck_here, write_project

from sphinx_jaxcheck.cli import main
from sphinx_jaxcheck.run.shards import load_durations

LOGGED = """\
:orphan:

Logged {name}
=========

.. jaxcheck::

   open({log!r}, "a").write("{name}\\n")

.. jaxcheck::
   :session: second

   open({log!r}, "a").write("{name}::second\\n")
"""


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The stale conformance corpus plus pages whose sessions log each run: one full run, then
    3 shards."""
    root = tmp_path_factory.mktemp("sharded")
    docs = copy_root("conformance-stale", root)
    log = root / "sessions.log"
    for name in ("alpha", "beta", "gamma"):
        (docs / f"{name}.rst").write_text(LOGGED.format(name=name, log=str(log)), "utf-8")
    docs.rename(root / "docs")
    full = jaxcheck_here(
        "check", "docs", "--no-cache", "--format", "json", "--junit", "full.xml", cwd=root
    )
    logged_full = log.read_text().splitlines()
    log.unlink()
    shards = []
    for k in (1, 2, 3):
        shards.append(
            jaxcheck_here(
                "check", "docs", "--no-cache", "--shard", f"{k}/3", "--format", "json", cwd=root
            )
        )
        (root / f"shard{k}.json").write_text(shards[-1].stdout, "utf-8")
    return {
        "root": root,
        "full": full,
        "shards": shards,
        "logged_full": logged_full,
        "logged_shards": log.read_text().splitlines(),
    }


def test_three_shards_run_every_session_exactly_once(runs: dict[str, Any]) -> None:
    sessions = ["alpha", "alpha::second", "beta", "beta::second", "gamma", "gamma::second"]
    assert sorted(runs["logged_full"]) == sessions
    assert sorted(runs["logged_shards"]) == sessions  # each once, over the three shards
    reports = [json.loads(shard.stdout) for shard in runs["shards"]]
    for position in range(len(reports[0]["blocks"])):
        statuses = [report["blocks"][position]["status"] for report in reports]
        assert sum(status != "other-shard" for status in statuses) == 1, statuses
    assert all(report["run"]["shard"] == f"{k}/3" for k, report in enumerate(reports, 1))
    assert len({report["run"]["split"] for report in reports}) == 1


def test_merged_shards_report_what_one_full_run_reports(runs: dict[str, Any]) -> None:
    root = runs["root"]
    full = json.loads(runs["full"].stdout)
    assert runs["full"].returncode == 1 and len(full["findings"]) == 6
    merged_json = jaxcheck_here(
        "merge",
        "shard1.json",
        "shard2.json",
        "shard3.json",
        "--format",
        "json",
        "--junit",
        "merged.xml",
        cwd=root,
    )
    assert merged_json.returncode == runs["full"].returncode, merged_json.stderr
    merged = json.loads(merged_json.stdout)
    assert [(b["document"], b["name"], b["status"]) for b in merged["blocks"]] == [
        (b["document"], b["name"], b["status"]) for b in full["blocks"]
    ]
    assert merged["findings"] == full["findings"]
    assert merged["examples"] == full["examples"] and full["examples"]
    assert merged["summary"] == full["summary"]
    assert merged["run"] == full["run"]
    assert "other-shard" not in {b["status"] for b in merged["blocks"]}
    durations = jaxcheck_here(
        "merge", "shard1.json", "shard2.json", "shard3.json", "--durations", "cache", cwd=root
    )
    assert durations.returncode == 1
    assert set(load_durations(root / "cache")) == {
        "forms_md",
        "forms_md::other",
        "forms_rst",
        *(f"{n}{s}" for n in ("alpha", "beta", "gamma") for s in ("", "::second")),
    }

    def cases(name: str) -> list[tuple[str | None, ...]]:
        suite = ElementTree.parse(root / name).getroot()
        return [(c.get("classname"), c.get("name"), *(f.text for f in c)) for c in suite] + [
            (suite.get("tests"), suite.get("failures"), suite.get("skipped"))
        ]

    assert cases("merged.xml") == cases("full.xml")
    # The text a full run prints, from the shards (in another order too).
    for style in ("text", "github"):
        text = jaxcheck_here(
            "merge", "shard3.json", "shard1.json", "shard2.json", "--format", style, cwd=root
        )
        again = jaxcheck_here("check", "docs", "--format", style, cwd=root)
        assert text.stdout == again.stdout and text.returncode == again.returncode == 1


def test_a_shard_fails_only_on_its_own_blocks(runs: dict[str, Any]) -> None:
    for shard in runs["shards"]:
        report = json.loads(shard.stdout)
        own = {(b["document"], b["name"]) for b in report["blocks"] if b["status"] != "other-shard"}
        assert all((f["document"], f["block"]) in own for f in report["findings"] if f["block"])
        assert shard.returncode == (1 if report["findings"] else 0)
    assert sorted(shard.returncode for shard in runs["shards"]) != [0, 0, 0]


def refuse(capsys: pytest.CaptureFixture[str], *files: Path) -> str:
    assert main(["merge", *map(str, files)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


def test_merge_refuses_reports_that_do_not_belong_together(
    runs: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = runs["root"]
    one, two, three = (root / f"shard{k}.json" for k in (1, 2, 3))

    def edited(name: str, **run: Any) -> Path:
        report = json.loads(three.read_text())
        report["run"].update(run)
        target = tmp_path / name
        target.write_text(json.dumps(report))
        return target

    assert "different JAX versions" in refuse(capsys, one, two, edited("jax.json", jax="0.4.30"))
    assert "different documents" in refuse(
        capsys, one, two, edited("docs.json", documents="0" * 16)
    )
    assert "different configurations" in refuse(
        capsys, one, two, edited("conf.json", configuration="x")
    )
    assert "split the sessions differently" in refuse(
        capsys, one, two, edited("split.json", split="y")
    )
    assert "shard 3/3 is missing" in refuse(capsys, one, two)
    assert "are both shard 2/3" in refuse(capsys, one, two, two)
    assert "not the report of a shard" in refuse(capsys, one, two, edited("full.json", shard=None))
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")
    assert f"{garbage}: not a JSON report" in refuse(capsys, one, garbage)
    assert "cannot read it" in refuse(capsys, one, tmp_path / "absent.json")


def test_a_sharded_html_build_marks_the_blocks_of_other_shards(tmp_path: Path) -> None:
    from buildkit import build

    srcdir = copy_root("conformance-fresh", tmp_path)
    result = build(srcdir, jaxcheck_shard="2/2", jaxcheck_cache=False)
    assert result.status == 0, result.warnings
    assert "on other shards" in result.log
    pages = [
        (srcdir / "_build" / "html" / f"{name}.html").read_text("utf-8")
        for name in ("forms_md", "forms_rst")
    ]
    assert sum(page.count("checked on another shard") for page in pages) > 0
    assert sum(page.count("jaxcheck-other-shard") for page in pages) > 0
    assert sum(page.count("jaxcheck-status-verified") for page in pages) > 0


def plain_env(**colour: str) -> dict[str, str]:
    """This process's environment without colour settings, then ``colour``."""
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR")}
    return {**env, **colour}


def merged_on_a_terminal(root: Path, *args: str, env: dict[str, str]) -> str:
    """What ``jaxcheck merge ARGS`` prints with its standard output on a terminal."""
    leader, follower = os.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "sphinx_jaxcheck", "merge", *args],
        stdout=follower,
        stderr=subprocess.DEVNULL,
        cwd=root,
        env=env,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 1 << 16)
        except OSError:  # EIO: the terminal's other end closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert process.wait(timeout=60) == 1
    return b"".join(chunks).decode()


def test_merge_colours_as_check_does_no_color_then_force_color_then_the_terminal(
    runs: dict[str, Any],
) -> None:
    root, shards = runs["root"], ("shard1.json", "shard2.json", "shard3.json")
    terminal = merged_on_a_terminal(root, *shards, env=plain_env())
    assert "\x1b[31m-" in terminal and "\x1b[32m+" in terminal  # the diffs, coloured
    assert "\x1b[" not in merged_on_a_terminal(root, *shards, env=plain_env(NO_COLOR="1"))
    forced = jaxcheck("merge", *shards, cwd=root, env=plain_env(FORCE_COLOR="1"))
    assert forced.returncode == 1 and "\x1b[32m+" in forced.stdout  # though not a terminal
    piped = jaxcheck("merge", *shards, cwd=root, env=plain_env())
    assert piped.returncode == 1 and "\x1b[" not in piped.stdout
    both = jaxcheck("merge", *shards, cwd=root, env=plain_env(NO_COLOR="1", FORCE_COLOR="1"))
    assert "\x1b[" not in both.stdout


FAILING = {
    "fine.md": "# Fine\n\n```{jaxcheck}\nprint(1 + 1)\n\n# 2\n```\n",
    "boom.md": "# Boom\n\n```{jaxcheck}\nraise RuntimeError('boom')\n```\n",
}


def test_merge_fails_on_a_block_that_raised_in_one_shard_without_any_drift(
    tmp_path: Path,
) -> None:
    write_project(tmp_path / "docs", FAILING)
    shards = []
    for k in (1, 2):
        shard = jaxcheck_here(
            "check", "docs", "--shard", f"{k}/2", "--format", "json", cwd=tmp_path
        )
        (tmp_path / f"shard{k}.json").write_text(shard.stdout, "utf-8")
        shards.append(shard.returncode)
    assert sorted(shards) == [0, 1]  # the raising block is in one shard only
    for style in ("text", "json", "github"):
        merged = jaxcheck_here(
            "merge", "shard1.json", "shard2.json", "--format", style, cwd=tmp_path
        )
        assert merged.returncode == 1, (style, merged.stdout, merged.stderr)
        if style == "json":
            findings = json.loads(merged.stdout)["findings"]
            assert [(f["document"], f["subtype"]) for f in findings] == [("boom", "error")]
            assert not any(f["drift"] for f in findings)


TWO_PAGES = {
    "one.md": "# One\n\n```{jaxcheck}\nprint(1)\n\n# 1\n```\n",
    "two.md": "# Two\n\n```{jaxcheck}\nprint(2)\n\n# 2\n```\n",
}


def shard_report(root: Path, shard: str, build_dir: str) -> tuple[int, dict[str, Any]]:
    """``jaxcheck check docs --shard K/N`` in ``build_dir``: its exit status and JSON report."""
    done = jaxcheck_here(
        "check", "docs", "--shard", shard, "--build-dir", build_dir, "--format", "json", cwd=root
    )
    (root / f"{build_dir}.json").write_text(done.stdout, "utf-8")
    return done.returncode, json.loads(done.stdout)


def owner_of(document: str, reports: list[dict[str, Any]]) -> list[int]:
    """The shards (1-based) whose report checked the blocks of ``document``."""
    return [
        number
        for number, report in enumerate(reports, 1)
        if any(b["document"] == document and b["status"] != "other-shard" for b in report["blocks"])
    ]


def shown(report: dict[str, Any]) -> list[tuple[str, str, str]]:
    """What a shard report says of each block: document, name, status."""
    return [(b["document"], b["name"], b["status"]) for b in report["blocks"]]


def test_merge_refuses_shards_of_two_versions_of_a_block_with_the_same_name_and_line(
    tmp_path: Path,
) -> None:
    root = write_project(tmp_path / "docs", TWO_PAGES).parent
    first = shard_report(root, "1/2", "first")[1]
    mine = "one" if owner_of("one", [first]) else "two"
    # The block of the first shard now drifts, on the same line, under the same name.
    page = root / "docs" / f"{mine}.md"
    page.write_text(page.read_text().replace("print(", "print(10 * "))
    assert shard_report(root, "2/2", "second")[0] == 0
    merged = jaxcheck_here("merge", "first.json", "second.json", cwd=root)
    assert merged.returncode == 2, merged.stdout
    assert "different documents (the docs changed between the shards?)" in merged.stderr


def test_a_shard_run_again_on_a_kept_build_folder_splits_every_session_as_a_fresh_run(
    tmp_path: Path,
) -> None:
    root = write_project(tmp_path / "docs", TWO_PAGES, conf="jaxcheck_cache = True\n").parent
    fresh = [shard_report(root, f"{k}/2", f"fresh{k}")[1] for k in (1, 2)]
    edited = "one" if owner_of("one", fresh) == [2] else "two"
    assert owner_of(edited, fresh) == [2]
    page = root / "docs" / f"{edited}.md"
    page.write_text(page.read_text().replace("print(", "print(10 * "))
    # Shard 1 on a new machine; shard 2 where it ran before, which re-reads the edited page only.
    (status1, one), (status2, two) = (
        shard_report(root, "1/2", "new1"),
        shard_report(root, "2/2", "fresh2"),
    )
    assert owner_of(edited, [one, two]) == [2] and (status1, status2) == (0, 1)
    merged = jaxcheck_here("merge", "new1.json", "fresh2.json", cwd=root)
    assert merged.returncode == 1, merged.stderr
    assert "1 stale" in merged.stdout and "1 verified" in merged.stdout
    # A new page changes the split of the pages before it: kept verdicts follow the new split.
    (root / "docs" / "three.md").write_text("# Three\n\n```{jaxcheck}\nprint(3)\n\n# 3\n```\n")
    index = root / "docs" / "index.rst"
    index.write_text(index.read_text() + "   three\n")
    again = [shard_report(root, f"{k}/2", f"fresh{k}")[1] for k in (1, 2)]
    anew = [shard_report(root, f"{k}/2", f"anew{k}")[1] for k in (1, 2)]
    for document in ("one", "two", "three"):
        assert (
            owner_of(document, again) == owner_of(document, anew)
            and len(owner_of(document, anew)) == 1
        )
    assert [shown(r) for r in again] == [shown(r) for r in anew]
    merged = jaxcheck_here("merge", "fresh1.json", "fresh2.json", cwd=root)
    assert merged.returncode == 1 and "1 stale" in merged.stdout and "2 verified" in merged.stdout


def test_a_block_skipped_for_the_running_jax_is_reported_by_its_own_shard_only(
    tmp_path: Path,
) -> None:
    pages = {
        **TWO_PAGES,
        "old.md": "# Old\n\n```{jaxcheck}\n:jax-version: <0.1\nprint(0)\n\n# 0\n```\n",
    }
    root = write_project(tmp_path / "docs", pages).parent
    reports = [shard_report(root, f"{k}/2", f"shard{k}")[1] for k in (1, 2)]
    assert len(owner_of("old", reports)) == 1
    merged = jaxcheck_here("merge", "shard1.json", "shard2.json", "--format", "json", cwd=root)
    assert merged.returncode == 0, merged.stderr
    assert [b["status"] for b in json.loads(merged.stdout)["blocks"]] == [
        "skipped",
        "verified",
        "verified",
    ]


def test_merged_shards_say_which_sessions_could_not_be_cached(tmp_path: Path) -> None:
    """A session that changes a file it imported is not cached; merging the shards' reports
    keeps the reason, as the summary of one full run gives it."""
    changing = (
        "```{jaxcheck}\nimport helper\nprint(helper.NAME)\n"
        "open(helper.__file__, 'a').write('#\\n')\n\n# one\n```\n"
    )
    pages = {"changing.md": changing, "helper.py": "NAME = 'one'\n"}
    pages |= {f"plain{n}.md": f"```{{jaxcheck}}\nprint({n})\n\n# {n}\n```\n" for n in range(3)}
    root = write_project(tmp_path / "docs", pages, conf="jaxcheck_cache = True\n")
    full = jaxcheck_here("check", root, "--format", "json")
    assert full.returncode == 0, full.stderr
    whole = json.loads(full.stdout)
    assert whole["uncached"] == [
        [
            "changing",
            f"{os.path.relpath(root / 'changing.md')}:2: {root / 'helper.py'} changed while the "
            "session ran",
        ]
    ]
    reports = []
    for k in (1, 2):
        shard = jaxcheck_here("check", root, "--shard", f"{k}/2", "--format", "json")
        (tmp_path / f"shard{k}.json").write_text(shard.stdout, "utf-8")
        reports.append(tmp_path / f"shard{k}.json")
    merged = json.loads(jaxcheck_here("merge", *reports, "--format", "json").stdout)
    assert merged["uncached"] == whole["uncached"]
    assert merged["summary"] == whole["summary"] and "not cached" in merged["summary"]


HELPER_PAGE = (
    "# {name}\n\n```{{jaxcheck}}\nimport helper\n\nprint(helper.VALUE)\n\n# {value}\n```\n"
)


def test_merge_refuses_shards_run_on_two_states_of_a_file_their_sessions_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each shard green in its own state of helper.py, the whole project red in either: the
    merge names the file instead of passing."""
    pages = {"one.md": HELPER_PAGE.format(name="one", value=1)}
    pages["two.md"] = HELPER_PAGE.format(name="two", value=2)
    root = write_project(tmp_path / "docs", pages, conf="jaxcheck_cache = True\n")
    helper = root / "helper.py"
    for k in (1, 2):
        helper.write_text("VALUE = 0\n", "utf-8")  # which page is this shard's?
        probe = jaxcheck_here("check", root, "--shard", f"{k}/2", "--format", "json")
        (mine,) = [b for b in json.loads(probe.stdout)["blocks"] if b["status"] != "other-shard"]
        value = 1 if mine["document"] == "one" else 2
        helper.write_text(f"VALUE = {value}\n" + "#" * k, "utf-8")  # another size: a change
        done = jaxcheck_here("check", root, "--shard", f"{k}/2", "--format", "json")
        assert done.returncode == 0, done.stdout
        (tmp_path / f"shard{k}.json").write_text(done.stdout)
    said = refuse(capsys, tmp_path / "shard1.json", tmp_path / "shard2.json")
    assert f"were made with different contents of {helper}" in said
