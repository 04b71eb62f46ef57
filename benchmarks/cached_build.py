"""A fully cached ``sphinx-build -E`` against a plain build of the same pages, side by side.

    python benchmarks/cached_build.py [--docs 16] [--blocks 8] [--pairs 5]

Generates the projects of ``run.py`` (jaxcheck blocks, and the same code as
plain code blocks), fills the result cache with one cold build, then times
``sphinx-build -E -b html`` of the plain pages and of the jaxcheck pages (every
session from the cache) in turns. Prints the medians of wall time and of CPU
time (the build and every process it waited for), their ratios, and the load
average before and after. This package's modules are compiled to bytecode by
the cold build, as an installed package's are when it is installed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from run import PYTHON, REPO, jaxcheck_project, make_corpus, plain_project, sphinx
from timing import children_cpu


def measure(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds of one command that must succeed."""
    cpu, started = children_cpu(), time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True)
    return time.perf_counter() - started, children_cpu() - cpu


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--docs", type=int, default=16)
    options.add_argument("--blocks", type=int, default=8)
    options.add_argument("--pairs", type=int, default=5)
    args = options.parse_args()
    env = {**os.environ, "PYTHONPATH": str(REPO), "JAX_PLATFORMS": "cpu"}
    # As installed, this package's modules load compiled (Sphinx's already do): the cold
    # build writes their bytecode, which a PYTHONDONTWRITEBYTECODE shell would forbid.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        corpus = make_corpus(args.docs, args.blocks, work)
        checked, plain = (
            jaxcheck_project(corpus, work / "jaxcheck"),
            plain_project(corpus, work / "plain"),
        )
        cache = f"jaxcheck_cache_dir={work / 'cache'}"
        commands = {
            "plain": sphinx(plain, work / "out" / "plain", "-b", "html"),
            "cached": sphinx(checked, work / "out" / "cached", "-b", "html", "-D", cache),
        }
        measure(commands["cached"], env)  # the cold build that fills the cache
        load = os.getloadavg()[0]
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for _ in range(args.pairs):
            for name, command in commands.items():
                runs[name].append(measure(command, env))
    wall = {name: statistics.median(w for w, _ in found) for name, found in runs.items()}
    cpu = {name: statistics.median(c for _, c in found) for name, found in runs.items()}
    print(f"{PYTHON}: {args.docs} documents x {args.blocks} blocks, {args.pairs} pairs")
    print(f"load average {load:.1f} before, {os.getloadavg()[0]:.1f} after")
    print("| build | wall (s) | CPU (s) |\n|---|---:|---:|")
    for name in commands:
        print(f"| {name} | {wall[name]:.2f} | {cpu[name]:.2f} |")
    print(
        f"cached / plain: {wall['cached'] / wall['plain']:.2f} x wall, "
        f"{cpu['cached'] / cpu['plain']:.2f} x CPU"
    )


if __name__ == "__main__":
    main()
