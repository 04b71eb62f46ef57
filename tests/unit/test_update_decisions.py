"""What ``jaxcheck update`` decides, on hand-built outcomes (fast, no workers).

Which drifts it refuses and with what message, which edits of a file it merges
(a file included by several documents), where new lines go and with which
indentation, and what its report counts. The second run is a replay of given
outcomes, so each case is exact.
"""

from __future__ import annotations

import doctest
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from sphinx_jaxcheck.errors import WorkerStartError
from sphinx_jaxcheck.expect import doctest_directives
from sphinx_jaxcheck.expect.grammar import parse_body
from sphinx_jaxcheck.kinds import judge, rules_of
from sphinx_jaxcheck.model import (
    Block,
    BlockKind,
    BlockOptions,
    Directive,
    Outcome,
    PageExamples,
    Status,
    Subtype,
    Verdict,
)
from sphinx_jaxcheck.rewrite.edits import digest
from sphinx_jaxcheck.rewrite.update import UpdateReport, describe, update_sources

Outcomes = Mapping[tuple[str, int], Outcome]
A_BLOCK = Directive()  # a ``jaxcheck`` block


def block_in(
    path: Path,
    body_line: int,
    *,
    docname: str = "doc",
    index: int = 0,
    indent: str = "",
    body: tuple[str, ...] = (),
    kind: BlockKind = A_BLOCK,
    **options: object,
) -> Block:
    """The block whose body starts at file line ``body_line`` and ends before the closing fence.

    ``body``: the lines as a reader handed them over, when they differ from the file's;
    ``kind``: what the block is (a page's own ``>>>`` examples are read as doctest reads them).
    """
    data = path.read_bytes()
    lines = [line.rstrip("\r") for line in data.decode().split("\n")]
    if not body:
        end = next(
            n
            for n in range(body_line - 1, len(lines))
            if re.fullmatch(r"\s*(`{3,}|~{3,})", lines[n])
        )
        body = tuple(line.removeprefix(indent) for line in lines[body_line - 1 : end])
    parsed = parse_body(body, doctest_only=kind != A_BLOCK)
    chosen = BlockOptions(**options)  # type: ignore[arg-type]
    return Block(
        docname,
        index,
        str(path),
        body_line,
        body,
        chosen,
        parsed.expectations,
        parsed.program(f"<{docname}>", chosen),
        parsed.error,
        digest(data),
        kind=kind,
    )


def replay(outcomes: Outcomes, calls: list[Sequence[str]] | None = None):  # type: ignore[no-untyped-def]
    """A second run that prints what ``outcomes`` say (made up, not run); it notes the
    documents asked for."""

    def rerun(documents: Mapping[str, Sequence[Block]]) -> Mapping[str, Sequence[Verdict]]:
        if calls is not None:
            calls.append(sorted(documents))
        return {
            doc: [judge(b, outcomes[doc, b.index]) for b in blocks]
            for doc, blocks in documents.items()
        }

    return rerun


def update(
    blocks: Sequence[Block], outcomes: Outcomes, second: Outcomes | None = None, **options: object
) -> UpdateReport:
    """Judge each block on its outcome, then update (the second run replays ``second`` or the
    same outcomes)."""
    checked = [(b, judge(b, outcomes[b.docname, b.index])) for b in blocks]
    return update_sources(
        checked, kinds=rules_of, rerun=replay(outcomes if second is None else second), **options
    )  # type: ignore[arg-type]


def page(tmp_path: Path, text: str, name: str = "doc.md") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode())
    return path


# -- refusals: each with its place and its reason ------------------------------------------


def test_update_writes_by_default_and_reports_the_place(tmp_path: Path) -> None:
    path = page(tmp_path, "```\nprint(1)\n\n# 2\n```\n")
    block = block_in(path, 2)
    report = update_sources(
        [(block, judge(block, Outcome(stdout="1\n")))],
        kinds=rules_of,
        rerun=replay({("doc", 0): Outcome(stdout="1\n")}),
    )
    assert path.read_text() == "```\nprint(1)\n\n# 1\n```\n"
    assert (
        report.written == [str(path)]
        and report.rewritten == 1
        and report.rewritten_at == {(str(path), 4)}
    )


def test_output_no_expectation_covers_is_refused_with_the_note(tmp_path: Path) -> None:
    text = "```\nprint(1)\n```\n"
    path = page(tmp_path, text)
    report = update([block_in(path, 2)], {("doc", 0): Outcome(stdout="1\n")})
    assert path.read_text() == text
    assert report.refused == [
        (
            str(path),
            2,
            "block 'doc[1]': the block printed output that no expectation covers; add a trailing "
            "block of `# ` comments for it (jaxcheck update does not guess where it goes)",
        )
    ]


