"""JAX's whole documentation in one ``jaxcheck check``, beside the three CI jobs it replaces.

    python benchmarks/jax_docs.py --jax JAXREPO --python PY [--work DIR] [--html]

``JAXREPO`` is a checkout of JAX at the pinned tag (its ``docs/``, ``conftest.py`` and
``pyproject.toml``); ``PY`` a Python with JAX's docs requirements (``docs/requirements.txt``)
and this package installed. One run of each, one after the other, on copies of ``docs/``:

1. MyST-NB reading and executing the notebooks as JAX's conf.py says (``nb_execution_mode =
   "force"``, its ``nb_execution_excludepatterns`` skipped): ``sphinx-build -b dummy -j 2``;
2. JAX's page doctests: ``pytest -n 2 --doctest-glob='*.md' --doctest-glob='*.rst' docs``;
3. JAX's docstring job: ``pytest -n 2 --doctest-modules jax`` with its CI's ignores (on the
   installed jax, whose files the tag's are), ``XLA_FLAGS=--xla_force_host_platform_device_count=8``
   and ``JAX_TRACEBACK_FILTERING=off`` for all three;
4. ``jaxcheck check docs --no-cache -j 2`` with JAX's conf.py plus the guide's lines (cold);
   again with nothing changed (warm); again after one notebook cell changed (one edit).

With ``--html``, also ``sphinx-build -b html -j 2`` with and without the extension (warm
cache). Prints a Markdown table: seconds, load average before and after, and the counts of the
cold check's JSON report.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import nbformat
from timing import compile_package

# The adopting guide's lines for JAX's whole docs (demo_docs/guide/adopting.md).
GUIDE_LINES = """
extensions.append("sphinx_jaxcheck")
jaxcheck_env = {
    "JAX_PLATFORMS": "cpu",
    "XLA_FLAGS": "--xla_force_host_platform_device_count=8",
    "JAX_TRACEBACK_FILTERING": "off",
}
jaxcheck_doctests = "check"
jaxcheck_doctest_flags = ["NUMBER", "NORMALIZE_WHITESPACE"]
jaxcheck_setup = "import jax, jax.numpy as jnp, numpy as np; from jax import lax"
jaxcheck_doctest_modules = ["jax"]
jaxcheck_doctest_modules_ignore = [
    "jax.config", "jax.experimental.jax2tf", "jax._src.lib.mlir", "jax._src.lib.triton",
    "jax._src.lib.mosaic_gpu", "jax.interpreters.mlir", "jax.experimental.array_serialization",
    "jax.collect_profile", "jax._src.tpu_custom_call", "jax.experimental.mosaic",
    "jax.experimental.pallas", "jax._src.pallas", "jax.lib",
]
jaxcheck_filterwarnings = [
    "error",
    "default:.*not machine-readable.*:UserWarning",
    "default:Special cases found for .* but none were parsed.*:UserWarning",
    "ignore:Transparent hugepages",
    "ignore:jax.cloud_tpu_init was deprecated",
]
"""
# JAX's CI (.github/workflows/documentation.yml at the tag): its docstring job's ignores.
IGNORED = [
    "config.py",
    "experimental/jax2tf",
    "_src/lib/mlir",
    "_src/lib/triton.py",
    "_src/lib/mosaic_gpu.py",
    "interpreters/mlir.py",
    "experimental/array_serialization",
    "collect_profile.py",
    "_src/tpu_custom_call.py",
    "experimental/mosaic",
    "experimental/pallas",
    "_src/pallas",
    "lib",
]
ENV = {
    "JAX_PLATFORMS": "cpu",
    "XLA_FLAGS": "--xla_force_host_platform_device_count=8",
    "JAX_TRACEBACK_FILTERING": "off",
}
LOGS = Path(".")  # where each run's output is kept: WORK/logs
# The notebook whose first code cell the edited run changes (runs on a CPU, not excluded).
EDITED = "notebooks/Common_Gotchas_in_JAX.ipynb"


def timed(rows: list[tuple[str, float, str]], name: str, command: list[str], **kw: Any) -> str:
    """Run ``command``, add its row (name, seconds, load before/after); return its stdout."""
    before = os.getloadavg()[0]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, **kw)
    seconds = time.perf_counter() - started
    rows.append((name, seconds, f"{before:.1f} / {os.getloadavg()[0]:.1f}"))
    print(f"{name}: {seconds:.1f} s, exit {done.returncode}", file=sys.stderr)
    slug = "".join(c if c.isalnum() else "-" for c in name).strip("-")
    (LOGS / f"{len(rows):02d}-{slug}.log").write_text(done.stdout + done.stderr)
    return str(done.stdout)


def edit_one_cell(docs: Path) -> None:
    """Append a comment line to the first code cell of one notebook (its run changes)."""
    path = docs / EDITED
    notebook = nbformat.read(path, as_version=4)
    cell = next(c for c in notebook.cells if c.cell_type == "code")
    cell.source += "\n# edited"
    nbformat.write(notebook, path)


def counts(report: dict[str, Any]) -> str:
    """Items of the cold check by kind, as its JSON report gives them."""
    cells = Counter(c["status"] for c in report.get("cells", []))
    examples = Counter(e["status"] for e in report["examples"])
    in_build = sum(1 for c in report.get("cells", []) if "_build" in c["path"])
    return (
        f"cells {sum(cells.values())} ({dict(cells)}); examples {sum(examples.values())} "
        f"({dict(examples)}); not run notebooks {len(report.get('not_run_notebooks', []))} "
        f"({report.get('not_run_cells', 0)} cells); cells from the build folder {in_build}; "
        f"other packages' examples not run {report.get('foreign_examples', {})}"
    )


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--jax", type=Path, required=True, help="a checkout of JAX at the tag")
    options.add_argument("--python", required=True, help="a Python with JAX's docs stack")
    options.add_argument("--work", type=Path, default=Path("/tmp/jaxcheck-jax-docs"))
    options.add_argument("--html", action="store_true", help="also time the html builds")
    args = options.parse_args()
    compile_package(args.python)
    work, python = args.work, args.python
    shutil.rmtree(work, ignore_errors=True)
    global LOGS
    LOGS = work / "logs"
    LOGS.mkdir(parents=True)
    plain, ours = work / "plain" / "docs", work / "ours" / "docs"
    for copy in (plain, ours):
        shutil.copytree(args.jax / "docs", copy)
        for name in ("conftest.py", "pyproject.toml"):
            shutil.copy(args.jax / name, copy.parent / name)
    with (ours / "conf.py").open("a", encoding="utf-8") as conf:
        conf.write(GUIDE_LINES)
    env = {**os.environ, **ENV}
    site = subprocess.run(
        [python, "-c", "import jax, os; print(os.path.dirname(jax.__file__))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    rows: list[tuple[str, float, str]] = []
    # JAX's CI options for both pytest jobs, with -n 2 for its -n auto on these 2 cores.
    pytest = [python, "-m", "pytest", "-n", "2", "-q", "--tb=short", "-p", "no:cacheprovider"]
    timed(
        rows,
        "myst-nb force (sphinx-build -b dummy -j 2)",
        [python, "-m", "sphinx", "-b", "dummy", "-j", "2", "-q", str(plain), str(work / "dummy")],
        env=env,
        cwd=work,
    )
    timed(
        rows,
        "pytest -n 2 pages",
        [
            *pytest,
            "--doctest-glob=*.md",
            "--doctest-glob=*.rst",
            "docs",
            "--doctest-continue-on-failure",
            "--ignore=docs/multi_process.md",
        ],
        env=env,
        cwd=plain.parent,
    )
    timed(
        rows,
        "pytest -n 2 --doctest-modules jax",
        [
            *pytest,
            "--doctest-modules",
            site,
            *(f"--ignore={site}/{part}" for part in IGNORED),
            "--rootdir",
            str(plain.parent),
            "-c",
            str(plain.parent / "pyproject.toml"),
            "--continue-on-collection-errors",
            "--confcutdir",
            "/",
            "-p",
            "conftest",
        ],
        env={**env, "PYTHONPATH": str(plain.parent)},
        cwd=plain.parent,
    )
    check = [python, "-m", "sphinx_jaxcheck", "check", str(ours), "-j", "2", "--format", "json"]
    cold = timed(rows, "jaxcheck cold (--no-cache)", [*check, "--no-cache"], env=env, cwd=work)
    timed(rows, "jaxcheck warm", check, env=env, cwd=work)
    edit_one_cell(ours)
    timed(rows, "jaxcheck one edited cell", check, env=env, cwd=work)
    if args.html:
        html = [python, "-m", "sphinx", "-b", "html", "-j", "2", "-q"]
        for docs, who in ((plain, "JAX's conf.py"), (ours, "with sphinx-jaxcheck")):
            out = work / f"html-{docs.parent.name}"
            timed(rows, f"sphinx-build -b html -j 2 ({who})", [*html, str(docs), str(out)], env=env)
    jobs = sum(seconds for name, seconds, _ in rows[:3])
    print(
        f"{os.cpu_count()} CPUs\n\n| run | s | load before / after | ratio |\n|---|---:|---|---:|"
    )
    for name, seconds, load in rows:
        ratio = f"{seconds / jobs:.2f} x the three jobs" if name.startswith("jaxcheck cold") else ""
        if name.startswith("jaxcheck") and not name.startswith("jaxcheck cold"):
            ratio = f"{seconds / rows[3][1]:.2f} x cold"
        print(f"| {name} | {seconds:.1f} | {load} | {ratio} |")
    print(f"\nthe three jobs together: {jobs:.1f} s")
    try:
        print("\ncold check: " + counts(json.loads(cold)))
    except ValueError:
        print("\ncold check: no JSON report (see its log)")


if __name__ == "__main__":
    main()
