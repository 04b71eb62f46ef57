"""Wall time of one command that must succeed, for the benchmark scripts beside this file."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Mapping
from pathlib import Path


def timed(command: list[str], cwd: Path | None = None, env: Mapping[str, str] | None = None) -> float:
    """Seconds ``command`` took; a failing command stops the benchmark with its output."""
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return seconds
