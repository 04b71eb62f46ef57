"""More ways a block can misbehave: each fails (or passes) alone, with a message naming it.

Complements ``test_faults``: stdout closed or replaced, descriptors closed under
the worker, print without end, processes in a new session, signals, global jax
config, patched builtins, missing modules, and memory exhaustion under
``jaxcheck_memory_limit_mb`` (RLIMIT_AS in each child: JAX works under a sane
cap; a failed allocation raises MemoryError or XLA's RESOURCE_EXHAUSTED, which
the worker reports as "out of memory").
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from buildkit import build, write_project
from cases import Case, documents, statuses
from test_faults import alive, live_zygotes, parent_of

MEMORY_LIMIT_MB = 4096

FAULTS = [
    Case("close-stdout", "import sys\nsys.stdout.close()\nprint('still captured')  # still captured", "verified"),
    Case("replace-stdout", "import sys, os\nsys.stdout = open(os.devnull, 'w')\nprint('to devnull')", "not compared"),
    Case("stdout-is-back", "print('captured again')  # captured again", "verified"),
    Case("stdout-not-a-file", "import sys\nsys.stdout = 42\nprint('nowhere')", "failed"),
    Case("close-fd-1-and-2", "import os\nos.close(1)\nos.close(2)\nprint('captured')  # captured", "verified"),
    Case("close-every-fd", "import os\nos.closerange(3, 65536)", "failed"),
    Case("print-without-end", "while True:\n    print('z' * 4096, end='')", "failed", {"timeout": "30"}),
    Case("alarm", "import signal, time\nsignal.alarm(1)\ntime.sleep(30)", "failed"),
    Case("x64", "import jax, jax.numpy as jnp\njax.config.update('jax_enable_x64', True)\nprint(jnp.ones(1).dtype)  # float64", "verified"),
    Case("patch-builtins", "import builtins\nbuiltins.len = lambda x: -1\nbuiltins.isinstance = None\nbuiltins.str = None\nprint('ok')  # ok", "verified", {"session": "patched"}),
    Case("missing-module", "import no_such_module_for_jaxcheck", "failed"),
    Case("str-fails", "class Weird(Exception):\n    def __str__(self):\n        raise RuntimeError('no')\nraise Weird()", "failed"),
    Case("jax-under-the-cap", "import jax, jax.numpy as jnp\nprint(jax.jit(lambda x: (x * 2).sum())(jnp.arange(1000.0)))  # 999000.0", "verified", {"session": "cap"}),
    Case("allocate-10-gb", "x = bytearray(10 * 1024**3)", "failed"),
    Case("jax-allocates-10-gb", "import jax.numpy as jnp\nx = jnp.ones(10 * 1024**3 // 4)", "failed"),
    Case("still-runs", "print(sum(range(5)))  # 10", "verified"),
]


@pytest.fixture(scope="module")
def injected(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    root = write_project(
        tmp_path_factory.mktemp("injected"),
        documents(FAULTS),
        conf=f"jaxcheck_output_limit_mb = 4\njaxcheck_memory_limit_mb = {MEMORY_LIMIT_MB}\n",
    )
    return build(root)


@pytest.mark.parametrize("suffix", ["-rst", "-md"])
@pytest.mark.parametrize("case", FAULTS, ids=[c.name for c in FAULTS])
def test_each_injected_fault_fails_or_passes_alone(injected, case: Case, suffix: str) -> None:  # type: ignore[no-untyped-def]
    result = injected
    assert statuses(result.app)[case.name + suffix] == case.status


@pytest.mark.parametrize(
    ("name", "subtype", "words"),
    [
        ("stdout-not-a-file", "error", "AttributeError: 'int' object has no attribute 'write'"),
        ("close-every-fd", "crash", "lost its connection to jaxcheck while running this block"),
        ("print-without-end", "output", "printed more than 4 MB"),
        ("alarm", "crash", "killed by signal SIGALRM"),
        ("missing-module", "error", "ModuleNotFoundError: No module named 'no_such_module_for_jaxcheck'"),
        ("str-fails", "error", "Weird"),
        ("allocate-10-gb", "memory", f"ran out of memory (each worker may use at most {MEMORY_LIMIT_MB} MB"),
        ("jax-allocates-10-gb", "memory", "RESOURCE_EXHAUSTED"),
    ],
)
def test_each_failure_names_the_block_and_what_happened(injected, name: str, subtype: str, words: str) -> None:  # type: ignore[no-untyped-def]
    result = injected
    for suffix in ("-rst", "-md"):
        (found,) = [r for r in result.reported if f"block '{name}{suffix}'" in r.message]
        assert found.subtype == subtype, found
        assert words in found.message, found.message
        assert "sphinx_jaxcheck" not in found.message  # no traceback from our internals


def test_only_the_faulty_blocks_are_reported(injected) -> None:  # type: ignore[no-untyped-def]
    result = injected
    failing = {c.name for c in FAULTS if c.status == "failed"}
    reported = {r.message.split("'")[1].rsplit("-", 1)[0] for r in result.reported}
    assert reported == failing


def test_injected_faults_fail_the_build_without_timeouts_and_leave_no_worker(injected) -> None:  # type: ignore[no-untyped-def]
    result = injected
    assert result.status == 1
    assert "jaxcheck: 32 block(s)" in result.log
    assert [pid for pid in live_zygotes() if parent_of(pid) == os.getpid()] == []
    # Every fault was caught as what it is; no block had to run into its timeout.
    assert [r.message for r in result.reported if r.subtype == "timeout"] == []


def test_a_process_started_in_a_new_session_does_not_outlive_the_build(tmp_path: Path) -> None:
    pidfile = tmp_path / "daemon.pid"
    root = write_project(
        tmp_path / "project",
        {
            "daemon.md": (
                "# Daemon\n\n```{jaxcheck}\nimport subprocess\n"
                "p = subprocess.Popen(['sleep', '600'], start_new_session=True)\n"
                f"open({str(pidfile)!r}, 'w').write(str(p.pid))\nprint('started')  # started\n```\n"
            )
        },
    )
    result = build(root)
    assert result.status == 0, result.warnings
    daemon = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while alive(daemon) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(daemon)


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
                "# B\n\n```{jaxcheck}\nimport jax, os, sys, numpy as np\n"
                "print(jax.config.jax_disable_jit, jax.config.jax_default_matmul_precision)  # False None\n"
                "print(np.array([1.2345]))  # [1.2345]\n"
                "print('JAXCHECK_LEAK' in os.environ, '/leak' in sys.path)  # False False\n"
                "print(sys.getrecursionlimit() > 50)  # True\n```\n"
            ),
        },
    )
    result = build(root, jaxcheck_workers=1)
    assert result.reported == []
    assert result.status == 0


def test_jax_runs_under_a_sane_memory_cap_and_a_tiny_cap_fails_with_a_clear_message(tmp_path: Path) -> None:
    # XLA does not survive every failed mmap: with too small a cap it crashes
    # instead of raising. The message says what the cap was.
    root = write_project(
        tmp_path,
        {"tiny.md": "# Tiny\n\n```{jaxcheck}\nimport jax, jax.numpy as jnp\nprint(jax.jit(lambda x: x + 1)(jnp.ones(3)))  # [2. 2. 2.]\n```\n"},
        conf="jaxcheck_memory_limit_mb = 600\n",
    )
    result = build(root)
    assert result.status == 1
    (found,) = result.reported
    # The two outcomes the guide documents, each naming the cap; never a plain error.
    named = {
        "crash": "(out of memory? each worker may use at most 600 MB, jaxcheck_memory_limit_mb,",
        "memory": "the block ran out of memory (each worker may use at most 600 MB (jaxcheck_memory_limit_mb)",
    }
    assert found.subtype in named, found
    assert named[found.subtype] in found.message, found.message
    assert "block 'tiny[1]': " in found.message
