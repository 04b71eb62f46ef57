"""The zygote a ``jaxcheck`` command starts before the configuration is read, with the
environment the defaults and a literal ``jaxcheck_env`` in conf.py give: it imports jax, and is
taken by workers whose environment differs only in what jax reads later (``XLA_FLAGS``, the
compilation cache's variables, jaxcheck's own), which then take effect as if given from the
start; ended otherwise, and whenever no build takes it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from buildkit import build, jaxcheck, write_project
from processes import alive, zygotes_left_by_this_process

from sphinx_jaxcheck.cli import main
from sphinx_jaxcheck.cli.project import literal_env
from sphinx_jaxcheck.model import DEFAULT_ENV, Program
from sphinx_jaxcheck.run import early_zygote
from sphinx_jaxcheck.run.pool import WorkerSettings, ZygoteClient, start_early_zygote
from sphinx_jaxcheck.worker.protocol import RunSession

# A variable jax reads as it is imported, one it reads when a backend starts, and a block
# showing what it got.
X64 = {"JAX_PLATFORMS": "cpu", "JAX_ENABLE_X64": "1"}
JAX_ENV = {**X64, "XLA_FLAGS": "--xla_force_host_platform_device_count=3"}
SHOW = (
    "import os, jax, jax.numpy as jnp\n"
    "print(jnp.zeros(1).dtype, len(jax.devices()), os.environ.get('JAX_ENABLE_X64'))\n"
)


def _waiting_pid(env: dict[str, str] = DEFAULT_ENV) -> int:
    start_early_zygote(env)
    return early_zygote._WAITING[0].process.pid


def _shown(client: ZygoteClient) -> str:
    with client:
        request = RunSession("s", (), (Program(SHOW, "<show>"),))
        return client.run({"s": request}, None)["s"].items[0].stdout


def test_workers_take_the_early_zygote_when_only_what_jax_reads_after_its_import_differs(
    tmp_path: Path,
) -> None:
    pid = _waiting_pid(X64)
    taken = ZygoteClient(WorkerSettings(env=JAX_ENV, workers=2, xla_cache_dir=str(tmp_path / "a")))
    assert taken.process.pid == pid
    assert _shown(taken) == "float64 3 1\n"  # XLA_FLAGS given after the import took effect
    # The same as a zygote started with that environment from the outset, down to the
    # programs it keeps in the compilation cache it was given after the import (by name:
    # each process's keys differ). Kept at all, they were stored as the options given then
    # say (jax's defaults keep none of them).
    fresh = ZygoteClient(WorkerSettings(env=JAX_ENV, workers=2, xla_cache_dir=str(tmp_path / "b")))
    assert fresh.process.pid != pid
    assert _shown(fresh) == "float64 3 1\n"
    kept = [sorted(p.name.rsplit("-", 2)[0] for p in (tmp_path / f).iterdir()) for f in "ab"]
    assert kept[0] and kept[0] == kept[1]
    assert not early_zygote._WAITING


@pytest.mark.parametrize(
    ("started", "settings"),
    [
        # jax reads this as it is imported, which the early zygote did already.
        (DEFAULT_ENV, WorkerSettings(env=X64)),
        # numpy too.
        (DEFAULT_ENV, WorkerSettings(env={"JAX_PLATFORMS": "cpu", "OPENBLAS_NUM_THREADS": "1"})),
        (DEFAULT_ENV, WorkerSettings(env={"JAX_PLATFORMS": "cpu", "PYTHONPATH": "/elsewhere"})),
        # A cache option the zygote has set cannot be taken back.
        ({**DEFAULT_ENV, "JAX_COMPILATION_CACHE_DIR": "/elsewhere"}, WorkerSettings()),
    ],
    ids=["jax-variable", "numpy-variable", "python-path", "cache-option-taken-away"],
)
def test_an_environment_jax_may_read_differently_gets_a_zygote_of_its_own(
    started: dict[str, str], settings: WorkerSettings
) -> None:
    pid = _waiting_pid(started)
    own = ZygoteClient(settings)
    assert own.process.pid != pid and not alive(pid)
    own.close()


@pytest.mark.parametrize(
    ("conf", "guessed"),
    [
        ("project = 'p'\n", DEFAULT_ENV),
        ("jaxcheck_env = {'JAX_PLATFORMS': 'cpu', 'JAX_ENABLE_X64': '1'}\n", X64),
        ("jaxcheck_env = {'A': '1'}\njaxcheck_env = {'B': '2'}\n", {"B": "2"}),
        ("import os\njaxcheck_env = dict(os.environ)\n", DEFAULT_ENV),
        ("jaxcheck_env = dict(A='1')\njaxcheck_env = {'B': '2'}\n", {"B": "2"}),
        ("jaxcheck_env = {\n", DEFAULT_ENV),
    ],
    ids=["none", "literal", "the-last-one", "computed", "computed-then-literal", "not-python"],
)
def test_the_command_guesses_the_workers_environment_from_a_literal_in_conf_py(
    tmp_path: Path, conf: str, guessed: dict[str, str]
) -> None:
    (tmp_path / "conf.py").write_text(conf)
    assert literal_env(tmp_path / "conf.py") == guessed


def test_another_interpreter_gets_a_zygote_of_its_own(tmp_path: Path) -> None:
    other = tmp_path / "python"
    other.symlink_to(sys.executable)  # another path: another environment (no venv there)
    pid = _waiting_pid()
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
    assert not early_zygote._WAITING
    assert zygotes_left_by_this_process() == []


def test_a_build_whose_cache_holds_results_ends_the_early_zygote_before_reading(
    tmp_path: Path,
) -> None:
    """The cache is elsewhere than the command looked: the build itself ends the early zygote."""
    project = write_project(
        tmp_path / "docs",
        {"page.md": "```{jaxcheck}\nprint(2)\n\n# 2\n```\n"},
        conf=f"jaxcheck_cache = True\njaxcheck_cache_dir = {str(tmp_path / 'kept')!r}\n",
    )
    assert build(project, fresh=True).status == 0  # fills the cache
    pid = _waiting_pid()
    assert build(project, fresh=True).status == 0  # every session from the cache
    assert not early_zygote._WAITING and not alive(pid)


def test_the_command_starts_the_early_zygote_before_it_loads_sphinx(tmp_path: Path) -> None:
    """Loading Sphinx takes longer than the rest of the command's start: jax's import need not
    wait for it."""
    spy = (
        "import sys\n"
        "from sphinx_jaxcheck.run import pool\n"
        "start = pool.start_waiting_zygote\n"
        "def started(*args):\n"
        "    print('Sphinx loaded:', 'sphinx.application' in sys.modules, file=sys.stderr)\n"
        "    start(*args)\n"
        "pool.start_waiting_zygote = started\n"
        "from sphinx_jaxcheck.cli import command\n"
        "sys.exit(command())\n"
    )
    for verb in ("check", "update"):
        project = write_project(tmp_path / verb, {"page.md": "# Nothing to run\n"})
        done = subprocess.run(
            [sys.executable, "-c", spy, verb, str(project)], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        assert "Sphinx loaded: False" in done.stderr, (verb, done.stderr)
