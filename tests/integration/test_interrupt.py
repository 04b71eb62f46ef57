"""SIGINT and SIGTERM, sent for real at every point of a run a user can interrupt.

Each timing starts a real build (``sphinx-build``, ``-j 2``, ``jaxcheck check``
or ``update``) and sends the signal once an observable event says the run is
where the timing names: a marker file written by a hook of the project's
``conf.py`` (reading, writing HTML; in the build or in a ``-j`` reader or
writer it forked), a zygote in ``/proc``, the pids a block wrote, the first
cache entry, a temporary file in the cache, the first bytes of a report, a
rewritten source, the interruption line (for a second Ctrl-C). Afterwards:

* the exit status is 128 + the signal's number, with one line saying so and no traceback;
* no process of the run is left: none that existed when the signal was sent,
  and none anywhere that inherited the run's private ``TMPDIR``;
* that ``TMPDIR`` is empty (no XLA or package folder), and no ``*.tmp`` file is
  left in the cache or beside the sources;
* every cache entry is whole, and the sessions that finished are kept.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from buildkit import write_project
from processes import alive, is_zygote

from sphinx_jaxcheck.cache.outcomes import OutcomeCache
from sphinx_jaxcheck.model import Program
from sphinx_jaxcheck.run.interrupt import message
from sphinx_jaxcheck.run.pool import WorkerSettings, ZygoteClient
from sphinx_jaxcheck.worker.protocol import RunSession

QUICK = (
    "# Quick {n}\n"
    "\n"
    "```{{jaxcheck}}\n"
    "print({n})\n"
    "\n"
    "# {n}\n"
    "```\n"
    "\n"
    "```{{jaxcheck}}\n"
    "print({n} + 1)\n"
    "\n"
    "# {m}\n"
    "```\n"
)
# A block that starts a child, a grandchild (through a shell) and a process in a
# session of its own (out of reach of process-group kills), says so, and waits.
WAITING = """# Waiting

```{{jaxcheck}}
import os, subprocess, time
plain = subprocess.Popen(["sleep", "600"])
shell = subprocess.Popen(["sh", "-c", "sleep 600 & echo $! > {grandchild}.tmp && \
mv {grandchild}.tmp {grandchild}; wait"])
apart = subprocess.Popen(["sleep", "600"], start_new_session=True)
while not os.path.exists({grandchild!r}):
    time.sleep(0.05)
with open({pids!r} + ".tmp", "w") as out:
    out.write(f"{{plain.pid}} {{shell.pid}} {{apart.pid}} {{open({grandchild!r}).read().strip()}}")
os.replace({pids!r} + ".tmp", {pids!r})
time.sleep(600)
```
"""
# Large outputs, not compared (so cached, and not repeated in warnings): writing
# each 14 MB entry takes long enough to be caught.
LARGE = (
    "# Large {n}\n\n" + "```{{jaxcheck}}\n:output: ignore\n\nprint('{n}' * 7_000_000)\n```\n\n" * 2
)
# Large pages with a stale block: rewriting them takes long enough to be caught.
FILLER = ("Prose. " * 150 + "\n") * 1500
LARGE_STALE = "# Page {n}\n\n" + FILLER + "\n```{{jaxcheck}}\nprint({n})\n\n# stale\n```\n"
# Drift with a long diff: the report is larger than a pipe holds.
LONG_DRIFT = (
    "# Long {n}\n"
    "\n"
    "```{{jaxcheck}}\n"
    "print('\\n'.join(f'line {{i}} of page {n}' for i in range(1500)))\n"
    "\n"
    "# stale\n"
    "```\n"
)
# A hook of the Sphinx process (or of a -j reader): at the event named in HOLD,
# write the marker (atomically, with the pid) and wait there for the signal.
HOOKS = """
import os, time
from pathlib import Path

