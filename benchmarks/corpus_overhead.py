"""Wall time of checking a corpus vs building it as plain code blocks, side by side.

    python benchmarks/corpus_overhead.py [SOURCEDIR] [--repeat 3]

Builds, each from a fresh copy and without the result cache:

* ``plain``: ``sphinx-build -b html`` with every ``jaxcheck`` directive swapped
  for a ``code-block`` (the cost of the docs without us);
* ``jaxcheck html``: ``sphinx-build -b html`` of the corpus as written;
* ``jaxcheck check``: the command line, which writes no HTML.

Prints a markdown table of median times and ratios to ``plain``.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from timing import median_table

DEFAULT = Path(__file__).parent.parent / "tests" / "roots" / "test-conformance-stale"


def as_plain_code(folder: Path) -> None:
    """Swap the directive for a code-block and drop its options, in place."""
    for path in folder.rglob("*.md"):
        text = re.sub(
            r"```\{jaxcheck\}\n(?::[\w-]+:.*\n)*", "```{code-block} python\n", path.read_text()
        )
        path.write_text(text)
    for path in folder.rglob("*.rst"):
        text = re.sub(
            r"\.\. jaxcheck::\n(?:   :[\w-]+:.*\n)*", ".. code-block:: python\n", path.read_text()
        )
        path.write_text(text)


def timed(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, capture_output=True, check=False)
    return time.perf_counter() - started


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("sourcedir", nargs="?", type=Path, default=DEFAULT)
    options.add_argument("--repeat", type=int, default=3)
    args = options.parse_args()
    runs: dict[str, list[float]] = {"plain": [], "jaxcheck html": [], "jaxcheck check": []}
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as scratch:
            work = Path(scratch)
            for name in ("plain", "checked", "cli"):
                shutil.copytree(
                    args.sourcedir,
                    work / name,
                    ignore=shutil.ignore_patterns("_build", ".jaxcheck_cache"),
                )
                if not (
                    work / name / "conf.py"
                ).exists():  # a test root: all roots share one conf.py
                    shutil.copyfile(DEFAULT.parent / "conf.py", work / name / "conf.py")
            as_plain_code(work / "plain")
            build = [sys.executable, "-m", "sphinx", "-q", "-b", "html", "-D", "jaxcheck_cache=0"]
            runs["plain"].append(
                timed([*build, str(work / "plain"), str(work / "plain" / "_build")])
            )
            runs["jaxcheck html"].append(
                timed([*build, str(work / "checked"), str(work / "checked" / "_build")])
            )
            runs["jaxcheck check"].append(
                timed(
                    [
                        sys.executable,
                        "-m",
                        "sphinx_jaxcheck",
                        "check",
                        str(work / "cli"),
                        "--no-cache",
                    ]
                )
            )
    print(f"corpus: {args.sourcedir}, median of {args.repeat} runs\n")
    print(median_table(runs, "plain"))


if __name__ == "__main__":
    main()
