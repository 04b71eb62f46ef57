"""Concurrent workers split the cores between them; a single worker keeps them all."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from buildkit import build, write_project

from sphinx_jaxcheck.worker.cores import core_slots, least_used


def test_cores_are_split_evenly_and_disjointly() -> None:
    assert core_slots(2, {0, 1}) == [{0}, {1}]
    assert core_slots(2, range(5)) == [{0, 1, 2}, {3, 4}]
    assert core_slots(3, [7, 3, 5, 1]) == [{1, 3}, {5}, {7}]
    # More workers than cores: one core each, shared.
    assert core_slots(4, {0, 1}) == [{0}, {1}]


def test_nothing_is_pinned_for_one_worker_or_one_core() -> None:
    assert core_slots(1, range(8)) == []
    assert core_slots(4, {3}) == []


def test_a_new_worker_goes_to_the_least_busy_cores() -> None:
    slots = core_slots(2, {0, 1})
    assert least_used(slots, []) == 0
    assert least_used(slots, [0]) == 1
    assert least_used(slots, [1]) == 0
    assert least_used(slots, [0, 1, 1]) == 0


def affinity_block(log: Path) -> str:
    """A page whose block records the cores it may run on."""
    return (
        "# Page\n\n```{jaxcheck}\nimport json, os\n"
        f"with open({str(log)!r}, 'a') as out:\n"
        "    out.write(json.dumps(sorted(os.sched_getaffinity(0))) + '\\n')\n```\n"
    )


def affinities(log: Path) -> set[frozenset[int]]:
    return {frozenset(json.loads(line)) for line in log.read_text().splitlines()}


@pytest.mark.skipif(len(os.sched_getaffinity(0)) < 2, reason="needs two cores to split")
@pytest.mark.parametrize("workers", [1, 2])
def test_each_block_runs_on_its_workers_share_of_the_cores(tmp_path: Path, workers: int) -> None:
    log = tmp_path / "cores.txt"
    root = write_project(tmp_path / "docs", {f"page{n}.md": affinity_block(log) for n in range(4)})
    result = build(root, fresh=True, jaxcheck_workers=workers, jaxcheck_cache=False)
    assert result.status == 0, result.warnings
    mine = os.sched_getaffinity(0)
    if workers == 1:
        assert affinities(log) == {frozenset(mine)}
    else:
        # Every block ran pinned to one of two disjoint halves of this process's cores.
        assert affinities(log) <= set(core_slots(2, mine))
        assert len(log.read_text().splitlines()) == 4


def test_pinned_workers_compute_what_one_unpinned_worker_computes(tmp_path: Path) -> None:
    # Fewer XLA threads must not change a result (e.g. the order of a reduction).
    for workers in (1, 2):
        log = tmp_path / f"out{workers}.txt"
        block = (
            "import jax, jax.numpy as jnp\n"
            "x = jnp.sin(jnp.arange(200_000.0)).reshape(400, 500)\n"
            "values = float(jax.jit(lambda a: (a @ a.T).sum())(x)), float(x.sum())\n"
            f"open({str(log)!r}, 'a').write(repr(values) + '\\n')\n"
        )
        pages = {f"page{n}.md": f"# Page {n}\n\n```{{jaxcheck}}\n{block}```\n" for n in range(2)}
        root = write_project(tmp_path / f"docs{workers}", pages)
        assert build(root, fresh=True, jaxcheck_workers=workers, jaxcheck_cache=False).status == 0
    one, two = (tmp_path / "out1.txt").read_text(), (tmp_path / "out2.txt").read_text()
    assert one.count("\n") == 2 and one == two
