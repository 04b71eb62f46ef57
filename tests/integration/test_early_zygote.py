"""The zygote a ``jaxcheck`` command starts before the configuration is read: taken by workers
whose environment differs only in what jax reads, with that environment before jax is
imported; ended otherwise, and whenever no build takes it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from buildkit import build, jaxcheck, write_project
from processes import alive, zygotes_left_by_this_process

from sphinx_jaxcheck.cli import main
from sphinx_jaxcheck.model import Program
from sphinx_jaxcheck.run import spare
from sphinx_jaxcheck.run.pool import WorkerSettings, ZygoteClient, start_early_zygote

# Variables jax reads as it is imported, and a block showing what it got.
JAX_ENV = {
    "JAX_PLATFORMS": "cpu",
    "JAX_ENABLE_X64": "1",
    "XLA_FLAGS": "--xla_force_host_platform_device_count=3",
}
SHOW = (
    "import os, jax, jax.numpy as jnp\n"
    "print(jnp.zeros(1).dtype, len(jax.devices()), os.environ.get('JAX_ENABLE_X64'))\n"
)


def _spare_pid() -> int:
    start_early_zygote()
    return spare._SPARE[0].process.pid


def _shown(client: ZygoteClient) -> str:
    with client:
        return client.run({"s": [Program(SHOW, "<show>")]}, None)["s"][0].stdout


def test_workers_take_the_early_zygote_which_imports_jax_with_their_environment() -> None:
    pid = _spare_pid()
    taken = ZygoteClient(WorkerSettings(env=JAX_ENV, workers=2))
    assert taken.process.pid == pid
    assert _shown(taken) == "float64 3 1\n"
    # The same as a zygote started with that environment from the outset.
    assert _shown(ZygoteClient(WorkerSettings(env=JAX_ENV, workers=2))) == "float64 3 1\n"
    assert not spare._SPARE


@pytest.mark.parametrize(
    "settings",
    [
        # numpy reads this as it is imported, which the early zygote did already.
        WorkerSettings(env={"JAX_PLATFORMS": "cpu", "OPENBLAS_NUM_THREADS": "1"}),
        WorkerSettings(env={"JAX_PLATFORMS": "cpu", "PYTHONPATH": "/elsewhere"}),
    ],
    ids=["numpy-variable", "python-path"],
)
def test_an_environment_numpy_may_read_differently_gets_a_zygote_of_its_own(
    settings: WorkerSettings,
) -> None:
    pid = _spare_pid()
    own = ZygoteClient(settings)
    assert own.process.pid != pid and not alive(pid)
    own.close()


def test_another_interpreter_gets_a_zygote_of_its_own(tmp_path: Path) -> None:
    other = tmp_path / "python"
    other.symlink_to(sys.executable)  # another path: another environment (no venv there)
    pid = _spare_pid()
    own = ZygoteClient(WorkerSettings(python=str(other)))
    assert own.process.pid != pid and not alive(pid)
    own.close()


def test_a_cold_check_runs_its_blocks_with_the_configured_environment(tmp_path: Path) -> None:
    project = write_project(
        tmp_path / "docs",
        {"page.md": f"```{{jaxcheck}}\n{SHOW}# float64 3 1\n```\n"},
        conf=f"jaxcheck_env = {JAX_ENV!r}\n",
    )
    done = jaxcheck("check", project)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 verified" in done.stdout


def test_a_build_that_takes_no_worker_ends_the_early_zygote(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = write_project(tmp_path / "docs", {"page.md": "# Nothing to run\n"})
    assert main(["check", str(project)]) == 0
    capsys.readouterr()
    assert not spare._SPARE
    assert zygotes_left_by_this_process() == []


def test_a_build_whose_cache_holds_results_ends_the_early_zygote_before_reading(
    tmp_path: Path,
) -> None:
    """The cache is elsewhere than the command looked: the build itself ends the spare."""
    project = write_project(
        tmp_path / "docs",
        {"page.md": "```{jaxcheck}\nprint(2)\n\n# 2\n```\n"},
        conf=f"jaxcheck_cache = True\njaxcheck_cache_dir = {str(tmp_path / 'kept')!r}\n",
    )
    assert build(project, fresh=True).status == 0  # fills the cache
    pid = _spare_pid()
    assert build(project, fresh=True).status == 0  # every session from the cache
    assert not spare._SPARE and not alive(pid)
