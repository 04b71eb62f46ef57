"""Fuzzing the pure core with hypothesis: no input makes our own code raise.

* the comment grammar reports bad bodies as ``ParsedBody.error``, never by raising;
* the matcher (ellipsis, tolerance, jaxpr renaming) accepts any text, and what
  ``refreshed_lines`` proposes always matches the actual output;
* the rewriter round-trips any bytes and changes only the lines it edits, and
  ``update_sources`` never touches a byte outside expectation lines.

Example counts are modest so the default run stays fast.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from sphinx_jaxcheck.expect.grammar import is_prompt, parse_body
from sphinx_jaxcheck.judge.matching import (
    MatchRules,
    canonical_jaxpr,
    normalize,
    texts_match,
)
from sphinx_jaxcheck.kinds import judge, rules_of
from sphinx_jaxcheck.model import (
    Block,
    BlockOptions,
    CompareMode,
    ExpectationKind,
    Outcome,
    Status,
)
from sphinx_jaxcheck.rewrite.alignment import refreshed_lines
from sphinx_jaxcheck.rewrite.edits import (
    Edit,
    SourceText,
    apply_edits,
    digest,
    parse_source,
    render_source,
)
from sphinx_jaxcheck.rewrite.update import update_sources

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Lines made of the characters the grammar cares about, plus anything else.
GRAMMAR_ALPHABET = st.sampled_from(
    [
        "#",
        " ",
        "\t",
        ">>>",
        "...",
        "print(",
        ")",
        "(",
        "'",
        '"',
        "x",
        "=",
        "1",
        ":",
        "\\",
        "`",
        "\f",
        "\x00",
        "é",
        "if x:",
        "    ",
        '"""',
    ]
)
GRAMMAR_LINE = st.one_of(
    st.lists(GRAMMAR_ALPHABET, max_size=8).map("".join),
    st.text(max_size=30).map(lambda s: s.replace("\n", " ").replace("\r", " ")),
)
BODY = st.lists(GRAMMAR_LINE, max_size=12)


@FUZZ
@given(BODY, st.sampled_from([None, "ValueError", "no such class"]))
@example(["print(1)  # 1"], None)
@example(["# >>> 1 +", "# 2"], None)
@example([">>> print(1)", "1", ">>> x = (", "..."], None)
@example(["\x00"], None)
@example([">>> >>>", "\f"], None)
@example([">>>", ">>>#"], None)
@example(["def f():", "\treturn 1", "        return 2"], None)
def test_parse_body_never_raises_and_reports_errors_as_data(
    body: list[str], raises: str | None
) -> None:
    parsed = parse_body(tuple(body))
    if parsed.error is not None:
        assert isinstance(parsed.error, str) and parsed.error
        # A doctest that cannot run still lists its examples: one empty one per prompt.
        assert all(
            e.kind is ExpectationKind.DOCTEST and e.expected == () and e.first == e.stop
            for e in parsed.expectations
        )
        assert [e.statement_line for e in parsed.expectations] == [
            n + 1 for n, line in enumerate(body) if is_prompt(line.lstrip())
        ] or parsed.expectations == ()
        assert 1 <= parsed.error_line <= max(1, len(body))
        return
    for expectation in parsed.expectations:
        assert 0 <= expectation.first <= expectation.stop <= len(body)
        assert 1 <= expectation.statement_line <= len(body)
        if expectation.kind is ExpectationKind.INLINE:
            assert expectation.stop == expectation.first + 1
            assert body[expectation.first][expectation.comment_column] == "#"


@FUZZ
@given(BODY)
def test_a_body_that_parses_can_be_judged_on_any_outcome(body: list[str]) -> None:
    parsed = parse_body(tuple(body))
    block = Block(
        "doc",
        0,
        "/nowhere/doc.md",
        3,
        tuple(body),
        BlockOptions(),
        parsed.expectations,
        parsed.program("<fuzz>"),
        parsed.error,
        error_line=parsed.error_line,
    )
    verdict = judge(block, Outcome(stdout="\n".join(body), inline=((1, "x\n"),)))
    assert verdict.status in set(Status)
    for problem in verdict.problems:
        assert block.body_line <= problem.line <= block.body_line + max(0, len(body) - 1)


# -- the matcher ------------------------------------------------------------------