def test_a_block_update_must_not_rewrite_is_refused_with_its_reason(tmp_path: Path) -> None:
    text = "```\nprint(1)\n\n# 2\n```\n"
    path = page(tmp_path, text)
    block = replace(block_in(path, 2), update_refusal="setup code must print nothing")
    report = update([block], {("doc", 0): Outcome(stdout="1\n")})
    assert path.read_text() == text
    assert report.refused == [(str(path), 4, "block 'doc[1]': setup code must print nothing")]


def test_an_example_that_is_not_python_fails_and_update_leaves_it_alone(tmp_path: Path) -> None:
    text = "```\nx = 1\n# >>> %time x\n# 2\n```\n"
    path = page(tmp_path, text)
    calls: list[Sequence[str]] = []
    block = block_in(path, 2)
    verdict = judge(block, Outcome(examples=("1\n",)))
    assert verdict.status is Status.FAILED and verdict.drifts == ()
    ((problem,),) = [verdict.problems]
    assert (problem.subtype, problem.line) == (Subtype.SYNTAX, 3)
    assert problem.message.startswith("the `>>>` example '%time x' is not valid Python")
    report = update_sources([(block, verdict)], kinds=rules_of, rerun=replay({}, calls))
    assert path.read_text() == text and calls == []
    assert report.refused == [] and report.diffs == {}


def test_skipped_examples_are_left_as_they_are_and_not_listed(tmp_path: Path) -> None:
    text = "```\nx = 1\n# >>> x  # doctest: +SKIP\n# 5\n# >>> x\n# 2\n```\n"
    path = page(tmp_path, text)
    report = update([block_in(path, 2)], {("doc", 0): Outcome(examples=("1\n",))})
    # +SKIP examples are never compared, so never news: only the drift is rewritten.
    assert path.read_text() == text.replace("# 2\n```", "# 1\n```")
    assert describe(report) == ["jaxcheck update: rewrote 1 expectation(s) in 1 file(s)"]
    report.refused.append((str(path), 9, "why not"))
    assert describe(report) == [
        f"{path}:9: cannot update: why not",
        "jaxcheck update: rewrote 1 expectation(s) in 1 file(s)",
    ]


def test_workers_that_cannot_run_again_refuse_every_drift(tmp_path: Path) -> None:
    text = "```\nprint(1)\n\n# 2\n```\n"
    path = page(tmp_path, text)
    block = block_in(path, 2)

    def broken(documents: object) -> object:
        raise WorkerStartError("the jaxcheck worker (python) did not start: boom")

    report = update_sources(
        [(block, judge(block, Outcome(stdout="1\n")))], kinds=rules_of, rerun=broken
    )  # type: ignore[arg-type]
    assert path.read_text() == text
    assert report.refused == [
        (
            str(path),
            4,
            "block 'doc[1]': the sessions could not run a second time (the jaxcheck worker "
            "(python) did not start: boom), so no new output is proven",
        )
    ]


def test_one_unproven_drift_does_not_stop_the_next(tmp_path: Path) -> None:
    first = page(tmp_path, "```\nprint(1)\n\n# 2\n```\n", "a.md")
    second = page(tmp_path, "```\nprint(3)\n\n# 4\n```\n", "b.md")
    blocks = [block_in(first, 2, docname="a"), block_in(second, 2, docname="b")]
    outcomes = {("a", 0): Outcome(stdout="1\n"), ("b", 0): Outcome(stdout="3\n")}
    calls: list[Sequence[str]] = []
    checked = [(b, judge(b, outcomes[b.docname, b.index])) for b in blocks]
    varying = {("a", 0): Outcome(stdout="7\n"), ("b", 0): Outcome(stdout="3\n")}
    report = update_sources(checked, kinds=rules_of, rerun=replay(varying, calls))
    assert calls == [["a", "b"]]
    assert first.read_text().endswith("# 2\n```\n") and second.read_text().endswith("# 3\n```\n")
    assert report.refused == [
        (
            str(first),
            4,
            "block 'a[1]': the output differs between two runs (output line 1: '1', then '7'); "
            "update writes only output that reproduces exactly. Write the varying part as `...`",
        )
    ]
    assert describe(report) == [
        f"{first}:4: cannot update: {report.refused[0][2]}",
        "jaxcheck update: rewrote 1 expectation(s) in 1 file(s)",
    ]


def test_a_session_the_second_run_does_not_report_is_not_proven(tmp_path: Path) -> None:
    path = page(tmp_path, "```\nprint(1)\n\n# 2\n```\n")
    block = block_in(path, 2)
    report = update_sources(
        [(block, judge(block, Outcome(stdout="1\n")))], kinds=rules_of, rerun=lambda documents: {}
    )
    assert report.refused == [
        (
            str(path),
            4,
            "block 'doc[1]': the block did not run a second time, so its new output is not proven; "
            "run the update again",
        )
    ]


