"""The command line, ``jaxcheck check PATH...``, and the ``jaxcheck`` builder it runs
(``sphinx-build -M jaxcheck``).

Which pages a path names, usage errors (exit status 2), the build folder, the
version, progress on a terminal, and the reports: GitHub annotations, JSON, JUnit.
"""

from __future__ import annotations

import filecmp
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest
from buildkit import ROOTS, build, copy_root, jaxcheck, sphinx_build, write_project
from corpus import STALE_BLOCKS, STALE_DRIFTS

from sphinx_jaxcheck import cli
from sphinx_jaxcheck.config import VALUES
from sphinx_jaxcheck.sphinx.checking import progress
from sphinx_jaxcheck.sphinx.settings import settings_of

GOOD = "# Good\n\n```{jaxcheck}\nprint(2 * 3)\n\n# 6\n```\n"
BAD = "# Bad\n\n```{jaxcheck}\nprint(2 + 2)\n\n# 5\n```\n"
CACHED = "jaxcheck_cache = True\n"


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("builder") / "docs"
    return write_project(root, {"good.md": GOOD, "bad.md": BAD}, conf=CACHED)


@pytest.mark.stack
def test_make_mode_runs_every_check_and_writes_no_page(project: Path) -> None:
    done = sphinx_build("-M", "jaxcheck", ".", str(project.parent / "out"), cwd=project)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "bad.md:6: WARNING: block 'bad[1]'" in done.stderr
    assert "jaxcheck: 2 block(s): 1 verified, 1 stale, 0 failed" in done.stdout
    written = [p.name for p in (project.parent / "out" / "jaxcheck").rglob("*") if p.is_file()]
    assert written == []


@pytest.mark.stack
def test_check_of_pages_checks_and_reports_only_those(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project)
    assert cli.main(["check", "good.md"]) == 0
    out = capsys.readouterr().out
    assert "jaxcheck: 1 block(s): 1 verified, 0 stale, 0 failed" in out
    assert cli.main(["check", "good.md", "bad.md"]) == 1
    assert "bad.md:6: drift" in capsys.readouterr().out
    assert cli.main(["check"]) == 1  # the whole project again, from the same doctrees


def test_pages_are_found_from_a_folder_below_the_project(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_project(tmp_path / "docs", {"api/good.md": GOOD, "bad.md": BAD}, conf=CACHED)
    assert cli.main(["check", str(root / "api" / "good.md")]) == 0
    assert "1 block(s): 1 verified" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("paths", "words"),
    [
        (["missing.md"], "missing.md: no such file or folder"),
        (["elsewhere/page.md"], "no conf.py in the folders above it"),
        (["docs/good.md", "elsewhere/other/good.md"], "belong to different projects"),
        (["docs", "docs/good.md"], "give one source folder, or pages of one project, not both"),
        (["elsewhere"], "elsewhere: no conf.py there"),
        (["."], "docs/conf.py is one level down: `jaxcheck check docs`"),
        (["docs/notes.txt"], "not a document of the project"),
    ],
)
def test_paths_that_name_no_document_are_a_usage_error(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    paths: list[str],
    words: str,
) -> None:
    write_project(tmp_path / "docs", {"good.md": GOOD, "notes.txt": "not a page"})
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "page.md").write_text(GOOD)
    write_project(tmp_path / "elsewhere" / "other", {"good.md": GOOD})
    monkeypatch.chdir(tmp_path)
    assert cli.main(["check", *paths]) == 2
    err = capsys.readouterr().err
    assert words in err and err.startswith("jaxcheck: ") and "Traceback" not in err


def test_build_dir_option_keeps_the_source_folder_as_it_was(tmp_path: Path) -> None:
    root = write_project(tmp_path / "docs", {"good.md": GOOD})
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    assert cli.main(["check", str(root), "--build-dir", str(tmp_path / "elsewhere")]) == 0
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before
    assert (tmp_path / "elsewhere" / "doctrees" / "environment.pickle").is_file()


