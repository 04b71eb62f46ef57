"""From a checkout to a checked project, as the README tells a new user, in a fresh venv.

Walked once per test session, in one venv: the wheel ``python -m build`` makes
is installed without jax first, to see what a missing jax looks like on every
entry point; then the README's install line adds jax, and a
``sphinx-quickstart --sep`` project gets the README's conf.py lines, a good page
and a bad one; the pytest guide's install line adds pytest, and ``pytest
--jaxcheck`` checks that project. Last, the README's first command, ``tox -e
docs``, runs in the checkout. The tests read the record of that walk.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path

import pytest

from sphinx_jaxcheck import __version__

REPO = Path(__file__).parents[2]
README = (REPO / "README.md").read_text("utf-8")
pytestmark = pytest.mark.slow


def readme_section(title: str) -> str:
    section = README.split(f"## {title}\n", 1)[1]
    return section.split("\n## ", 1)[0]


QUICKSTART = re.search(r"```console\n(.*?)\n", readme_section("Quickstart")).group(1)  # type: ignore[union-attr]
USE = readme_section("Use it in your project")
CLONE_LINE, INSTALL_LINE = re.search(  # type: ignore[union-attr]
    r"```console\n(git clone .*)\n(pip install .*)\n```", USE
).groups()
URL = "<repository URL>"  # what the README's clone line leaves to the reader
CHECKOUT = CLONE_LINE.split()[-1]  # the folder the clone line makes
CONF_LINES = re.search(r"```python\n(.*?)```", USE, re.DOTALL).group(1)  # type: ignore[union-attr]
FIRST_BLOCK = re.search(r"````markdown\n(.*?)````", USE, re.DOTALL).group(1)  # type: ignore[union-attr]
PYTEST_PAGE = (REPO / "demo_docs" / "guide" / "pytest-and-shards.md").read_text("utf-8")
PYTEST_INSTALL_LINE = re.search(r"```console\n\$ (pip install .*)\n```", PYTEST_PAGE).group(1)  # type: ignore[union-attr]


@dataclass(frozen=True)
class Ran:
    """What one command did."""

    returncode: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


@dataclass(frozen=True)
class Venv:
    """A plain venv (no system site-packages), and the folder holding the checkout copy."""

    root: Path

    @property
    def env(self) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("PYTHONPATH", "VIRTUAL_ENV", "NO_COLOR")
        }
        env["PATH"] = f"{self.root / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        env["VIRTUAL_ENV"] = str(self.root)
        return env

    def run(self, command: str | list[str], cwd: Path) -> Ran:
        done = subprocess.run(
            command,
            cwd=cwd,
            env=self.env,
            shell=isinstance(command, str),
            capture_output=True,
            text=True,
            timeout=1800,
            check=False,
        )
        return Ran(done.returncode, done.stdout, done.stderr)


def _checkout_copy(target: Path) -> Path:
    """The files a clone has (no build output, no caches)."""
    shutil.copytree(
        REPO,
        target,
        ignore=shutil.ignore_patterns(
            ".git",
            "_build",
            "build",
            "dist",
            "*.egg-info",
            "__pycache__",
            ".tox",
            ".jaxcheck_cache",
            ".mypy_cache",
            ".ruff_cache",
            ".hypothesis",
            ".pytest_cache",
        ),
    )
    return target


def quickstart(venv: Venv, where: Path, pages: dict[str, str]) -> Path:
    """A ``sphinx-quickstart --sep`` project with the README's conf lines and these pages,
    committed."""
    made = venv.run(
        ["sphinx-quickstart", "-q", "--sep", "-p", "notes", "-a", "me", str(where)], where.parent
    )
    assert made.returncode == 0, made.stderr
    source = where / "source"
    with open(source / "conf.py", "a", encoding="utf-8") as conf:
        conf.write("\n" + CONF_LINES)
    index = (source / "index.rst").read_text("utf-8")
    toctree = "".join(f"   {name.rsplit('.', 1)[0]}\n" for name in pages)
    (source / "index.rst").write_text(
        index.replace("   :caption: Contents:\n", f"   :caption: Contents:\n\n{toctree}"), "utf-8"
    )
    for name, text in pages.items():
        (source / name).write_text(text, "utf-8")
    author = ["-c", "user.name=n", "-c", "user.email=n@example.org"]
    for git in (
        ["git", "init", "-q"],
        ["git", "add", "-A"],
        ["git", *author, "commit", "-qm", "start"],
    ):
        subprocess.run(git, cwd=where, check=True, capture_output=True)
    return where


GOOD = "# Good\n\n" + FIRST_BLOCK
BAD = "# Bad\n\n" + FIRST_BLOCK.replace("# [0 2 4 6]", "# [0 2 4 8]")
CRASH_REPORT = ("Traceback", "sphinx-err-", "please open an issue", "Exception occurred")


def walk(shared: Path) -> dict[str, Ran]:
    """The whole path, in order; every step's result by name."""
    ran: dict[str, Ran] = {}
    # The README's clone line makes the folder its install line names; this tree stands in for
    # the clone (it may hold changes not yet committed).
    checkout = _checkout_copy(shared / CHECKOUT)
    built = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(shared / "dist"), str(checkout)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = (shared / "dist").glob("sphinx_jaxcheck-*.whl")
    ran["wheel"] = Ran(0, wheel.name, "\n".join(zipfile.ZipFile(wheel).namelist()))
    subprocess.run([sys.executable, "-m", "venv", str(shared / "venv")], check=True, timeout=300)
    venv = Venv(shared / "venv")
    # 1. The wheel without its jax extra (sphinx and myst-parser come as dependencies):
    #    every entry point in projects whose environment lacks jax, with the README's
    #    pin (the pin check speaks) and without one (the workers do).
    ran["install without jax"] = venv.run(["pip", "install", "-q", str(wheel)], shared)
    ran["import jax"] = venv.run(["python", "-c", "import jax"], shared)
    pinned = quickstart(venv, shared / "pinned", {"good.md": GOOD})
    unpinned = quickstart(
        venv, shared / "unpinned", {"good.md": GOOD, "more.md": GOOD.replace("Good", "More")}
    )
    conf = unpinned / "source" / "conf.py"
    conf.write_text(re.sub(r"(?m)^jaxcheck_jax_version.*$", "", conf.read_text("utf-8")), "utf-8")
    ran["make html"] = venv.run(["make", "html"], pinned)
    ran["make jaxcheck"] = venv.run(["make", "jaxcheck"], pinned)
    ran["sphinx-build"] = venv.run(["sphinx-build", "-b", "html", "source", "build/other"], pinned)
    ran["jaxcheck check"] = venv.run(["jaxcheck", "check"], pinned / "source")
    ran["jaxcheck update"] = venv.run(["jaxcheck", "update", "good.md"], pinned / "source")
    ran["unpinned make html"] = venv.run(["make", "html"], unpinned)
    ran["unpinned make jaxcheck"] = venv.run(["make", "jaxcheck"], unpinned)
    ran["unpinned jaxcheck check"] = venv.run(["jaxcheck", "check"], unpinned / "source")
    # 2. The README's install line, beside the checkout; then the wheel the same way.
    ran["install"] = venv.run(INSTALL_LINE, shared)
    ran["install wheel"] = venv.run(f'pip install "{wheel}[jax]"', shared)
    # 3. A project of one's own, with a good page and a bad one.
    project = quickstart(venv, shared / "notes", {"good.md": GOOD, "bad.md": BAD})
    ran["new make jaxcheck"] = venv.run(["make", "jaxcheck"], project)
    ran["new check good"] = venv.run(["jaxcheck", "check", "good.md"], project / "source")
    ran["new check all"] = venv.run(["jaxcheck", "check"], project / "source")
    ran["version"] = venv.run(["jaxcheck", "--version"], project / "source")
    cache = project / "source" / ".jaxcheck_cache"
    ran["cache before clear"] = Ran(len(_cached_files(cache)), "", "")
    ran["cache clear"] = venv.run(["jaxcheck", "cache", "clear"], project / "source")
    ran["cache after clear"] = Ran(len(_cached_files(cache)), "\n".join(_cached_files(cache)), "")
    ran["git status"] = venv.run(["git", "status", "--porcelain", "--untracked-files=all"], project)
    ran["html written"] = Ran(int((project / "build" / "jaxcheck" / "index.html").exists()), "", "")
    ran["doctrees kept"] = Ran(
        int((project / "source" / "_build" / "jaxcheck" / "doctrees").is_dir()), "", ""
    )
    # 4. pytest, installed by the pytest guide's line, checks the same project.
    ran["import pytest"] = venv.run(["python", "-c", "import pytest"], shared)
    ran["install for pytest"] = venv.run(PYTEST_INSTALL_LINE, shared)
    ran["pytest --jaxcheck"] = venv.run(
        ["pytest", "-p", "no:cacheprovider", "--jaxcheck", "source"], project
    )
    # 5. The README's first command, in the checkout. The jax 0.4.35 environment it makes
    #    once is the one this checkout made, when there is one (the same two pins).
    older = REPO / ".tox" / "jax-0.4.35"
    if (older / ".jaxcheck-complete").is_file():
        (checkout / ".tox").mkdir()
        (checkout / ".tox" / "jax-0.4.35").symlink_to(older.resolve())
    ran["quickstart"] = venv.run(QUICKSTART, checkout)
    return ran


