"""A worker child runs several page sessions in turn; no state crosses from one to the next.

Each case is a pair of page sessions run in one batch, by one real worker with
real JAX: the first changes some state, the second prints it. The second must
print what it prints in a fresh child (the same session run alone), and the
process ids tell whether the child was reused (nothing it could not restore)
or retired (a fresh child ran the second session).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from buildkit import jaxcheck, write_project

from sphinx_jaxcheck.model import Program
from sphinx_jaxcheck.run import pool
from sphinx_jaxcheck.run.pool import Workers, WorkerSettings, together
from sphinx_jaxcheck.worker.dependencies import Dependencies
from sphinx_jaxcheck.worker.reset import CACHES_KEPT_BYTES

PID = "import os\nprint(os.getpid())"


@dataclass(frozen=True)
class Case:
    """A first session that changes ``change``, a second that prints ``show``."""

    name: str
    change: str
    show: str
    retires: bool  # the child cannot restore the state: a fresh one runs the second session


CASES = [
    Case("nothing", "x = 1", "print(2)", False),
    Case(
        "x64",
        "import jax\njax.config.update('jax_enable_x64', True)",
        "import jax.numpy as jnp\nprint(jnp.arange(2).dtype)",
        False,
    ),
    Case(
        "rank-promotion",
        "import jax\njax.config.update('jax_numpy_rank_promotion', 'raise')",
        "import jax\nprint(jax.config.jax_numpy_rank_promotion)",
        False,
    ),
    Case(
        "matmul-precision",
        "import jax\njax.config.update('jax_default_matmul_precision', 'highest')",
        "import jax\nprint(jax.config.jax_default_matmul_precision)",
        False,
    ),
    Case(
        "x64-context-left-open",
        "import jax\njax.enable_x64(True).__enter__()",
        "import jax.numpy as jnp\nprint(jnp.arange(2).dtype)",
        True,
    ),
    Case(
        "rank-promotion-context-left-open",
        "import jax\njax.numpy_rank_promotion('raise').__enter__()",
        "import jax\nprint(jax.config.jax_numpy_rank_promotion)",
        True,
    ),
    Case(
        "numpy-random",
        "import numpy as np\nnp.random.seed(7)\nnp.random.rand()",
        "import numpy as np\nprint(np.random.rand())",
        False,
    ),
    Case(
        "python-random",
        "import random\nrandom.seed(7)\nrandom.random()",
        # A child's generator is seeded when it is forked: the value drawn is not the same
        # from one fresh child to the next, but it is never the seeded generator's.
        "import random\nr = random.random()\nrandom.seed(7)\nrandom.random()\n"
        "print(r == random.random())",
        False,
    ),
    Case(
        "printoptions",
        "import numpy as np\nnp.set_printoptions(precision=2)",
        "import numpy as np\nprint(np.array([1 / 3]))",
        False,
    ),
    Case(
        "environ",
        "import os\nos.environ['JAXCHECK_PROBE'] = 'set'\nos.environ.pop('HOME', None)",
        "import os\nprint(os.environ.get('JAXCHECK_PROBE'), 'HOME' in os.environ)",
        False,
    ),
    Case("cwd", "import os\nos.chdir('/')", "import os\nprint(os.getcwd())", False),
    Case(
        "sys-path",
        "import sys\nsys.path.insert(0, '/nowhere')",
        "import sys\nprint('/nowhere' in sys.path)",
        False,
    ),
    Case(
        "warnings-filters",
        "import warnings\nwarnings.simplefilter('error')",
        "import warnings\nwarnings.warn('a warning')\nprint('went on')",
        False,
    ),
    Case(
        "module-not-from-a-file",
        "import sys, types\nsys.modules['made_up'] = types.ModuleType('made_up')",
        "import sys\nprint('made_up' in sys.modules)",
        True,
    ),
    Case(
        "package-not-loaded-before",
        "import scipy",
        "import sys\nprint('scipy' in sys.modules)",
        True,
    ),
    Case("argv", "import sys\nsys.argv.append('-x')", "import sys\nprint(sys.argv)", True),
    Case(
        "executor-shut-down-at-the-session-end",
        "from concurrent.futures import ThreadPoolExecutor\n"
        "with ThreadPoolExecutor(1) as pool:\n"
        "    pool.submit(print, 'ran')",
        "from concurrent.futures import ThreadPoolExecutor\n"
        "with ThreadPoolExecutor(1) as pool:\n"
        "    pool.submit(print, 'ran').result()",
        True,
    ),
    Case(
        "thread-left-running",
        "import threading, time\n"
        "threading.Thread(target=time.sleep, args=(60,), daemon=True).start()",
        "import threading\nprint(threading.active_count())",
        True,
    ),
    Case(
        "signal-handler",
        "import signal\nsignal.signal(signal.SIGUSR1, lambda *a: None)",
        "import signal\nprint(signal.getsignal(signal.SIGUSR1))",
        True,
    ),
    Case(
        "jax-function-replaced",
        "import jax.numpy as jnp\njnp.sin = jnp.cos",
        "import jax.numpy as jnp\nprint(jnp.sin(0.0))",
        True,
    ),
    Case(
        "numpy-constant", "import numpy as np\nnp.pi = 3", "import numpy as np\nprint(np.pi)", True
    ),
    Case(
        "builtins",
        "import builtins\nbuiltins.len = lambda x: 42",
        "print(len([1]))",
        False,
    ),
    Case(
        "logging",
        "import logging\nlogging.getLogger('jax').setLevel(logging.DEBUG)",
        "import logging\nprint(logging.getLogger('jax').level)",
        True,
    ),
]


@pytest.fixture(autouse=True)
def one_batch_per_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pool batches in this process: two sessions make one batch for one worker."""
    monkeypatch.setattr(pool, "PAGE_BATCHES_PER_WORKER", 1)