def test_default_build_dir_is_ignored_by_git(tmp_path: Path) -> None:
    root = write_project(tmp_path / "docs", {"good.md": GOOD})
    git = ["git", "-c", "user.name=n", "-c", "user.email=n@example.org"]
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "docs"], cwd=root, check=True)
    assert cli.main(["check", str(root)]) == 0
    assert (root / "_build" / "jaxcheck" / "doctrees").is_dir()
    status = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    assert status.stdout == ""


def test_progress_on_a_terminal_overwrites_its_line_and_then_ends_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_project(
        tmp_path / "docs", {"good.md": GOOD, "more.md": GOOD.replace("Good", "More")}
    )
    leader, follower = os.openpty()
    with capsys.disabled(), open(follower, "w") as terminal:
        monkeypatch.setattr(sys, "stderr", terminal)
        monkeypatch.setenv(
            "FORCE_COLOR", "1"
        )  # Sphinx's display overwrites its line, as on a terminal
        assert cli.main(["check", str(root), "-j", "2"]) == 0
        monkeypatch.undo()
    os.set_blocking(leader, False)
    shown = os.read(leader, 1 << 16).decode().replace("\r\n", "\n")
    os.close(leader)
    clear = "\x1b[2K"
    assert shown == (
        # Sphinx's own reading bar, the only progress of reading on a terminal.
        f"{clear}reading sources... [ 33%] good\r"
        f"{clear}reading sources... [ 67%] index\r"
        f"{clear}reading sources... [100%] more\r\n"
        f"{clear}jaxcheck: running 2 of 2 block(s) (2 document(s), up to 2 worker(s))\n"
        f"{clear}jaxcheck: running blocks... [ 50%] 1/2\r"
        f"{clear}jaxcheck: running blocks... [100%] 2/2\r\n"
    )


def test_progress_in_a_log_is_one_line_per_stage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_project(
        tmp_path / "docs", {"good.md": GOOD, "more.md": GOOD.replace("Good", "More")}
    )
    assert cli.main(["check", str(root), "-j", "2"]) == 0
    assert capsys.readouterr().err == (
        "jaxcheck: running 2 of 2 block(s) (2 document(s), up to 2 worker(s))\n"
        "jaxcheck: running blocks... [100%] 2/2\n"
    )


def test_progress_in_a_log_has_a_line_at_least_every_interval_while_blocks_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(progress, "LOG_EVERY", 0.05)  # 30 s, in a CI log
    slow = "# Slow\n\n```{jaxcheck}\nimport time\n\ntime.sleep(1)\nprint(6)\n\n# 6\n```\n"
    root = write_project(tmp_path / "docs", {"slow.md": slow})
    assert cli.main(["check", str(root), "-j", "1"]) == 0
    # Reading, at such an interval, may have lines of its own first.
    lines = [
        line
        for line in capsys.readouterr().err.splitlines()
        if not line.startswith("jaxcheck: reading documents... ")
    ]
    assert lines[0] == "jaxcheck: running 1 of 1 block(s) (1 document(s), up to 1 worker(s))"
    assert lines[-1] == "jaxcheck: running blocks... [100%] 1/1"
    between = lines[1:-1]
    assert between, lines
    for line in between:
        assert re.fullmatch(r"jaxcheck: running blocks\.\.\. \[  0%\] 0/1, \d+ s", line), line


