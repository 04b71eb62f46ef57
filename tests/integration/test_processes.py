"""The tests tell a worker supervisor from the other processes a build starts by its arguments:
the interpreter probe's code names the supervisor's module too, and a warm build may run the
probe while it reads (the test that no worker starts early failed on that once)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from processes import is_zygote, live_zygotes

from sphinx_jaxcheck.run.interpreter import _PROBE as PROBE
from sphinx_jaxcheck.run.interpreter import TRACKED_PACKAGES


def running(command: list[str]) -> subprocess.Popen[bytes]:
    """``command`` started, once /proc shows its arguments: Popen returns while the exec is
    still setting them up, when they read empty."""
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not Path(f"/proc/{process.pid}/cmdline").read_bytes() and time.monotonic() < deadline:
        time.sleep(0.01)
    return process


def test_the_interpreter_probe_is_no_zygote_and_a_zygote_is() -> None:
    # The probe's own code, kept running long enough to be looked at.
    probe = running(
        [sys.executable, "-c", PROBE + "\nimport time\ntime.sleep(60)\n", *TRACKED_PACKAGES]
    )
    zygote = running([sys.executable, "-m", "sphinx_jaxcheck.worker.zygote"])
    try:
        assert probe.poll() is None and zygote.poll() is None
        assert b"sphinx_jaxcheck.worker.zygote" in Path(f"/proc/{probe.pid}/cmdline").read_bytes()
        assert not is_zygote(probe.pid)
        assert is_zygote(zygote.pid)
        assert zygote.pid in live_zygotes() and probe.pid not in live_zygotes()
    finally:
        for process in (probe, zygote):
            process.kill()
            process.wait()
        for stream in (probe.stdin, zygote.stdin):
            assert stream is not None
            stream.close()
