"""What the pool hands its worker processes, decided before any starts (no workers)."""

from __future__ import annotations

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
