"""What the pool hands its worker processes, decided before any starts (no workers)."""

from __future__ import annotations

import os

import pytest

from sphinx_jaxcheck.run.pool import ONE_THREAD_XLA_FLAGS, WorkerSettings


def test_workers_share_the_cores_unless_the_user_set_xla_flags(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("XLA_FLAGS", raising=False)
    assert WorkerSettings(workers=2).process_env()["XLA_FLAGS"] == ONE_THREAD_XLA_FLAGS
    assert "XLA_FLAGS" not in WorkerSettings(workers=1).process_env()
    mine = WorkerSettings(workers=2, env={"XLA_FLAGS": "--xla_cpu_enable_fast_math=false"})
    assert mine.process_env()["XLA_FLAGS"] == "--xla_cpu_enable_fast_math=false"
    monkeypatch.setenv("XLA_FLAGS", "--xla_dump_to=/tmp/nowhere")
    assert WorkerSettings(workers=2).process_env()["XLA_FLAGS"] == "--xla_dump_to=/tmp/nowhere"


def test_jax_gets_our_folder_without_a_limit_of_its_own_and_never_in_the_cache_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """JAX's limit rescans the folder on every store: the folder is bounded after the build."""
    for name in ("JAX_COMPILATION_CACHE_DIR", "JAX_COMPILATION_CACHE_MAX_SIZE"):
        monkeypatch.delenv(name, raising=False)
    env = WorkerSettings(xla_cache_dir="/cache/xla").process_env()
    assert env["JAX_COMPILATION_CACHE_DIR"] == "/cache/xla"
    assert env["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] == "0"
    assert "JAX_COMPILATION_CACHE_MAX_SIZE" not in env
    assert "JAX_COMPILATION_CACHE_DIR" not in WorkerSettings().outcome_env()  # no outcome changes
    # Any of JAX's cache variables set by the user: the whole cache is theirs.
    theirs = WorkerSettings(
        env={"JAX_COMPILATION_CACHE_MAX_SIZE": "1000"}, xla_cache_dir="/cache/xla"
    ).process_env()
    assert theirs["JAX_COMPILATION_CACHE_MAX_SIZE"] == "1000"
    assert "JAX_COMPILATION_CACHE_DIR" not in theirs


def test_the_cache_key_names_the_package_another_interpreter_imports_not_its_temporary_link() -> (
    None
):
    other = WorkerSettings(python="/usr/bin/python3-other")
    link = other.process_env()["PYTHONPATH"].split(os.pathsep)[0]
    assert os.path.basename(link).startswith("jaxcheck-package-")  # made by this process
    keyed = other.key_env()["PYTHONPATH"].split(os.pathsep)
    assert link not in keyed and keyed[0].startswith("<a link to ")
    assert {**other.key_env(), "PYTHONPATH": ""} == {**other.outcome_env(), "PYTHONPATH": ""}
    assert WorkerSettings().key_env() == WorkerSettings().outcome_env()  # ours: a real folder
