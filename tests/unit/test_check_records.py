"""What a check says about itself: the plan it announces, the session durations it
remembers for shards, and the run description a report carries for merging."""

from __future__ import annotations

from dataclasses import replace

from sphinx_jaxcheck.config import Settings
from sphinx_jaxcheck.expect.conditions import Runtime
from sphinx_jaxcheck.expect.grammar import parse_body
from sphinx_jaxcheck.judge.example_verdicts import ExampleVerdict, Tally, tally_of
from sphinx_jaxcheck.model import (
    Block,
    BlockOptions,
    Limits,
    NotebookCell,
    PageExamples,
    Status,
    Subtype,
    Verdict,
)
from sphinx_jaxcheck.report.findings import Finding
from sphinx_jaxcheck.report.records import (
    BlockRecord,
    NotRunRecord,
    notebooks_not_run,
    summary_line,
)
from sphinx_jaxcheck.report.run_description import describe_run
from sphinx_jaxcheck.run.sessions import CheckPlan, describe_plan, why_not_run
from sphinx_jaxcheck.run.shards import session_durations


def block(docname: str, index: int, session: str | None = None) -> Block:
    parsed = parse_body(("print(1)", "# 1"))
    options = BlockOptions(session=session)
    return Block(
        docname,
        index,
        f"/docs/{docname}.md",
        3 + 10 * index,
        ("print(1)", "# 1"),
        options,
        parsed.expectations,
        parsed.program("<b>", options),
    )


def test_the_plan_counts_every_block_and_names_only_what_happens() -> None:
    assert describe_plan(CheckPlan(Tally(3), Tally(), Tally()), 2, 4) == (
        "running 3 of 3 block(s) (2 document(s), up to 4 worker(s))"
    )
    assert describe_plan(CheckPlan(Tally(1), Tally(2), Tally(3)), 1, 1) == (
        "running 1 of 6 block(s) (1 document(s), up to 1 worker(s)); 2 block(s) from the cache, "
        "3 block(s) not run (skipped, or refused before running)"
    )
    assert describe_plan(CheckPlan(Tally(), Tally(), Tally(2)), 1, 2).endswith(
        "; 2 block(s) not run (skipped, or refused before running)"
    )


def test_the_plan_counts_examples_in_the_summarys_words_not_as_blocks() -> None:
    # Pages with only `>>>` examples: the plan names examples, as the summary does.
    assert describe_plan(CheckPlan(Tally(0, 4), Tally(), Tally()), 2, 2) == (
        "running 4 of 4 `>>>` example(s) (2 document(s), up to 2 worker(s))"
    )
    assert describe_plan(CheckPlan(Tally(96, 10), Tally(12, 2), Tally()), 9, 2) == (
        "running 96 of 108 block(s) and 10 of 12 `>>>` example(s) (9 document(s), up to 2 "
        "worker(s)); 12 block(s) and 2 `>>>` example(s) from the cache"
    )


def test_a_tally_counts_a_block_once_and_each_example_of_a_page_or_a_block() -> None:
    repl = parse_body(("x = 1", "", "# >>> x + 1", "# 2", "# >>> print(x)", "# 1"))
    plain = block("a", 0)
    with_example = replace(plain, index=1, expectations=repl.expectations)
    page = replace(plain, index=2, kind=PageExamples(), expectations=repl.expectations)
    assert tally_of([plain, with_example, page]) == Tally(2, 4)
    assert tally_of([page]).what == "examples" and tally_of([plain]).what == "blocks"


def test_a_sessions_duration_adds_its_blocks_and_leaves_skipped_ones_out() -> None:
    documents = {
        "a": [block("a", 0), block("a", 1), block("a", 2, session="named")],
        "b": [block("b", 0), block("b", 1)],
        "c": [block("c", 0)],
    }
    verdicts = {
        "a": [
            Verdict(Status.VERIFIED, seconds=1.5),
            Verdict(Status.STALE, seconds=0.25),
            Verdict(Status.VERIFIED, seconds=2.0),
        ],
        "b": [Verdict(Status.SKIPPED, seconds=9.0), Verdict(Status.VERIFIED, seconds=0.5)],
    }
    assert session_durations(documents, verdicts) == {"a": 1.75, "a::named": 2.0, "b": 0.5}


