"""`jaxcheck check` replays the last check when nothing it depended on changed, and only then.

Every check here is a real `python -m sphinx_jaxcheck check` process (a replay
needs a process of its own) on a real project with a real worker.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from buildkit import jaxcheck, write_project

from sphinx_jaxcheck import cli

REPLAYED = "nothing the last check depended on has changed"
BLOCK = """# Page

```{{jaxcheck}}
open({ran!r}, "a").write("ran\\n")
print("hello")

# hello
```
"""
CONF = """
jaxcheck_cache = True
jaxcheck_env = {{"PYTHONPATH": {site!r}}}
version = open({version!r}).read().strip()
"""


def check(
    root: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return jaxcheck("check", ".", *args, cwd=root, env={**os.environ, **(env or {})})


def runs(ran: Path) -> int:
    return len(ran.read_text().splitlines()) if ran.exists() else 0


class Project:
    """A project whose block counts its runs in a file outside it; conf.py reads a file outside it
    and gives the workers a folder of their own to import from."""

    def __init__(self, tmp: Path) -> None:
        self.ran = tmp / "ran.txt"
        self.site = tmp / "workers-site"
        self.site.mkdir()
        self.version = tmp / "version.txt"
        self.version.write_text("1.0\n")
        conf = CONF.format(site=str(self.site), version=str(self.version))
        self.root = write_project(
            tmp / "docs", {"page.md": BLOCK.format(ran=str(self.ran))}, conf=conf
        )

    def settled(self) -> subprocess.CompletedProcess[str]:
        """Check until a check is replayed (at most twice more): the state every test starts from."""
        for _ in range(3):
            done = check(self.root)
            if REPLAYED in done.stderr:
                return done
        raise AssertionError(f"never replayed:\n{done.stderr}")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    return Project(tmp_path_factory.mktemp("last-check"))


def test_an_unchanged_project_is_replayed_with_the_same_report(project: Project) -> None:
    project.settled()
    full = check(project.root, "--format", "json")
    assert REPLAYED not in full.stderr  # another command line: its own record
    before = runs(project.ran)
    again = check(project.root, "--format", "json")
    assert REPLAYED in again.stderr
    assert (again.returncode, again.stdout) == (full.returncode, full.stdout) == (0, full.stdout)
    assert '"status": "verified"' in again.stdout
    assert runs(project.ran) == before


def add_page(project: Project) -> None:
    (project.root / "second.md").write_text(
        BLOCK.format(ran=str(project.ran)).replace("hello", "second")
    )


def edit_page(project: Project) -> None:
    with (project.root / "page.md").open("a") as page:
        page.write("\nOne more paragraph.\n")


def edit_conf(project: Project) -> None:
    with (project.root / "conf.py").open("a") as conf:
        conf.write('\nproject = "renamed"\n')


def edit_file_conf_reads(project: Project) -> None:
    project.version.write_text("2.0\n")


def install_in_workers_site(project: Project) -> None:
    metadata = project.site / "made_up_package-1.0.dist-info" / "METADATA"
    metadata.parent.mkdir()
    metadata.write_text("Metadata-Version: 2.1\nName: made-up-package\nVersion: 1.0\n")


CHANGES: dict[str, tuple[Callable[[Project], None], bool]] = {
    # name: (the change, whether the block must run again)
    "page-added": (add_page, True),
    "page-edited": (edit_page, False),
    "conf-edited": (edit_conf, False),
    "file-conf-reads-edited": (edit_file_conf_reads, False),
    "package-installed-for-the-workers": (install_in_workers_site, True),
}


@pytest.mark.parametrize("change", CHANGES)
def test_any_change_to_what_the_check_depended_on_checks_again(
    project: Project, change: str
) -> None:
    make, reruns = CHANGES[change]
    project.settled()
    before = runs(project.ran)
    make(project)
    fresh = check(project.root)
    assert REPLAYED not in fresh.stderr
    assert fresh.returncode == 0, fresh.stderr
    assert (runs(project.ran) > before) == reruns
    assert REPLAYED in check(project.root).stderr  # and the new state is recorded


def test_a_cached_outcome_gone_checks_again(project: Project) -> None:
    """A document read again takes its session from the cache: the record depends on that entry."""
    project.settled()
    os.utime(project.root / "page.md")
    assert REPLAYED not in check(project.root).stderr
    assert REPLAYED in check(project.root).stderr
    cleared = jaxcheck("cache", "clear", project.root)
    assert cleared.returncode == 0, cleared.stderr
    assert REPLAYED not in check(project.root).stderr


def test_an_environment_written_since_checks_again(project: Project) -> None:
    """The environment Sphinx keeps in the build folder is what the next build starts from."""
    project.settled()
    os.utime(project.root / "_build" / "jaxcheck" / "doctrees" / "environment.pickle")
    assert REPLAYED not in check(project.root).stderr


def test_a_library_call_never_replays(project: Project, capsys: pytest.CaptureFixture[str]) -> None:
    project.settled()
    assert cli.main(["check", str(project.root)]) == 0
    assert REPLAYED not in capsys.readouterr().err


def test_another_environment_checks_again(project: Project) -> None:
    project.settled()
    assert REPLAYED not in check(project.root, env={"SOME_VARIABLE": "1"}).stderr
    assert REPLAYED in check(project.root, env={"SOME_VARIABLE": "1"}).stderr


def test_a_new_module_where_the_process_imports_from_checks_again(
    project: Project, tmp_path: Path
) -> None:
    extra = {"PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    check(project.root, env=extra)
    assert REPLAYED in check(project.root, env=extra).stderr
    (tmp_path / "sphinx_extension_shadow.py").write_text("")
    assert REPLAYED not in check(project.root, env=extra).stderr


@pytest.mark.parametrize(
    ("conf", "why"),
    [
        ('import subprocess\nsubprocess.run(["true"])\n', "conf.py starts a process"),
        ("marker = object()\n", "conf.py holds a value with no stable description"),
    ],
    ids=["process", "object"],
)
def test_checks_whose_inputs_cannot_all_be_compared_are_never_replayed(
    tmp_path: Path, conf: str, why: str
) -> None:
    ran = tmp_path / "ran.txt"
    root = write_project(
        tmp_path / "docs",
        {"page.md": BLOCK.format(ran=str(ran))},
        conf="jaxcheck_cache = True\n" + conf,
    )
    for _ in range(2):
        done = check(root)
        assert done.returncode == 0 and REPLAYED not in done.stderr, why
    assert runs(ran) == 1  # the session itself came from the cache


def checked_twice(
    tmp_path: Path, old: str, new: str
) -> tuple[subprocess.CompletedProcess[str], ...]:
    """A cached one-page project whose block has ``old`` replaced by ``new``: two checks."""
    page = BLOCK.format(ran=str(tmp_path / "ran.txt")).replace(old, new)
    root = write_project(tmp_path / "docs", {"page.md": page}, conf="jaxcheck_cache = True\n")
    return check(root), check(root)


def test_a_check_that_ran_a_failing_session_is_not_replayed(tmp_path: Path) -> None:
    """Its outcome is not cached: checking again could run it again."""
    first, second = checked_twice(tmp_path, 'print("hello")', 'raise ValueError("gone")')
    assert first.returncode == second.returncode == 1
    assert REPLAYED not in second.stderr and second.stdout == first.stdout


def test_drift_is_replayed_as_drift(tmp_path: Path) -> None:
    first, second = checked_twice(tmp_path, "# hello", "# hello, world")
    assert first.returncode == second.returncode == 1
    assert (
        REPLAYED in second.stderr and second.stdout == first.stdout and "page.md:" in second.stdout
    )
    assert runs(tmp_path / "ran.txt") == 1