def _hold(event):
    def hook(app, name, *rest):
        hold = Path({hold!r})
        if hold.exists() and hold.read_text() == event and name.startswith("quick"):
            Path({marker!r} + ".tmp" + str(os.getpid())).write_text(str(os.getpid()))
            os.replace({marker!r} + ".tmp" + str(os.getpid()), {marker!r})
            time.sleep(600)
    return hook

def setup(app):
    app.connect("source-read", _hold("read"))
    app.connect("html-page-context", _hold("write"))
"""


@dataclass
class Run:
    """A run being interrupted: its process and the files that tell where it is."""

    process: subprocess.Popen[str]
    root: Path
    tmp: Path
    marker: Path
    pids: Path
    err: Path
    out: str = ""
    stamps: dict[Path, int] = field(
        default_factory=dict
    )  # sources' modification times before the run


@dataclass(frozen=True)
class Timing:
    """Where a run is interrupted, how, and what must be kept."""

    name: str
    pages: tuple[str, ...]  # quick, waiting, large, drift
    command: str  # build | build-j2 | check | update
    signum: int
    reached: Callable[[Run], bool]
    to_group: bool = False  # Ctrl-C: the terminal signals the whole foreground process group
    hold: str = ""  # a conf.py hook that waits: read | write
    cache: bool = True
    warm: bool = False  # an uninterrupted run first, so the cache holds entries
    kept: tuple[int, ...] = ()  # how many cache entries may be left (empty: the ones before)
    again: bool = False  # a second Ctrl-C while cleaning up


def processes() -> dict[int, tuple[int, str]]:
    """Every process: pid -> (parent pid, state)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            found[int(entry.name)] = (int(fields[1]), fields[0])
    return found


def descendants(root: int) -> set[int]:
    """Every process below ``root``, from /proc."""
    table = processes()
    found, frontier = set(), {root}
    while frontier:
        frontier = {pid for pid, (parent, _) in table.items() if parent in frontier} - found
        found |= frontier
    return found


def with_tmpdir(tmpdir: Path) -> list[int]:
    """Live processes that inherited this TMPDIR: the run's own, its workers', and what blocks
    started."""
    needle = f"TMPDIR={tmpdir}\0".encode()
    found = []
    for pid, (_, state) in processes().items():
        try:
            if state != "Z" and needle in Path(f"/proc/{pid}/environ").read_bytes():
                found.append(pid)
        except OSError:
            continue
    return found


def zygote_started(run: Run) -> bool:
    """Reading is held, and the zygote started early is importing jax meanwhile."""
    return run.marker.exists() and any(is_zygote(p) for p in descendants(run.process.pid))


def in_a_forked_process(run: Run) -> bool:
    """A ``-j`` reader (or writer) process, forked from the build, is at the held event."""
    return run.marker.exists() and int(run.marker.read_text()) != run.process.pid


def held(run: Run) -> bool:
    return run.marker.exists() and int(run.marker.read_text()) == run.process.pid


def block_waiting(run: Run) -> bool:
    return run.pids.exists()


def a_session_cached(run: Run) -> bool:
    """The first session's entry is in the cache: the worker is between it and the next one."""
    return any((run.root / ".jaxcheck_cache").glob("*.json"))


def writing_an_entry(run: Run) -> bool:
    return (
        any(name.endswith(".tmp") for name in os.listdir(run.root / ".jaxcheck_cache"))
        if (run.root / ".jaxcheck_cache").is_dir()
        else False
    )


def report_started(run: Run) -> bool:
    """The first bytes of the report arrived; the rest cannot fit in the pipe, which is read no
    further."""
    assert run.process.stdout is not None
    run.out = os.read(run.process.stdout.fileno(), 1).decode()
    return bool(run.out)


def update_writing(run: Run) -> bool:
    """A temporary file beside the sources, or a source rewritten already."""
    return bool(list(run.root.glob(".jaxcheck-*.tmp"))) or any(
        p.stat().st_mtime_ns != t for p, t in run.stamps.items()
    )


