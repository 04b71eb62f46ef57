"""Several workers share the cores without changing any result."""

from __future__ import annotations

from pathlib import Path

from buildkit import build, write_project


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
