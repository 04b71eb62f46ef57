"""Reading in parallel (``-j 2``, the default of ``jaxcheck check`` on two cores) leaves the
same state as reading serially: every document's blocks, findings, citations, cards, counts
and stamps, and the same verdicts.

One project gathers every kind of thing the extension reads (the conformance corpus, Q&A
cards and their index, citations, names in prose, a page's own ``>>>`` examples, pages with
nothing to check), built by the jaxcheck builder with one reader and with two.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from buildkit import ROOTS, build, jaxcheck
from corpus import padding_pages

from sphinx_jaxcheck.model import Verdict
from sphinx_jaxcheck.sphinx.domain import domain_of
from sphinx_jaxcheck.worker.dependencies import Dependencies

# In the compatibility part, run on every supported Sphinx (tox -e sphinx73 ...).
pytestmark = pytest.mark.stack

SOURCES = ("conformance-stale", "cards", "citations-broken", "names")
EXAMPLES = (
    "Examples\n========\n\n"
    ">>> import jax.numpy as jnp\n>>> jnp.arange(3).sum()\nArray(3, dtype=int32)\n"
)
REPO = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def _project(root: Path) -> Path:
    root.mkdir()
    docs = []
    for name in SOURCES:
        folder = root / name
        shutil.copytree(ROOTS / f"test-{name}", folder)
        (folder / "index.rst").rename(folder / "contents.rst")
        docs.append(f"{name}/contents")
    for page, text in {**padding_pages(8), "examples.rst": EXAMPLES}.items():
        (root / page).write_text(text, "utf-8")
        docs.append(page.rsplit(".", 1)[0])
    (root / "index.rst").write_text(
        "Index\n=====\n\n.. toctree::\n\n" + "".join(f"   {d}\n" for d in docs), "utf-8"
    )
    (root / "conf.py").write_text(
        (ROOTS / "conf.py").read_text("utf-8")
        + "jaxcheck_cache = False\njaxcheck_doctests = 'check'\njaxcheck_check_names = True\n"
        + "jaxcheck_on_drift = 'warning'\n",
        "utf-8",
    )
    return root


def _without_times(value: Any) -> Any:
    if isinstance(value, Verdict):
        return dataclasses.replace(value, seconds=0.0)
    if isinstance(value, Dependencies):
        # What a probe saw of a folder (its inode, its times) differs from one copy to the other.
        return dataclasses.replace(value, probes=dict.fromkeys(sorted(value.probes), ""))
    if isinstance(value, dict):  # in the order of their keys: merging adds them in any order
        return {key: _without_times(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_without_times(item) for item in value]
    return value


def test_two_readers_leave_the_state_one_reader_leaves(tmp_path: Path) -> None:
    state = {}
    for readers in (1, 2):
        root = _project(tmp_path / f"readers-{readers}")
        built = build(root, "jaxcheck", fresh=True, parallel=readers)
        assert built.app.parallel == readers and built.app.is_parallel_allowed("read")
        data = dict(domain_of(built.app.env).data)
        # Paths name each copy's folder; the state is compared as if both were one folder.
        text = repr(_without_times(data)).replace(str(root), "ROOT")
        state[readers] = (built.status, text, sorted(built.app.env.all_docs))
    assert state[1] == state[2]
    assert "verdicts" in state[1][1] and "cards" in state[1][1]


def test_jaxcheck_check_reads_in_parallel_by_default_with_the_verdicts_of_one_reader(
    tmp_path: Path,
) -> None:
    reports = {}
    for jobs in ((), ("-j", "1")):
        root = _project(tmp_path / f"jobs-{len(jobs)}")
        done = jaxcheck("check", ".", "--format", "json", *jobs, cwd=root, env=ENV)
        reports[jobs] = (done.returncode, _report(done.stdout))
    assert reports[()] == reports[("-j", "1")]


def _report(text: str) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(text)
    for items in report.values():  # blocks and groups of examples, each with its duration
        for item in items if isinstance(items, list) else ():
            if isinstance(item, dict):
                item.pop("seconds", None)
    report.pop("run")
    return report
