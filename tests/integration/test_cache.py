"""The result cache: hits when nothing changed, misses on any change that can matter, never
hides drift.

Every block here appends a line to a file each time it really runs, so "it ran"
is observed in the worker itself, not inferred from a log line.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from buildkit import Build, build, write_project

from sphinx_jaxcheck import cli
from sphinx_jaxcheck.cache.outcomes import OutcomeCache
from sphinx_jaxcheck.cite.pin import installed_version
from sphinx_jaxcheck.judge.example_verdicts import Tally
from sphinx_jaxcheck.run.interpreter import PackageSet, ask, environment_fingerprint
from sphinx_jaxcheck.run.pool import WorkerSettings
from sphinx_jaxcheck.run.sessions import CheckPlan, check_documents

CACHED = "jaxcheck_cache = True\n"


def counted_block(
    ran: Path, *, options: str = "", code: str = 'print("hello")', expected: str = "hello"
) -> str:
    """A MyST jaxcheck block that records each run in ``ran``."""
    return (
        f"# Page\n\n```{{jaxcheck}}\n{options}"
        f"with open({str(ran)!r}, 'a') as log:\n    log.write('ran\\n')\n"
        f"{code}\n\n# {expected}\n```\n"
    )


def runs(ran: Path) -> int:
    """How often the counted block really ran."""
    return len(ran.read_text().splitlines()) if ran.exists() else 0


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path]:
    """A project with one counted block and the cache switched on."""
    ran = tmp_path / "ran.txt"
    root = write_project(tmp_path / "docs", {"page.md": counted_block(ran)}, conf=CACHED)
    return root, ran


def rebuild(root: Path, **overrides: object) -> Build:
    """A build that re-reads every document (``sphinx-build -E``)."""
    return build(root, fresh=True, **overrides)


def edit(root: Path, old: str, new: str) -> None:
    page = root / "page.md"
    text = page.read_text()
    assert old in text
    page.write_text(text.replace(old, new))


def test_unchanged_session_is_not_run_again(project: tuple[Path, Path]) -> None:
    root, ran = project
    first = rebuild(root)
    assert first.status == 0 and runs(ran) == 1
    second = rebuild(root)
    assert second.status == 0 and runs(ran) == 1
    assert (
        "running 0 of 1 block(s) (1 document(s)" in second.log
        and "; 1 block(s) from the cache" in second.log
    )
    assert "1 verified" in second.log


def test_changed_code_runs_again(project: tuple[Path, Path]) -> None:
    root, ran = project
    rebuild(root)
    edit(root, 'print("hello")\n\n# hello', 'print("hello again")\n\n# hello again')
    assert rebuild(root).status == 0
    assert runs(ran) == 2


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("```{jaxcheck}\n", "```{jaxcheck}\n:timeout: 30\n\n"),
        ("```{jaxcheck}\n", "```{jaxcheck}\n:tolerance: 1e-6\n\n"),
    ],
    ids=["timeout", "tolerance-is-judged-not-run"],
)
def test_changed_option_that_reaches_the_worker_runs_again(
    project: tuple[Path, Path], old: str, new: str
) -> None:
    root, ran = project
    rebuild(root)
    edit(root, old, new)
    assert rebuild(root).status == 0
    # :timeout: changes what the worker runs; :tolerance: only how its output is judged.
    assert runs(ran) == (2 if "timeout" in new else 1)


def test_changed_raises_option_runs_again(tmp_path: Path) -> None:
    ran = tmp_path / "ran.txt"
    block = counted_block(
        ran,
        options=":raises: ValueError\n\n",
        code='raise ValueError("no")',
        expected="ValueError: no",
    )
    root = write_project(tmp_path / "docs", {"page.md": block}, conf=CACHED)
    assert rebuild(root).status == 0
    assert rebuild(root).status == 0 and runs(ran) == 1
    edit(root, ":raises: ValueError", ":raises: Exception")
    assert rebuild(root).status == 0
    assert runs(ran) == 2


def test_changed_worker_env_runs_again(project: tuple[Path, Path]) -> None:
    root, ran = project
    rebuild(root)
    rebuild(root, jaxcheck_env={"JAX_PLATFORMS": "cpu", "JAXCHECK_TEST_MARK": "1"})
    assert runs(ran) == 2
    rebuild(root, jaxcheck_env={"JAX_PLATFORMS": "cpu", "JAXCHECK_TEST_MARK": "1"})
    assert runs(ran) == 2


INTERPRETER = PackageSet(
    "3.11.7", (("jax", "0.10.2"), ("jaxlib", "0.10.2"), ("numpy", "2.0.0"), ("somepkg", "1.0"))
)


def test_the_probe_sees_what_the_workers_import() -> None:
    """The interpreter is asked with the workers' environment, so their sys.path decides."""
    settings = WorkerSettings(workers=1)
    found = dict(ask(settings.python, settings.outcome_env()).packages.distributions)
    for name in ("jax", "jaxlib", "numpy"):
        assert found[name] == installed_version(name)


