"""What a cached session depended on: every module file it used, as it was when first used,
and where each import would be found now.

Each test builds a real project whose block imports a module of its own,
changes that module's file (a symlink retargeted, an archive rewritten, a new
module that would be found first, an edit while the session runs, a module
loaded by path) and asserts that the next build runs the block again and
reports the drift, as ``--no-cache`` would.
"""

from __future__ import annotations

import importlib.util
import os
import py_compile
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from buildkit import Build, build, write_project

from sphinx_jaxcheck import cli

# What a session depended on is the engine's to record and compare, the same on every Sphinx;
# one test stays in the compatibility part (-m stack) for Sphinx's side: env-get-outdated
# reading a page again whose session's module changed.

CACHED = "jaxcheck_cache = True\n"


def printing(module: str, expected: str, before: str = "") -> str:
    """A page whose one block prints ``module.NAME``."""
    return (
        f"# Page\n\n```{{jaxcheck}}\n{before}import {module}\nprint({module}.NAME)\n\n"
        f"# {expected}\n```\n"
    )


def on_path(*folders: Path) -> str:
    """conf.py lines: the cache on, and these folders (or archives) on the workers' path."""
    path = os.pathsep.join(map(str, folders))
    return CACHED + f"jaxcheck_env = {{'JAX_PLATFORMS': 'cpu', 'PYTHONPATH': {path!r}}}\n"


def assert_verified(done: Build) -> None:
    assert done.status == 0 and "1 verified" in done.log, done.warnings


def assert_drift(done: Build, printed: str) -> None:
    """The block ran again and printed ``printed`` where the page expects something else."""
    assert done.status == 1 and done.subtypes() == ["drift"], done.warnings
    assert f"+{printed}" in done.reported[0].message


def both_builds_drift(root: Path, printed: str) -> None:
    """An incremental build and one that reads every page again both see the new output."""
    assert_drift(build(root), printed)
    assert_drift(build(root, fresh=True), printed)