@pytest.fixture(scope="module")
def workers() -> Iterator[Workers]:
    """One real zygote for every case: each run forks its own children."""
    started = Workers(WorkerSettings(workers=1))
    try:
        yield started
    finally:
        started.close()


def pair(
    workers: Workers, first: list[Program], second: list[Program]
) -> tuple[list[str], list[str], dict[str, Dependencies]]:
    """Run two page sessions in one batch: what each printed, and what each depended on."""
    sessions = {"first": first, "second": second}
    assert together(sessions, 1) == [["first", "second"]]  # one request: one child, if kept
    used: dict[str, Dependencies] = {}
    outcomes = workers.run(sessions, finished=lambda key, _, found: used.__setitem__(key, found))
    for outcome in outcomes["first"] + outcomes["second"]:
        assert outcome.failure is None, outcome.message
    return [o.stdout for o in outcomes["first"]], [o.stdout for o in outcomes["second"]], used


def alone(workers: Workers, session: list[Program]) -> list[str]:
    """What a session prints in a fresh child."""
    return [o.stdout for o in workers.run({"alone": session})["alone"]]


def second_session(show: str) -> list[Program]:
    return [Program(PID, "<second>"), Program(show, "<second>"), Program("pass", "<second>")]


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_the_second_session_sees_the_state_a_fresh_child_starts_with(
    workers: Workers, case: Case
) -> None:
    first, second, _ = pair(
        workers, [Program(PID + "\n" + case.change, "<first>")], second_session(case.show)
    )
    fresh = alone(workers, second_session(case.show))
    assert second[1] == fresh[1], case.name
    reused = first[0] == second[0]
    assert reused is not case.retires, (first, second)


def test_a_project_module_is_imported_again_and_recorded_for_the_session_that_uses_it(
    workers: Workers, tmp_path: Path
) -> None:
    (tmp_path / "helper_of_pages.py").write_text("VALUE = 1\n", encoding="utf-8")
    use = f"import sys\nsys.path.insert(0, {str(tmp_path)!r})\nimport helper_of_pages\n"
    first, second, used = pair(
        workers,
        [Program(PID + "\n" + use + "helper_of_pages.VALUE = 2", "<first>")],
        second_session(use + "print(helper_of_pages.VALUE)"),
    )
    assert second[1] == "1\n"
    assert first[0] == second[0]  # reused: the module was removed, not the child
    helper = str(tmp_path / "helper_of_pages.py")
    assert helper in used["first"].files and helper in used["second"].files