TERM, INT = signal.SIGTERM, signal.SIGINT
QUICKS = ("quick0", "quick1", "quick2")
# Six documents with the index: Sphinx before 8.0 reads in parallel only more than five.
PARALLEL = (*QUICKS, "quick3", "quick4")
TIMINGS = [
    Timing("reading-warm-cache-no-worker", QUICKS, "build", TERM, held, hold="read", warm=True),
    Timing(
        "reading-while-the-zygote-imports-jax-ctrl-c",
        QUICKS,
        "build",
        INT,
        zygote_started,
        to_group=True,
        hold="read",
        cache=False,
    ),
    Timing(
        "reading-while-the-zygote-imports-jax-sigterm",
        QUICKS,
        "build",
        TERM,
        zygote_started,
        hold="read",
        cache=False,
    ),
    Timing(
        "check-reading-while-the-zygote-imports-jax-sigterm",
        QUICKS,
        "check",
        TERM,
        zygote_started,
        hold="read",
        cache=False,
    ),
    Timing(
        "parallel-read-ctrl-c",
        PARALLEL,
        "build-j2",
        INT,
        in_a_forked_process,
        to_group=True,
        hold="read",
    ),
    Timing(
        "parallel-read-sigterm",
        PARALLEL,
        "build-j2",
        TERM,
        in_a_forked_process,
        hold="read",
        warm=True,
    ),
    Timing(
        "parallel-read-cold-sigterm",
        PARALLEL,
        "build-j2",
        TERM,
        in_a_forked_process,
        hold="read",
    ),
    Timing(
        "between-two-sessions",
        (*QUICKS, "waiting"),
        "build",
        TERM,
        a_session_cached,
        kept=(1, 2, 3),
    ),
    Timing("block-running-sigterm", (*QUICKS, "waiting"), "build", TERM, block_waiting, kept=(3,)),
    Timing(
        "block-running-ctrl-c",
        (*QUICKS, "waiting"),
        "build",
        INT,
        block_waiting,
        to_group=True,
        kept=(3,),
    ),
    Timing(
        "block-running-ctrl-c-twice",
        (*QUICKS, "waiting"),
        "build",
        INT,
        block_waiting,
        to_group=True,
        kept=(3,),
        again=True,
    ),
    Timing(
        "check-block-running-no-cache",
        (*QUICKS, "waiting"),
        "check",
        INT,
        block_waiting,
        to_group=True,
        cache=False,
    ),
    Timing(
        "writing-a-cache-entry",
        tuple(f"large{n}" for n in range(6)),
        "build",
        TERM,
        writing_an_entry,
        kept=tuple(range(7)),
    ),
    Timing("writing-html", QUICKS, "build", TERM, held, hold="write", kept=(3,)),
    Timing(
        "parallel-write-ctrl-c",
        PARALLEL,
        "build-j2",
        INT,
        in_a_forked_process,
        to_group=True,
        hold="write",
        kept=(5,),
    ),
    Timing(
        "check-report-output",
        ("drift0", "drift1", "drift2", "drift3"),
        "check",
        TERM,
        report_started,
        kept=(4,),
    ),
    Timing(
        "update-writing-sources",
        tuple(f"stale{n}" for n in range(24)),
        "update",
        INT,
        update_writing,
        to_group=True,
        warm=True,
    ),
]


def page(kind: str, tmp_path: Path) -> str:
    name = kind.rstrip("0123456789")
    n = int(kind[len(name) :] or 0)
    if name == "quick":
        return QUICK.format(n=n, m=n + 1)
    if name == "large":
        return LARGE.format(n=n)
    if name == "drift":
        return LONG_DRIFT.format(n=n)
    if name == "stale":
        return LARGE_STALE.format(n=n)
    return WAITING.format(pids=str(tmp_path / "pids"), grandchild=str(tmp_path / "grandchild"))