def test_the_run_description_changes_with_what_decides_a_verdict_only() -> None:
    blocks = [block("a", 0), block("b", 0)]
    settings = Settings()
    first = describe_run(blocks, "fingerprint", settings, "0.10.2", None)
    assert first == describe_run(list(blocks), "fingerprint", settings, "0.10.2", None)
    assert first["jax"] == "0.10.2"
    assert first["shard"] is None and first["split"] is None
    how_it_runs = replace(settings, workers=7, cache=False, cache_max_mb=1.0, update=True)
    assert describe_run(blocks, "fingerprint", how_it_runs, "0.10.2", None) == first
    for other in (
        describe_run(blocks, "another fingerprint", settings, "0.10.2", None),
        describe_run(blocks, "fingerprint", replace(settings, setup="x = 1"), "0.10.2", None),
        describe_run(blocks, "fingerprint", replace(settings, timeout=1.0), "0.10.2", None),
    ):
        assert other["configuration"] != first["configuration"]
        assert other["documents"] == first["documents"]
    fewer = describe_run(blocks[:1], "fingerprint", settings, "0.10.2", None)
    assert fewer["documents"] != first["documents"]
    assert fewer["configuration"] == first["configuration"]


def test_a_shards_description_names_the_shard_and_its_split() -> None:
    sharded = replace(Settings(), shard="2/3")
    described = describe_run([block("a", 0)], "fingerprint", sharded, "?", "abc")
    assert (described["shard"], described["split"]) == ("2/3", "abc")
    unsharded = describe_run([block("a", 0)], "fingerprint", Settings(), "?", "abc")
    assert unsharded["split"] is None
    assert unsharded["configuration"] == described["configuration"]


def test_the_summary_names_whose_doctest_rules_found_the_examples() -> None:
    example = ExampleVerdict("/docs/a.rst", 4, "a.rst:4", "verified")
    assert summary_line([Status.VERIFIED], [], "0.10.2", [example], 0, "pytest") == (
        "jaxcheck: 1 block(s): 1 verified, 0 stale, 0 failed (jax 0.10.2); "
        "doctests like pytest: 1 `>>>` example(s): 1 verified"
    )
    assert summary_line([], [], "0.10.2", [], 3, "sphinx.ext.doctest").endswith(
        "; doctests like sphinx.ext.doctest: 3 `>>>` example(s) of the pages were not checked: "
        'set jaxcheck_doctests = "check" in conf.py to check them'
    )
    assert summary_line([], [], "0.10.2", [], 0, "sphinx.ext.doctest").endswith(
        "(jax 0.10.2); doctests like sphinx.ext.doctest: 0 `>>>` example(s)"
    )
    assert summary_line([], [], "0.10.2", [example]) == (
        "jaxcheck: 1 `>>>` example(s): 1 verified (jax 0.10.2)"
    )


def test_the_summary_counts_unchecked_notebook_cells_and_says_how_to_check_them() -> None:
    hint = (
        '12 notebook cell(s) were not checked: set jaxcheck_notebooks = "check" in conf.py to '
        "check them"
    )
    assert summary_line([Status.VERIFIED], [], "0.10.2", unchecked_cells=12) == (
        f"jaxcheck: 1 block(s): 1 verified, 0 stale, 0 failed (jax 0.10.2); {hint}"
    )
    # After the pages' unchecked examples, each with its own setting.
    assert summary_line([], [], "0.10.2", [], 3, "pytest", unchecked_cells=12).endswith(
        "; doctests like pytest: 3 `>>>` example(s) of the pages were not checked: set "
        f'jaxcheck_doctests = "check" in conf.py to check them; {hint}'
    )
    assert "notebook" not in summary_line([Status.VERIFIED], [], "0.10.2")


def test_a_summary_of_examples_alone_counts_them_as_the_plan_does_with_no_word_of_blocks() -> None:
    examples = [
        ExampleVerdict("/pkg/mod.py", 4, "mod.py:4", "stale", "pkg.mod.one"),
        ExampleVerdict("/pkg/mod.py", 6, "mod.py:4", "skipped", "pkg.mod.one"),
    ]
    plan = describe_plan(CheckPlan(Tally(0, 2), Tally(), Tally()), 1, 2)
    line = summary_line([], [], "0.10.2", examples, 0, "pytest")
    assert plan.startswith("running 2 of 2 `>>>` example(s)") and "block" not in plan
    assert line == (
        "jaxcheck: doctests like pytest: 2 `>>>` example(s): 1 stale, 1 skipped (jax 0.10.2)"
    )
    # Problems found while reading follow the examples' counts, as they follow the blocks'.
    quote = Finding(Subtype.CITATION, "stale", "/docs/a.md", 3, "a", is_drift=True)
    assert summary_line([], [quote], "0.10.2", examples, 0, "pytest") == (
        "jaxcheck: doctests like pytest: 2 `>>>` example(s): 1 stale, 1 skipped, "
        "1 stale quote(s) (jax 0.10.2)"
    )
    # With no example either, blocks are what is counted (none), as the plan counts them.
    assert summary_line([], [quote], "0.10.2").startswith(
        "jaxcheck: 0 block(s): 0 verified, 0 stale, 0 failed, 1 stale quote(s)"
    )