def _cached_files(cache: Path) -> list[str]:
    """Files the cache holds, less the .gitignore that keeps it out of version control."""
    return sorted(
        str(f.relative_to(cache))
        for f in cache.rglob("*")
        if f.is_file() and f.name != ".gitignore"
    )


@pytest.fixture(scope="session")
def path(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Ran]:
    """Walked once per test session; xdist workers share it through a lock and a JSON record."""
    base = tmp_path_factory.getbasetemp()
    shared = (base.parent if "PYTEST_XDIST_WORKER" in os.environ else base) / "newcomer"
    shared.mkdir(exist_ok=True)
    record = shared / "record.json"
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not record.exists():
            record.write_text(json.dumps({name: asdict(r) for name, r in walk(shared).items()}))
        fcntl.flock(lock, fcntl.LOCK_UN)
    return {name: Ran(**fields) for name, fields in json.loads(record.read_text()).items()}


def test_readme_names_the_lines_this_test_follows() -> None:
    assert QUICKSTART == "pip install tox && tox -e docs"
    assert CLONE_LINE.split() == ["git", "clone", *URL.split(), "sphinx-jaxcheck"]
    assert INSTALL_LINE == 'pip install "./sphinx-jaxcheck[jax]"'
    assert PYTEST_INSTALL_LINE == 'pip install "./sphinx-jaxcheck[jax,pytest]"'
    assert '"./sphinx-jaxcheck[jax,pytest]"' in USE  # the README names it too
    assert (
        "sphinx_jaxcheck" in CONF_LINES
        and "```{jaxcheck}" in FIRST_BLOCK
        and "# [0 2 4 6]" in FIRST_BLOCK
    )