MATCH_ALPHABET = st.sampled_from(
    [
        "...",
        ".",
        " ",
        "a",
        "b",
        "x",
        ":",
        "f32[3]",
        "1",
        "1.0",
        "-2e-3",
        "0x7fabcdef12",
        "{",
        "}",
        ";",
        "lambda",
        "let",
        "in",
        "=",
        "(",
        ")",
        "nan",
        "inf",
        "é",
        "\t",
    ]
)
MATCH_LINE = st.one_of(
    st.lists(MATCH_ALPHABET, max_size=8).map("".join),
    st.text(max_size=15).map(lambda s: s.replace("\n", " ")),
)
MATCH_LINES = st.lists(MATCH_LINE, max_size=6)
RULES = st.builds(
    MatchRules,
    st.sampled_from(list(CompareMode)),
    st.one_of(st.none(), st.floats(min_value=1e-12, max_value=10.0)),
)


@FUZZ
@given(MATCH_LINES, MATCH_LINES, RULES)
def test_texts_match_and_canonical_jaxpr_accept_any_text(
    expected: list[str], actual: list[str], rules: MatchRules
) -> None:
    assert texts_match(expected, actual, rules) in (True, False)
    assert isinstance(canonical_jaxpr("\n".join(actual)), str)


@FUZZ
@given(MATCH_LINES, RULES)
def test_text_matches_itself(lines: list[str], rules: MatchRules) -> None:
    assert texts_match(lines, lines, rules)


@FUZZ
@given(MATCH_LINES, MATCH_LINES, RULES)
@example(["...", "b"], ["a", "b"], MatchRules())
@example(["x ... y"], ["x 1 y", "z"], MatchRules(tolerance=1e-3))
@example(
    ["{ lambda ; a:f32[]. let b:f32[] = neg a in (b,) }"],
    ["{ lambda ; c:f32[]. let d:f32[] = neg c in (d,) }"],
    MatchRules(CompareMode.JAXPR),
)
def test_refreshed_lines_always_match_the_actual_output(
    expected: list[str], actual: list[str], rules: MatchRules
) -> None:
    kept = refreshed_lines(expected, actual, rules)
    assert texts_match([text for text, _ in kept], actual, rules)
    for text, origin in kept:
        if origin is not None:
            assert expected[origin] == text


# -- the rewriter ----------------------------------------------------------------

LINE_TEXT = st.text(
    st.characters(blacklist_categories=["Cs"], blacklist_characters="\r\n"), max_size=12
)
ENDING = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def source_bytes(draw: st.DrawFn) -> bytes:
    """Text with any mix of line endings, maybe a BOM, maybe no final newline."""
    lines = draw(st.lists(st.tuples(LINE_TEXT, ENDING), max_size=10))
    text = "".join(line + ending for line, ending in lines)
    if lines and draw(st.booleans()):
        text = text[: -len(lines[-1][1])]
    if draw(st.booleans()):
        text = "\ufeff" + text
    return text.encode("utf-8")


@FUZZ
@given(source_bytes())
@example(b"")
@example(b"\r")
@example(b"\r\r\n\n")
@example(b"\xef\xbb\xbf")
@example(b"a\rb")
def test_parse_then_render_is_the_identity(data: bytes) -> None:
    assert render_source(parse_source(data)) == data


@st.composite
def edited(draw: st.DrawFn) -> tuple[bytes, list[Edit]]:
    data = draw(source_bytes())
    count = len(parse_source(data).lines)
    cuts = sorted(draw(st.lists(st.integers(0, count), max_size=6)))
    edits = []
    for start, stop in zip(cuts[::2], cuts[1::2], strict=False):
        edits.append(Edit(start, stop, tuple(draw(st.lists(LINE_TEXT, max_size=3)))))
    return data, edits


def _unedited(
    source_lines: tuple[str, ...], endings: tuple[str, ...], edits: list[Edit]
) -> list[tuple[str, str]]:
    touched = {n for e in edits for n in range(max(0, e.start - 1), e.stop + 1)}
    return [
        (line, end)
        for n, (line, end) in enumerate(zip(source_lines, endings, strict=True))
        if n not in touched
    ]


def _reads_back_otherwise(source: SourceText) -> bool:
    """Lines whose bytes no line list can keep apart: U+FEFF first in a file without a BOM
    reads back as one.

    (A CR ending before an empty LF line would read back as one CRLF line; edits never leave one.)
    """
    return not source.bom and source.lines[:1] != () and source.lines[0].startswith("\ufeff")


