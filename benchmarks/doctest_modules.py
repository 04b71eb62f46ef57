"""Checking the docstrings of modules: ``jaxcheck check`` with ``jaxcheck_doctest_modules`` vs
``pytest --doctest-modules``, side by side, example by example.

    python benchmarks/doctest_modules.py [--modules jax.numpy,jax.lax,jax.nn,jax.random]
    python benchmarks/doctest_modules.py --jax-ci

``--jax-ci`` is JAX's whole CI job instead: ``--doctest-modules jax`` with its CI's
``--ignore`` list, its ``filterwarnings`` and ``JAX_TRACEBACK_FILTERING=off`` (as at
jax-v0.10.2), given to both tools; it also counts our examples not at their own ``>>>``.

On the installed files of the modules (as pip installed them), in one round,
in turn: ``pytest --doctest-modules`` serially and with ``-n 2`` (JAX's
conftest namespace and ``doctest_optionflags = NUMBER NORMALIZE_WHITESPACE``),
then ``jaxcheck check`` cold (no cache) and warm (nothing changed), with the
same flags and ``jaxcheck_setup``. Prints how many examples each module has,
how many get pytest's verdict, the verdicts, and the wall and CPU times (of the
processes each command waited for) with the load average before and after (the
machine may be shared).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from timing import children_cpu

REPO = Path(__file__).resolve().parents[1]
# The tests' pytest oracle and JAX's conftest text (tests/doctest_oracle.py, tests/corpus.py).
sys.path.insert(0, str(REPO / "tests"))
from corpus import JAX_CONFTEST  # type: ignore[import-not-found]  # noqa: E402
from doctest_oracle import (  # type: ignore[import-not-found]  # noqa: E402
    OURS_FOR,
    agree,
    jaxcheck_verdicts,
    misplaced,
    pytest_verdicts,
)

ENV = {"JAX_PLATFORMS": "cpu", "XLA_FLAGS": "--xla_force_host_platform_device_count=8"}
CONF = """\
extensions = ["sphinx_jaxcheck"]
jaxcheck_doctests = "check"
jaxcheck_doctest_flags = ["NUMBER", "NORMALIZE_WHITESPACE"]
jaxcheck_setup = "import jax, jax.numpy as jnp, numpy as np; from jax import lax"
"""


# JAX's CI job at jax-v0.10.2 (.github/workflows, "documentation"; pyproject.toml): what it
# leaves out, as module names, and its warning filters.
JAX_CI_IGNORE = [
    "jax.config",
    "jax.experimental.jax2tf",
    "jax._src.lib.mlir",
    "jax._src.lib.triton",
    "jax._src.lib.mosaic_gpu",
    "jax.interpreters.mlir",
    "jax.experimental.array_serialization",
    "jax.collect_profile",
    "jax._src.tpu_custom_call",
    "jax.experimental.mosaic",
    "jax.experimental.pallas",
    "jax._src.pallas",
    "jax.lib",
]
JAX_CI_FILTERWARNINGS = [
    "error",
    "default:.*not machine-readable.*:UserWarning",
    "default:Special cases found for .* but none were parsed.*:UserWarning",
    r"ignore:Type google\._upb\._message\.(Scalar|Message)MapContainer uses PyType_Spec with a "
    r"metaclass that has custom tp_new\. This is deprecated and will no longer be allowed in "
    r"Python 3\.14\.:DeprecationWarning",
    r"ignore:Protobuf gencode version \d+\.\d+\.\d is exactly one major version older than the "
    r"runtime version \d+\.\d+\.\d at tensorflow/fore/framework/attr_value\.proto\. Please "
    r"update the gencode to avoid compatibility violations in the next runtime release\."
    ":UserWarning",
    "ignore:Transparent hugepages",
    "ignore:jax.cloud_tpu_init was deprecated",
]


def installed(module: str) -> Path:
    """The file or package folder of an installed module, as pytest is given it."""
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise SystemExit(f"{module} is not installed")
    origin = Path(spec.origin)
    return origin.parent if origin.name == "__init__.py" else origin


def check(docs: Path, run_env: dict[str, str]) -> dict[str, Any]:
    """The JSON report of ``jaxcheck check`` (exit 0 or 1: both are answers)."""
    env = {**os.environ, "PYTHONPATH": str(REPO), **run_env}
    command = [sys.executable, "-m", "sphinx_jaxcheck", "check", ".", "--format", "json"]
    done = subprocess.run(command, cwd=docs, env=env, capture_output=True, text=True, check=False)
    if done.returncode not in (0, 1):
        raise SystemExit(f"jaxcheck check failed ({done.returncode}):\n{done.stderr}")
    report: dict[str, Any] = json.loads(done.stdout)
    return report


@contextlib.contextmanager
def timed_into(times: dict[str, tuple[float, float]], name: str) -> Iterator[None]:
    """Wall seconds of the ``with`` block, and the CPU seconds of the processes it waited for
    and theirs (pytest's xdist workers, the forks of jaxcheck's workers), as ``times[name]``."""
    cpu, started = children_cpu(), time.perf_counter()
    yield
    times[name] = (time.perf_counter() - started, children_cpu() - cpu)


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--modules", default="jax.numpy,jax.lax,jax.nn,jax.random")
    options.add_argument("--jax-ci", action="store_true", help="JAX's whole CI job instead")
    args = options.parse_args()
    modules = ["jax"] if args.jax_ci else args.modules.split(",")
    ignore = JAX_CI_IGNORE if args.jax_ci else []
    filters = JAX_CI_FILTERWARNINGS if args.jax_ci else []
    # The examples' environment, the same for both tools.
    run_env = {**ENV, "JAX_TRACEBACK_FILTERING": "off"} if args.jax_ci else ENV
    targets = [installed(module) for module in modules]
    # A name with no file of its own (jax.config at 0.10.2) leaves pytest nothing to ignore.
    files = [module for module in ignore if importlib.util.find_spec(module) is not None]
    collect = ["--doctest-modules", *(f"--ignore={installed(module)}" for module in files)]
    if args.jax_ci:
        # Modules that need what this Python lacks (flatbuffers) fail to collect; JAX's job
        # (``-n auto``) runs the rest, and a serial pytest stops there without this.
        collect.append("--continue-on-collection-errors")
    ini = "filterwarnings =\n" + "".join(f"    {f}\n" for f in filters) if filters else ""
    conf = CONF + f"jaxcheck_doctest_modules = {modules!r}\n"
    conf += f"jaxcheck_doctest_modules_ignore = {ignore!r}\njaxcheck_filterwarnings = {filters!r}\n"
    conf += f"jaxcheck_env = {run_env!r}\n"
    before = os.getloadavg()
    times: dict[str, tuple[float, float]] = {}  # wall and CPU seconds
    with tempfile.TemporaryDirectory() as scratch:
        oracle, docs = Path(scratch) / "pytest", Path(scratch) / "docs"
        docs.mkdir()
        (docs / "conf.py").write_text(conf, "utf-8")
        (docs / "index.rst").write_text("Index\n=====\n\nThe docstrings.\n", "utf-8")
        settings: dict[str, Any] = {"env": run_env, "collect": collect, "ini": ini}
        with timed_into(times, "pytest --doctest-modules"):
            theirs, errors, _ = pytest_verdicts(oracle, targets, JAX_CONFTEST, **settings)
        with timed_into(times, "pytest --doctest-modules -n 2"):
            pytest_verdicts(oracle, targets, JAX_CONFTEST, workers=2, **settings)
        with timed_into(times, "jaxcheck check, cold"):
            report = check(docs, run_env)
        with timed_into(times, "jaxcheck check, warm"):
            check(docs, run_env)
        # The report's paths are relative to the folder it ran in.
        ours = [replace(v, path=os.path.normpath(docs / v.path)) for v in jaxcheck_verdicts(report)]
        elsewhere, right = misplaced(ours, theirs)
    after = os.getloadavg()
    differ = agree(ours, theirs)
    print(
        f"{len(theirs)} examples (pytest), {len(ours)} (jaxcheck); collection errors: "
        f"{len(errors)}; {os.cpu_count()} CPUs; load average {before[0]:.1f} before, "
        f"{after[0]:.1f} after\n"
    )
    print("| module | examples | same verdict as pytest | pytest's verdicts |")
    print("|---|---:|---:|---|")
    given = {(v.name, v.index): v.verdict for v in ours}
    for module in modules:
        mine = [v for v in theirs if v.name == module or v.name.startswith(module + ".")]
        same = sum(1 for v in mine if given.get((v.name, v.index)) in OURS_FOR[v.verdict])
        counted = ", ".join(f"{n} {k}" for k, n in sorted(Counter(v.verdict for v in mine).items()))
        print(f"| {module} | {len(mine)} | {same} | {counted} |")
    print("\n| run | seconds | CPU seconds |\n|---|---:|---:|")
    for name, (seconds, cpu) in times.items():
        print(f"| {name} | {seconds:.1f} | {cpu:.1f} |")
    print(
        f"\nNot at their own `>>>` line, or not where pytest rightly places them: "
        f"{len(elsewhere)} (pytest's own place is right for {right})"
    )
    for line in [*differ, *elsewhere][:20]:
        print(line)


if __name__ == "__main__":
    main()