def command(timing: Timing, root: Path, tmp_path: Path) -> list[str]:
    if timing.command.startswith("build"):
        jobs = ["-j", "2"] if timing.command == "build-j2" else []
        # -E: read every document, also after a warm-up build
        return [
            sys.executable,
            "-m",
            "sphinx",
            "-E",
            "-q",
            *jobs,
            "-b",
            "html",
            str(root),
            str(tmp_path / "out"),
        ]
    return [sys.executable, "-m", "sphinx_jaxcheck", timing.command, str(root)]


def start(cmd: list[str], run_dir: Path, tmpdir: Path, out: int | None) -> subprocess.Popen[str]:
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    with open(run_dir / "stderr", "w") as err:
        return subprocess.Popen(
            cmd, env=env, stdout=out, stderr=err, text=True, start_new_session=True
        )


def entries(root: Path) -> list[Path]:
    """Every cache entry, each checked whole (a torn or foreign one fails here)."""
    folder = root / ".jaxcheck_cache"
    found = sorted(folder.glob("*.json")) if folder.is_dir() else []
    cache = OutcomeCache(folder)
    for path in found:
        assert set(json.loads(path.read_text())) == {"key", "digest", "outcomes", "used"}, path
        assert cache.get(path.stem) is not None, cache.discarded
    return found


def wait_until(condition: Callable[[], bool], process: subprocess.Popen[str], what: str) -> None:
    deadline = time.monotonic() + 600
    while not condition():
        assert process.poll() is None, f"the run ended ({process.returncode}) before {what}"
        assert time.monotonic() < deadline, f"never reached: {what}"
        time.sleep(
            0.001
            if what in ("writing-a-cache-entry", "update-writing-sources", "between-two-sessions")
            else 0.05
        )


@pytest.mark.parametrize("timing", TIMINGS, ids=[t.name for t in TIMINGS])
def test_an_interrupted_run_stops_everything_keeps_what_finished_and_says_so_in_one_line(
    tmp_path: Path, timing: Timing
) -> None:
    hold, marker, pids, tmpdir = (
        tmp_path / "hold",
        tmp_path / "reached",
        tmp_path / "pids",
        tmp_path / "tmp",
    )
    tmpdir.mkdir()
    pages = {f"{kind}.md": page(kind, tmp_path) for kind in timing.pages}
    conf = f"jaxcheck_cache = {timing.cache}\njaxcheck_workers = 1\n" + HOOKS.format(
        hold=str(hold), marker=str(marker)
    )
    root = write_project(tmp_path / "docs", pages, conf=conf)
    cmd = command(timing, root, tmp_path)
    if timing.warm:
        warm_up = (
            [*cmd[:-1], str(tmp_path / "warm")]
            if timing.command.startswith("build")
            else [*cmd[:-2], "check", str(root)]
        )
        subprocess.run(
            warm_up,
            capture_output=True,
            text=True,
            env={**os.environ, "TMPDIR": str(tmpdir)},
            check=False,
        )
        assert entries(root), "the warm-up run cached nothing"
    before = {path.name for path in entries(root)}
    if timing.hold:
        hold.write_text(timing.hold)

    stamps = {
        root / f"{kind}.md": (root / f"{kind}.md").stat().st_mtime_ns for kind in timing.pages
    }
    run = Run(
        start(cmd, tmp_path, tmpdir, subprocess.PIPE),
        root,
        tmpdir,
        marker,
        pids,
        tmp_path / "stderr",
        stamps=stamps,
    )
    wait_until(lambda: timing.reached(run), run.process, timing.name)
    seen = descendants(run.process.pid) | {run.process.pid}
    if timing.warm and timing.hold == "read" and timing.command == "build":
        assert not any(is_zygote(pid) for pid in seen)  # a warm cache: no worker starts early
    if pids.exists():
        seen |= {int(pid) for pid in pids.read_text().split()}
        assert (
            len(seen) >= 6
        )  # the build, the zygote, the block's process, its child, grandchild and apart
    send = os.killpg if timing.to_group else os.kill
    send(run.process.pid, timing.signum)
    if timing.again:  # a second Ctrl-C, as soon as the first one is acknowledged
        wait_until(
            lambda: "interrupted by" in run.err.read_text(), run.process, "the interruption line"
        )
        os.killpg(run.process.pid, timing.signum)
    rest = run.process.communicate(timeout=300)[0] or ""
    err = run.err.read_text()
    if timing.reached is report_started:
        assert (
            len(run.out + rest) >= 65536
        )  # it filled the pipe: the signal found it writing its report

    assert run.process.returncode == 128 + timing.signum, err
    assert [line for line in err.splitlines() if "interrupted" in line] == [
        message(timing.signum)
    ], err
    assert (
        "Traceback" not in err and "report this error" not in err and "Exception ignored" not in err
    ), err
    assert [pid for pid in seen if alive(pid)] == []
    assert with_tmpdir(tmpdir) == []
    assert list(tmpdir.iterdir()) == []  # no jaxcheck-xla-*, no jaxcheck-package-*
    assert list(root.rglob("*.tmp")) == []  # neither in the cache nor beside the sources
    after = {path.name for path in entries(root)}
    assert before <= after  # nothing that was cached is lost
    if timing.kept:
        assert len(after) in timing.kept, sorted(after)
    else:
        assert after == before
    if timing.command == "update":
        for kind in timing.pages:  # each page whole: as it was, or entirely rewritten
            text = (root / f"{kind}.md").read_text()
            assert text in (
                page(kind, tmp_path),
                page(kind, tmp_path).replace("# stale", f"# {kind[5:]}"),
            )


