"""The conformance corpus (``roots/test-conformance-fresh`` and ``-stale``): fresh passes,
stale fails at exactly six blocks."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from buildkit import build, copy_root
from corpus import STALE


def test_fresh_corpus_builds_with_exit_status_zero_and_no_warnings(tmp_path: Path) -> None:
    result = build(copy_root("conformance-fresh", tmp_path))
    assert result.reported == []
    assert result.status == 0
    assert "jaxcheck: 18 block(s): 15 verified, 0 stale, 0 failed" in result.log


def test_stale_corpus_fails_without_w_reporting_exactly_six_blocks(tmp_path: Path) -> None:
    srcdir = copy_root("conformance-stale", tmp_path)
    result = build(srcdir)
    assert result.status == 1
    found = [(r.file, r.line, r.message.split("'")[1]) for r in result.reported]
    assert found == STALE
    assert result.subtypes() == ["drift"] * 6

    again = build(srcdir)  # incremental: nothing is re-read
    assert (
        "0 source files that are out of date" in again.log
        or "no targets are out of date" in again.log
    )
    assert again.status == 1
    assert [(r.file, r.line) for r in again.reported] == [(f, n) for f, n, _ in STALE]


def test_stale_corpus_with_on_drift_warning_passes_and_marks_blocks_stale(tmp_path: Path) -> None:
    srcdir = copy_root("conformance-stale", tmp_path)
    result = build(srcdir, jaxcheck_on_drift="warning")
    assert result.status == 0
    assert len(result.reported) == 6
    page = (srcdir / "_build" / "html" / "forms_md.html").read_text("utf-8")
    assert page.count("jaxcheck-status-stale") == 4
    assert "[0 2 4]" in page  # the actual output, in the collapsible


def test_stale_corpus_with_on_drift_ignore_reports_nothing(tmp_path: Path) -> None:
    result = build(copy_root("conformance-stale", tmp_path), jaxcheck_on_drift="ignore")
    assert result.status == 0
    assert result.reported == []


def test_a_different_jax_in_the_environment_rechecks_every_document_with_blocks(
    tmp_path: Path,
) -> None:
    """An environment pickled under another JAX (fingerprint differs) re-reads and re-runs."""
    import pickle

    srcdir = copy_root("conformance-fresh", tmp_path)
    assert build(srcdir).status == 0
    pickled = srcdir / "_build" / "doctrees" / "environment.pickle"
    env = pickle.loads(pickled.read_bytes())
    env.domaindata["jaxcheck"]["build"].fingerprint = "built with another jax"
    pickled.write_bytes(pickle.dumps(env, pickle.HIGHEST_PROTOCOL))

    again = build(srcdir)
    assert again.status == 0
    # Every block and example judged again.
    assert re.search(
        r"of 18 block\(s\) and \d+ of 7 `>>>` example\(s\) \(2 document\(s\)", again.log
    )
    untouched = build(srcdir)
    assert "jaxcheck: running" not in untouched.log


@pytest.mark.parametrize(
    "builder", ["dirhtml", "singlehtml", "latex", "text", "linkcheck", "man", "epub"]
)
def test_every_builder_passes_fresh_and_fails_stale(tmp_path: Path, builder: str) -> None:
    fresh = build(copy_root("conformance-fresh", tmp_path), builder)
    assert fresh.status == 0, fresh.warnings
    stale = build(copy_root("conformance-stale", tmp_path), builder)
    assert stale.status == 1
    assert stale.subtypes() == ["drift"] * 6


def test_text_builder_shows_the_code_and_the_actual_output_of_stale_blocks(tmp_path: Path) -> None:
    srcdir = copy_root("conformance-stale", tmp_path)
    assert build(srcdir, "text", jaxcheck_on_drift="warning").status == 0
    text = (srcdir / "_build" / "text" / "forms_md.txt").read_text("utf-8")
    assert "print(y)  # [0 2 5]" in text  # the block as written
    assert "Stale: with jax 0.10.2 this block prints:" in text
    assert "[0 2 4]" in text
