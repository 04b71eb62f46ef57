"""A block that misbehaves fails alone, with a clear message; the build goes on."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from buildkit import build, write_project
from cases import Case, documents, statuses


def live_zygotes() -> list[int]:
    """Pids of jaxcheck worker supervisors still running."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if b"sphinx_jaxcheck.worker.zygote" in cmdline:
                found.append(int(entry.name))
    return found


def parent_of(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[1])
    except OSError:
        return -1


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


FAULTS = [
    Case("hang", "while True:\n    pass", "failed", {"timeout": "2"}),
    Case("segfault", "import ctypes\nctypes.string_at(0)", "failed"),
    Case("os-exit", "import os\nos._exit(3)", "failed"),
    Case("system-exit", "raise SystemExit(4)", "failed"),
    Case("keyboard-interrupt", "raise KeyboardInterrupt", "failed"),
    Case("flood", "while True:\n    print('x' * 1000)", "failed", {"timeout": "20"}),
    Case("print-50mb", "print('y' * 50_000_000)", "failed"),
    Case("still-runs", "print(sum(range(5)))  # 10", "verified"),
]


@pytest.fixture(scope="module")
def faulty(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    root = write_project(tmp_path_factory.mktemp("faults"), documents(FAULTS), conf="jaxcheck_output_limit_mb = 4\n")
    return build(root)


@pytest.mark.parametrize("suffix", ["-rst", "-md"])
@pytest.mark.parametrize("case", FAULTS, ids=[c.name for c in FAULTS])
def test_each_fault_fails_only_its_own_block(faulty, case: Case, suffix: str) -> None:  # type: ignore[no-untyped-def]
    result = faulty
    assert statuses(result.app)[case.name + suffix] == case.status


@pytest.mark.parametrize(
    ("name", "subtype", "words"),
    [
        ("hang", "timeout", "longer than its timeout of 2 s"),
        ("segfault", "crash", "killed by signal SIGSEGV"),
        ("os-exit", "crash", "exited with status 3"),
        ("system-exit", "error", "SystemExit: 4"),
        ("keyboard-interrupt", "error", "KeyboardInterrupt"),
        ("flood", "output", "printed more than 4 MB"),
        ("print-50mb", "output", "printed more than 4 MB"),
    ],
)
def test_each_fault_is_reported_with_a_message_that_says_what_happened(faulty, name: str, subtype: str, words: str) -> None:  # type: ignore[no-untyped-def]
    result = faulty
    for suffix in ("-rst", "-md"):
        (found,) = [r for r in result.reported if f"'{name}{suffix}'" in r.message]
        assert found.subtype == subtype
        assert words in found.message


def test_faulty_build_fails_and_leaves_no_worker_behind(faulty) -> None:  # type: ignore[no-untyped-def]
    result = faulty
    assert result.status == 1
    assert [pid for pid in live_zygotes() if parent_of(pid) == os.getpid()] == []
    # Only the hang (timeout 2 s) timed out: nothing waited for a default timeout.
    assert sorted(r.message.split("'")[1] for r in result.reported if r.subtype == "timeout") == ["hang-md", "hang-rst"]


def test_global_state_does_not_leak_between_documents(tmp_path: Path) -> None:
    root = write_project(
        tmp_path,
        {
            "a.md": "# A\n\n```{jaxcheck}\nimport jax, builtins\njax.config.update('jax_enable_x64', True)\nbuiltins.round = lambda *a: 'patched'\nbuiltins.len = lambda x: -1\nimport os\nos.chdir('/')\nprint(round(1.4))  # patched\n```\n",
            "b.md": "# B\n\n```{jaxcheck}\nimport jax, os\nprint(jax.numpy.ones(1).dtype)  # float32\nprint(len([1, 2]), round(1.4))  # 2 1\nprint(os.getcwd() == '/')  # False\n```\n",
        },
    )
    result = build(root, jaxcheck_workers=1)
    assert result.reported == []
    assert result.status == 0


def test_each_session_starts_its_own_backend_so_a_block_can_configure_it(tmp_path: Path) -> None:
    # The zygote warms up jax before forking but must not start XLA's backend:
    # its threads would not survive the fork, and the options below would come too late.
    four = "import jax\njax.config.update('jax_num_cpu_devices', 4)\nprint(jax.device_count())  # 4\n"
    two = "import os\nos.environ['XLA_FLAGS'] = '--xla_force_host_platform_device_count=2'\nimport jax\nprint(jax.device_count())  # 2\n"
    one = "import jax\nprint(jax.device_count())  # 1\n"
    root = write_project(tmp_path, {
        f"{name}.md": f"# {name}\n\n```{{jaxcheck}}\n{code}```\n" for name, code in (("four", four), ("two", two), ("one", one))
    })
    result = build(root, jaxcheck_workers=1)
    assert result.reported == [], result.warnings
    assert "3 verified" in result.log


def test_a_process_forked_by_a_block_does_not_outlive_the_build(tmp_path: Path) -> None:
    pidfile = tmp_path / "grandchild.pid"
    root = write_project(
        tmp_path / "project",
        {
            "fork.md": (
                "# Fork\n\n```{jaxcheck}\nimport os, time\npid = os.fork()\nif pid == 0:\n"
                "    time.sleep(600)\n    os._exit(0)\n"
                f"open({str(pidfile)!r}, 'w').write(str(pid))\nprint('parent')  # parent\n```\n"
            )
        },
    )
    result = build(root)
    assert result.status == 0, result.warnings
    grandchild = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while alive(grandchild) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(grandchild)
    assert [pid for pid in live_zygotes() if parent_of(pid) == os.getpid()] == []


def test_sphinx_process_never_imports_jax(tmp_path: Path) -> None:
    import subprocess
    import sys

    root = write_project(tmp_path, {"p.md": "# P\n\n```{jaxcheck}\nimport jax\nprint(jax.numpy.arange(2))  # [0 1]\n```\n"})
    script = (
        "import sys\nfrom sphinx.cmd.build import build_main\n"
        f"code = build_main(['-q', '-b', 'html', {str(root)!r}, {str(root / '_build')!r}])\n"
        "assert code == 0, code\n"
        "assert 'jax' not in sys.modules, 'jax was imported'\n"
        "assert 'jaxlib' not in sys.modules\nprint('clean')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env={**os.environ})
    assert done.returncode == 0, done.stderr
    assert "clean" in done.stdout


def test_parallel_read_and_write_merge_verdicts(tmp_path: Path) -> None:
    files = {f"doc{n}.md": f"# Doc {n}\n\n```{{jaxcheck}}\nprint({n} * 2)  # {n * 2 + (1 if n == 3 else 0)}\n```\n" for n in range(6)}
    root = write_project(tmp_path, files)
    result = build(root, parallel=2)
    assert result.status == 1
    assert [(r.file, r.subtype) for r in result.reported] == [("doc3.md", "drift")]
    assert "5 verified, 1 stale" in result.log
    again = build(root, parallel=2)
    assert again.status == 1
    assert [(r.file, r.subtype) for r in again.reported] == [("doc3.md", "drift")]


def test_workers_started_early_are_stopped_when_nothing_needs_to_run(tmp_path: Path) -> None:
    # The zygote starts importing jax while Sphinx reads; with no block to run
    # (here: none at all, then all from the cache) it must still be stopped.
    root = write_project(tmp_path, {"plain.md": "# Plain\n\nNo blocks here.\n"}, conf="jaxcheck_cache = True\n")
    assert build(root).status == 0
    assert [pid for pid in live_zygotes() if parent_of(pid) == os.getpid()] == []
    (root / "b.md").write_text("# B\n\n```{jaxcheck}\nprint(1)  # 1\n```\n")
    assert build(root, fresh=True).status == 0
    assert build(root, fresh=True).status == 0  # every session from the cache
    assert [pid for pid in live_zygotes() if parent_of(pid) == os.getpid()] == []