def test_the_summary_says_which_problems_and_warnings_fail_the_check() -> None:
    dropped = Finding(Subtype.DROPPED, "autodoc could not import 'm'", "/docs/api.rst", 6)
    assert summary_line([], [dropped], "0.10.2") == (
        "jaxcheck: 0 block(s): 0 verified, 0 stale, 0 failed, 1 failed autodoc import(s) "
        "(jax 0.10.2)"
    )
    assert summary_line([], [], "0.10.2", failing_warnings=2).endswith(
        '(jax 0.10.2); 2 warning(s), which fail the check (jaxcheck_fail_on_warnings = "any", '
        "as sphinx-build -W)"
    )


def cell_record(path: str, cell: int, status: str, reason: str = "") -> BlockRecord:
    record: BlockRecord = {
        "document": path,
        "name": f"{path}:cell {cell}",
        "session": "<cells>",
        "path": path,
        "line": 10 * cell,
        "status": status,
        "seconds": 0.0,
        "cell": cell,
    }
    if reason:
        record["reason"] = reason
    return record


def test_a_notebook_is_not_run_when_every_cell_gives_one_reason() -> None:
    why = "excluded from execution by jaxcheck_notebooks_exclude 'a.*' in conf.py"
    records = [
        cell_record("a.ipynb", 1, "skipped", why),
        cell_record("a.ipynb", 2, "skipped", why),
        # A cell of its own skipped for its platform: the notebook ran.
        cell_record("b.ipynb", 1, "skipped", "platforms tpu: the workers run on cpu"),
        cell_record("b.ipynb", 2, "verified"),
        cell_record("c.ipynb", 1, "other-shard"),
        cell_record("d.ipynb", 1, "skipped"),  # `skip-execution`: no reason, nothing said
    ]
    not_run = notebooks_not_run(records)
    assert not_run == [{"path": "a.ipynb", "cells": 2, "reason": why}]
    assert summary_line([Status.SKIPPED] * 2, [], "0.10.2", not_run_notebooks=not_run) == (
        "jaxcheck: 2 block(s): 0 verified, 0 stale, 0 failed, 2 skipped (jax 0.10.2); "
        f"2 notebook cell(s) in 1 notebook(s) were not run: a.ipynb ({why})"
    )
    many: list[NotRunRecord] = [{"path": f"{n}.ipynb", "cells": 1, "reason": "r"} for n in range(5)]
    assert summary_line([], [], "0.10.2", not_run_notebooks=many).endswith(
        "5 notebook cell(s) in 5 notebook(s) were not run: 0.ipynb (r), 1.ipynb (r), 2.ipynb (r) "
        "and 2 more"
    )


def test_a_notebook_not_run_leaves_out_every_cell_whatever_the_cells_own_options() -> None:
    on_cpu = Runtime("0.10.2", "cpu")
    cell = replace(
        block("nb", 0),
        kind=NotebookCell(1, notebook_platforms=("tpu",)),
        options=BlockOptions(limits=Limits(platforms=("cpu",))),  # the cell's own says cpu
    )
    assert why_not_run(cell, on_cpu) == "the notebook needs platforms tpu: the workers run on cpu"
    assert why_not_run(cell, Runtime("0.10.2", None)) is None  # the platform is unknown: it runs
    # Where the notebook runs, the cell's own limits still apply.
    assert why_not_run(cell, Runtime("0.10.2", "tpu")) == "platforms cpu: the workers run on tpu"
    excluded = replace(cell, kind=NotebookCell(1, not_run="excluded"), error="not run: bad option")
    assert why_not_run(excluded, None) == "excluded"  # nothing of it runs, its options unread
    assert why_not_run(replace(excluded, kind=NotebookCell(1)), on_cpu) is None  # it fails


def test_the_summary_names_each_kind_of_problem_only_when_it_found_one() -> None:
    quote = Finding(Subtype.CITATION, "stale", "/docs/a.md", 3, "a", is_drift=True)
    other = Finding(Subtype.SYNTAX, "bad", "/docs/a.md", 5, "a")
    assert summary_line([], [quote], "0.10.2") == (
        "jaxcheck: 0 block(s): 0 verified, 0 stale, 0 failed, 1 stale quote(s) (jax 0.10.2)"
    )
    assert summary_line([], [other], "0.10.2") == (
        "jaxcheck: 0 block(s): 0 verified, 0 stale, 0 failed, 1 other problem(s) (jax 0.10.2)"
    )
    assert summary_line([], [quote, other], "0.10.2") == (
        "jaxcheck: 0 block(s): 0 verified, 0 stale, 0 failed, 1 stale quote(s), "
        "1 other problem(s) (jax 0.10.2)"
    )