def test_files_outside_the_source_folder_are_written_only_when_allowed(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    text = "```\nprint(1)\n\n# 2\n```\n"
    outside = page(tmp_path, text, "far.md")
    (root / "far.md").symlink_to(outside)
    inside = page(root, text, "near.md")
    linked = block_in(root / "far.md", 2, docname="far")
    near = block_in(inside, 2, docname="near")
    outcomes = {("far", 0): Outcome(stdout="1\n"), ("near", 0): Outcome(stdout="1\n")}
    report = update([linked, near], outcomes, root=str(root))
    assert outside.read_text() == text and inside.read_text() == text.replace("# 2", "# 1")
    assert report.refused == [
        (
            str(root / "far.md"),
            4,
            f"block 'far[1]': the file ({root / 'far.md'}, which is {outside}) is outside the "
            f"source folder {root}; update writes there only when asked: pass --allow-outside (or "
            "set jaxcheck_update_allow_outside = True)",
        )
    ]
    # Named by its own path when that is where it really is.
    direct = block_in(outside, 2, docname="far")
    (refused,) = update([direct], outcomes, root=str(root)).refused
    assert f"the file ({outside}) is outside" in refused[2]
    allowed = update([linked], outcomes, root=str(root), allow_outside=True)
    assert allowed.refused == [] and outside.read_text() == text.replace("# 2", "# 1")
    assert (root / "far.md").is_symlink()


def test_a_file_that_is_not_utf8_is_refused_at_its_first_line(tmp_path: Path) -> None:
    path = page(tmp_path, "```\nprint(1)\n\n# 2\n```\n")
    block = block_in(path, 2)
    path.write_bytes(b"\xff" + path.read_bytes()[1:])
    block = replace(block, file_digest=digest(path.read_bytes()))
    report = update([block], {("doc", 0): Outcome(stdout="1\n")})
    ((where, line, why),) = report.refused
    assert (where, line) == (str(path), 1)
    assert why.startswith(
        "not UTF-8 ('utf-8' codec can't decode byte 0xff in position 0"
    ) and why.endswith("; cannot rewrite it safely")


def test_an_alignment_past_the_step_limit_is_refused_with_the_sizes(tmp_path: Path) -> None:
    expected = "\n".join(f"# {n}\n# ..." for n in range(6))
    path = page(tmp_path, f"```\nfor n in range(9): print(n)\n\n{expected}\n```\n")
    block = block_in(path, 2)
    outcome = Outcome(stdout="".join(f"{n}\n" for n in range(9)))
    report = update([block], {("doc", 0): outcome}, step_limit=5)
    ((_, line, why),) = report.refused
    assert line == 4
    assert why.startswith("block 'doc[1]': ") and why.endswith(
        "(12 expected lines with `...` against 9 actual ones); rewrite this expectation by hand"
    )
    # Without the limit the same drift is rewritten.
    assert update([block], {("doc", 0): outcome}).refused == []


def test_control_characters_in_new_output_are_refused_by_name(tmp_path: Path) -> None:
    text = "```\nprint('x')\nprint('y')\n\n# x\n# z\n```\n"
    path = page(tmp_path, text)
    report = update([block_in(path, 2)], {("doc", 0): Outcome(stdout="x\n\x1b[1my\n")})
    assert path.read_text() == text
    assert report.refused == [
        (
            str(path),
            5,
            "block 'doc[1]': the new output holds control characters a page cannot keep as text: "
            "'\\x1b' (ESC, which starts an ANSI escape sequence), on output line 1 ('\\x1b[1my'); "
            "update writes none of it. Make the block print plain text (e.g. without "
            "progress bars or colours)",
        )
    ]


def test_a_block_longer_than_its_file_is_refused(tmp_path: Path) -> None:
    path = page(tmp_path, "```\nprint(1)\n\n# 2\n```\n")
    block = block_in(path, 2)
    path.write_text("```\nprint(1)\n")
    block = replace(block, file_digest=digest(path.read_bytes()))
    report = update([block], {("doc", 0): Outcome(stdout="1\n")})
    assert report.refused == [
        (str(path), 4, "block 'doc[1]': block 'doc[1]' extends past the end of the file")
    ]


def test_lines_changed_by_the_reader_are_refused_naming_the_characters(tmp_path: Path) -> None:
    path = page(tmp_path, "```\nprint('X')\x0b\x0c  # 2\n```\n")
    block = block_in(path, 2, body=("print('X')    # 2",))
    report = update([block], {("doc", 0): Outcome(inline=((1, "1\n"),))})
    assert report.refused == [
        (
            str(path),
            2,
            "block 'doc[1]': line 2 holds '\\x0b', '\\x0c', which the reader turns into spaces, "
            "so jaxcheck cannot rewrite the block byte for byte; rewrite this expectation by hand",
        )
    ]
    tabbed = page(tmp_path, "```\nprint(1)\t# 2\n```\n", "tab.md")
    block = block_in(tabbed, 2, body=("print(1)        # 2",))
    (refused,) = update([block], {("doc", 0): Outcome(inline=((1, "1\n"),))}).refused
    assert refused[2] == (
        "block 'doc[1]': line 2 holds tabs, which reStructuredText expands to spaces, "
        "so jaxcheck cannot rewrite the block byte for byte; indent it with spaces, or rewrite "
        "this expectation by hand"
    )
    changed = page(tmp_path, "```\nprint(7)  # 2\n```\n", "changed.md")
    block = block_in(changed, 2, body=("print(1)  # 2",))
    (refused,) = update([block], {("doc", 0): Outcome(inline=((1, "1\n"),))}).refused
    assert refused[2] == (
        "block 'doc[1]': line 2 reads 'print(7)  # 2' in the file, but the block was "
        "read as 'print(1)  # 2' (did a Sphinx extension change the text?); rewrite "
        "this expectation by hand"
    )


def test_output_that_would_close_the_fence_is_refused(tmp_path: Path) -> None:
    text = "Text\n\n~~~~{jaxcheck}\n:name: fenced\n\n>>> print('a')\na\n~~~~\n"
    path = page(tmp_path, text)
    block = block_in(path, 6, name="fenced")
    report = update([block], {("doc", 0): Outcome(examples=("~~~~~\n",))})
    assert path.read_text() == text
    assert report.refused == [
        (
            str(path),
            6,
            "block 'fenced': the new output line '~~~~~' would close the Markdown fence "
            "'~~~~' of the block",
        )
    ]
    # A shorter run of the fence's character does not close it: written.
    report = update([block], {("doc", 0): Outcome(examples=("~~~\n",))})
    assert report.refused == [] and path.read_text() == text.replace("\na\n", "\n~~~\n")


def test_a_fence_right_above_the_body_or_one_option_away_is_found(tmp_path: Path) -> None:
    for text, body_line in (
        ("~~~~{jaxcheck}\n>>> print('a')\na\n~~~~\n", 2),
        ("~~~~{jaxcheck}\n:name: fenced\n>>> print('a')\na\n~~~~\n", 3),
        ("Text\n\n~~~~{jaxcheck}\n>>> print('a')\na\n~~~~\n", 4),
    ):
        path = page(tmp_path, text)
        report = update([block_in(path, body_line)], {("doc", 0): Outcome(examples=("~~~~\n",))})
        assert path.read_text() == text
        ((_, _, why),) = report.refused
        assert why.endswith(
            "the new output line '~~~~' would close the Markdown fence '~~~~' of the block"
        )


def test_printed_prompts_that_would_read_as_new_examples_are_refused(tmp_path: Path) -> None:
    text = "```\nx = 1\n# >>> x\n# 2\n```\n"
    path = page(tmp_path, text)
    report = update([block_in(path, 2)], {("doc", 0): Outcome(examples=("1\n>>> 5\n",))})
    assert path.read_text() == text
    assert report.refused == [
        (
            str(path),
            3,
            "block 'doc[1]': with the new output written, the block would read differently "
            "(new or lost examples)",
        )
    ]


def test_each_doctest_example_keeps_its_own_indentation(tmp_path: Path) -> None:
    text = "```\n>>> x = 1\n  >>> print(x)\n  2\n```\n"
    path = page(tmp_path, text)
    report = update([block_in(path, 2)], {("doc", 0): Outcome(examples=("", "1\n"))})
    assert report.refused == []
    assert path.read_text() == text.replace("  2\n", "  1\n")


def test_ellipsis_lines_of_a_page_example_are_kept_only_under_its_ellipsis_flag(
    tmp_path: Path,
) -> None:
    text = "Text\n\n>>> print('a\\nb\\nc')  # doctest: +ELLIPSIS\na\n...\nd\n\nMore\n"
    path = page(tmp_path, text)
    lines = tuple(path.read_text().split("\n")[2:6])
    report = update(
        [block_in(path, 3, body=lines, kind=PageExamples())],
        {("doc", 0): Outcome(examples=("a\nb\nc\n",))},
    )
    assert report.refused == []
    assert path.read_text() == text.replace("...\nd\n", "...\n")
    plain = text.replace("  # doctest: +ELLIPSIS", "")
    path = page(tmp_path, plain)
    lines = tuple(path.read_text().split("\n")[2:6])
    report = update(
        [block_in(path, 3, body=lines, kind=PageExamples())],
        {("doc", 0): Outcome(examples=("a\nb\nc\n",))},
    )
    assert report.refused == []
    assert path.read_text() == plain.replace("...\nd\n", "b\nc\n")
    # Without ELLIPSIS, a line holding "..." stands for one line, even where doctest's
    # NORMALIZE_WHITESPACE would let it match several.
    spaced = (
        "Text\n"
        "\n"
        ">>> print('a\\n...\\nb\\nc')  # doctest: +NORMALIZE_WHITESPACE\n"
        "a ... b\n"
        "d\n"
        "\n"
        "More\n"
    )
    path = page(tmp_path, spaced)
    lines = tuple(path.read_text().split("\n")[2:5])
    report = update(
        [block_in(path, 3, body=lines, kind=PageExamples())],
        {("doc", 0): Outcome(examples=("a\n...\nb\nc\n",))},
    )
    assert report.refused == []
    assert path.read_text() == spaced.replace("a ... b\nd\n", "a\n...\nb\nc\n")


# -- several edits of one file ---------------------------------------------------------------

SNIPPET = "```\nprint(value)\n\n# 1\n```\n"


def included(tmp_path: Path, documents: Sequence[str]) -> list[Block]:
    """One snippet file, included by each of these documents (the same lines, read once per
    document)."""
    path = page(tmp_path, SNIPPET, "snippet.md")
    return [block_in(path, 2, docname=doc) for doc in documents]


def test_documents_that_need_different_output_are_each_refused_naming_the_other(
    tmp_path: Path,
) -> None:
    blocks = included(tmp_path, ["a", "b", "c"])
    outcomes = {
        ("a", 0): Outcome(stdout="2\n"),
        ("b", 0): Outcome(stdout="2\n"),
        ("c", 0): Outcome(stdout="3\n"),
    }
    report = update(blocks, outcomes)
    assert (tmp_path / "snippet.md").read_text() == SNIPPET
    path = str(tmp_path / "snippet.md")
    tail = "; update writes neither: make the documents agree, or rewrite the expectation by hand"
    assert report.refused == [
        (
            path,
            4,
            "block 'a[1]' is included by more than one document, which disagree: document 'a' "
            "needs ['2'], document 'c' needs ['3']" + tail,
        ),
        (
            path,
            4,
            "block 'b[1]' is included by more than one document, which disagree: document 'b' "
            "needs ['2'], document 'c' needs ['3']" + tail,
        ),
        (
            path,
            4,
            "block 'c[1]' is included by more than one document, which disagree: document 'c' "
            "needs ['3'], document 'a' needs ['2']" + tail,
        ),
    ]
    assert report.rewritten == 0 and report.rewritten_at == set()


def test_a_long_output_is_shown_by_its_first_three_lines(tmp_path: Path) -> None:
    blocks = included(tmp_path, ["a", "b"])
    outcomes = {("a", 0): Outcome(stdout="2\n3\n4\n5\n"), ("b", 0): Outcome(stdout="2\n3\n4\n")}
    (first, second) = update(blocks, outcomes).refused
    assert (
        "document 'a' needs ['2', '3', '4', '...'], document 'b' needs ['2', '3', '4'];" in first[2]
    )
    assert (
        "document 'b' needs ['2', '3', '4'], document 'a' needs ['2', '3', '4', '...'];"
        in second[2]
    )


def test_a_document_that_needs_no_change_holds_the_edit_back(tmp_path: Path) -> None:
    blocks = included(tmp_path, ["a", "b"])
    report = update(blocks, {("a", 0): Outcome(stdout="2\n"), ("b", 0): Outcome(stdout="1\n")})
    assert (tmp_path / "snippet.md").read_text() == SNIPPET
    assert report.refused == [
        (
            str(tmp_path / "snippet.md"),
            4,
            "block 'a[1]' is included by more than one document, which disagree: document 'a' "
            "needs ['2'], document 'b' includes it too and there it needs no such change (its "
            "output matches the current text, or could not be updated); update writes neither: "
            "make the documents agree, or rewrite the expectation by hand",
        )
    ]


def test_documents_that_agree_get_the_edit_once(tmp_path: Path) -> None:
    blocks = included(tmp_path, ["a", "b"])
    report = update(blocks, {("a", 0): Outcome(stdout="2\n"), ("b", 0): Outcome(stdout="2\n")})
    assert (tmp_path / "snippet.md").read_text() == SNIPPET.replace("# 1", "# 2")
    assert report.refused == [] and report.rewritten == 1


def test_edits_of_one_file_in_any_order_and_on_adjacent_lines_are_all_written(
    tmp_path: Path,
) -> None:
    text = "```\nprint(1)  # 2\nprint(3)  # 4\n```\n\n```\nprint(5)\n\n# 6\n# 7\n```\n"
    path = page(tmp_path, text)
    first, second = block_in(path, 2, index=0), block_in(path, 7, index=1)
    outcomes = {
        ("doc", 0): Outcome(inline=((1, "1\n"), (2, "3\n"))),
        ("doc", 1): Outcome(stdout="5\n7\n"),
    }
    checked = [(b, judge(b, outcomes["doc", b.index])) for b in (second, first)]
    report = update_sources(checked, kinds=rules_of, rerun=replay(outcomes))
    assert report.refused == []
    assert (
        path.read_text()
        == "```\nprint(1)  # 1\nprint(3)  # 3\n```\n\n```\nprint(5)\n\n# 5\n# 7\n```\n"
    )
    assert report.rewritten == 3
    assert report.rewritten_at == {(str(path), 2), (str(path), 3), (str(path), 9)}


def test_the_report_adds_up_over_files_including_those_already_right(tmp_path: Path) -> None:
    stale = page(tmp_path, "```\nprint(1)\n\n# 2\n```\n", "a.md")
    same = page(tmp_path, "```\nprint(3)\n\n# 3\n```\n", "b.md")
    later = page(tmp_path, "```\nprint(4)\n\n# 5\n```\n", "c.md")
    blocks = [
        block_in(stale, 2, docname="a"),
        block_in(same, 2, docname="b"),
        block_in(later, 2, docname="c"),
    ]
    outcomes = {
        ("a", 0): Outcome(stdout="1\n"),
        ("b", 0): Outcome(stdout="3\n"),
        ("c", 0): Outcome(stdout="4\n"),
    }
    # b's drift is made up: its text already says what the block prints (update writes
    # nothing there).
    checked = [(b, judge(b, outcomes[b.docname, b.index])) for b in blocks]
    fake = replace(
        judge(blocks[0], outcomes["a", 0]).drifts[0],
        expectation=blocks[1].expectations[0],
        actual=("3",),
    )
    checked[1] = (blocks[1], replace(checked[0][1], drifts=(fake,)))
    report = update_sources(
        checked,
        kinds=rules_of,
        rerun=lambda documents: {
            doc: [
                replace(checked[1][1]) if doc == "b" else judge(b, outcomes[doc, b.index])
                for b in bs
            ]
            for doc, bs in documents.items()
        },
    )
    assert report.written == [str(stale), str(later)] and report.rewritten == 2
    assert report.rewritten_at == {(str(stale), 4), (str(same), 4), (str(later), 4)}
    assert describe(report) == ["jaxcheck update: rewrote 2 expectation(s) in 2 file(s)"]


# -- where new lines go -------------------------------------------------------------------------


def test_a_kept_line_after_a_changed_one_keeps_its_own_bytes(tmp_path: Path) -> None:
    text = "```\nprint('a'); print('b')\n\n# x\n# b   \n```\n"
    path = page(tmp_path, text)
    report = update([block_in(path, 2)], {("doc", 0): Outcome(stdout="a\nb\n")})
    assert report.refused == []
    assert path.read_bytes() == b"```\nprint('a'); print('b')\n\n# a\n# b   \n```\n"


def test_an_inline_comment_inside_an_indented_statement_keeps_its_indentation(
    tmp_path: Path,
) -> None:
    text = "Text\n\n   ```\n   for n in [1]:\n       print(n)  # 2\n   ```\n"
    path = page(tmp_path, text)
    report = update([block_in(path, 4, indent="   ")], {("doc", 0): Outcome(inline=((2, "1\n"),))})
    assert report.refused == []
    assert path.read_text() == text.replace("# 2", "# 1")


def test_output_of_the_last_statement_goes_below_it_with_the_block_indentation(
    tmp_path: Path,
) -> None:
    text = "- item\n\n  ```\n  # >>> 1 + 1\n  ```\n"
    path = page(tmp_path, text)
    report = update([block_in(path, 4, indent="  ")], {("doc", 0): Outcome(examples=("2\n",))})
    assert report.refused == []
    assert path.read_text() == "- item\n\n  ```\n  # >>> 1 + 1\n  # 2\n  ```\n"
    text = "- item\n\n  ```\n  x = 1\n  # >>> x\n  # >>> x + 1\n  ```\n"
    path = page(tmp_path, text)
    report = update(
        [block_in(path, 4, indent="  ")], {("doc", 0): Outcome(examples=("1\n", "2\n"))}
    )
    assert report.refused == []
    assert (
        path.read_text()
        == "- item\n\n  ```\n  x = 1\n  # >>> x\n  # 1\n  # >>> x + 1\n  # 2\n  ```\n"
    )


def test_output_inserted_at_a_blank_line_takes_the_block_indentation(tmp_path: Path) -> None:
    text = "- item\n\n  ```\n  x = 1\n  # >>> x\n\n  ```\n"
    path = page(tmp_path, text)
    block = block_in(path, 4, body=("x = 1", "# >>> x", ""))
    assert update([block], {("doc", 0): Outcome(examples=("1\n",))}).refused == []
    assert path.read_text() == "- item\n\n  ```\n  x = 1\n  # >>> x\n  # 1\n\n  ```\n"
    # In a block quote the blank line keeps only ">"; new lines take "> ".
    text = "> ```\n> x = 1\n> # >>> x\n>\n> ```\n"
    path = page(tmp_path, text)
    block = block_in(path, 2, body=("x = 1", "# >>> x", ""))
    assert update([block], {("doc", 0): Outcome(examples=("1\n",))}).refused == []
    assert path.read_text() == "> ```\n> x = 1\n> # >>> x\n> # 1\n>\n> ```\n"
    # At the top level there is no indentation to take.
    text = "```\nx = 1\n# >>> x\n\n```\n"
    path = page(tmp_path, text)
    block = block_in(path, 2, body=("x = 1", "# >>> x", ""))
    assert update([block], {("doc", 0): Outcome(examples=("1\n",))}).refused == []
    assert path.read_text() == "```\nx = 1\n# >>> x\n# 1\n\n```\n"


def test_trailing_output_before_statements_that_is_now_empty_goes_away(tmp_path: Path) -> None:
    text = "```\nprint('gone')\nx = 1\n\n# gone\n# >>> x\n# 1\n```\n"
    path = page(tmp_path, text)
    report = update([block_in(path, 2)], {("doc", 0): Outcome(examples=("1\n",))})
    assert report.refused == []
    assert path.read_text() == "```\nprint('gone')\nx = 1\n\n# >>> x\n# 1\n```\n"


def test_testoutput_keeps_blank_lines_blank_and_runs_the_snippet_as_statements(
    tmp_path: Path,
) -> None:
    text = (
        "Text\n"
        "\n"
        ".. testcode::\n"
        "\n"
        "   x = 1\n"
        "   print(x)\n"
        "   print()\n"
        "   print(x)\n"
        "\n"
        ".. testoutput::\n"
        "\n"
        "   2\n"
    )
    path = page(tmp_path, text, "doc.rst")
    items = [
        doctest_directives.TestItem(
            "testcode", ("default",), 5, ("   x = 1", "   print(x)", "   print()", "   print(x)")
        ),
        doctest_directives.TestItem("testoutput", ("default",), 12, ("   2",)),
    ]
    (placed,) = doctest_directives.blocks_of(
        items,
        docname="doc",
        path=str(path),
        flags=0,
        timeout=60.0,
        digest=digest(path.read_bytes()),
    )
    block = replace(placed.block, index=0)
    report = update([block], {("doc", 0): Outcome(examples=("1\n\n1\n",))})
    assert report.refused == []
    assert path.read_text() == text.replace("   2\n", "   1\n\n   1\n")
    assert block.expectations[0].optionflags & doctest.DONT_ACCEPT_BLANKLINE


def test_update_follows_the_real_path_of_a_symlinked_page(tmp_path: Path) -> None:
    real = page(tmp_path, "```\nprint(1)\n\n# 2\n```\n", "real.md")
    (tmp_path / "link.md").symlink_to(real)
    report = update([block_in(tmp_path / "link.md", 2)], {("doc", 0): Outcome(stdout="1\n")})
    assert report.written == [os.path.realpath(real)]
    assert (tmp_path / "link.md").is_symlink() and real.read_text().endswith("# 1\n```\n")


@pytest.mark.parametrize("dry_run", [False, True])
def test_the_diff_names_the_file_relative_to_where_update_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, dry_run: bool
) -> None:
    path = page(tmp_path, "```\nprint('é')\n\n# e\n```\n")
    monkeypatch.chdir(tmp_path)
    report = update([block_in(path, 2)], {("doc", 0): Outcome(stdout="é\n")}, dry_run=dry_run)
    assert report.diffs[str(path)].splitlines() == [
        "--- a/doc.md",
        "+++ b/doc.md",
        "@@ -1,5 +1,5 @@",
        " ```",
        " print('é')",
        " ",
        "-# e",
        "+# é",
        " ```",
    ]