def pytest_plugin(project: Path) -> subprocess.CompletedProcess[str]:
    """``pytest --jaxcheck docs`` in ``project``, as a user runs it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "--jaxcheck", "docs", "-p", "no:cacheprovider", "-q"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_retargeting_a_symlinked_helper_runs_its_blocks_again(tmp_path: Path) -> None:
    """The link and each target of the chain count, for a build, a check and the pytest
    plugin: helper.py -> current.py -> variants/one.py, then current.py -> variants/two.py,
    then a linked folder on the path retargeted."""
    root = write_project(tmp_path / "docs", {"page.md": printing("helper", "one")}, conf=CACHED)
    variants = root / "variants"
    variants.mkdir()
    for name in ("one", "two", "three"):
        (variants / f"{name}.py").write_text(f"NAME = {name!r}\n")
    (root / "current.py").symlink_to("variants/one.py")
    (root / "helper.py").symlink_to("current.py")
    assert_verified(build(root, fresh=True))
    (root / "current.py").unlink()
    (root / "current.py").symlink_to("variants/two.py")
    assert cli.main(["check", str(root)]) == 1
    plugin = pytest_plugin(tmp_path)
    assert plugin.returncode == 1 and "+two" in plugin.stdout, plugin.stdout + plugin.stderr
    both_builds_drift(root, "two")

    # A linked folder on the workers' path: its module is the same file name in another folder.
    for name in ("one", "three"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "linked_lib.py").write_text(f"NAME = {name!r}\n")
    (tmp_path / "lib").symlink_to(tmp_path / "one")
    (root / "page.md").write_text(printing("linked_lib", "one"))
    (root / "conf.py").write_text((root / "conf.py").read_text() + on_path(tmp_path / "lib"))
    assert_verified(build(root, fresh=True))
    (tmp_path / "lib").unlink()
    (tmp_path / "lib").symlink_to(tmp_path / "three")
    both_builds_drift(root, "three")


def zipped(archive: Path, name: str, text: str) -> None:
    """Write ``archive`` afresh, holding one module."""
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr(name, text)


def test_a_cached_pyc_matching_the_new_targets_size_and_time_is_not_run(tmp_path: Path) -> None:
    """Python trusts a ``__pycache__`` file by its source's size and mtime: a link retargeted
    to a file of the same size and time still runs the new file's code, not the old one's."""
    root = write_project(tmp_path / "docs", {"page.md": printing("helper", "one")}, conf=CACHED)
    variants = root / "variants"
    variants.mkdir()
    for name in ("one", "two"):
        (variants / f"{name}.py").write_text(f"NAME = {name!r}\n")
    old = (variants / "one.py").stat()
    os.utime(variants / "two.py", ns=(old.st_atime_ns, old.st_mtime_ns))
    (root / "helper.py").symlink_to("variants/one.py")
    helper = str(root / "helper.py")
    py_compile.compile(helper, cfile=importlib.util.cache_from_source(helper), doraise=True)
    assert_verified(build(root, fresh=True))
    (root / "helper.py").unlink()
    (root / "helper.py").symlink_to("variants/two.py")
    both_builds_drift(root, "two")


def test_rewriting_an_archive_on_the_path_runs_its_blocks_again(tmp_path: Path) -> None:
    archive = tmp_path / "lib.zip"
    zipped(archive, "zipped_lib.py", "NAME = 'one'\n")
    pages = {"page.md": printing("zipped_lib", "one")}
    root = write_project(tmp_path / "docs", pages, conf=on_path(archive))
    assert_verified(build(root, fresh=True))
    zipped(archive, "zipped_lib.py", "NAME = 'two'\n")
    both_builds_drift(root, "two")


def test_a_new_module_that_would_be_imported_first_runs_its_blocks_again(tmp_path: Path) -> None:
    """Found in the second folder of the path; then one appears in the first, then one beside
    the page (which comes before both)."""
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    (second / "shadowed.py").write_text("NAME = 'one'\n")
    pages = {"page.md": printing("shadowed", "one")}
    root = write_project(tmp_path / "docs", pages, conf=on_path(first, second))
    assert_verified(build(root, fresh=True))
    (first / "shadowed.py").write_text("NAME = 'two'\n")
    both_builds_drift(root, "two")
    (root / "shadowed").mkdir()  # a package beats a module of the same name
    (root / "shadowed" / "__init__.py").write_text("NAME = 'three'\n")
    both_builds_drift(root, "three")


def test_a_helper_edited_while_its_session_runs_is_not_cached_and_runs_again(
    tmp_path: Path,
) -> None:
    """The block signals once it imported helper.py and waits; the test edits helper.py and
    lets it go on. The check verifies what ran (the old helper), says the result is not kept,
    and the next check runs the block again."""
    imported, go = tmp_path / "imported", tmp_path / "go"
    before = (
        "import os, time\n"
        "import helper\n"
        f"open({str(imported)!r}, 'w').close()\n"
        "deadline = time.monotonic() + 120\n"
        f"while not os.path.exists({str(go)!r}) and time.monotonic() < deadline:\n"
        "    time.sleep(0.01)\n"
    )
    pages = {"page.md": printing("helper", "one", before), "helper.py": "NAME = 'one'\n"}
    root = write_project(tmp_path / "docs", pages, conf=CACHED)
    check = subprocess.Popen(
        [sys.executable, "-m", "sphinx_jaxcheck", "check", str(root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 300
        while not imported.exists():
            assert check.poll() is None, check.communicate()
            assert time.monotonic() < deadline, "the block never signalled"
            time.sleep(0.02)
        (root / "helper.py").write_text("NAME = 'two'\n")
        go.touch()
        out, err = check.communicate(timeout=300)
    finally:
        if check.poll() is None:
            check.kill()
            check.wait()
    assert check.returncode == 0, out + err
    assert "1 verified" in out
    assert "not cached" in out and "helper.py changed while the session ran" in out, out
    imported.unlink()
    assert cli.main(["check", str(root)]) == 1  # incremental: the page did not change
    assert imported.exists()
    both_builds_drift(root, "two")


@pytest.mark.stack
def test_a_module_loaded_by_path_with_importlibs_recipe_is_tracked(tmp_path: Path) -> None:
    """``spec_from_file_location`` and ``exec_module``: no name in ``sys.modules``."""
    before = (
        "import importlib.util\n"
        "spec = importlib.util.spec_from_file_location('plugin', 'plugin_code.py')\n"
        "plugin = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(plugin)\n"
    )
    page = f"# Page\n\n```{{jaxcheck}}\n{before}print(plugin.NAME)\n\n# one\n```\n"
    pages = {"page.md": page, "plugin_code.py": "NAME = 'one'\n"}
    root = write_project(tmp_path / "docs", pages, conf=CACHED)
    plugin = str(root / "plugin_code.py")
    py_compile.compile(plugin, cfile=importlib.util.cache_from_source(plugin), doraise=True)
    assert_verified(build(root, fresh=True))
    # A same-size edit within the second: the .pyc's recorded size and time still match.
    old = os.stat(plugin)
    (root / "plugin_code.py").write_text("NAME = 'two'\n")
    os.utime(plugin, ns=(old.st_atime_ns, old.st_mtime_ns))
    both_builds_drift(root, "two")


def counted(ran: Path) -> str:
    """Code that records each run of its block in ``ran``."""
    return f"with open({str(ran)!r}, 'a') as log:\n    log.write('ran\\n')\n"


def test_a_module_an_import_hook_rewrote_is_not_cached_and_says_so(tmp_path: Path) -> None:
    """The hook may read what the cache cannot see (here it rewrites the code it loads): the
    block is verified, its result is not kept, every build runs it again and says why."""
    ran = tmp_path / "ran.txt"
    hook = (
        "import importlib.abc, importlib.machinery, sys\n"
        "class Shouting(importlib.machinery.SourceFileLoader):\n"
        "    def source_to_code(self, data, path):\n"
        "        return super().source_to_code(data.upper(), path)\n"
        "class Finder(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name != 'helper':\n"
        "            return None\n"
        "        return importlib.util.spec_from_file_location(\n"
        "            name, 'helper.py', loader=Shouting(name, 'helper.py'))\n"
        "import importlib.util\n"
        "sys.meta_path.insert(0, Finder())\n"
    )
    pages = {"page.md": printing("helper", "ONE", counted(ran) + hook), "helper.py": "NAME='one'\n"}
    root = write_project(tmp_path / "docs", pages, conf=CACHED)
    first = build(root, fresh=True)
    assert_verified(first)
    assert "loaded by Shouting, an import hook" in first.log and "not cached" in first.log
    assert not list((root / ".jaxcheck_cache").glob("*.json"))
    again = build(root)  # incremental: nothing changed that the cache could see
    assert_verified(again)
    assert len(ran.read_text().splitlines()) == 2
    summary = next(line for line in again.log.splitlines() if line.startswith("jaxcheck: 1 block"))
    assert "; 1 session(s) ran but were not cached, so the next build runs them again" in summary
    assert summary.endswith(
        f"the first: {os.path.relpath(root / 'page.md')}:4: module helper was loaded by "
        "Shouting, an import hook that may read what the cache cannot see"
    )


def test_what_a_session_used_before_a_block_killed_its_worker_still_counts(
    tmp_path: Path,
) -> None:
    """The last block ends the process, so no later report comes: the helper imported before
    it is still known, and editing it checks the page again."""
    crash = "```{jaxcheck}\nimport os\nos._exit(3)\n```\n"
    pages = {"page.md": printing("helper", "one") + "\n" + crash, "helper.py": "NAME = 'one'\n"}
    root = write_project(tmp_path / "docs", pages, conf=CACHED)
    first = build(root, fresh=True)
    assert first.status == 1 and "1 verified" in first.log and first.subtypes() == ["crash"]
    (root / "helper.py").write_text("NAME = 'two'\n")
    again = build(root)
    assert again.subtypes() == ["drift", "crash"] and "+two" in again.reported[0].message
