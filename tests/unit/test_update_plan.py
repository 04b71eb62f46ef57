"""Which lines ``jaxcheck update`` writes for a drift, on hand-built outcomes (fast, no workers)."""

from __future__ import annotations

from pathlib import Path

from sphinx_jaxcheck.expect.grammar import parse_body
from sphinx_jaxcheck.kinds import judge, rules_of
from sphinx_jaxcheck.model import Block, BlockOptions, Outcome
from sphinx_jaxcheck.rewrite.edits import digest
from sphinx_jaxcheck.rewrite.update import UpdateReport, describe, update_sources


def replaying(outcome: Outcome):  # type: ignore[no-untyped-def]
    """The second run update asks for: it prints what the first did (made up, not run)."""
    return lambda documents: {
        doc: [judge(b, outcome) for b in blocks] for doc, blocks in documents.items()
    }


def updated(
    tmp_path: Path,
    text: str,
    body_line: int,
    outcome: Outcome,
    *,
    indent: str = "",
    dry_run: bool = False,
    body: tuple[str, ...] = (),
) -> tuple[str, UpdateReport]:
    """Write ``text``, judge its block (body from ``body_line``) on ``outcome``, update it."""
    path = tmp_path / "doc.md"
    path.write_bytes(text.encode())
    lines = text.split("\n")
    end = next(n for n in range(body_line - 1, len(lines)) if lines[n].strip() == "```")
    body = body or tuple(line.removeprefix(indent) for line in lines[body_line - 1 : end])
    parsed = parse_body(body)
    block = Block(
        "doc",
        0,
        str(path),
        body_line,
        body,
        BlockOptions(),
        parsed.expectations,
        parsed.program("<b>"),
        parsed.error,
        digest(text.encode()),
    )
    report = update_sources(
        [(block, judge(block, outcome))], kinds=rules_of, rerun=replaying(outcome), dry_run=dry_run
    )
    return path.read_text(), report


def test_an_inline_comment_is_rewritten_on_the_line_that_holds_it(tmp_path: Path) -> None:
    text = "```{jaxcheck}\nprint(\n    1 + 1,\n)  # 3\nprint(5)  # 5\n```\n"
    new, report = updated(tmp_path, text, 2, Outcome(inline=((1, "2\n"), (4, "5\n"))))
    assert new == "```{jaxcheck}\nprint(\n    1 + 1,\n)  # 2\nprint(5)  # 5\n```\n"
    assert report.rewritten == 1 and report.written == [str(tmp_path / "doc.md")]
    assert report.rewritten_at == {(str(tmp_path / "doc.md"), 2)}


def test_trailing_lines_that_still_match_are_kept_byte_for_byte(tmp_path: Path) -> None:
    text = "```\nprint('jax 1 on cpu')\nprint('two')\n\n# jax ... on cpu\n# three\n```\n"
    new, _ = updated(tmp_path, text, 2, Outcome(stdout="jax 2 on cpu\ntwo\n"))
    assert new == "```\nprint('jax 1 on cpu')\nprint('two')\n\n# jax ... on cpu\n# two\n```\n"


def test_indented_blocks_keep_their_indentation_and_blank_output_lines(tmp_path: Path) -> None:
    text = "- item\n\n  ```\n  print('a')\n  print()\n  print('b')\n\n  # a\n  # c\n  ```\n"
    new, _ = updated(tmp_path, text, 4, Outcome(stdout="a\n\nb\n"), indent="  ")
    assert (
        new
        == "- item\n\n  ```\n  print('a')\n  print()\n  print('b')\n\n  # a\n  #\n  # b\n  ```\n"
    )


def test_a_block_that_now_prints_nothing_keeps_a_bare_hash(tmp_path: Path) -> None:
    new, _ = updated(tmp_path, "```\nx = 1\n\n# 1\n```\n", 2, Outcome(stdout=""))
    assert new == "```\nx = 1\n\n#\n```\n"


def test_repl_output_is_rewritten_under_its_statement(tmp_path: Path) -> None:
    text = "```\nx = 1\n\n# >>> x\n# 2\n# >>> x + 1\n# 2\n```\n"
    new, report = updated(tmp_path, text, 2, Outcome(examples=("1\n", "2\n")))
    assert new == "```\nx = 1\n\n# >>> x\n# 1\n# >>> x + 1\n# 2\n```\n"
    assert report.rewritten == 1
    # A statement whose output is now empty loses its lines: no bare '#' between statements.
    new, _ = updated(tmp_path, text, 2, Outcome(examples=("", "2\n")))
    assert new == "```\nx = 1\n\n# >>> x\n# >>> x + 1\n# 2\n```\n"


def test_doctest_output_keeps_the_prompt_indentation_and_marks_blank_lines(tmp_path: Path) -> None:
    text = "```\n  >>> print('a')\n  b\n```\n"
    new, _ = updated(tmp_path, text, 2, Outcome(examples=("a\n\nc\n",)))
    assert new == "```\n  >>> print('a')\n  a\n  <BLANKLINE>\n  c\n```\n"