def test_the_readmes_clone_line_makes_the_folder_its_install_line_names(tmp_path: Path) -> None:
    # Run as written, with this repository's own folder for the address left to the reader.
    cloned = subprocess.run(
        CLONE_LINE.replace(URL, str(REPO)),
        shell=True,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert cloned.returncode == 0, cloned.stderr
    assert (tmp_path / CHECKOUT / "pyproject.toml").is_file()
    assert INSTALL_LINE.startswith(f'pip install "./{CHECKOUT}[')


def test_the_wheel_holds_the_package_data(path: dict[str, Ran]) -> None:
    wheel = path["wheel"]
    assert wheel.stdout == f"sphinx_jaxcheck-{__version__}-py3-none-any.whl"
    assert {"sphinx_jaxcheck/py.typed", "sphinx_jaxcheck/static/jaxcheck.css"} <= set(
        wheel.stderr.split()
    )


ENTRIES = ["make html", "make jaxcheck", "sphinx-build", "jaxcheck check", "jaxcheck update"]
UNPINNED = ["unpinned make html", "unpinned make jaxcheck", "unpinned jaxcheck check"]


@pytest.mark.parametrize("entry", ENTRIES + UNPINNED)
def test_missing_jax_is_one_clear_message_and_exit_status_2(
    path: dict[str, Ran], entry: str
) -> None:
    assert path["install without jax"].returncode == 0, path["install without jax"].output
    assert path["import jax"].returncode != 0  # really without jax
    done = path[entry]
    assert done.returncode == 2, done.output
    if "make" in entry:  # make exits with 2 on any failure: read what sphinx-build said
        assert re.search(r"make: \*\*\* \[Makefile:\d+: \w+\] Error 2", done.output), done.output
    assert done.output.count("jax is not installed") == 1, done.output  # once, not once per block
    assert "pip install jax" in done.output, done.output
    for sign in CRASH_REPORT:
        assert sign not in done.output, done.output


def test_readme_install_lines_work(path: dict[str, Ran]) -> None:
    assert path["install"].returncode == 0, path["install"].output
    assert path["install wheel"].returncode == 0, path["install wheel"].output


def test_make_jaxcheck_fails_at_the_bad_page(path: dict[str, Ran]) -> None:
    done = path["new make jaxcheck"]
    assert done.returncode != 0, done.output
    assert re.search(r"source/bad\.md:\d+: WARNING: block 'bad\[1\]'", done.output), done.output
    assert "-[0 2 4 8]\n+[0 2 4 6]\n" in done.output
    assert "jaxcheck: 2 block(s): 1 verified, 1 stale, 0 failed" in done.output
    assert path["html written"].returncode == 0


def test_checking_the_good_page_alone_passes(path: dict[str, Ran]) -> None:
    good, every = path["new check good"], path["new check all"]
    assert good.returncode == 0, good.output
    assert "jaxcheck: 1 block(s): 1 verified, 0 stale, 0 failed" in good.stdout
    assert every.returncode == 1 and "bad.md" in every.stdout


def test_version_is_the_installed_one(path: dict[str, Ran]) -> None:
    assert path["version"].returncode == 0
    assert path["version"].stdout.strip() == f"jaxcheck {__version__} (sphinx-jaxcheck)"


def test_nothing_new_shows_in_the_source_folder(path: dict[str, Ran]) -> None:
    changed = [
        line for line in path["git status"].stdout.splitlines() if line[3:].startswith("source/")
    ]
    assert changed == []
    assert path["doctrees kept"].returncode == 1  # written, and ignored


def test_cache_clear_empties_the_projects_cache(path: dict[str, Ran]) -> None:
    assert path["cache before clear"].returncode > 0  # the checks above filled it
    assert path["cache clear"].returncode == 0, path["cache clear"].output
    assert path["cache clear"].stdout.startswith("jaxcheck: cleared ")
    assert path["cache after clear"].returncode == 0, path["cache after clear"].stdout


def test_the_pytest_route_installs_as_the_guide_says(path: dict[str, Ran]) -> None:
    assert path["import pytest"].returncode != 0  # the README's line brings no pytest
    assert path["install for pytest"].returncode == 0, path["install for pytest"].output
    done = path["pytest --jaxcheck"]
    assert done.returncode == 1, done.output  # the bad page's block fails, as in a build
    assert "1 failed, 1 passed" in done.stdout, done.output  # good.md's block, bad.md's
    assert "source/bad.md:" in done.stdout and "-[0 2 4 8]\n+[0 2 4 6]" in done.stdout


def test_the_readmes_first_command_prints_nothing_alarming(path: dict[str, Ran]) -> None:
    done = path["quickstart"]
    assert done.returncode == 0, done.output
    # -W: a warning of Sphinx's or of the extension's would have failed the build.
    assert "build succeeded." in done.output and "docs: OK" in done.output, done.output
    alarming = [
        line
        for line in done.output.splitlines()
        if re.search(r"exit \d|command failed|ignore outcome|Traceback", line)
    ]
    assert alarming == [], done.output
