"""The ``jaxcheck`` builder (``sphinx-build -M jaxcheck``) and ``jaxcheck check PATH...`` on top of it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from buildkit import write_project

from sphinx_jaxcheck import __version__, cli

GOOD = "# Good\n\n```{jaxcheck}\nprint(2 * 3)\n\n# 6\n```\n"
BAD = "# Bad\n\n```{jaxcheck}\nprint(2 + 2)\n\n# 5\n```\n"
CACHED = "jaxcheck_cache = True\n"


def sphinx_build(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1]), "NO_COLOR": "1"}
    return subprocess.run(
        [sys.executable, "-m", "sphinx", *args], cwd=cwd, env=env,
        capture_output=True, text=True, timeout=900, check=False,
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("builder") / "docs"
    return write_project(root, {"good.md": GOOD, "bad.md": BAD}, conf=CACHED)


def test_make_mode_runs_every_check_and_writes_no_page(project: Path) -> None:
    done = sphinx_build("-M", "jaxcheck", ".", str(project.parent / "out"), cwd=project)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "bad.md:6: WARNING: block 'bad[1]'" in done.stderr
    assert "jaxcheck: 2 block(s): 1 verified, 1 stale, 0 failed" in done.stdout
    written = [p.name for p in (project.parent / "out" / "jaxcheck").rglob("*") if p.is_file()]
    assert written == []


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


def test_pages_are_found_from_a_folder_below_the_project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
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
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
    paths: list[str], words: str,
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
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=root,
                            capture_output=True, text=True, check=True)
    assert status.stdout == ""


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out == f"jaxcheck {__version__} (sphinx-jaxcheck)\n"


def test_progress_on_a_terminal_overwrites_its_line_and_then_ends_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = write_project(tmp_path / "docs", {"good.md": GOOD, "more.md": GOOD.replace("Good", "More")})
    leader, follower = os.openpty()
    with capsys.disabled(), open(follower, "w") as terminal:
        monkeypatch.setattr(sys, "stderr", terminal)
        monkeypatch.setenv("FORCE_COLOR", "1")  # Sphinx's display overwrites its line, as on a terminal
        assert cli.main(["check", str(root), "-j", "2"]) == 0
        monkeypatch.undo()
    os.set_blocking(leader, False)
    shown = os.read(leader, 1 << 16).decode().replace("\r\n", "\n")
    os.close(leader)
    clear = "\x1b[2K"
    assert shown == (
        f"{clear}jaxcheck: running 2 of 2 block(s) (2 document(s), up to 2 worker(s))\n"
        f"{clear}jaxcheck: running blocks... [ 50%] 1/2\r"
        f"{clear}jaxcheck: running blocks... [100%] 2/2\r\n"
    )
