"""``pytest --doctest-modules`` as the oracle: its verdict on every example of every docstring
(and ``pytest --doctest-glob``'s, on every example of a text file).

pytest runs in a fresh process over the files given, with a conftest that
records, for each example of each docstring it collected, its verdict
(``passed``, ``failed``, ``skipped``) and where pytest itself places it; with
``--doctest-continue-on-failure`` every example gets one. The examples of a
``jaxcheck check --format json`` report are read back by docstring (the
session of their block) in the same order, so the two compare one to one.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence, Set
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Records every example's verdict in $DOCTEST_VERDICTS/<pid>.jsonl (one file per process,
# for pytest-xdist).
RECORDER = """
import doctest, json, os

import pytest
from _pytest.doctest import DoctestItem


def _failures(error):
    failures = getattr(error, "failures", None)
    if failures is not None:
        return failures
    if isinstance(error, (doctest.DocTestFailure, doctest.UnexpectedException)):
        return [error]
    return []


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    yield
    if call.when != "call" or not isinstance(item, DoctestItem):
        return
    error = call.excinfo.value if call.excinfo else None
    failed = {id(f.example) for f in _failures(error)}
    skipped_all = call.excinfo is not None and call.excinfo.errisinstance(pytest.skip.Exception)
    test = item.dtest
    path = os.path.join(os.environ["DOCTEST_VERDICTS"], f"{os.getpid()}.jsonl")
    with open(path, "a", encoding="utf-8") as out:
        for index, example in enumerate(test.examples):
            if skipped_all or example.options.get(doctest.SKIP):
                verdict = "skipped"
            elif id(example) in failed:
                verdict = "failed"
            elif error is not None and not failed:
                verdict = "failed"  # the whole test failed otherwise (an error in setup)
            else:
                verdict = "passed"
            line = None if test.lineno is None else test.lineno + example.lineno + 1
            record = {
                "name": test.name,
                "index": index,
                "source": example.source,
                "verdict": verdict,
                "file": test.filename,
                "line": line,
            }
            out.write(json.dumps(record) + "\\n")


def pytest_collectreport(report):
    if report.failed:
        path = os.path.join(os.environ["DOCTEST_VERDICTS"], f"{os.getpid()}.errors")
        with open(path, "a", encoding="utf-8") as out:
            out.write(report.nodeid + "\\n")
"""
OURS_FOR = {"passed": {"verified"}, "failed": {"stale", "failed"}, "skipped": {"skipped"}}


@dataclass(frozen=True)
class Verdict:
    """One example of one docstring: pytest's verdict, or ours, and where it is reported."""

    name: str  # the docstring, as pytest names it
    index: int  # the example's number in it
    verdict: str
    path: str
    line: int | None
    source: str = ""  # pytest's: the example's code


def pytest_verdicts(
    root: Path,
    targets: Sequence[Path],
    conftest: str,
    *,
    flags: str = "NUMBER NORMALIZE_WHITESPACE",
    env: Mapping[str, str] | None = None,
    workers: int = 0,
    collect: Sequence[str] = ("--doctest-modules",),
    ini: str = "",
) -> tuple[list[Verdict], list[str], subprocess.CompletedProcess[str]]:
    """pytest's verdict on each example of the docstrings in ``targets`` (files or folders),
    or, with ``collect=["--doctest-glob=README.md"]``, of the text files named so.

    ``root`` gets a plugin (``conftest``'s text and the recorder) and a
    ``pytest.ini`` with ``flags`` and the lines ``ini``; returns the verdicts,
    the collection errors, and the run.
    """
    out = root / "verdicts"
    out.mkdir(parents=True, exist_ok=True)
    for old in out.iterdir():
        old.unlink()
    # A plugin rather than a conftest.py: the files may lie outside ``root`` (site-packages).
    (root / "doctest_oracle_plugin.py").write_text(conftest + RECORDER, "utf-8")
    (root / "pytest.ini").write_text(f"[pytest]\ndoctest_optionflags = {flags}\n{ini}", "utf-8")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            *(["-n", str(workers)] if workers else ["-p", "no:xdist"]),
            "-c",
            str(root / "pytest.ini"),
            "--rootdir",
            str(root),
            "--confcutdir",
            str(root),
            "-p",
            "doctest_oracle_plugin",
            *collect,
            "--doctest-continue-on-failure",
            *map(str, targets),
        ],
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "DOCTEST_VERDICTS": str(out),
            **(env or {}),
            "PYTHONPATH": os.pathsep.join(
                filter(None, [str(root), (env or {}).get("PYTHONPATH", "")])
            ),
        },
        cwd=root,
        check=False,
    )
    records = [
        json.loads(line)
        for file in sorted(out.glob("*.jsonl"))
        for line in file.read_text("utf-8").splitlines()
    ]
    errors = [line for file in out.glob("*.errors") for line in file.read_text().splitlines()]
    verdicts = [
        Verdict(r["name"], r["index"], r["verdict"], r["file"], r["line"], r["source"])
        for r in records
    ]
    return sorted(verdicts, key=lambda v: (v.name, v.index)), errors, done