def test_the_workers_clean_up_even_when_the_build_process_is_killed(tmp_path: Path) -> None:
    """SIGKILL cannot be caught: the zygote learns of its parent's death and stops what the
    blocks started."""
    pages = {f"{kind}.md": page(kind, tmp_path) for kind in (*QUICKS, "waiting")}
    root = write_project(
        tmp_path / "docs", pages, conf="jaxcheck_cache = True\njaxcheck_workers = 1\n"
    )
    (tmp_path / "tmp").mkdir()
    process = start(
        command(TIMINGS[0], root, tmp_path), tmp_path, tmp_path / "tmp", subprocess.DEVNULL
    )
    wait_until(lambda: (tmp_path / "pids").exists(), process, "the waiting block")
    seen = descendants(process.pid) | {int(pid) for pid in (tmp_path / "pids").read_text().split()}
    process.kill()
    assert process.wait(timeout=60) == -signal.SIGKILL
    deadline = time.monotonic() + 30
    while (
        with_tmpdir(tmp_path / "tmp") or [pid for pid in seen if alive(pid)]
    ) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [pid for pid in seen if alive(pid)] == [] and with_tmpdir(tmp_path / "tmp") == []


def test_a_zygote_blocked_writing_an_unread_result_stops_on_its_own_when_closed() -> None:
    """The build stops reading mid-run (interrupted) while the zygote is writing a large
    result into the full pipe: closing the client must end the zygote at once, not after
    the wait for it runs out (then it is killed, and its children die when the kernel
    gets to them, perhaps after the build has exited)."""
    big = Program("print('x' * 4_000_000)", "<big>")
    client = ZygoteClient(WorkerSettings(env={"JAX_PLATFORMS": "cpu"}))

    def stop_once_the_zygote_waits_on_the_pipe(_done: int, _total: int) -> None:
        wchan = Path(f"/proc/{client.process.pid}/wchan")
        deadline = time.monotonic() + 60
        while "pipe_write" not in wchan.read_text() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert "pipe_write" in wchan.read_text(), "the zygote never blocked writing"
        raise KeyboardInterrupt

    session = {"page": RunSession("page", (), (big, big))}
    with pytest.raises(KeyboardInterrupt), client:
        client.run(session, stop_once_the_zygote_waits_on_the_pipe)
    assert client.process.returncode == 0  # not -SIGKILL