def test_check_reports_as_github_annotations_json_and_junit(tmp_path: Path) -> None:
    stale = copy_root("conformance-stale", tmp_path)
    junit = tmp_path / "junit.xml"
    github = jaxcheck("check", str(stale), "--format", "github", "--junit", str(junit))
    assert github.returncode == 1
    annotations = []
    for line in github.stdout.splitlines():
        if line.startswith("::"):
            found = re.fullmatch(r"::error file=(.+?),line=(\d+),title=jaxcheck drift::(.*)", line)
            assert found, line
            text = found[3].replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")
            annotations.append((Path(found[1]).name, int(found[2]), text.splitlines()))
    assert [(name, line, text[0]) for name, line, text in annotations] == [
        (name, line, f"block {block!r}: {what}") for name, line, block, what, _ in STALE_DRIFTS
    ]
    for (_, _, text), (*_, added) in zip(annotations, STALE_DRIFTS, strict=True):
        assert text[1:3] == ["--- expected", "+++ actual"] and added in text, text

    report = json.loads(jaxcheck("check", str(stale), "--format", "json").stdout)
    assert [(Path(f["path"]).name, f["line"]) for f in report["findings"]] == [
        (n, line) for n, line, *_ in STALE_DRIFTS
    ]
    assert [
        (Path(b["path"]).stem, b["name"], b["line"], b["status"]) for b in report["blocks"]
    ] == STALE_BLOCKS

    suite = ElementTree.parse(junit).getroot()
    assert (
        suite.get("tests") == "18" and suite.get("failures") == "6" and suite.get("skipped") == "1"
    )
    cases = []
    for case in suite.iter("testcase"):
        failure, skipped = case.find("failure"), case.find("skipped")
        outcome = (
            failure.get("type")
            if failure is not None
            else "skipped"
            if skipped is not None
            else "passed"
        )
        cases.append((case.get("classname"), case.get("name"), int(case.get("line", "0")), outcome))
        assert (
            Path(case.get("file", "")).name
            == f"{case.get('classname')}.{'md' if case.get('name', '').startswith('md') else 'rst'}"
        )
        if failure is not None:
            (drift,) = [d for d in STALE_DRIFTS if d[2] == case.get("name")]
            assert failure.get("message") == f"block {drift[2]!r}: {drift[3]}"
            assert drift[4] in (failure.text or "").splitlines()
    assert cases == [
        (document, name, line, {"stale": "drift", "skipped": "skipped"}.get(status, "passed"))
        for document, name, line, status in STALE_BLOCKS
    ]


def test_usage_and_configuration_errors_exit_with_status_two(tmp_path: Path) -> None:
    assert jaxcheck("check", str(tmp_path)).returncode == 2  # no conf.py
    assert jaxcheck("frobnicate").returncode == 2
    root = write_project(
        tmp_path / "p", {"a.md": "# A\n"}, conf="jaxcheck_on_drift = 'sometimes'\n"
    )
    result = jaxcheck("check", str(root))
    assert result.returncode == 2
    assert "jaxcheck_on_drift = 'sometimes' is not one of error, warning, ignore" in result.stderr


@pytest.mark.stack
def test_check_writes_no_html(tmp_path: Path) -> None:
    fresh = copy_root("conformance-fresh", tmp_path)
    assert jaxcheck("check", str(fresh)).returncode == 0
    assert not list(fresh.rglob("*.html"))
    assert filecmp.cmp(
        fresh / "forms_md.md", ROOTS / "test-conformance-fresh" / "forms_md.md", shallow=False
    )


# A module whose one docstring example is stale, checked through jaxcheck_doctest_modules.
STALE_DOCSTRING = '"""A module.\n\n>>> 1 + 1\n3\n"""\n'


# Sphinx turns the empty -D value into a list (-m stack: how differs between releases); that
# jaxcheck check hands it to Sphinx as sphinx-build does is the same on every stack.
@pytest.mark.parametrize(
    "tool", ["jaxcheck check", pytest.param("sphinx-build", marks=pytest.mark.stack)]
)
def test_an_empty_minus_d_list_turns_the_docstring_examples_off(tmp_path: Path, tool: str) -> None:
    conf = (
        "import os, sys\n"
        "sys.path.insert(0, os.path.abspath('.'))\n"
        'jaxcheck_doctest_modules = ["stalemod"]\n'
    )
    root = write_project(tmp_path / "docs", {"good.md": GOOD}, conf=conf)
    (root / "stalemod.py").write_text(STALE_DOCSTRING, encoding="utf-8")

    def run(*options: str) -> subprocess.CompletedProcess[str]:
        if tool == "jaxcheck check":
            return jaxcheck("check", root, *options)
        return sphinx_build("-b", "jaxcheck", *options, root, tmp_path / "out")

    assert run().returncode == 1  # the docstring's example drifted
    off = run("-D", "jaxcheck_doctest_modules=")
    assert off.returncode == 0, off.stdout + off.stderr
    assert "stalemod" not in off.stdout + off.stderr