def jaxcheck_verdicts(report: dict[str, Any]) -> list[Verdict]:
    """Our verdict on each docstring example of a ``jaxcheck check --format json`` report."""
    by_docstring: dict[str, list[dict[str, Any]]] = {}
    for example in report["examples"]:
        # Named per example: a docstring collected under several names (jax.Array.at's, also
        # PRNGKeyArray.at's) is several groups of one place and one block name.
        if "docstring" in example:
            by_docstring.setdefault(example["docstring"], []).append(example)
    return sorted(
        (
            Verdict(name, index, example["status"], example["path"], example["line"])
            for name, examples in by_docstring.items()
            for index, example in enumerate(examples)
        ),
        key=lambda v: (v.name, v.index),
    )


def agree(ours: Iterable[Verdict], theirs: Iterable[Verdict]) -> list[str]:
    """Where our verdicts and pytest's differ, one line each (empty: they agree)."""
    mine = {(v.name, v.index): v for v in ours}
    pytests = {(v.name, v.index): v for v in theirs}
    problems = [f"only pytest has {key}" for key in pytests.keys() - mine.keys()]
    problems += [f"only jaxcheck has {key}" for key in mine.keys() - pytests.keys()]
    for key in sorted(mine.keys() & pytests.keys()):
        if mine[key].verdict not in OURS_FOR[pytests[key].verdict]:
            problems.append(f"{key}: pytest {pytests[key].verdict}, jaxcheck {mine[key].verdict}")
    return sorted(problems)


def prompt_at(path: str, line: int | None) -> str | None:
    """The example's first line (after ``>>>``) at a file's line, or None when there is none."""
    if line is None or not os.path.isfile(path):
        return None
    lines = Path(path).read_text("utf-8").splitlines()
    text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    return text[3:].strip() if text.startswith(">>>") else None


def reads_as(written: str | None, wanted: str) -> bool:
    """Whether a file's text is ``wanted`` as written or as a plain string literal reads it
    (``\\\\n`` in the file is ``\\n`` in the docstring)."""
    if written is None:
        return False
    try:
        read = ast.literal_eval(f'"""{written} """')[:-1]
    except (SyntaxError, ValueError):
        read = written
    return wanted in (written, read)


def misplaced(
    ours: Iterable[Verdict], theirs: Iterable[Verdict], unplaced: Set[str] = frozenset()
) -> tuple[list[str], int]:
    """Our examples not at their own ``>>>`` line, and how many pytest places right itself.

    Each of ours must be at the line of its file that holds its first line of
    code (but those of the docstrings named ``unplaced``, whose text is no
    literal of a file); where pytest's place holds it too, ours must be pytest's.
    """
    mine = {(v.name, v.index): v for v in ours}
    problems = []
    right = 0
    for v in theirs:
        wanted = v.source.splitlines()[0].strip()
        ours_here = mine.get((v.name, v.index))
        if ours_here is None:
            continue
        at = prompt_at(ours_here.path, ours_here.line)
        if v.name not in unplaced and not reads_as(at, wanted):
            problems.append(f"{v.name}[{v.index}] at {ours_here.path}:{ours_here.line}: {wanted!r}")
        if reads_as(prompt_at(v.path, v.line), wanted):
            right += 1
            if (os.path.realpath(v.path), v.line) != (
                os.path.realpath(ours_here.path),
                ours_here.line,
            ):
                problems.append(
                    f"{v.name}[{v.index}]: pytest {v.path}:{v.line}, "
                    f"jaxcheck {ours_here.path}:{ours_here.line}"
                )
    return problems, right
