"""How many cores a command keeps busy over time: where a build leaves a core idle.

    python benchmarks/utilization.py -- python -m sphinx -E -j 2 -D jaxcheck_workers=2 SRC OUT

Samples the whole machine's CPU time from ``/proc/stat`` every ``--every``
seconds while the command runs, and prints one line per sample: seconds since
the start, busy cores, and the command's newest output line. Run it on an
otherwise idle machine; other load counts as busy.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from collections.abc import Sequence


def cpu_times() -> tuple[int, int]:
    """Total and idle jiffies of all cores, from the first line of /proc/stat."""
    with open("/proc/stat") as stat:
        values = [int(v) for v in stat.readline().split()[1:]]
    return sum(values), values[3] + values[4]  # idle + iowait


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--every", type=float, default=0.25, help="seconds between samples (default: 0.25)"
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command to run after --")
    cores = os.cpu_count() or 1
    latest = [""]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output = process.stdout
    assert output is not None

    def follow() -> None:
        for line in output:
            if line.strip():
                latest[0] = line.strip()[:70]

    reader = threading.Thread(target=follow, daemon=True)
    reader.start()
    started = time.perf_counter()
    before = cpu_times()
    while process.poll() is None:
        time.sleep(args.every)
        now = cpu_times()
        total, idle = now[0] - before[0], now[1] - before[1]
        before = now
        busy = cores * (1 - idle / total) if total else 0.0
        print(
            f"{time.perf_counter() - started:7.2f} s  {busy:4.1f} of {cores} cores  {latest[0]}",
            flush=True,
        )
    reader.join()
    print(f"{time.perf_counter() - started:7.2f} s  exit status {process.returncode}")
    return process.returncode


if __name__ == "__main__":
    sys.exit(main())