@FUZZ
@given(edited())
@example((b"\n\n\n\r0\n\n", [Edit(4, 5, ())]))
@example((b"a\nb", [Edit(2, 2, ("c",))]))
@example((b"\xef\xbb\xbf\xef\xbb\xbf\n\n", []))  # a BOM, then a line that starts with U+FEFF
@example((b"\n\xef\xbb\xbf\n", [Edit(0, 1, ())]))
def test_apply_edits_keeps_every_line_it_does_not_edit(case: tuple[bytes, list[Edit]]) -> None:
    data, edits = case
    source = parse_source(data)
    result = apply_edits(source, edits)
    assert result.bom == source.bom
    new_data = render_source(result)
    # No line runs into the next one; the new bytes read back as the same lines
    # (an empty last line without an ending is no line at all).
    assert "" not in result.endings[:-1]
    if result.lines[-1:] == ("",) and result.endings[-1:] == ("",):
        result = SourceText(result.lines[:-1], result.endings[:-1], result.bom, result.encoding)
    if not _reads_back_otherwise(result):
        assert parse_source(new_data) == result
    # Lines before the first edit are byte for byte the same.
    first = min((e.start for e in edits), default=len(source.lines))
    head = "".join(
        line + end
        for line, end in zip(source.lines[: max(0, first - 1)], source.endings, strict=False)
    )
    assert new_data.decode("utf-8").removeprefix("\ufeff" if source.bom else "").startswith(head)
    # Every untouched line survives in order, with its own ending.
    before = _unedited(source.lines, source.endings, edits)
    after_text = new_data.decode("utf-8")
    position = 0
    for line, end in before:
        found = after_text.find(line + end, position)
        assert found >= 0
        position = found + len(line)
    # Empty edit list: nothing changes at all.
    assert render_source(apply_edits(source, [])) == data


# -- update_sources over arbitrary documents ----------------------------------------

NOISE_LINE = st.text(
    st.characters(blacklist_categories=["Cs"], blacklist_characters="\r\n`"), max_size=20
)
# Control characters are refused by update (tested on their own); printable text is written.
PRINTED = st.text(
    st.characters(
        min_codepoint=33,
        max_codepoint=0x24F,
        blacklist_characters="\\#`'",
        blacklist_categories=["Cc"],
    ),
    min_size=1,
    max_size=8,
)


def replaying(outcome: Outcome):  # type: ignore[no-untyped-def]
    """A second run that prints what the first did (these outcomes are made up, not run)."""
    return lambda documents: {
        doc: [judge(b, outcome) for b in blocks] for doc, blocks in documents.items()
    }


def _stale_document(
    printed: list[str],
    expected: list[str],
    newline: str = "\n",
    before: tuple[str, ...] = (),
    after: tuple[str, ...] = (),
    final: bool = True,
    bom: bool = False,
) -> tuple[bytes, int, tuple[str, ...], list[str]]:
    """Text around one fenced block that prints ``printed`` but expects ``expected``."""
    body = (f"for line in {printed!r}:", "    print(line)", "", *[f"# {e}" for e in expected])
    lines = [*before, "```{jaxcheck}", *body, "```", *after]
    text = newline.join(lines) + (newline if final else "")
    data = (b"\xef\xbb\xbf" if bom else b"") + text.encode()
    return data, len(before) + 2, body, printed


