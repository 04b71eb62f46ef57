"""Wall time of one command that must succeed, and the table of medians, for the benchmark
scripts beside this file."""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path


def timed(
    command: list[str], cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> float:
    """Seconds ``command`` took; a failing command stops the benchmark with its output."""
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(
            f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}"
        )
    return seconds


def children_cpu() -> float:
    """CPU seconds (user and system) of the child processes waited for so far, with theirs."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def median_table(runs: dict[str, list[float]], reference: str) -> str:
    """A markdown table: each configuration's median seconds, every run, and its median's ratio
    to ``reference``'s."""
    base = statistics.median(runs[reference])
    lines = [f"| run | median s | runs (s) | ratio to {reference} |", "|---|---:|---|---:|"]
    for name, times in runs.items():
        shown = " ".join(f"{t:.2f}" for t in times)
        lines.append(
            f"| {name} | {statistics.median(times):.2f} | {shown} | "
            f"{statistics.median(times) / base:.2f} |"
        )
    return "\n".join(lines)


def compile_package(python: str = sys.executable) -> None:
    """Write this package's bytecode before anything is timed, as pip does when it installs a
    package: a checkout edited since its last import, in an environment that sets
    ``PYTHONDONTWRITEBYTECODE``, would otherwise compile its changed modules in every process
    the benchmark starts (about 4 ms for each of the larger modules)."""
    package = Path(__file__).resolve().parents[1] / "sphinx_jaxcheck"
    subprocess.run([python, "-m", "compileall", "-q", str(package)], check=True)