# -- what doctest compares, and what doctest reads as output -------------------------------


def test_blank_lines_and_spaces_at_the_end_of_a_page_example_are_written_as_doctest_compares(
    tmp_path: Path,
) -> None:
    text = '```python\n>>> print("a\\n")\na\n\n>>> print("b  ")\nb\n\n```\n'
    path = page(tmp_path, text)
    block = block_in(path, 2, body=tuple(text.split("\n")[1:7]), kind=PageExamples())
    outcome = Outcome(examples=("a\n\n", "b  \n"), example_errors=(None, None))
    verdict = judge(block, outcome)
    assert [d.printed for d in verdict.drifts] == ["a\n\n", "b  \n"]
    report = update([block], {("doc", 0): outcome})
    assert path.read_text() == text.replace("a\n\n>>>", "a\n<BLANKLINE>\n\n>>>").replace(
        'b  ")\nb\n', 'b  ")\nb  \n'
    )
    assert report.rewritten == 2 and report.refused == []


def test_an_output_line_of_spaces_only_is_a_blankline_which_doctest_accepts_for_it(
    tmp_path: Path,
) -> None:
    # Written as it is, a line of spaces would end the expected output; doctest reads such
    # a line of the output as blank.
    text = "```python\n>>> print('a\\n   \\nb')\nx\n\n```\n"
    path = page(tmp_path, text)
    block = block_in(path, 2, body=tuple(text.split("\n")[1:3]), kind=PageExamples())
    report = update([block], {("doc", 0): Outcome(examples=("a\n   \nb\n",))})
    assert path.read_text() == text.replace("x\n", "a\n<BLANKLINE>\nb\n")
    assert report.rewritten == 1


