"""Where ``jaxcheck update`` may rewrite a drift: one decision, taken by update's plan and by
the finding a check reports (its hint, its ``updatable``), on hand-built docstring blocks."""

from __future__ import annotations

import doctest
from dataclasses import replace
from pathlib import Path

from sphinx_jaxcheck.expect.grammar import parse_body
from sphinx_jaxcheck.kinds import judge, rules_of
from sphinx_jaxcheck.model import Block, BlockOptions, DocstringExamples, Outcome, Verdict
from sphinx_jaxcheck.report.findings import findings_of
from sphinx_jaxcheck.rewrite.digests import digest
from sphinx_jaxcheck.rewrite.places import Places
from sphinx_jaxcheck.rewrite.update import edit_problem, update_sources

TWO = 'def two():\n    """Two.\n\n    >>> two()\n    3\n    """\n    return 2\n'
HINT = "(`jaxcheck update` accepts the actual output)"


def drifted(path: Path) -> tuple[Block, Verdict]:
    """The docstring block of ``path`` (``TWO``), judged on an output that drifted."""
    lines = ("Two.", "", ">>> two()", "3")
    parsed = parse_body(lines[2:], doctest_flags=doctest.ELLIPSIS, doctest_only=True)
    block = Block(
        "index",
        0,
        str(path),
        4,
        lines[2:],
        BlockOptions(session="docstrings of pkg"),
        parsed.expectations,
        replace(parsed.program("<doctest pkg.two>"), namespace="pkg.two"),
        file_digest=digest(path.read_bytes()),
        kind=DocstringExamples(),
    )
    return block, judge(block, Outcome(examples=("2\n",)))


def project(tmp_path: Path) -> Path:
    """A checkout holding the docs folder; returns the docs folder."""
    (tmp_path / "project" / ".git").mkdir(parents=True)
    docs = tmp_path / "project" / "docs"
    docs.mkdir()
    return docs


def written(folder: Path) -> Path:
    path = folder / "pkg" / "two.py"
    path.parent.mkdir(parents=True)
    path.write_text(TWO, "utf-8")
    return path


def refused_by_update(block: Block, verdict: Verdict, docs: Path) -> list[str]:
    """What a dry run of update refuses, its second run printing what the first did."""

    def rerun(documents):  # type: ignore[no-untyped-def]
        return {doc: [verdict for _ in blocks] for doc, blocks in documents.items()}

    report = update_sources(
        [(block, verdict)], kinds=rules_of, rerun=rerun, dry_run=True, root=str(docs)
    )
    return [why for _, _, why in report.refused]


def test_a_drift_in_an_installed_package_names_the_reason_update_gives_and_no_hint(
    tmp_path: Path,
) -> None:
    docs = project(tmp_path)
    block, verdict = drifted(written(tmp_path / "venv" / "lib" / "site-packages"))
    why = Places(str(docs), edit_problem, rules_of).refusal(block, verdict.drifts[0])
    assert why is not None and "belongs to an installed package (it is under site-packages)" in why
    (finding,) = findings_of(
        block, verdict, rules_of(block), Places(str(docs), edit_problem, rules_of).refusal
    )
    assert not finding.updatable and HINT not in finding.message
    assert finding.message.endswith(f"({why})")
    assert refused_by_update(block, verdict, docs) == [f"block {block.label!r}: {why}"]


def test_a_drift_outside_the_checkout_or_with_no_checkout_is_refused_too(tmp_path: Path) -> None:
    docs = project(tmp_path)
    block, verdict = drifted(written(tmp_path / "elsewhere"))
    why = Places(str(docs), edit_problem, rules_of).refusal(block, verdict.drifts[0])
    assert why is not None and "is outside the project's checkout" in why
    (docs.parent / ".git").rmdir()
    block, verdict = drifted(written(docs.parent))
    why = Places(str(docs), edit_problem, rules_of).refusal(block, verdict.drifts[0])
    assert why is not None and "is in no version-control checkout" in why


def test_a_drift_in_the_checkout_keeps_the_hint_and_is_updatable(tmp_path: Path) -> None:
    docs = project(tmp_path)
    block, verdict = drifted(written(docs.parent))
    assert Places(str(docs), edit_problem, rules_of).refusal(block, verdict.drifts[0]) is None
    (finding,) = findings_of(
        block, verdict, rules_of(block), Places(str(docs), edit_problem, rules_of).refusal
    )
    assert finding.updatable and finding.message.endswith(HINT)
    assert finding.block == block.label
    assert refused_by_update(block, verdict, docs) == []


def test_a_docstring_that_is_no_literal_of_its_file_is_refused_at_check_time(
    tmp_path: Path,
) -> None:
    docs = project(tmp_path)
    path = written(docs.parent)
    block, verdict = drifted(path)
    # The docstring is made while the module is imported: its lines are in no literal.
    text = TWO.replace('    """Two.\n\n    >>> two()\n    3\n    """\n', "    pass\n")
    path.write_text(text + '\n\ntwo.__doc__ = "Two.\\n\\n>>> two()\\n3\\n"\n', "utf-8")
    block = Block(**{**block.__dict__, "file_digest": digest(path.read_bytes())})
    (finding,) = findings_of(
        block, verdict, rules_of(block), Places(str(docs), edit_problem, rules_of).refusal
    )
    assert not finding.updatable and HINT not in finding.message
    assert "not all in one string literal of the file" in finding.message