def test_a_drift_that_needs_a_human_is_refused_and_the_file_left_alone(tmp_path: Path) -> None:
    text = "```\nprint('a\\nb')  # a\n```\n"
    new, report = updated(tmp_path, text, 2, Outcome(inline=((1, "a\nb\n"),)))
    assert new == text
    assert report.rewritten == 0 and report.written == []
    ((path, line, why),) = report.refused
    assert (path, line) == (str(tmp_path / "doc.md"), 2)
    assert why.startswith("block 'doc[1]': the print now writes 2 lines")
    assert describe(report) == [
        f"{path}:2: cannot update: {why}",
        "jaxcheck update: rewrote 0 expectation(s) in 0 file(s)",
    ]


def test_tabs_that_rst_expands_are_refused(tmp_path: Path) -> None:
    # reStructuredText hands over the body with the tab expanded to spaces.
    text = "```\n\tprint(1)\t# 2\n```\n"
    new, report = updated(
        tmp_path, text, 2, Outcome(inline=((1, "1\n"),)), body=("print(1)        # 2",)
    )
    assert new == text
    ((_, line, why),) = report.refused
    assert line == 2 and why.startswith(
        "block 'doc[1]': line 2 holds tabs, which reStructuredText expands to spaces"
    )
    # Without tabs, a line that does not hold the body line means the file is not what was read.
    new, report = updated(
        tmp_path,
        "```\nprint(7)  # 2\n```\n",
        2,
        Outcome(inline=((1, "1\n"),)),
        body=("print(1)  # 2",),
    )
    assert report.refused[0][2].startswith(
        "block 'doc[1]': line 2 reads 'print(7)  # 2' in the file, but the block was "
        "read as 'print(1)  # 2'"
    )


def test_dry_run_reports_the_diff_and_writes_nothing(tmp_path: Path) -> None:
    text = "```\nprint(1)\n\n# 2\n```\n"
    new, report = updated(tmp_path, text, 2, Outcome(stdout="1\n"), dry_run=True)
    assert new == text and report.written == [] and report.rewritten == 1
    diff = report.diffs[str(tmp_path / "doc.md")]
    assert diff.splitlines()[2:] == [
        "@@ -1,5 +1,5 @@",
        " ```",
        " print(1)",
        " ",
        "-# 2",
        "+# 1",
        " ```",
    ]
    assert describe(report, dry_run=True) == [
        "jaxcheck update: would rewrite 1 expectation(s) in 1 file(s)"
    ]


def test_a_file_that_changed_since_it_was_checked_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "doc.md"
    text = "```\nprint(1)\n\n# 2\n```\n"
    path.write_text(text)
    body = ("print(1)", "", "# 2")
    parsed = parse_body(body)
    block = Block(
        "doc",
        0,
        str(path),
        2,
        body,
        BlockOptions(),
        parsed.expectations,
        parsed.program("<b>"),
        None,
        digest(b"other"),
    )
    report = update_sources(
        [(block, judge(block, Outcome(stdout="1\n")))],
        kinds=rules_of,
        rerun=replaying(Outcome(stdout="1\n")),
    )
    assert report.refused == [
        (str(path), 4, "the file changed since it was checked; run the update again")
    ]
    assert path.read_text() == text
    missing = Block(
        "doc",
        0,
        str(tmp_path / "gone.md"),
        2,
        body,
        BlockOptions(),
        parsed.expectations,
        parsed.program("<b>"),
    )
    (refused,) = update_sources(
        [(missing, judge(missing, Outcome(stdout="1\n")))],
        kinds=rules_of,
        rerun=replaying(Outcome(stdout="1\n")),
    ).refused
    assert refused[2].startswith("cannot read the file:")


def test_an_update_that_changes_nothing_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "doc.md"
    path.write_text("```\nprint(1)\n\n# 1\n```\n")
    before = path.stat().st_mtime_ns
    _, report = updated(tmp_path, "```\nprint(1)\n\n# 1\n```\n", 2, Outcome(stdout="1\n"))
    assert report.rewritten == 0 and report.diffs == {} and path.stat().st_mtime_ns >= before


def test_an_alignment_past_its_step_limit_is_refused_with_the_reason(tmp_path: Path) -> None:
    body = ("for n in range(300):", "    print(n)", "", *[f"# {n} ..." for n in range(300)])
    path = tmp_path / "long.md"
    text = "\n".join(["```{jaxcheck}", *body, "```", ""])
    path.write_text(text)
    parsed = parse_body(body)
    block = Block(
        "long",
        0,
        str(path),
        2,
        body,
        BlockOptions(),
        parsed.expectations,
        parsed.program("<long>"),
        file_digest=digest(text.encode()),
    )
    printed = Outcome(stdout="".join(f"x{n}\n" for n in range(300)))
    verdict = judge(block, printed)
    report = update_sources(
        [(block, verdict)],
        kinds=rules_of,
        rerun=lambda documents: {"long": [verdict]},
        step_limit=10_000,
    )
    assert path.read_text() == text
    ((_, line, why),) = report.refused
    assert line == 5
    assert (
        "needs more than 10,000 steps (300 expected lines with `...` against 300 actual ones)"
        in why
    )