def test_another_jax_version_misses_the_cache(tmp_path: Path) -> None:
    """A fingerprint made with another jax version finds nothing stored under the installed one."""
    ran = tmp_path / "ran.txt"
    root = write_project(tmp_path / "docs", {"page.md": counted_block(ran)}, conf=CACHED)
    built = rebuild(root)
    blocks = built.app.env.get_domain("jaxcheck").blocks("page")  # type: ignore[attr-defined]
    cache = OutcomeCache(tmp_path / "cache")
    settings = WorkerSettings(workers=1)
    now = environment_fingerprint(settings.env, INTERPRETER)
    other = environment_fingerprint(
        settings.env, PackageSet(INTERPRETER.python, (("jax", "0.0.0-other"),))
    )

    def check(fingerprint: str) -> CheckPlan:
        """What a check with this fingerprint ran and took from the cache (one block: one
        session)."""
        plans: list[CheckPlan] = []
        check_documents(
            {"page": blocks}, settings, cache=cache, fingerprint=fingerprint, announce=plans.append
        )
        return plans[0]

    first, again, bumped = check(now), check(now), check(other)
    assert (first.to_run, again.to_run, again.cached, bumped.to_run) == (
        Tally(1),
        Tally(0),
        Tally(1),
        Tally(1),
    )
    assert runs(ran) == 1 + 2  # the build, then the first and the bumped check


