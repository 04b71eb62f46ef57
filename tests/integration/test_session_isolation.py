"""Every session runs in a process of its own, forked from the zygote: no state crosses from
one session to the next, whatever it is.

Each case is a pair of sessions run one after the other by one real worker with
real JAX: the first changes some state, the second prints it. The second must
print what it prints run alone, and the process ids show that no child ran both.
A real check of pages that change state before pages that print it agrees with
each page checked alone with ``--no-cache``, with one worker or two, and under
``pytest --jaxcheck``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from buildkit import jaxcheck, write_project

from sphinx_jaxcheck.model import Program
from sphinx_jaxcheck.run.pool import Workers, WorkerSettings
from sphinx_jaxcheck.worker.dependencies import Dependencies
from sphinx_jaxcheck.worker.protocol import RunSession

PID = "import os\nprint(os.getpid())"


@dataclass(frozen=True)
class Case:
    """A first session that changes ``change``, a second that prints ``show``."""

    name: str
    change: str
    show: str


CASES = [
    Case("nothing", "x = 1", "print(2)"),
    Case(
        "x64",
        "import jax\njax.config.update('jax_enable_x64', True)",
        "import jax.numpy as jnp\nprint(jnp.arange(2).dtype)",
    ),
    Case(
        "rank-promotion",
        "import jax\njax.config.update('jax_numpy_rank_promotion', 'raise')",
        "import jax\nprint(jax.config.jax_numpy_rank_promotion)",
    ),
    Case(
        "matmul-precision",
        "import jax\njax.config.update('jax_default_matmul_precision', 'highest')",
        "import jax\nprint(jax.config.jax_default_matmul_precision)",
    ),
    Case(
        "x64-context-left-open",
        "import jax\njax.enable_x64(True).__enter__()",
        "import jax.numpy as jnp\nprint(jnp.arange(2).dtype)",
    ),
    Case(
        "rank-promotion-context-left-open",
        "import jax\njax.numpy_rank_promotion('raise').__enter__()",
        "import jax\nprint(jax.config.jax_numpy_rank_promotion)",
    ),
    Case(
        "numpy-random",
        "import numpy as np\nnp.random.seed(7)\nnp.random.rand()",
        "import numpy as np\nprint(np.random.rand())",
    ),
    Case(
        "python-random",
        "import random\nrandom.seed(7)\nrandom.random()",
        # A child's generator is seeded when it is forked: the value drawn is not the same
        # from one fresh child to the next, but it is never the seeded generator's.
        "import random\nr = random.random()\nrandom.seed(7)\nrandom.random()\n"
        "print(r == random.random())",
    ),
    Case(
        "printoptions",
        "import numpy as np\nnp.set_printoptions(precision=2)",
        "import numpy as np\nprint(np.array([1 / 3]))",
    ),
    Case(
        "environ",
        "import os\nos.environ['JAXCHECK_PROBE'] = 'set'\nos.environ.pop('HOME', None)",
        "import os\nprint(os.environ.get('JAXCHECK_PROBE'), 'HOME' in os.environ)",
    ),
    Case("cwd", "import os\nos.chdir('/')", "import os\nprint(os.getcwd())"),
    Case(
        "sys-path",
        "import sys\nsys.path.insert(0, '/nowhere')",
        "import sys\nprint('/nowhere' in sys.path)",
    ),
    Case(
        "warnings-filters",
        "import warnings\nwarnings.simplefilter('error')",
        "import warnings\nwarnings.warn('a warning')\nprint('went on')",
    ),
    Case(
        "module-not-from-a-file",
        "import sys, types\nsys.modules['made_up'] = types.ModuleType('made_up')",
        "import sys\nprint('made_up' in sys.modules)",
    ),
    Case(
        "package-not-loaded-before",
        "import scipy",
        "import sys\nprint('scipy' in sys.modules)",
    ),
    Case("argv", "import sys\nsys.argv.append('-x')", "import sys\nprint(sys.argv)"),
    Case(
        "executor-shut-down-at-the-session-end",
        "from concurrent.futures import ThreadPoolExecutor\n"
        "with ThreadPoolExecutor(1) as pool:\n"
        "    pool.submit(print, 'ran')",
        "from concurrent.futures import ThreadPoolExecutor\n"
        "with ThreadPoolExecutor(1) as pool:\n"
        "    pool.submit(print, 'ran').result()",
    ),
    Case(
        "thread-left-running",
        "import threading, time\n"
        "threading.Thread(target=time.sleep, args=(60,), daemon=True).start()",
        "import threading\nprint(threading.active_count())",
    ),
    Case(
        "signal-handler",
        "import signal\nsignal.signal(signal.SIGUSR1, lambda *a: None)",
        "import signal\nprint(signal.getsignal(signal.SIGUSR1))",
    ),
    Case(
        "jax-function-replaced",
        "import jax.numpy as jnp\njnp.sin = jnp.cos",
        "import jax.numpy as jnp\nprint(jnp.sin(0.0))",
    ),
    Case("numpy-constant", "import numpy as np\nnp.pi = 3", "import numpy as np\nprint(np.pi)"),
    Case(
        "builtins",
        "import builtins\nbuiltins.len = lambda x: 42",
        "print(len([1]))",
    ),
    Case(
        "logging",
        "import logging\nlogging.getLogger('jax').setLevel(logging.DEBUG)",
        "import logging\nprint(logging.getLogger('jax').level)",
    ),
    # What a comparison of states missed: each was a false green of a full check.
    Case(
        "array-repr-patched",
        "import jax.numpy as jnp\ntype(jnp.ones(1)).__repr__ = lambda self: 'PATCHED'",
        "import jax.numpy as jnp\nprint(repr(jnp.ones(1)))",
    ),
    Case(
        "stdlib-module-imported-in-the-session-and-patched",
        "import fractions\nfractions.Fraction.__repr__ = lambda self: 'PATCHED'",
        "import fractions\nprint(repr(fractions.Fraction(1, 3)))",
    ),
    Case(
        "decimal-context",
        "import decimal\ndecimal.getcontext().prec = 3",
        "import decimal\nprint(decimal.Decimal(1) / decimal.Decimal(3))",
    ),
    Case(
        "logging-disabled",
        "import logging\nlogging.disable(logging.CRITICAL)",
        "import logging\nprint(logging.root.manager.disable)",
    ),
    Case(
        "abc-register",
        "import collections.abc\ncollections.abc.Sequence.register(int)",
        "import collections.abc\nprint(isinstance(1, collections.abc.Sequence))",
    ),
    Case(
        "int-max-str-digits",
        "import sys\nsys.set_int_max_str_digits(640)",
        "import sys\nprint(sys.get_int_max_str_digits())",
    ),
    Case(
        "codecs-register",
        "import codecs\n"
        "codecs.register(lambda n: codecs.lookup('utf-8') if n == 'jaxcheck_probe' else None)",
        "import codecs\ntry:\n    codecs.lookup('jaxcheck_probe')\n    print('found')\n"
        "except LookupError:\n    print('unknown')",
    ),
    Case(
        "os-putenv",
        "import os\nos.putenv('JAXCHECK_PUT', 'set')",
        "import subprocess\n"
        "print(subprocess.run(['sh', '-c', 'echo $JAXCHECK_PUT'], capture_output=True,"
        " text=True).stdout)",
    ),
    Case(
        "jax-submodule-not-loaded-at-start",
        "import jax.experimental.checkify as checkify\ncheckify.checkify = None",
        "import jax.experimental.checkify as checkify\nprint(checkify.checkify is None)",
    ),
]


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
    """Run two sessions one after the other on one worker: what each printed, and what each
    depended on."""
    sessions = {
        name: RunSession(name, (), tuple(s)) for name, s in [("first", first), ("second", second)]
    }
    used: dict[str, Dependencies] = {}
    results = workers.run(sessions, finished=lambda key, result: used.__setitem__(key, result.used))
    for outcome in results["first"].items + results["second"].items:
        assert outcome.failure is None, outcome.message
    return (
        [o.stdout for o in results["first"].items],
        [o.stdout for o in results["second"].items],
        used,
    )


def alone(workers: Workers, session: list[Program]) -> list[str]:
    """What a session prints in a fresh child."""
    return [
        o.stdout
        for o in workers.run({"alone": RunSession("alone", (), tuple(session))})["alone"].items
    ]


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
    assert first[0] != second[0], (first, second)  # no child runs two sessions


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
    assert first[0] != second[0]
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


# A page that changes some state, and one that prints it expecting what it prints only when
# that state leaked into its process; and what it prints in a process of its own.
BUILD_PAIRS = {
    "repr": (
        "import jax.numpy as jnp\ntype(jnp.ones(1)).__repr__ = lambda self: 'PATCHED'",
        "import jax.numpy as jnp\nprint(repr(jnp.ones(1)))",
        "PATCHED",
        "Array([1.], dtype=float32)",
    ),
    "decimal": (
        "import decimal\ndecimal.getcontext().prec = 3",
        "import decimal\nprint(decimal.Decimal(1) / decimal.Decimal(3))",
        "0.333",
        "0.3333333333333333333333333333",
    ),
    "logging": (
        "import logging\nlogging.disable(logging.CRITICAL)",
        "import logging\nprint(logging.root.manager.disable)",
        "50",
        "0",
    ),
}


def test_a_check_of_every_page_agrees_with_each_page_checked_alone(tmp_path: Path) -> None:
    """Pages that change state, each just before a page expecting what only the leaked state
    would print: with one worker and no cache, the whole check fails them as each alone does,
    no process runs two pages, and with the outputs a fresh process prints it passes."""
    pids = tmp_path / "pids"
    pids.mkdir()
    files = {}
    for n, (change, show, leaked, _) in enumerate(BUILD_PAIRS.values()):
        for name, code in ((f"p{n}a", change), (f"p{n}b", f"{show}\n# {leaked}")):
            note = f"open({str(pids / name)!r}, 'w').write(str(__import__('os').getpid()))\n"
            files[f"{name}.md"] = PAGE.format(name=name, code=note + code)
    root = write_project(tmp_path / "docs", files)
    env = {**os.environ, "JAX_PLATFORMS": "cpu"}
    options = ("--no-cache", "-D", "jaxcheck_workers=1")
    whole = jaxcheck("check", str(root), *options, env=env)
    assert whole.returncode == 1, whole.stdout + whole.stderr
    assert "6 block(s): 0 verified, 3 stale, 0 failed, 3 not compared" in whole.stdout
    for n in range(len(BUILD_PAIRS)):
        alone = jaxcheck("check", str(root / f"p{n}b.md"), *options, env=env)
        assert alone.returncode == 1, alone.stdout
    pid = {path.name: path.read_text() for path in pids.iterdir()}
    assert len(set(pid.values())) == len(pid), pid
    for n, (_, show, _, fresh) in enumerate(BUILD_PAIRS.values()):
        files[f"p{n}b.md"] = PAGE.format(name=f"p{n}b", code=f"{show}\n# {fresh}")
    write_project(tmp_path / "docs", files)
    fixed = jaxcheck("check", str(root), *options, env=env)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
