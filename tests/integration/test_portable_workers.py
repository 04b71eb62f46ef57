"""The workers' portable path (macOS), forced on Linux: same verdicts, no Linux-only call.

``JAXCHECK_PORTABLE_WORKERS=1`` in ``jaxcheck_env`` selects it. An audit hook
(``sitecustomize`` on the workers' PYTHONPATH) records every ``prctl`` lookup,
every look into ``/proc`` and every ``ps`` the workers make; the same build
without the switch shows that the hook sees the Linux calls when they happen.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from buildkit import build, write_project
from cases import Case, documents, statuses
from processes import alive, ended_within

from sphinx_jaxcheck.worker import portability

AUDIT_HOOK = """
import json, os, sys

_LOG = os.environ.get("JAXCHECK_TEST_AUDIT_LOG")


def _record(event, args):
    what = None
    if event == "ctypes.dlsym" and args[1] == "prctl":
        what = "prctl"
    elif event in ("open", "os.scandir", "os.listdir") and str(args[0]).startswith("/proc"):
        what = "/proc"
    elif event == "subprocess.Popen" and os.path.basename(str(args[0])) == "ps":
        what = "ps"
    if what and _LOG:
        with open(_LOG, "a") as log:
            log.write(json.dumps([os.getpid(), what]) + "\\n")


if _LOG:
    sys.addaudithook(_record)
"""

CASES = [
    Case("verified", "import jax.numpy as jnp\nprint(jnp.arange(3))\n\n# [0 1 2]", "verified"),
    Case("stale", "print(1 + 1)\n\n# 3", "stale"),
    Case("hang", "while True:\n    pass", "failed", {"timeout": "2"}),
    Case("os-exit", "import os\nos._exit(3)", "failed"),
    Case(
        "leaves-a-process",
        "import os, subprocess\n"
        "sleeper = subprocess.Popen(['sleep', '300'])\n"
        "with open(os.environ['JAXCHECK_TEST_SLEEPER'], 'a') as f:\n"
        "    print(sleeper.pid, file=f)",
        "not compared",
    ),
]


def _build(root: Path, portable: bool) -> tuple[object, list[str], list[int]]:
    audit, sleepers = root / "audit.log", root / "sleepers.txt"
    env = {
        "JAX_PLATFORMS": "cpu",
        "PYTHONPATH": str(root / "hook"),
        "JAXCHECK_TEST_AUDIT_LOG": str(audit),
        "JAXCHECK_TEST_SLEEPER": str(sleepers),
    }
    if portable:
        env[portability.PORTABLE_VARIABLE] = "1"
    (root / "conf.py").write_text(
        (root / "conf.py").read_text().split("jaxcheck_env")[0] + f"jaxcheck_env = {env!r}\n"
    )
    result = build(root, fresh=True)
    calls = (
        sorted({json.loads(line)[1] for line in audit.read_text().splitlines()})
        if audit.exists()
        else []
    )
    pids = [int(line) for line in sleepers.read_text().split()]
    return result, calls, pids


@pytest.fixture(scope="module")
def builds(
    tmp_path_factory: pytest.TempPathFactory,
) -> dict[bool, tuple[object, list[str], list[int]]]:
    found = {}
    for portable in (True, False):
        root = write_project(
            tmp_path_factory.mktemp("portable" if portable else "linux"), documents(CASES)
        )
        (root / "hook").mkdir()
        (root / "hook" / "sitecustomize.py").write_text(AUDIT_HOOK)
        found[portable] = _build(root, portable)
    return found


def test_portable_workers_make_no_linux_only_call(builds) -> None:  # type: ignore[no-untyped-def]
    _, portable_calls, _ = builds[True]
    _, linux_calls, _ = builds[False]
    assert linux_calls == ["/proc", "prctl"]  # the hook does see them
    assert portable_calls == ["ps"]


@pytest.mark.parametrize("portable", [True, False], ids=["portable", "linux"])
@pytest.mark.parametrize("suffix", ["-rst", "-md"])
def test_portable_and_linux_workers_give_the_same_verdicts(
    builds, portable: bool, suffix: str
) -> None:  # type: ignore[no-untyped-def]
    result, _, _ = builds[portable]
    assert result.status == 1
    found = statuses(result.app)
    assert {case.name: found[case.name + suffix] for case in CASES} == {
        case.name: case.status for case in CASES
    }


def test_portable_workers_leave_no_process_behind(builds) -> None:  # type: ignore[no-untyped-def]
    _, _, sleepers = builds[True]
    assert len(sleepers) == 2  # the block ran once per document
    assert [pid for pid in sleepers if alive(pid)] == []


def test_portable_watch_ends_a_process_whose_parent_died(tmp_path: Path) -> None:
    """A parent starts a child that calls die_with_parent() (portable), then is killed."""
    pidfile = tmp_path / "child.pid"
    child = textwrap.dedent(f"""
        import os, time
        from sphinx_jaxcheck.worker.portability import die_with_parent
        die_with_parent()
        open({str(pidfile)!r}, "w").write(str(os.getpid()))
        time.sleep(300)
    """)
    parent = (
        "import subprocess, sys, time\n"
        f"subprocess.Popen([sys.executable, '-c', {child!r}])\n"
        "time.sleep(300)\n"
    )
    env = {
        **os.environ,
        portability.PORTABLE_VARIABLE: "1",
        "PYTHONPATH": str(Path(__file__).parents[2]),
    }
    process = subprocess.Popen([sys.executable, "-c", parent], env=env)
    for _ in range(600):
        if pidfile.exists() and pidfile.read_text():
            break
        time.sleep(0.05)
    pid = int(pidfile.read_text())
    assert alive(pid)
    process.send_signal(signal.SIGKILL)
    process.wait()
    assert ended_within(pid, 10)  # the watch looks every half second
