"""Checking pages' own ``>>>`` examples: ``jaxcheck check`` vs ``pytest --doctest-glob``,
side by side.

    python benchmarks/doctest_pages.py [PAGES] [--repeat 5] [--pad 150]

PAGES is a folder of ``.md`` / ``.rst`` pages with doctest examples (default:
JAX's five pages in ``shared/realworld/jax-docs`` beside the repository). Each
round, on a fresh copy, in turn:

* ``pytest``: ``pytest --doctest-glob='*.md' --doctest-glob='*.rst'`` with
  ``doctest_optionflags = NUMBER NORMALIZE_WHITESPACE`` and a conftest putting
  jax, lax, jnp, np into the namespace (JAX's own way);
* ``pytest -n 2``: the same, with pytest-xdist's two processes;
* ``jaxcheck cold``: ``jaxcheck check`` with no doctrees and no result cache;
* ``jaxcheck warm``: ``jaxcheck check`` again, nothing changed;
* ``jaxcheck warm, re-read``: every page touched, so Sphinx reads them all
  again, but every session comes from the result cache.

``--pad N`` adds N pages without examples (``tests/corpus.py``: prose,
cross-references, admonitions, math, tables, code blocks without ``>>>``), as
most of a real project's pages are. Every run must pass (exit status 0).
Prints a markdown table of median wall times and their ratio to pytest's, the
load average before and after, and a floor: the median time a process takes
to import jax, plus the pages' examples as pytest's one process ran them
(``--durations``, once) split evenly between the workers, no less than the
longest page.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from timing import compile_package, median_table, timed

REPO = Path(__file__).resolve().parents[1]
PROGRAMS = Path(__file__).resolve().parent / "programs"
# The tests' generator of pages without examples (tests/corpus.py).
sys.path.insert(0, str(REPO / "tests"))
from corpus import padding_pages  # type: ignore[import-not-found]  # noqa: E402

PYTEST = "pytest --doctest-glob"


def default_pages() -> Path | None:
    for parent in REPO.parents:
        if (parent / "shared" / "realworld" / "jax-docs").is_dir():
            return parent / "shared" / "realworld" / "jax-docs"
    return None


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("pages", nargs="?", type=Path, default=default_pages())
    options.add_argument("--repeat", type=int, default=5)
    options.add_argument("--pad", type=int, default=0, help="pages without examples to add")
    args = options.parse_args()
    compile_package()
    if args.pages is None:
        raise SystemExit(
            "no pages given, and shared/realworld/jax-docs is not beside the repository"
        )
    pages = sorted(p for p in args.pages.iterdir() if p.suffix in (".md", ".rst"))
    env = {**os.environ, "PYTHONPATH": str(REPO), "JAX_PLATFORMS": "cpu"}
    pytest_env = {**env, "XLA_FLAGS": "--xla_force_host_platform_device_count=8"}
    runs: dict[str, list[float]] = {
        PYTEST: [],
        f"{PYTEST} -n 2": [],
        "jaxcheck check, cold": [],
        "jaxcheck check, warm": [],
        "jaxcheck check, warm, pages re-read": [],
    }
    pytest_cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "--doctest-glob=*.md",
        "--doctest-glob=*.rst",
        "--doctest-continue-on-failure",
        "-o",
        "doctest_optionflags=NUMBER NORMALIZE_WHITESPACE",
        ".",
    ]
    check_cmd = [sys.executable, "-m", "sphinx_jaxcheck", "check", "."]
    padding = padding_pages(args.pad)
    names = [p.name for p in pages] + list(padding)
    imports: list[float] = []  # a process that imports jax: where a worker's sessions can begin
    calls: dict[str, float] = {}
    before = os.getloadavg()[0]
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as scratch:
            oracle, docs = Path(scratch) / "pytest", Path(scratch) / "docs"
            for folder in (oracle, docs):
                folder.mkdir()
                for page in pages:
                    shutil.copyfile(page, folder / page.name)
                for name, text in padding.items():
                    (folder / name).write_text(text, "utf-8")
            shutil.copyfile(PROGRAMS / "doctest_pages_conftest.py", oracle / "conftest.py")
            shutil.copyfile(PROGRAMS / "doctest_pages_conf.py", docs / "conf.py")
            toctree = "".join(f"   {name.rsplit('.', 1)[0]}\n" for name in names)
            (docs / "index.rst").write_text(f"Index\n=====\n\n.. toctree::\n\n{toctree}", "utf-8")
            runs[PYTEST].append(timed(pytest_cmd, oracle, pytest_env))
            xdist = [*pytest_cmd[:-1], "-n", "2", "."]
            runs[f"{PYTEST} -n 2"].append(timed(xdist, oracle, pytest_env))
            runs["jaxcheck check, cold"].append(timed(check_cmd, docs, env))
            runs["jaxcheck check, warm"].append(timed(check_cmd, docs, env))
            for page in pages:
                os.utime(docs / page.name)
            runs["jaxcheck check, warm, pages re-read"].append(timed(check_cmd, docs, env))
            imports.append(timed([sys.executable, "-c", "import jax, jax.numpy"], env=pytest_env))
            calls = calls or page_seconds(pytest_cmd, oracle, pytest_env)
    print(
        f"{len(pages)} pages with examples and {len(padding)} without, {args.repeat} rounds, "
        f"{os.cpu_count()} CPUs; load average {before:.1f} before, "
        f"{os.getloadavg()[0]:.1f} after\n"
    )
    print(median_table(runs, PYTEST))
    print(floor_line(statistics.median(imports), calls, statistics.median(runs[PYTEST])))


def page_seconds(command: list[str], cwd: Path, env: dict[str, str]) -> dict[str, float]:
    """How long each page's examples took in pytest's one process (its ``call`` durations)."""
    durations = [*command, "--durations=0", "--durations-min=0"]
    done = subprocess.run(durations, cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return {found["page"]: float(found["seconds"]) for found in CALL.finditer(done.stdout)}


CALL = re.compile(r"^(?P<seconds>[\d.]+)s call +(?P<page>[^:\s]+)::", re.MULTILINE)


def floor_line(import_seconds: float, calls: dict[str, float], pytest_seconds: float) -> str:
    """The least a check can take whose workers each import jax in a process of their own and
    then run the pages' examples as fast as pytest's one process did, split evenly."""
    workers = os.cpu_count() or 1
    longest, total = max(calls.values()), sum(calls.values())
    floor = import_seconds + max(longest, total / workers)
    return (
        f"\nFloor: importing jax {import_seconds:.2f} s, then the pages' examples as pytest ran "
        f"them ({total:.2f} s, the longest page {longest:.2f} s) split over {workers} "
        f"workers: {floor:.2f} s = {floor / pytest_seconds:.2f} x {PYTEST}"
    )


if __name__ == "__main__":
    main()
