"""A block that misbehaves fails alone, with a clear message naming it; the build goes on.

Two projects of faulty blocks, each built once: one whose blocks hang, crash,
exit or flood their output, and one whose blocks tamper with the process they
run in (stdout closed or replaced, descriptors closed under the worker, print
without end, signals, global jax config, patched builtins, missing modules) or
exhaust memory under ``jaxcheck_memory_limit_mb`` (a cap on each worker's
address space: JAX works under a sane cap; a failed allocation raises
MemoryError, XLA's RESOURCE_EXHAUSTED or C++'s std::bad_alloc, which the worker
reports as "out of memory", or kills the worker, whose crash names the cap).
Then processes that try to outlive the build, and state that must not leak
from one document to the next.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from buildkit import Build, build, jaxcheck, write_project
from cases import Case, documents, statuses
from processes import ended_within, zygotes_left_by_this_process

MEMORY_LIMIT_MB = 4096

CRASHES = [
    Case("hang", "while True:\n    pass", "failed", {"timeout": "2"}),
    Case("segfault", "import ctypes\nctypes.string_at(0)", "failed"),
    Case("os-exit", "import os\nos._exit(3)", "failed"),
    Case("system-exit", "raise SystemExit(4)", "failed"),
    Case("keyboard-interrupt", "raise KeyboardInterrupt", "failed"),
    Case("flood", "while True:\n    print('x' * 1000)", "failed", {"timeout": "20"}),
    Case("print-50mb", "print('y' * 50_000_000)", "failed"),
    Case("still-runs", "print(sum(range(5)))  # 10", "verified"),
]

TAMPERING = [
    Case(
        "close-stdout",
        "import sys\nsys.stdout.close()\nprint('still captured')  # still captured",
        "verified",
    ),
    Case(
        "replace-stdout",
        "import sys, os\nsys.stdout = open(os.devnull, 'w')\nprint('to devnull')",
        "not compared",
    ),
    Case("stdout-is-back", "print('captured again')  # captured again", "verified"),
    Case("stdout-not-a-file", "import sys\nsys.stdout = 42\nprint('nowhere')", "failed"),
    Case(
        "close-fd-1-and-2",
        "import os\nos.close(1)\nos.close(2)\nprint('captured')  # captured",
        "verified",
    ),
    Case("close-every-fd", "import os\nos.closerange(3, 65536)", "failed"),
    Case(
        "print-without-end",
        "while True:\n    print('z' * 4096, end='')",
        "failed",
        {"timeout": "30"},
    ),
    Case("alarm", "import signal, time\nsignal.alarm(1)\ntime.sleep(30)", "failed"),
    Case(
        "x64",
        "import jax, jax.numpy as jnp\n"
        "jax.config.update('jax_enable_x64', True)\n"
        "print(jnp.ones(1).dtype)  # float64",
        "verified",
    ),
    Case(
        "patch-builtins",
        "import builtins\n"
        "builtins.len = lambda x: -1\n"
        "builtins.isinstance = None\n"
        "builtins.str = None\n"
        "print('ok')  # ok",
        "verified",
        {"session": "patched"},
    ),
    Case("missing-module", "import no_such_module_for_jaxcheck", "failed"),
    Case(
        "str-fails",
        "class Weird(Exception):\n"
        "    def __str__(self):\n"
        "        raise RuntimeError('no')\n"
        "raise Weird()",
        "failed",
    ),
    Case(
        "jax-under-the-cap",
        "import jax, jax.numpy as jnp\n"
        "print(jax.jit(lambda x: (x * 2).sum())(jnp.arange(1000.0)))  # 999000.0",
        "verified",
        {"session": "cap"},
    ),
    Case("allocate-10-gb", "x = bytearray(10 * 1024**3)", "failed"),
    Case(
        "jax-allocates-10-gb", "import jax.numpy as jnp\nx = jnp.ones(10 * 1024**3 // 4)", "failed"
    ),
    Case("still-runs", "print(sum(range(5)))  # 10", "verified"),
]


@pytest.fixture(scope="module")
def crashes(tmp_path_factory: pytest.TempPathFactory) -> Build:
    root = write_project(
        tmp_path_factory.mktemp("crashes"),
        documents(CRASHES),
        conf="jaxcheck_output_limit_mb = 4\n",
    )
    return build(root)


@pytest.fixture(scope="module")
def tampering(tmp_path_factory: pytest.TempPathFactory) -> Build:
    root = write_project(
        tmp_path_factory.mktemp("tampering"),
        documents(TAMPERING),
        conf=f"jaxcheck_output_limit_mb = 4\njaxcheck_memory_limit_mb = {MEMORY_LIMIT_MB}\n",
    )
    return build(root)


@pytest.mark.parametrize("suffix", ["-rst", "-md"])
@pytest.mark.parametrize(
    ("project", "case"),
    [("crashes", case) for case in CRASHES] + [("tampering", case) for case in TAMPERING],
    ids=[case.name for case in CRASHES] + [case.name for case in TAMPERING],
)
def test_each_fault_fails_or_passes_alone(
    request: pytest.FixtureRequest, project: str, case: Case, suffix: str
) -> None:
    result: Build = request.getfixturevalue(project)
    assert statuses(result.app)[case.name + suffix] == case.status


@pytest.mark.parametrize(
    ("project", "name", "subtype", "words"),
    [
        ("crashes", "hang", "timeout", "longer than its timeout of 2 s"),
        ("crashes", "segfault", "crash", "killed by signal SIGSEGV"),
        ("crashes", "os-exit", "crash", "exited with status 3"),
        ("crashes", "system-exit", "error", "SystemExit: 4"),
        ("crashes", "keyboard-interrupt", "error", "KeyboardInterrupt"),
        ("crashes", "flood", "output", "printed more than 4 MB"),
        ("crashes", "print-50mb", "output", "printed more than 4 MB"),
        (
            "tampering",
            "stdout-not-a-file",
            "error",
            "AttributeError: 'int' object has no attribute 'write'",
        ),
        (
            "tampering",
            "close-every-fd",
            "crash",
            "lost its connection to jaxcheck while running this block",
        ),
        ("tampering", "print-without-end", "output", "printed more than 4 MB"),
        ("tampering", "alarm", "crash", "killed by signal SIGALRM"),
        (
            "tampering",
            "missing-module",
            "error",
            "ModuleNotFoundError: No module named 'no_such_module_for_jaxcheck'",
        ),
        ("tampering", "str-fails", "error", "Weird"),
        (
            "tampering",
            "allocate-10-gb",
            "memory",
            f"ran out of memory (each worker may use at most {MEMORY_LIMIT_MB} MB",
        ),
        ("tampering", "jax-allocates-10-gb", "memory", "RESOURCE_EXHAUSTED"),
    ],
)
def test_each_failure_names_the_block_and_what_happened(
    request: pytest.FixtureRequest, project: str, name: str, subtype: str, words: str
) -> None:
    result: Build = request.getfixturevalue(project)
    for suffix in ("-rst", "-md"):
        (found,) = [r for r in result.reported if f"block '{name}{suffix}'" in r.message]
        assert found.subtype == subtype, found
        assert words in found.message, found.message
        assert "sphinx_jaxcheck" not in found.message  # no traceback from our internals


def test_only_the_faulty_blocks_are_reported(tampering: Build) -> None:
    failing = {c.name for c in TAMPERING if c.status == "failed"}
    reported = {r.message.split("'")[1].rsplit("-", 1)[0] for r in tampering.reported}
    assert reported == failing


def test_crashing_blocks_fail_the_build_and_leave_no_worker_behind(crashes: Build) -> None:
    assert crashes.status == 1
    assert zygotes_left_by_this_process() == []
    # Only the hang (timeout 2 s) timed out: nothing waited for a default timeout.
    assert sorted(r.message.split("'")[1] for r in crashes.reported if r.subtype == "timeout") == [
        "hang-md",
        "hang-rst",
    ]


def test_tampering_blocks_fail_the_build_without_timeouts_and_leave_no_worker(
    tampering: Build,
) -> None:
    assert tampering.status == 1
    assert "jaxcheck: 32 block(s)" in tampering.log
    assert zygotes_left_by_this_process() == []
    # Every fault was caught as what it is; no block had to run into its timeout.
    assert [r.message for r in tampering.reported if r.subtype == "timeout"] == []


def test_a_block_that_kills_its_zygote_fails_alone_and_the_check_ends(tmp_path: Path) -> None:
    """The workers' supervisor dies with sessions running and waiting: every other page
    keeps its own verdict, and the check ends with status 1, the rest done."""
    pages = {
        f"page{n}.md": f"# Page {n}\n\n```{{jaxcheck}}\nprint({n})\n\n# {n}\n```\n"
        for n in range(5)
    }
    pages["killer.md"] = (
        "# Killer\n\n```{jaxcheck}\nimport os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n```\n"
    )
    root = write_project(tmp_path / "docs", pages)
    done = jaxcheck("check", root, "--format", "json", "-j", "2")
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    failed = [(b["document"], b["name"]) for b in report["blocks"] if b["status"] != "verified"]
    assert failed == [("killer", "killer[1]")]
    (finding,) = report["findings"]
    assert finding["line"] == 4 and finding["subtype"] == "crash"
    assert (
        "the jaxcheck worker supervisor died while this session ran alone: a block of it from "
        "here on ended the process that runs each session's process (a block must not signal "
        "its parent, os.getppid())"
    ) in finding["message"]
    assert zygotes_left_by_this_process() == []


def test_global_state_does_not_leak_between_documents(tmp_path: Path) -> None:
    root = write_project(
        tmp_path,
        {
            "a.md": (
                "# A\n"
                "\n"
                "```{jaxcheck}\n"
                "import jax, builtins\n"
                "jax.config.update('jax_enable_x64', True)\n"
                "builtins.round = lambda *a: 'patched'\n"
                "builtins.len = lambda x: -1\n"
                "import os\n"
                "os.chdir('/')\n"
                "print(round(1.4))  # patched\n"
                "```\n"
            ),
            "b.md": (
                "# B\n"
                "\n"
                "```{jaxcheck}\n"
                "import jax, os\n"
                "print(jax.numpy.ones(1).dtype)  # float32\n"
                "print(len([1, 2]), round(1.4))  # 2 1\n"
                "print(os.getcwd() == '/')  # False\n"
                "```\n"
            ),
        },
    )
    result = build(root, jaxcheck_workers=1)
    assert result.reported == []
    assert result.status == 0


def test_global_jax_config_and_process_state_do_not_leak_between_documents(tmp_path: Path) -> None:
    root = write_project(
        tmp_path,
        {
            "a.md": (
                "# A\n\n```{jaxcheck}\nimport jax, os, sys, numpy as np\n"
                "jax.config.update('jax_disable_jit', True)\n"
                "jax.config.update('jax_default_matmul_precision', 'highest')\n"
                "np.set_printoptions(precision=1)\nos.environ['JAXCHECK_LEAK'] = '1'\n"
                "sys.path.insert(0, '/leak')\nsys.setrecursionlimit(50)\n"
                "print(jax.config.jax_disable_jit)  # True\n```\n"
            ),
            "b.md": (
                "# B\n"
                "\n"
                "```{jaxcheck}\n"
                "import jax, os, sys, numpy as np\n"
                "print(jax.config.jax_disable_jit, jax.config.jax_default_matmul_precision)  "
                "# False None\n"
                "print(np.array([1.2345]))  # [1.2345]\n"
                "print('JAXCHECK_LEAK' in os.environ, '/leak' in sys.path)  # False False\n"
                "print(sys.getrecursionlimit() > 50)  # True\n"
                "```\n"
            ),
        },
    )
    result = build(root, jaxcheck_workers=1)
    assert result.reported == []
    assert result.status == 0


def test_each_session_starts_its_own_backend_so_a_block_can_configure_it(tmp_path: Path) -> None:
    # The zygote warms up jax before forking but must not start XLA's backend:
    # its threads would not survive the fork, and the options below would come too late.
    four = (
        "import jax\njax.config.update('jax_num_cpu_devices', 4)\nprint(jax.device_count())  # 4\n"
    )
    two = (
        "import os\n"
        "os.environ['XLA_FLAGS'] = '--xla_force_host_platform_device_count=2'\n"
        "import jax\n"
        "print(jax.device_count())  # 2\n"
    )
    one = "import jax\nprint(jax.device_count())  # 1\n"
    root = write_project(
        tmp_path,
        {
            f"{name}.md": f"# {name}\n\n```{{jaxcheck}}\n{code}```\n"
            for name, code in (("four", four), ("two", two), ("one", one))
        },
    )
    result = build(root, jaxcheck_workers=1)
    assert result.reported == [], result.warnings
    assert "3 verified" in result.log


def outliving(tmp_path: Path, start: str) -> tuple[Build, int]:
    """Build a page whose block runs ``start`` (which sets ``pid``) and writes that pid down;
    the build and the pid."""
    pidfile = tmp_path / "outliving.pid"
    page = (
        f"# Outliving\n\n```{{jaxcheck}}\n{start}"
        f"open({str(pidfile)!r}, 'w').write(str(pid))\nprint('started')  # started\n```\n"
    )
    result = build(write_project(tmp_path / "project", {"outliving.md": page}))
    return result, int(pidfile.read_text())


def test_a_process_forked_by_a_block_does_not_outlive_the_build(tmp_path: Path) -> None:
    result, grandchild = outliving(
        tmp_path,
        "import os, time\npid = os.fork()\nif pid == 0:\n    time.sleep(600)\n    os._exit(0)\n",
    )
    assert result.status == 0, result.warnings
    assert ended_within(grandchild, 5)
    assert zygotes_left_by_this_process() == []


def test_a_process_started_in_a_new_session_does_not_outlive_the_build(tmp_path: Path) -> None:
    result, daemon = outliving(
        tmp_path,
        "import subprocess\npid = subprocess.Popen(['sleep', '600'], start_new_session=True).pid\n",
    )
    assert result.status == 0, result.warnings
    assert ended_within(daemon, 5)


JITTED = (
    "import jax, jax.numpy as jnp\nprint(jax.jit(lambda x: x + 1)(jnp.ones(3)))  # [2. 2. 2.]\n"
)
CAP = "import resource\nprint(resource.getrlimit(resource.RLIMIT_AS))  # (4294967296, 4294967296)\n"


def test_jax_runs_under_a_sane_memory_cap_and_a_tiny_cap_fails_with_a_clear_message(
    tmp_path: Path,
) -> None:
    # 4096 MB, the guide's example: JAX itself needs about 2 GB of address space.
    sane = write_project(
        tmp_path / "sane",
        {"sane.md": f"# Sane\n\n```{{jaxcheck}}\n{CAP}{JITTED}```\n"},
        conf="jaxcheck_memory_limit_mb = 4096\n",
    )
    ran = build(sane)
    assert ran.status == 0 and ran.reported == [], ran.warnings
    assert "1 block(s): 1 verified" in ran.log  # under the cap, which was in force
    # 64 MB, less than the worker already uses: the CPU backend cannot start. XLA does
    # not survive every failed allocation: it raises (MemoryError, std::bad_alloc),
    # aborts, faults, or glibc exits with status 127 when a thread cannot get its
    # memory. Whichever it is, the message says what the cap was.
    tiny = write_project(
        tmp_path / "tiny",
        {"tiny.md": f"# Tiny\n\n```{{jaxcheck}}\n{JITTED}```\n"},
        conf="jaxcheck_memory_limit_mb = 64\n",
    )
    result = build(tiny)
    assert result.status == 1
    (found,) = result.reported
    # The two outcomes the guide documents, each naming the cap; never a plain error.
    named = {
        "crash": "(out of memory? each worker may use at most 64 MB, jaxcheck_memory_limit_mb,",
        "memory": (
            "the block ran out of memory (each worker may use at most 64 MB "
            "(jaxcheck_memory_limit_mb)"
        ),
    }
    assert found.subtype in named, found
    assert named[found.subtype] in found.message, found.message
    assert "block 'tiny[1]': " in found.message


def test_a_worker_exiting_as_glibc_does_when_memory_runs_out_names_the_cap(
    tmp_path: Path,
) -> None:
    # glibc's fatal errors ("cannot allocate memory for thread-local data") exit with
    # status 127; under a cap that is the likely cause, so the message names it.
    root = write_project(
        tmp_path,
        {"gone.md": "# Gone\n\n```{jaxcheck}\nimport os\nos._exit(127)\n```\n"},
        conf="jaxcheck_memory_limit_mb = 4096\n",
    )
    (found,) = build(root).reported
    assert found.subtype == "crash"
    assert (
        "the worker process exited with status 127 (out of memory? each worker may use at "
        "most 4096 MB, jaxcheck_memory_limit_mb, and XLA may crash rather than raise"
    ) in found.message


def test_sphinx_process_never_imports_jax(tmp_path: Path) -> None:
    root = write_project(
        tmp_path,
        {"p.md": "# P\n\n```{jaxcheck}\nimport jax\nprint(jax.numpy.arange(2))  # [0 1]\n```\n"},
    )
    script = (
        "import sys\nfrom sphinx.cmd.build import build_main\n"
        f"code = build_main(['-q', '-b', 'html', {str(root)!r}, {str(root / '_build')!r}])\n"
        "assert code == 0, code\n"
        "assert 'jax' not in sys.modules, 'jax was imported'\n"
        "assert 'jaxlib' not in sys.modules\nprint('clean')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env={**os.environ}
    )
    assert done.returncode == 0, done.stderr
    assert "clean" in done.stdout


def test_parallel_read_and_write_merge_verdicts(tmp_path: Path) -> None:
    files = {
        f"doc{n}.md": (
            f"# Doc {n}\n\n```{{jaxcheck}}\nprint({n} * 2)  # {n * 2 + (1 if n == 3 else 0)}\n```\n"
        )
        for n in range(6)
    }
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
    root = write_project(
        tmp_path, {"plain.md": "# Plain\n\nNo blocks here.\n"}, conf="jaxcheck_cache = True\n"
    )
    assert build(root).status == 0
    assert zygotes_left_by_this_process() == []
    (root / "b.md").write_text("# B\n\n```{jaxcheck}\nprint(1)  # 1\n```\n")
    assert build(root, fresh=True).status == 0
    assert build(root, fresh=True).status == 0  # every session from the cache
    assert zygotes_left_by_this_process() == []
