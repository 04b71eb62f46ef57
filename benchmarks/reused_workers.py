"""Two checkouts of sphinx-jaxcheck in turns: page sessions run through the pool, timed.

    python benchmarks/reused_workers.py --before /path/to/old --after . --rounds 5

Each run is a fresh process with the checkout first on ``PYTHONPATH``: it
starts the workers (``workers=1`` unless ``--workers``), waits for jax to be
imported, then runs 32 page sessions of two of ``run.py``'s blocks each, and
prints the wall time of the sessions and the CPU time of the whole process
tree (the workers included), which a shared machine's load disturbs less. The
load average is printed with each run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
ONE_RUN = """
import json, resource, sys, time
sys.path.insert(0, {benchmarks!r})
from run import block_code
from sphinx_jaxcheck.model import Program
from sphinx_jaxcheck.run.pool import Workers, WorkerSettings
sessions = {{
    f"p{{d}}": [Program(block_code(d, b), f"<p{{d}}>") for b in range(2)] for d in range(32)
}}
workers = Workers(WorkerSettings(workers={workers}))
workers.start()
workers._ready()
started = time.perf_counter()
outcomes = workers.run(sessions)
seconds = time.perf_counter() - started
workers.close()
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
failed = sum(1 for found in outcomes.values() for o in found if o.failure)
print(json.dumps({{"seconds": seconds, "cpu": usage.ru_utime + usage.ru_stime, "failed": failed}}))
"""


def one_run(checkout: Path, workers: int) -> dict[str, float]:
    """One timed run of the sessions with ``checkout``'s code."""
    env = {**os.environ, "PYTHONPATH": str(checkout.resolve()), "JAX_PLATFORMS": "cpu"}
    code = ONE_RUN.format(benchmarks=str(HERE), workers=workers)
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
    )
    found: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="the older checkout")
    parser.add_argument("--after", type=Path, required=True, help="the newer checkout")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args(argv)
    totals: dict[str, list[float]] = {"before": [], "after": []}
    for number in range(args.rounds):
        for name in ("before", "after"):
            load = os.getloadavg()[0]
            found = one_run(getattr(args, name), args.workers)
            totals[name].append(found["cpu"])
            print(
                f"round {number + 1} {name}: {found['seconds']:.2f} s wall, "
                f"{found['cpu']:.2f} s CPU, {found['failed']:g} failed, load {load:.1f}",
                flush=True,
            )
    before, after = (sorted(totals[name])[len(totals[name]) // 2] for name in ("before", "after"))
    print(f"median CPU: before {before:.2f} s, after {after:.2f} s, {after / before:.2f} x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
