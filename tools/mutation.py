"""Mutation testing of the pure core: how many small bugs do the fast unit tests catch?

Runs mutmut (configured under ``[tool.mutmut]`` in pyproject.toml) from scratch
over the modules and functions in ``TARGETS``, then prints every surviving
mutant, marked equivalent (with the reason from ``tests/mutation/equivalent.txt``)
or not, and ends with one line::

    mutation score: K killed of N (P%)

where N counts the mutants that are not equivalent. Exit status 1 when the score
is under ``THRESHOLD``. Usage, from the repository root: ``tox -e mutation``, or
``python tools/mutation.py`` in an environment with the test extra and mutmut;
``--report-only`` reports on the last run's ``mutants/`` without running again;
``--max-children N`` tests N mutants at once (default: one per CPU).

Equivalent mutants are recorded by what they change, not by mutmut's numbering
(which shifts whenever a function changes): an entry names the function and
gives the removed and added lines of the mutant's diff, then ``why:``.
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EQUIVALENT = ROOT / "tests" / "mutation" / "equivalent.txt"
THRESHOLD = 90.0
# mutmut names a mutant <module>.x_<function>__mutmut_<n> (methods: x<Class>ǁ<method>).
TARGETS = (
    "sphinx_jaxcheck.judge.matching.*",
    "sphinx_jaxcheck.judge.verdict.*",
    "sphinx_jaxcheck.rewrite.edits.*",
    "sphinx_jaxcheck.rewrite.update.*",
    "sphinx_jaxcheck.expect.grammar.*",
    "sphinx_jaxcheck.cite.quotes.*",
    # The cache key: what decides which cached run a session gets.
    "sphinx_jaxcheck.cache.key.*",
)
DETECTED = {"killed", "timeout", "segfault", "caught by type check"}


@dataclass(frozen=True)
class Equivalent:
    """A mutant judged equivalent: same observable behaviour as the original."""

    function: str
    removed: tuple[str, ...]
    added: tuple[str, ...]
    why: str


def read_equivalents(path: Path = EQUIVALENT) -> list[Equivalent]:
    """Entries separated by blank lines: function, ``-``/``+`` lines, ``why: ...``."""
    found = []
    for entry in re.split(r"\n\s*\n", path.read_text("utf-8")):
        lines = [line for line in entry.splitlines() if line.strip() and not line.startswith("#")]
        if not lines:
            continue
        why = [line[4:].strip() for line in lines if line.startswith("why:")]
        if not why or not why[0]:
            raise SystemExit(f"{path}: the entry for {lines[0]} gives no 'why:'")
        found.append(
            Equivalent(
                lines[0].strip(),
                tuple(line[1:].strip() for line in lines[1:] if line.startswith("-")),
                tuple(line[1:].strip() for line in lines[1:] if line.startswith("+")),
                why[0],
            )
        )
    return found


def function_of(mutant: str) -> str:
    """``pkg.mod.x_func__mutmut_3`` -> ``pkg.mod.x_func``."""
    return mutant.rsplit("__mutmut_", 1)[0]


def changed_lines(diff: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The removed and added lines of a unified diff, stripped."""
    body = [line for line in diff.splitlines() if not line.startswith(("---", "+++", "@@"))]
    removed = tuple(line[1:].strip() for line in body if line.startswith("-"))
    added = tuple(line[1:].strip() for line in body if line.startswith("+"))
    return removed, added


def run_mutmut(options: list[str]) -> bool:
    """Mutate from scratch and run the tests against every mutant of the targets."""
    shutil.rmtree(ROOT / "mutants", ignore_errors=True)
    # Derandomized hypothesis, no example database: the same run gives the same score.
    env = {**os.environ, "CI": "1", "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-m", "mutmut", "run", *options, *TARGETS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    if run.returncode != 0:
        sys.stdout.write(run.stdout[-4000:] + run.stderr[-4000:])
    return run.returncode == 0


def mutants() -> dict[str, tuple[str, str]]:
    """Every mutant of the targets: name -> (status, diff), read from ``mutants/``."""
    os.chdir(ROOT)  # mutmut reads its configuration and results from here
    from mutmut.mutation.data import SourceFileMutationData
    from mutmut.mutation.diff_apply import get_diff_for_mutant
    from mutmut.stats import status_by_exit_code
    from mutmut.utils.file_utils import walk_mutatable_files

    found = {}
    for path in walk_mutatable_files():
        data = SourceFileMutationData(path=path)
        data.load()
        for name, code in data.exit_code_by_key.items():
            if any(fnmatch.fnmatch(name, target) for target in TARGETS):
                status = status_by_exit_code[code]
                diff = "" if status in DETECTED else get_diff_for_mutant(name, path=path)
                found[name] = (status, diff)
    return found


def main(argv: list[str]) -> int:
    equivalents = read_equivalents()
    # --max-children N: mutants tested at once (mutmut's default: the CPU count).
    options = (
        argv[argv.index("--max-children") : argv.index("--max-children") + 2]
        if "--max-children" in argv
        else []
    )
    if "--report-only" not in argv and not run_mutmut(options):
        print("mutmut run failed; see its output above")
        return 2
    statuses = mutants()
    if not statuses:
        print("mutmut reported no mutants of the targets")
        return 2
    survivors = sorted(name for name, (status, _) in statuses.items() if status not in DETECTED)
    equivalent, live = [], []
    used: set[Equivalent] = set()
    for name in survivors:
        removed, added = changed_lines(statuses[name][1])
        match = next(
            (
                e
                for e in equivalents
                if function_of(name).endswith(e.function)
                and (e.removed, e.added) == (removed, added)
            ),
            None,
        )
        if match:
            used.add(match)
            equivalent.append((name, match.why))
        else:
            live.append((name, statuses[name][0], removed, added))
    for name, why in equivalent:
        print(f"equivalent  {name}: {why}")
    for name, status, removed, added in live:
        print(f"SURVIVED    {name} ({status})")
        for line in removed:
            print(f"    - {line}")
        for line in added:
            print(f"    + {line}")
    for entry in equivalents:
        if entry not in used:
            print(f"note: no surviving mutant matches the equivalent entry for {entry.function}")
    counted = len(statuses) - len(equivalent)
    killed = counted - len(live)
    score = 100.0 * killed / counted if counted else 100.0
    print(
        f"{len(statuses)} mutants: {killed} killed, {len(equivalent)} equivalent, "
        f"{len(live)} survived"
    )
    print(f"mutation score: {killed} killed of {counted} ({score:.1f}%)")
    return 0 if score >= THRESHOLD else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
