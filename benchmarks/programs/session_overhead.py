"""What one session costs the worker pool: plain Python, then a block's first jax operation.

    python session_overhead.py SESSIONS

Runs SESSIONS one-block sessions of each kind through one pool and prints the
milliseconds per session of plain ``print(1)``, of the first jax operation
(after a warm-up round that fills the XLA cache), then the seconds the pool
took to start.
"""

from __future__ import annotations

import sys
import tempfile
import time

from sphinx_jaxcheck.model import Program
from sphinx_jaxcheck.run.pool import WorkerSettings, ZygoteClient
from sphinx_jaxcheck.worker.protocol import RunSession

JAX_CODE = "import jax.numpy as jnp\nprint(jnp.ones(2).sum())"


def main(count: int) -> None:
    started = time.perf_counter()
    # As in a build: sessions share compiled programs through a persistent XLA cache.
    with (
        tempfile.TemporaryDirectory() as xla,
        ZygoteClient(WorkerSettings(workers=1, xla_cache_dir=xla)) as zygote,
    ):
        ready = time.perf_counter()
        for code, timed in (("print(1)", True), (JAX_CODE, False), (JAX_CODE, True)):
            sessions = {
                n: RunSession(str(n), (), (Program(code, f"<s{n}>"),)) for n in range(count)
            }
            began = time.perf_counter()
            results = zygote.run(sessions, None)
            assert not any(o.failure for r in results.values() for o in r.items), results
            if timed:
                print((time.perf_counter() - began) / count * 1000)
    print(ready - started)


if __name__ == "__main__":
    main(int(sys.argv[1]))