def local_wheel(folder: Path, version: str) -> Path:
    """A real wheel of ``jaxcheckdemo`` (a module that knows its version), as a build backend
    makes it."""
    wheel = folder / f"jaxcheckdemo-{version}-py3-none-any.whl"
    info = f"jaxcheckdemo-{version}.dist-info"
    files = {
        "jaxcheckdemo.py": f"VERSION = {version!r}\n",
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: jaxcheckdemo\nVersion: {version}\n",
        f"{info}/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
        archive.writestr(
            f"{info}/RECORD", "".join(f"{name},," + "\n" for name in [*files, f"{info}/RECORD"])
        )
    return wheel


def pip_install(wheel: Path, target: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "-q",
            "--no-index",
            "--no-deps",
            "--upgrade",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )


def test_upgrading_any_package_the_workers_import_runs_its_blocks_again(tmp_path: Path) -> None:
    """A package the Sphinx process cannot even see, installed on the workers' path, changes
    version."""
    site = tmp_path / "site"
    pip_install(local_wheel(tmp_path, "1.0"), site)
    ran = tmp_path / "ran.txt"
    block = counted_block(
        ran, code="import jaxcheckdemo\nprint(jaxcheckdemo.VERSION)", expected="1.0"
    )
    conf = CACHED + f"jaxcheck_env = {{'JAX_PLATFORMS': 'cpu', 'PYTHONPATH': {str(site)!r}}}\n"
    root = write_project(tmp_path / "docs", {"page.md": block}, conf=conf)
    assert rebuild(root).status == 0
    assert rebuild(root).status == 0 and runs(ran) == 1
    pip_install(local_wheel(tmp_path, "2.0"), site)
    warm = build(root)  # incremental, as a developer rebuilds after `pip install -U`
    assert runs(ran) == 2
    assert warm.status == 1 and warm.subtypes() == ["drift"] and "+2.0" in warm.reported[0].message


def test_the_shell_environment_the_workers_get_is_in_the_key(
    project: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, ran = project
    edit(
        root,
        'print("hello")\n\n# hello',
        "import jax.numpy as jnp\nprint(jnp.zeros(1).dtype)\n\n# float32",
    )
    assert rebuild(root).status == 0 and runs(ran) == 1
    monkeypatch.setenv("JAX_ENABLE_X64", "1")
    warm = build(root)
    assert runs(ran) == 2
    assert warm.status == 1 and "+float64" in warm.reported[0].message
    monkeypatch.delenv("JAX_ENABLE_X64")
    assert build(root).status == 0 and runs(ran) == 2  # back to the first environment: its entry


def test_secrets_of_the_build_environment_reach_neither_blocks_nor_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_not_a_real_token")
    monkeypatch.setenv("MYDOCS_SETTING", "passed")
    code = "import os\nprint(os.environ.get('GITHUB_TOKEN'), os.environ.get('MYDOCS_SETTING'))"
    root = write_project(
        tmp_path / "docs",
        {"page.md": counted_block(tmp_path / "ran", code=code, expected="None None")},
        conf=CACHED,
    )
    assert rebuild(root).status == 0
    assert rebuild(root, jaxcheck_env_passthrough=["MYDOCS_*"]).subtypes() == ["drift"]
    stored = "".join(path.read_text() for path in (root / ".jaxcheck_cache").glob("*.json"))
    assert "None passed" in stored and "ghp_not_a_real_token" not in stored


def test_blocks_run_in_their_documents_folder_wherever_the_build_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = "import os, helper\nprint(os.path.basename(os.getcwd()), helper.NAME)"
    root = write_project(
        tmp_path / "docs",
        {
            "guide/page.md": counted_block(tmp_path / "ran", code=code, expected="guide here"),
            "guide/helper.py": "NAME = 'here'\n",
        },
        conf=CACHED,
    )
    (root / "index.rst").write_text("Index\n=====\n\n.. toctree::\n\n   guide/page\n")
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "helper.py").write_text("NAME = 'the shell folder'\n")
    for start in (tmp_path, tmp_path / "elsewhere"):
        monkeypatch.chdir(start)
        assert rebuild(root).status == 0
    # The folder is part of the key: the same project elsewhere runs again.
    moved = tmp_path / "moved"
    shutil.copytree(root, moved)
    assert rebuild(moved).status == 0 and runs(tmp_path / "ran") == 2


def test_editing_a_module_of_the_project_that_a_block_imports_runs_the_block_again(
    tmp_path: Path,
) -> None:
    """helper.py beside the page and a module on the workers' PYTHONPATH: their content decides
    the outcome."""
    ran, lib = tmp_path / "ran.txt", tmp_path / "lib"
    lib.mkdir()
    (lib / "shared_lib.py").write_text("FACTOR = 2\n")
    code = (
        "import helper, shared_lib, jax.numpy as jnp\n"
        "print(helper.NAME, shared_lib.FACTOR, int(jnp.int32(1)))"
    )
    conf = CACHED + f"jaxcheck_env = {{'JAX_PLATFORMS': 'cpu', 'PYTHONPATH': {str(lib)!r}}}\n"
    pages = {
        "page.md": counted_block(ran, code=code, expected="one 2 1"),
        "helper.py": "NAME = 'one'\n",
    }
    root = write_project(tmp_path / "docs", pages, conf=conf)
    assert rebuild(root).status == 0 and runs(ran) == 1
    [entry] = (root / ".jaxcheck_cache").glob("*.json")
    # The project's files, with their digests; nothing of the standard library or of installed
    # packages (jax).
    assert sorted(json.loads(entry.read_text())["used"]["files"]) == sorted(
        str(p.resolve()) for p in (root / "helper.py", lib / "shared_lib.py")
    )
    assert (
        build(root).status == 0 and rebuild(root).status == 0 and runs(ran) == 1
    )  # unchanged: incremental and cold hits
    (root / "helper.py").write_text("NAME = 'three'\n")
    warm = build(root)  # incremental: the page itself did not change
    assert runs(ran) == 2
    assert (
        warm.status == 1
        and warm.subtypes() == ["drift"]
        and "+three 2 1" in warm.reported[0].message
    )
    cold = rebuild(root)
    assert (
        cold.status == 1 and "+three 2 1" in cold.reported[0].message and runs(ran) == 2
    )  # the new result, cached
    (lib / "shared_lib.py").write_text("FACTOR = 30\n")
    assert "+three 30 1" in rebuild(root).reported[0].message and runs(ran) == 3
    (root / "helper.py").unlink()  # gone: the session runs again, and says so
    gone = build(root)
    assert (
        runs(ran) == 4
        and gone.subtypes() == ["error"]
        and "No module named 'helper'" in gone.reported[0].message
    )


def test_cache_off_runs_every_block_in_every_build(project: tuple[Path, Path]) -> None:
    root, ran = project
    for _ in range(2):
        assert build(root, jaxcheck_cache="0").status == 0  # consecutive incremental builds
    assert runs(ran) == 2
    assert cli.main(["check", str(root), "--no-cache"]) == 0
    assert cli.main(["check", str(root), "--no-cache"]) == 0
    assert runs(ran) == 4


@pytest.mark.parametrize(
    ("name", "damage"),
    [
        ("garbage", lambda text: "\x00\x01 not json"),
        ("truncated", lambda text: text[: len(text) // 2]),
        ("old-shape", lambda text: json.dumps(json.loads(text)["outcomes"])),
        ("wrong-shape", lambda text: json.dumps({**json.loads(text), "outcomes": {"stdout": 1}})),
        ("hand-edited", lambda text: text.replace("hello", "edited by hand")),
    ],
)
def test_a_bad_cache_entry_is_discarded_named_and_run_again(
    project: tuple[Path, Path], name: str, damage: Callable[[str], str]
) -> None:
    root, ran = project
    assert rebuild(root).status == 0
    [entry] = (root / ".jaxcheck_cache").glob("*.json")
    entry.write_text(damage(entry.read_text()))
    again = rebuild(root)
    assert again.status == 0 and "1 verified" in again.log
    assert runs(ran) == 2
    assert f"discarded the cache entry {entry}" in again.log
    assert rebuild(root).status == 0 and runs(ran) == 2  # stored afresh


def test_cached_outcome_still_reports_drift(project: tuple[Path, Path]) -> None:
    root, ran = project
    assert rebuild(root).status == 0
    edit(root, "# hello\n", "# goodbye\n")
    stale = rebuild(root)
    assert runs(ran) == 1  # from the cache
    assert stale.status == 1
    assert stale.subtypes() == ["drift"]
    assert "-goodbye" in stale.reported[0].message and "+hello" in stale.reported[0].message
    # An incremental build that re-reads nothing fails too.
    assert build(root).status == 1


def test_failures_are_not_cached(tmp_path: Path) -> None:
    ran = tmp_path / "ran.txt"
    root = write_project(
        tmp_path / "docs",
        {"page.md": counted_block(ran, code="1 / 0", expected="nothing")},
        conf=CACHED,
    )
    assert rebuild(root).status == 1
    assert rebuild(root).status == 1
    assert runs(ran) == 2


def test_cache_off_writes_nothing(project: tuple[Path, Path]) -> None:
    root, ran = project
    rebuild(root, jaxcheck_cache="0")  # as -D jaxcheck_cache=0 passes it
    assert runs(ran) == 1
    assert not (root / ".jaxcheck_cache").exists()


def test_cache_lives_in_the_configured_folder(project: tuple[Path, Path], tmp_path: Path) -> None:
    root, ran = project
    rebuild(root)
    assert list((root / ".jaxcheck_cache").glob("*.json")), "default: <confdir>/.jaxcheck_cache"
    shutil.rmtree(root / ".jaxcheck_cache")
    rebuild(root, jaxcheck_cache_dir="ci-cache")
    assert list((root / "ci-cache").glob("*.json"))
    assert not (root / ".jaxcheck_cache").exists()
    elsewhere = tmp_path / "shared"
    rebuild(root, jaxcheck_cache_dir=str(elsewhere))
    assert list(elsewhere.glob("*.json"))
    assert runs(ran) == 3
    rebuild(root, jaxcheck_cache_dir=str(elsewhere))
    assert runs(ran) == 3


def test_command_line_no_cache_bypasses_the_cache(project: tuple[Path, Path]) -> None:
    root, ran = project
    assert cli.main(["check", str(root)]) == 0
    shutil.rmtree(root / "_build")  # forget the environment: every document is read again
    assert cli.main(["check", str(root), "--no-cache"]) == 0
    assert runs(ran) == 2
    shutil.rmtree(root / "_build")
    assert cli.main(["check", str(root)]) == 0
    assert runs(ran) == 2


def test_parallel_build_with_default_workers_uses_the_cache(tmp_path: Path) -> None:
    ran = tmp_path / "ran.txt"
    pages = {
        f"page{n}.md": counted_block(ran, code=f"print({n})", expected=str(n)) for n in range(3)
    }
    root = write_project(tmp_path / "docs", pages, conf=CACHED)
    first = build(root, fresh=True, parallel=2)
    assert first.status == 0 and runs(ran) == 3
    second = build(root, fresh=True, parallel=2)
    assert second.status == 0 and runs(ran) == 3
    assert (
        "running 0 of 3 block(s) (3 document(s)" in second.log
        and "; 3 block(s) from the cache" in second.log
    )


def test_no_cache_takes_nothing_but_stores_what_ran_for_the_next_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ran = tmp_path / "ran.txt"
    conf = (
        CACHED + "import os, sys\nsys.path.insert(0, os.path.abspath('.'))\n"
        'jaxcheck_doctest_modules = ["twice"]\n'
    )
    root = write_project(tmp_path / "docs", {"page.md": counted_block(ran)}, conf=conf)
    (root / "twice.py").write_text('"""Twice.\n\n>>> 2 * 2\n4\n"""\n', encoding="utf-8")
    for _ in range(2):
        assert cli.main(["check", str(root), "--no-cache"]) == 0
        assert "from the cache" not in capsys.readouterr().err
    assert runs(ran) == 2  # each ran every session
    assert list((root / ".jaxcheck_cache").glob("docstrings-*.json"))  # the collection
    # A build of its own (nothing kept from the others' reading): all from the cache.
    fresh = str(tmp_path / "fresh")
    assert cli.main(["check", str(root), "--build-dir", fresh]) == 0
    assert runs(ran) == 2
    assert "; 1 block(s) and 1 `>>>` example(s) from the cache\n" in capsys.readouterr().err


def test_switching_the_cache_off_or_to_refresh_runs_every_session_without_reading_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Whether a build takes results from the cache decides what runs, not what documents
    hold: --no-cache and jaxcheck_cache = False run every session, and no build after them
    reads the documents again (JAX's 1,707 took a minute)."""
    ran, read = tmp_path / "ran.txt", tmp_path / "read.txt"
    conf = (
        CACHED + "def setup(app):\n"
        "    def note(app, docname, source):\n"
        f"        with open({str(read)!r}, 'a') as log:\n"
        "            log.write(docname + '\\n')\n"
        "    app.connect('source-read', note)\n"
    )
    root = write_project(tmp_path / "docs", {"page.md": counted_block(ran)}, conf=conf)
    reads = lambda: read.read_text().splitlines().count("page")  # noqa: E731
    assert cli.main(["check", str(root)]) == 0
    assert (runs(ran), reads()) == (1, 1)
    assert cli.main(["check", str(root), "--no-cache"]) == 0
    assert (runs(ran), reads()) == (2, 1)
    capsys.readouterr()
    assert cli.main(["check", str(root)]) == 0  # what --no-cache ran, stored
    assert (runs(ran), reads()) == (2, 1)
    assert cli.main(["check", str(root), "-D", "jaxcheck_cache=0"]) == 0
    assert (runs(ran), reads()) == (3, 1)
    assert "from the cache" not in capsys.readouterr().err
