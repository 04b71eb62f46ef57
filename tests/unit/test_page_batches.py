"""Page sessions run by small batches, one child each while its state can be reset."""

from __future__ import annotations

from sphinx_jaxcheck.model import Program
from sphinx_jaxcheck.run.pool import PAGE_BATCHES_PER_WORKER, together


def pages(count: int, blocks: int) -> dict[str, list[Program]]:
    return {f"page{n}": [Program("print(1)", f"<page{n}>")] * blocks for n in range(count)}


def test_pages_run_by_batches_of_an_equal_share_in_order() -> None:
    batches = together(pages(16, 8), workers=2)
    # 128 blocks for 2 workers, 3 batches each: at most 21.3 blocks, so 2 pages of 8 a batch.
    assert [len(batch) for batch in batches] == [2] * 8
    assert [key for batch in batches for key in batch] == list(pages(16, 8))
    assert len(batches) >= 2 * PAGE_BATCHES_PER_WORKER


def test_a_page_that_would_overflow_its_batch_starts_the_next() -> None:
    sessions = {**pages(6, 1), "long": [Program("pass", "<long>")] * 30, "last": [Program("", "")]}
    # 37 blocks, 1 worker: a share of 12.3 blocks; the long page is a batch of its own.
    assert together(sessions, workers=1) == [[*pages(6, 1)], ["long"], ["last"]]


def test_without_reuse_each_page_runs_alone_and_docstrings_keep_their_batches() -> None:
    docstring = [Program("1", "<doc>", module_globals="pkg.ops")]
    sessions = {**pages(4, 2), "doc": docstring}
    assert together(sessions, workers=2, reuse=False) == [
        ["page0"],
        ["page1"],
        ["page2"],
        ["page3"],
        ["doc"],
    ]
    assert together(sessions, workers=2)[-1] == ["doc"]