def test_a_closing_fence_doctest_reads_as_output_is_never_deleted(tmp_path: Path) -> None:
    text = "# Page\n\n```python\n>>> 1 + 1\n3\n```\n\nMore.\n"
    path = page(tmp_path, text)
    block = block_in(path, 4, body=(">>> 1 + 1", "3", "```"), kind=PageExamples())
    report = update([block], {("doc", 0): Outcome(examples=("2\n",))})
    assert path.read_text() == text
    assert report.refused == [
        (
            str(path),
            4,
            "block 'doc.md:4': line 6 ('```') closes the Markdown fence '```python' opened at "
            "line 3, but doctest reads it as a line of this example's expected output, since no "
            "blank line stands before it; update would delete the fence, and the page after it "
            "would become part of this code. Put a blank line before line 6, then run update "
            "again",
        )
    ]


def test_one_docstring_read_as_two_blocks_of_a_document_that_disagree_is_refused(
    tmp_path: Path,
) -> None:
    text = '"""Where.\n\n>>> WHERE\n\'b\'\n"""\n'
    path = page(tmp_path, text, "a.py")
    body = (">>> WHERE", "'b'")
    read = [
        block_in(path, 3, body=body, kind=PageExamples(), index=n, docname="index")
        for n in range(2)
    ]
    blocks = [
        replace(
            block,
            options=BlockOptions(session=f"docstrings of pkg.{module}"),
            program=replace(block.program, namespace=f"pkg.{module}.where"),
        )
        for block, module in zip(read, "ab", strict=True)
    ]
    outcomes = {
        ("index", 0): Outcome(examples=("'a'\n",)),
        ("index", 1): Outcome(examples=("'b'\n",)),
    }
    report = update(blocks, outcomes)
    assert path.read_text() == text
    assert report.refused == [
        (
            str(path),
            3,
            "the lines of block 'a.py:3' are read as more than one block of document 'index' "
            "(as one docstring collected in two modules, run in each one's namespace), which "
            "disagree: the docstring 'pkg.a.where' needs [\"'a'\"], the docstring 'pkg.b.where' "
            "reads these lines too and there it needs no such change (its output matches the "
            "current text, or could not be updated); update writes neither: make the blocks "
            "agree, or rewrite the expectation by hand",
        )
    ]


def test_runs_that_differ_only_in_what_ends_a_line_do_not_reproduce(tmp_path: Path) -> None:
    text = '```python\n>>> print("b  ")\nb\n\n```\n'
    path = page(tmp_path, text)
    block = block_in(path, 2, body=tuple(text.split("\n")[1:3]), kind=PageExamples())
    report = update(
        [block],
        {("doc", 0): Outcome(examples=("b  \n",))},
        {("doc", 0): Outcome(examples=("b \n",))},
    )
    assert path.read_text() == text
    assert report.refused == [
        (
            str(path),
            2,
            "block 'doc.md:2': the output differs between two runs (output line 1: 'b  ', then "
            "'b '); update writes only output that reproduces exactly. Write the varying part as "
            "`...`",
        )
    ]
