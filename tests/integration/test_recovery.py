"""Each way a child can end, in real processes: a real zygote forks real children, which crash,
hang, exit or take the zygote with them; the pool reports every program once."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from buildkit import build, write_project

from sphinx_jaxcheck.model import FailureKind, Program
from sphinx_jaxcheck.run.pool import SessionResult, Workers, WorkerSettings
from sphinx_jaxcheck.worker.protocol import RunSession


@pytest.fixture(scope="module")
def workers() -> Iterator[Workers]:
    started = Workers(WorkerSettings(workers=2))
    try:
        yield started
    finally:
        started.close()


def run(workers: Workers, *codes: str, setup: str = "", timeout: float = 60.0) -> SessionResult:
    """One session of these blocks, after ``setup`` if given."""
    setups = (Program(setup, "<setup>"),) if setup else ()
    items = tuple(Program(code, f"<block {n}>", timeout=timeout) for n, code in enumerate(codes))
    return workers.run({"s": RunSession("s", setups, items)})["s"]


def test_a_block_that_crashes_fails_alone_and_the_next_block_sees_the_namespace(
    workers: Workers,
) -> None:
    result = run(workers, "a = 1", "import os\nos._exit(3)", "print(a + 1)")
    assert result.items[1].failure is FailureKind.CRASH
    assert "exited with status 3 (os._exit?)" in result.items[1].message
    assert result.items[2].stdout == "2\n"


def test_a_block_that_hangs_is_stopped_at_its_timeout_and_the_next_one_runs(
    workers: Workers,
) -> None:
    result = run(workers, "import time\ntime.sleep(60)", "print('next')", timeout=1.0)
    assert result.items[0].failure is FailureKind.TIMEOUT
    assert result.items[1].stdout == "next\n"


def test_a_setup_that_crashes_runs_no_item(workers: Workers, tmp_path: Path) -> None:
    ran = tmp_path / "ran"
    result = run(workers, f"open({str(ran)!r}, 'w')", setup="import os\nos._exit(4)")
    assert result.failed_setup is not None
    assert "exited with status 4" in result.failed_setup.message
    assert not ran.exists()


def test_a_block_that_crashes_when_re_run_leaves_the_rest_not_run(
    workers: Workers, tmp_path: Path
) -> None:
    flag = tmp_path / "flag"
    again = f"import os\nif os.path.exists({str(flag)!r}): os._exit(5)\nopen({str(flag)!r}, 'w')"
    result = run(workers, again, "import os\nos._exit(3)", "print('never')")
    assert result.items[0].failure is None
    assert "exited with status 3" in result.items[1].message
    assert result.items[2].failure is FailureKind.NOT_RUN
    assert result.items[2].message == (
        "not run: re-running the earlier blocks of its session failed at block 1"
    )


def test_a_block_that_kills_the_zygote_fails_every_block_left_saying_so() -> None:
    # Only blocks from the killer on: an earlier block's result may still be in the pipe
    # the killed zygote never read.
    alone = Workers(WorkerSettings(workers=1))
    try:
        kill = "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)"
        result = run(alone, kill, "print('never')")
    finally:
        alone.close()
    for outcome in result.items:
        assert outcome.failure is FailureKind.CRASH
        assert "the jaxcheck worker supervisor died" in outcome.message


def test_a_module_that_crashes_its_collection_is_named(tmp_path: Path) -> None:
    (tmp_path / "crashing.py").write_text('"""Doc."""\nimport os\nos._exit(6)\n', "utf-8")
    alone = Workers(WorkerSettings(env={"JAX_PLATFORMS": "cpu", "PYTHONPATH": str(tmp_path)}))
    try:
        found = alone.collect(["crashing"], [], 30.0)
    finally:
        alone.close()
    assert found.problem == "the worker process exited with status 6 while importing crashing"


def test_a_crashing_setup_is_each_blocks_failure_in_a_build(tmp_path: Path) -> None:
    page = "Page\n====\n\n.. jaxcheck::\n\n   print(1)\n\n   # 1\n"
    root = write_project(
        tmp_path, {"page.rst": page}, conf="jaxcheck_setup = 'import os; os._exit(4)'\n"
    )
    [reported] = build(root).reported
    assert (reported.line, reported.subtype) == (6, "error")
    assert "jaxcheck_setup (in conf.py) failed" in reported.message
    assert "exited with status 4" in reported.message
