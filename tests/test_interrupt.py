"""SIGINT and SIGTERM, sent for real to a real build: nothing survives, nothing is left behind, finished work is kept.

Each build runs three quick sessions, then one whose block starts two processes
(one in a session of its own, out of reach of process-group kills) and waits.
The signal comes once those processes exist; afterwards /proc must hold none
of the build's processes, the temporary folder none of its files, and the
cache the three sessions that finished.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from buildkit import write_project

QUICK = "# Quick {n}\n\n```{{jaxcheck}}\nprint({n})\n\n# {n}\n```\n\n```{{jaxcheck}}\nprint({n} + 1)\n\n# {m}\n```\n"
WAITING = """# Waiting

```{{jaxcheck}}
import subprocess, time
plain = subprocess.Popen(["sleep", "600"])
apart = subprocess.Popen(["sleep", "600"], start_new_session=True)
with open({pids!r}, "w") as out:
    out.write(f"{{plain.pid}} {{apart.pid}}")
time.sleep(600)
```
"""


def project(tmp_path: Path, cache: bool) -> tuple[Path, Path]:
    pids = tmp_path / "pids"
    pages = {f"quick{n}.md": QUICK.format(n=n, m=n + 1) for n in range(3)}
    pages["waiting.md"] = WAITING.format(pids=str(pids))
    root = write_project(tmp_path / "docs", pages, conf=f"jaxcheck_cache = {cache}\njaxcheck_workers = 1\n")
    return root, pids


def descendants(root: int) -> set[int]:
    """Every process below ``root``, from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def interrupt(command: list[str], pids: Path, tmpdir: Path, signum: int, to_group: bool) -> tuple[subprocess.CompletedProcess[str], set[int]]:
    """Run ``command``, signal it once the waiting block started its processes; what it printed, and every pid it had."""
    tmpdir.mkdir(exist_ok=True)
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 600
    while not (pids.exists() and len(pids.read_text().split()) == 2):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the waiting block never started"
        time.sleep(0.1)
    seen = descendants(process.pid) | {int(pid) for pid in pids.read_text().split()}
    assert len(seen) >= 4  # the zygote, the block's process, and its two sleeps
    if to_group:  # Ctrl-C: the terminal signals the foreground process group
        os.killpg(process.pid, signum)
    else:  # a CI runner cancelling the job, `kill PID`
        os.kill(process.pid, signum)
    out, err = process.communicate(timeout=120)
    return subprocess.CompletedProcess(command, process.returncode, out, err), seen


def assert_clean_exit(done: subprocess.CompletedProcess[str], signum: int, seen: set[int], tmpdir: Path) -> None:
    assert done.returncode == 128 + signum, done.stderr
    name = signal.Signals(signum).name
    assert [line for line in done.stderr.splitlines() if "interrupted" in line] == [
        f"jaxcheck: interrupted by {name}: stopping the workers and every process the blocks started, "
        "removing temporary files; sessions that finished stay in the cache"
    ]
    assert "Traceback" not in done.stderr and "report this error" not in done.stderr
    assert [pid for pid in seen if alive(pid)] == []
    assert list(tmpdir.iterdir()) == []


@pytest.mark.parametrize(("signum", "to_group"), [(signal.SIGTERM, False), (signal.SIGINT, True)], ids=["SIGTERM", "ctrl-c"])
def test_sphinx_build_stops_everything_and_keeps_the_finished_sessions(tmp_path: Path, signum: int, to_group: bool) -> None:
    root, pids = project(tmp_path, cache=True)
    command = [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(root), str(tmp_path / "out")]
    done, seen = interrupt(command, pids, tmp_path / "tmp", signum, to_group)
    assert_clean_exit(done, signum, seen, tmp_path / "tmp")
    assert len(list((root / ".jaxcheck_cache").glob("*.json"))) == 3
    assert list((root / ".jaxcheck_cache").glob("*.tmp")) == []


def test_jaxcheck_check_without_cache_stops_everything_and_removes_its_xla_folder(tmp_path: Path) -> None:
    root, pids = project(tmp_path, cache=False)
    done, seen = interrupt([sys.executable, "-m", "sphinx_jaxcheck", "check", str(root)], pids, tmp_path / "tmp", signal.SIGINT, True)
    assert_clean_exit(done, signal.SIGINT, seen, tmp_path / "tmp")  # no jaxcheck-xla-* folder left


def test_the_workers_clean_up_even_when_the_build_process_is_killed(tmp_path: Path) -> None:
    """SIGKILL cannot be caught: the zygote learns of its parent's death and stops what the blocks started."""
    root, pids = project(tmp_path, cache=True)
    command = [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(root), str(tmp_path / "out")]
    done, seen = interrupt(command, pids, tmp_path / "tmp", signal.SIGKILL, False)
    assert done.returncode == -signal.SIGKILL
    deadline = time.monotonic() + 30
    while [pid for pid in seen if alive(pid)] and time.monotonic() < deadline:
        time.sleep(0.2)
    assert [pid for pid in seen if alive(pid)] == []


def test_an_interrupted_update_leaves_every_source_whole_and_no_temporary_file(tmp_path: Path) -> None:
    """Many large stale pages; SIGTERM lands while update writes them."""
    filler = ("Prose. " * 150 + "\n") * 1500  # about 1.6 MB a page: writing takes a while
    pages = {f"page{n}.md": f"# Page {n}\n\n{filler}\n```{{jaxcheck}}\nprint({n})\n\n# stale\n```\n" for n in range(40)}
    root = write_project(tmp_path / "docs", pages, conf="jaxcheck_cache = True\n")
    before = {name: (root / name).read_bytes() for name in pages}
    check = subprocess.run([sys.executable, "-m", "sphinx_jaxcheck", "check", str(root)], capture_output=True, text=True)
    assert check.returncode == 1  # stale, and now every session is cached: update goes straight to writing
    process = subprocess.Popen(
        [sys.executable, "-m", "sphinx_jaxcheck", "update", str(root)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    stamps = {name: (root / name).stat().st_mtime_ns for name in pages}
    while process.poll() is None and not list(root.glob(".jaxcheck-*.tmp")) and all(
        (root / name).stat().st_mtime_ns == stamps[name] for name in pages
    ):
        pass
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=120)
    if process.returncode == 0:
        pytest.fail("update finished before the signal: make the pages larger")  # never seen so far
    assert process.returncode == 128 + signal.SIGTERM, err
    assert "Traceback" not in err
    assert list(root.glob(".jaxcheck-*.tmp")) == []
    for name in pages:
        text = (root / name).read_bytes()
        assert text in (before[name], before[name].replace(b"# stale", f"# {name[4:-3]}".encode()))