def test_configuring_a_backend_an_earlier_session_started_runs_the_session_again_fresh(
    workers: Workers,
) -> None:
    show = "import jax\njax.config.update('jax_num_cpu_devices', 2)\nprint(len(jax.devices('cpu')))"
    first, second, _ = pair(
        workers,
        [Program(PID + "\nimport jax.numpy as jnp\nprint(jnp.ones(1) + 1)", "<first>")],
        second_session(show),
    )
    assert second[1] == alone(workers, second_session(show))[1] == "2\n"
    assert first[0] != second[0]


PAGE = """# {name}

```{{jaxcheck}}
{code}
```
"""


BUILD_PAIRS = {
    "x64": (
        "import jax\njax.config.update('jax_enable_x64', True)",
        "import jax.numpy as jnp\nprint(jnp.arange(2).dtype)\n# int32",
    ),
    "printoptions": (
        "import numpy as np\nnp.set_printoptions(precision=2)",
        "import numpy as np\nprint(np.array([1 / 3]))\n# [0.33333333]",
    ),
    "environ": (
        "import os\nos.environ['JAXCHECK_PROBE'] = 'set'",
        "import os\nprint(os.environ.get('JAXCHECK_PROBE'))\n# None",
    ),
}


def test_a_build_agrees_with_one_worker_without_the_cache(tmp_path: Path) -> None:
    """Pages that change state, each before a page that prints it in the same child: every
    expected output, written as a fresh process prints it, verified in a real check with one
    worker and no cache."""
    pids = tmp_path / "pids"
    pids.mkdir()
    files = {}
    for n, (change, show) in enumerate(BUILD_PAIRS.values()):
        for name, code in ((f"p{n}a", change), (f"p{n}b", show)):
            note = f"open({str(pids / name)!r}, 'w').write(str(__import__('os').getpid()))\n"
            files[f"{name}.md"] = PAGE.format(name=name, code=note + code)
    root = write_project(tmp_path / "docs", files)
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    done = jaxcheck("check", str(root), "--no-cache", "-D", "jaxcheck_workers=1", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "6 block(s): 3 verified, 0 stale, 0 failed, 3 not compared" in done.stdout, done.stdout
    pid = {path.name: path.read_text() for path in pids.iterdir()}
    for n in range(len(BUILD_PAIRS)):  # six one-block pages, one worker: batches of two
        assert pid[f"p{n}a"] == pid[f"p{n}b"], pid


def test_a_reused_child_keeps_what_earlier_sessions_compiled_only_up_to_a_bound(
    workers: Workers,
) -> None:
    """Each session compiles programs of its own; JAX's caches are emptied once the child grew
    past ``CACHES_KEPT_BYTES`` after its first session, so it grows no further than that and
    one session more."""

    def compile_many(page: int) -> str:  # programs of shapes no other session uses
        return (
            "import jax, jax.numpy as jnp\n"
            f"for n in range({8 * page + 8}, {8 * page + 16}):\n"
            "    def step(x):\n"
            "        y = jnp.sin(x) * 2.0 + jnp.cos(x) ** 2\n"
            "        return jnp.cumsum(y)[-1] - y.max() / 3.0\n"
            "    x = jnp.arange(n, dtype=jnp.float32) / n\n"
            "    print(jax.jit(step)(x), jax.make_jaxpr(step)(x))"
        )

    resident = (
        "import os\n"
        "print(os.getpid(), next(int(line.split()[1]) for line in open('/proc/self/status')"
        " if line.startswith('VmRSS')))"
    )
    sessions = {
        f"page{n}": [
            Program(resident, f"<page{n}>"),
            Program(compile_many(n), f"<page{n}>"),
            Program(resident, f"<page{n}>"),
        ]
        for n in range(6)
    }
    assert len(together(sessions, 1)) == 1
    shown = [(o[0].stdout.split(), o[2].stdout.split()) for o in workers.run(sessions).values()]
    assert len({pid for (pid, _), _ in shown}) == 1  # one child ran them all
    kb = [int(end) for _, (_, end) in shown]
    grown = [later - kb[0] for later in kb]
    # In kB: kept, five more sessions took the child some 140 MB further here, 30 MB each.
    assert 0 < max(grown) < (CACHES_KEPT_BYTES >> 10) + 40 * 1024, grown
    assert grown[1] > 10 * 1024, grown  # under the bound, what the first session made is kept
