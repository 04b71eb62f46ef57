"""Several workers share the cores without changing any result."""

from __future__ import annotations

from pathlib import Path

import pytest
from buildkit import build, write_project

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


def test_capped_workers_compute_what_one_uncapped_worker_computes(tmp_path: Path) -> None:
    # XLA splits a large reduction by the cores it may use: pinning each worker to
    # one core changed this sum in its last digits. The thread flags must not.
    for workers in (1, 2):
        log = tmp_path / f"out{workers}.txt"
        block = (
            "import jax, jax.numpy as jnp\n"
            "x = jnp.sin(jnp.arange(200_000.0)).reshape(400, 500)\n"
            "values = float(jax.jit(lambda a: (a @ a.T).sum())(x)), float(x.sum())\n"
            f"open({str(log)!r}, 'a').write(repr(values) + '\\n')\n"
        )
        pages = {f"page{n}.md": f"# Page {n}\n\n```{{jaxcheck}}\n{block}```\n" for n in range(2)}
        root = write_project(tmp_path / f"docs{workers}", pages)
        assert build(root, fresh=True, jaxcheck_workers=workers, jaxcheck_cache=False).status == 0
    one, two = (tmp_path / "out1.txt").read_text(), (tmp_path / "out2.txt").read_text()
    assert one.count("\n") == 2 and one == two