@pytest.mark.stack
def test_every_list_setting_given_empty_with_minus_d_is_an_empty_list(tmp_path: Path) -> None:
    root = write_project(tmp_path / "docs", {"a.md": "# A\n"})
    lists = [value.name for value in VALUES if isinstance(value.default, list)]
    assert "jaxcheck_doctest_modules" in lists and "jaxcheck_filterwarnings" in lists
    # As sphinx-build -D passes them: the text typed.
    done = build(root, "jaxcheck", **dict.fromkeys(lists, ""))
    assert done.status == 0, done.warnings
    settings = settings_of(done.app.config)
    assert [getattr(settings, name.removeprefix("jaxcheck_")) for name in lists] == [
        () for _ in lists
    ]
    # A comma is part of a warning filter's message, as the guide says: one entry.
    one = build(root, "jaxcheck", jaxcheck_filterwarnings="ignore:a, b:UserWarning")
    assert settings_of(one.app.config).filterwarnings == ("ignore:a, b:UserWarning",)


# An extension in conf.py that makes each document slow to read, as a long page is.
SLOW_READING = (
    "import time\n\n"
    "def setup(app):\n"
    "    app.connect('source-read', lambda *args: time.sleep(0.05))\n"
    "    return {'parallel_read_safe': True}\n"
)


@pytest.mark.stack
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_progress_in_a_log_has_a_line_at_least_every_interval_while_documents_are_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, jobs: str
) -> None:
    monkeypatch.setattr(progress, "LOG_EVERY", 0.05)  # 30 s, in a CI log
    pages = {f"page{n:02}.md": f"# Page {n}\n" for n in range(24)}
    root = write_project(tmp_path / "docs", {**pages, "good.md": GOOD}, conf=SLOW_READING)
    assert cli.main(["check", str(root), "-j", jobs]) == 0
    lines = capsys.readouterr().err.splitlines()
    reading = [line for line in lines if line.startswith("jaxcheck: reading documents... ")]
    assert reading, lines
    counts = []
    for line in reading:
        found = re.fullmatch(
            r"jaxcheck: reading documents\.\.\. \[ *\d+%\] (\d+)/26(, \d+ s)?", line
        )
        assert found, line
        counts.append(int(found.group(1)))
    assert counts == sorted(counts)
    # The last says all were read, before any block runs.
    assert reading[-1] == "jaxcheck: reading documents... [100%] 26/26"
    assert lines.index(reading[-1]) < lines.index(
        f"jaxcheck: running 1 of 1 block(s) (1 document(s), up to {jobs} worker(s))"
    )


@pytest.mark.parametrize("command", ["check", "update"])
def test_check_and_update_run_from_a_folder_below_conf_py_find_its_project(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
) -> None:
    # The sources in docs/src, conf.py in docs/: run from docs/src, as from docs.
    root = write_project(tmp_path / "docs", {"src/bad.md": BAD})
    monkeypatch.chdir(root / "src")
    assert cli.main([command]) == (1 if command == "check" else 0)
    captured = capsys.readouterr()
    if command == "check":
        assert captured.out.startswith("bad.md:6: drift: block 'src/bad[1]'")
        assert captured.out.endswith("Accept the new outputs with: jaxcheck update\n")
    else:
        assert "jaxcheck update: rewrote 1 expectation(s) in 1 file(s)" in captured.err
        assert (root / "src" / "bad.md").read_text("utf-8") == BAD.replace("# 5", "# 4")