@st.composite
def stale_document(draw: st.DrawFn) -> tuple[bytes, int, tuple[str, ...], list[str]]:
    """Random text around one fenced block with a stale trailing expectation."""
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    before = draw(st.lists(NOISE_LINE, max_size=4))
    after = draw(st.lists(NOISE_LINE, max_size=4))
    # Printed '>>>' would be written as a '# >>>' statement: update refuses it.
    printed = draw(
        st.lists(PRINTED.filter(lambda text: not is_prompt(text)), min_size=1, max_size=3)
    )
    # "# >>>" is a commented-REPL statement, not an expected line.
    expected = draw(
        st.lists(PRINTED.filter(lambda text: not is_prompt(text)), min_size=1, max_size=3)
    )
    # Stale by the product's own rule ('...' alone matches anything).
    assume(not texts_match(expected, printed, MatchRules()))
    return _stale_document(
        printed,
        expected,
        newline,
        tuple(before),
        tuple(after),
        draw(st.booleans()),
        draw(st.booleans()),
    )


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(stale_document())
# An expected line that still matches is kept byte for byte, trailing \xa0 included.
@example(_stale_document(["a", "c"], ["a\xa0", "b"], "\r\n"))
# ``...`` matches anything: it stays, the lines around it are refreshed.
@example(
    _stale_document(
        ["a", "b", "c"], ["x", "...", "c"], "\r\n", ("intro",), ("outro",), final=False, bom=True
    )
)
@example(_stale_document(["\xa0", "b"], ["a"]))
@example(_stale_document(["\xa0"], ["0"]))
@example(_stale_document(["0"], ["...", "1"]))
def test_update_sources_changes_only_expectation_lines(
    tmp_path: Path, document: tuple[bytes, int, tuple[str, ...], list[str]]
) -> None:
    data, body_line, body, printed = document
    path = tmp_path / "doc.md"
    path.write_bytes(data)
    parsed = parse_body(body)
    block = Block(
        "doc",
        0,
        str(path),
        body_line,
        body,
        BlockOptions(),
        parsed.expectations,
        parsed.program("<doc>"),
        file_digest=digest(data),
    )
    outcome = Outcome(stdout="\n".join(printed) + "\n")
    verdict = judge(block, outcome)
    assert verdict.status is Status.STALE
    report = update_sources([(block, verdict)], kinds=rules_of, rerun=replaying(outcome))
    assert not report.refused
    new = path.read_bytes()
    old_lines, new_lines = data.splitlines(keepends=True), new.splitlines(keepends=True)
    first_expectation = body_line - 1 + 3  # after the two code lines and the blank line
    stop = body_line - 1 + len(body)
    assert new_lines[:first_expectation] == old_lines[:first_expectation]
    tail = len(old_lines) - stop
    assert new_lines[len(new_lines) - tail :] == old_lines[stop:]
    newline = b"\r\n" if b"\r\n" in data else b"\n"
    rewritten = new_lines[first_expectation : len(new_lines) - tail]
    assert all(line.endswith(newline) and b"\r" not in line[: -len(newline)] for line in rewritten)
    # The product's rule, weakened: every new line is an old expectation line kept
    # byte for byte or the comment for one printed line, and together they expect
    # exactly what was printed.
    texts = [line[: -len(newline)].decode() for line in rewritten]
    old_expectations = {line.decode() for line in old_lines[first_expectation:stop]}
    # Output of blank lines only (e.g. one U+00A0) is no output: a bare "#" expects none.
    fresh = {f"# {text}".rstrip() for text in normalize(printed)} or {"#"}
    assert all(text + newline.decode() in old_expectations or text in fresh for text in texts)
    assert texts_match([text[2:] for text in texts], printed, MatchRules())


@pytest.mark.parametrize("data", [b"\xff\xfe not utf-8 \x80\n", b"caf\xe9\n"])
def test_update_refuses_undecodable_files_and_leaves_them_alone(
    tmp_path: Path, data: bytes
) -> None:
    path = tmp_path / "doc.md"
    path.write_bytes(data)
    parsed = parse_body(("print(1)", "", "# 2"))
    block = Block(
        "doc",
        0,
        str(path),
        1,
        ("print(1)", "", "# 2"),
        BlockOptions(),
        parsed.expectations,
        parsed.program("<doc>"),
        file_digest=digest(data),
    )
    verdict = judge(block, Outcome(stdout="1\n"))
    report = update_sources(
        [(block, verdict)], kinds=rules_of, rerun=replaying(Outcome(stdout="1\n"))
    )
    assert report.refused and "not UTF-8" in report.refused[0][2]
    assert path.read_bytes() == data


def _tokenized_comments(code: str) -> dict[int, tuple[int, str]] | None:
    """What Python's tokenize says, or None when it cannot tokenize the code."""
    import io
    import tokenize

    found = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type == tokenize.COMMENT:
                found[token.start[0]] = (token.start[1], token.string)
    except (tokenize.TokenError, SyntaxError):
        return None
    return found


COMMENT_ALPHABET = st.sampled_from(
    [
        "#",
        " ",
        "'",
        '"',
        "\\",
        "f",
        "r",
        "b",
        "x",
        "=",
        "(",
        ")",
        "print",
        "é",
        "\t",
        "'''",
        '"""',
        "\\\n",
        "\n",
        "f'{",
        "}'",
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(COMMENT_ALPHABET, max_size=24).map("".join))
@example("print('#')  # '#'")
@example('x = "a\\"#"  # q')
@example("s = f'{x}' # c")
@example("s = 'a\\\n#b'")
@example("if'#'in x: pass  # c")
def test_the_fast_comment_scan_agrees_with_tokenize(code: str) -> None:
    from sphinx_jaxcheck.expect.grammar import _scan_comments

    scanned = _scan_comments(code)
    expected = _tokenized_comments(code)
    if scanned is not None and expected is not None:
        assert scanned == expected
