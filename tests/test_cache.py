"""The result cache: hits when nothing changed, misses on any change that can matter, never hides drift.

Every block here appends a line to a file each time it really runs, so "it ran"
is observed in the worker itself, not inferred from a log line.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from buildkit import Build, build, write_project

from sphinx_jaxcheck import cli
from sphinx_jaxcheck.cache import OutcomeCache, environment_fingerprint, installed_version
from sphinx_jaxcheck.sessions import check_documents
from sphinx_jaxcheck.worker.pool import WorkerSettings

CACHED = "jaxcheck_cache = True\n"


def counted_block(ran: Path, *, options: str = "", code: str = 'print("hello")', expected: str = "hello") -> str:
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
    assert "running 0 of 1 block(s) (1 document(s)" in second.log and "; 1 from the cache" in second.log
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
def test_changed_option_that_reaches_the_worker_runs_again(project: tuple[Path, Path], old: str, new: str) -> None:
    root, ran = project
    rebuild(root)
    edit(root, old, new)
    assert rebuild(root).status == 0
    # :timeout: changes what the worker runs; :tolerance: only how its output is judged.
    assert runs(ran) == (2 if "timeout" in new else 1)


def test_changed_raises_option_runs_again(tmp_path: Path) -> None:
    ran = tmp_path / "ran.txt"
    block = counted_block(
        ran, options=":raises: ValueError\n\n", code='raise ValueError("no")', expected="ValueError: no"
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


def test_fingerprint_changes_with_each_tracked_version_and_the_env() -> None:
    env = {"JAX_PLATFORMS": "cpu"}
    installed = {name: installed_version(name) for name in ("jax", "jaxlib", "numpy")}
    assert environment_fingerprint(env) == environment_fingerprint(env, installed)
    seen = {environment_fingerprint(env, installed)}
    for name in installed:
        seen.add(environment_fingerprint(env, {**installed, name: "0.0.0-other"}))
    seen.add(environment_fingerprint({**env, "XLA_FLAGS": "--xla_cpu_enable_fast_math=true"}, installed))
    assert len(seen) == 5


def test_another_jax_version_misses_the_cache(tmp_path: Path) -> None:
    """A fingerprint made with another jax version finds nothing stored under the installed one."""
    ran = tmp_path / "ran.txt"
    root = write_project(tmp_path / "docs", {"page.md": counted_block(ran)}, conf=CACHED)
    built = rebuild(root)
    blocks = built.app.env.get_domain("jaxcheck").blocks("page")  # type: ignore[attr-defined]
    cache = OutcomeCache(tmp_path / "cache")
    settings = WorkerSettings(workers=1)
    installed = {name: installed_version(name) for name in ("jax", "jaxlib", "numpy")}
    now = environment_fingerprint(settings.env, installed)
    other = environment_fingerprint(settings.env, {**installed, "jax": "0.0.0-other"})
    first = check_documents({"page": blocks}, settings, cache=cache, fingerprint=now)
    again = check_documents({"page": blocks}, settings, cache=cache, fingerprint=now)
    bumped = check_documents({"page": blocks}, settings, cache=cache, fingerprint=other)
    assert (first.sessions_run, again.sessions_run, again.sessions_cached, bumped.sessions_run) == (1, 0, 1, 1)
    assert runs(ran) == 1 + 2  # the build, then the first and the bumped check


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
        tmp_path / "docs", {"page.md": counted_block(ran, code="1 / 0", expected="nothing")}, conf=CACHED
    )
    assert rebuild(root).status == 1
    assert rebuild(root).status == 1
    assert runs(ran) == 2


def test_cache_off_runs_every_build_and_writes_nothing(project: tuple[Path, Path]) -> None:
    root, ran = project
    rebuild(root, jaxcheck_cache="0")  # as -D jaxcheck_cache=0 passes it
    rebuild(root, jaxcheck_cache="0")
    assert runs(ran) == 2
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
    pages = {f"page{n}.md": counted_block(ran, code=f"print({n})", expected=str(n)) for n in range(3)}
    root = write_project(tmp_path / "docs", pages, conf=CACHED)
    first = build(root, fresh=True, parallel=2)
    assert first.status == 0 and runs(ran) == 3
    second = build(root, fresh=True, parallel=2)
    assert second.status == 0 and runs(ran) == 3
    assert "running 0 of 3 block(s) (3 document(s)" in second.log and "; 3 from the cache" in second.log


def test_key_ignores_expected_output_comments_but_keeps_line_numbers() -> None:
    from sphinx_jaxcheck.cache import code_without_expectations, session_key
    from sphinx_jaxcheck.model import Example, Program

    def program(inline_expected: str, trailing: str, note: str = "# a note") -> Program:
        code = f"x = '#1'  {note}\nprint(x)  # {inline_expected}\n\n# >>> x\n# {trailing}\n"
        return Program(code, "<b>", inline_prints=((2, 2),), examples=(Example("x", 4),))

    base = program("#1", "'#1'")
    assert code_without_expectations(base) == "x = '#1'  # a note\nprint(x)  \n\n\n\n"
    assert session_key([base], "f") == session_key([program("#2", "'#2'")], "f")
    assert session_key([base], "f") != session_key([program("#1", "'#1'", note="# other")], "f")
    assert session_key([base], "f") != session_key([base], "another fingerprint")
