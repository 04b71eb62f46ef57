"""Properties of update over generated documents, with real workers (hypothesis)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sphinx_jaxcheck.expect.grammar import parse_body
from sphinx_jaxcheck.kinds import rules_of
from sphinx_jaxcheck.model import Block, BlockOptions
from sphinx_jaxcheck.rewrite.edits import digest
from sphinx_jaxcheck.rewrite.update import update_sources
from sphinx_jaxcheck.run.pool import WorkerSettings
from sphinx_jaxcheck.run.sessions import check_documents

WORKERS = WorkerSettings(workers=2)


def RERUN(documents):  # type: ignore[no-untyped-def]
    """The second run update asks for, in real workers."""
    return check_documents(documents, WORKERS).verdicts


# Printable text: control characters (C1 ones too) are refused by update, tested on their own.
TEXT = st.text(
    st.characters(
        min_codepoint=32, max_codepoint=0x24F, exclude_characters="\\#`", exclude_categories=["Cc"]
    ),
    max_size=12,
).map(str.strip)


@st.composite
def documents(draw: st.DrawFn) -> tuple[bytes, list[tuple[int, int]]]:
    """A markdown file with fenced blocks; their expectations are right, wrong or missing lines."""
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    indent = draw(st.sampled_from(["", "   "]))
    lines: list[str] = ["# Generated", ""]
    blocks = []
    for n in range(draw(st.integers(1, 3))):
        printed = draw(st.lists(TEXT, min_size=1, max_size=4))
        expected = list(printed)
        change = draw(st.sampled_from(["same", "edit", "drop", "add", "ellipsis"]))
        if change == "edit":
            expected[0] = expected[0] + "!"
        elif change == "drop" and len(expected) > 1:
            expected.pop()
        elif change == "add":
            expected.append("extra")
        elif change == "ellipsis" and len(expected) > 1:
            expected[0] = "..."
        lines += [f"Paragraph {n}.", "", "```{jaxcheck}"]
        start = len(lines)
        body = [f"for line in {printed!r}:", "    print(line)", ""] + [
            f"# {e}".rstrip() for e in expected
        ]
        lines += [indent + b if b else b for b in body]
        blocks.append((start, len(body)))
        lines += ["```", ""]
    text = newline.join(lines)
    if draw(st.booleans()):
        text += newline
    data = text.encode()
    if draw(st.booleans()):
        data = b"\xef\xbb\xbf" + data
    return data, blocks


def blocks_of(path: Path, spans: list[tuple[int, int]]) -> list[Block]:
    data = path.read_bytes()
    lines = data.decode("utf-8-sig").replace("\r\n", "\n").split("\n")
    found = []
    for index, (start, length) in enumerate(spans):
        body = tuple(textwrap.dedent("\n".join(lines[start : start + length])).split("\n"))
        parsed = parse_body(body)
        found.append(
            Block(
                "doc",
                index,
                str(path),
                start + 1,
                body,
                BlockOptions(),
                parsed.expectations,
                parsed.program(f"<b{index}>"),
                parsed.error,
                digest(data),
            )
        )
    return found


def check(path: Path, spans: list[tuple[int, int]]):  # type: ignore[no-untyped-def]
    blocks = blocks_of(path, spans)
    verdicts = check_documents({"doc": blocks}, WORKERS).verdicts["doc"]
    return list(zip(blocks, verdicts, strict=True))


def outside_expectations(data: bytes, spans: list[tuple[int, int]]) -> list[bytes]:
    """Every line that is not an expectation comment."""
    lines = data.split(b"\n")
    inside = {n for start, length in spans for n in range(start, start + length)}
    return [
        line for n, line in enumerate(lines) if n not in inside or not line.strip().startswith(b"#")
    ]


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_update_makes_check_pass_is_idempotent_and_touches_only_expectations(
    tmp_path_factory, document
) -> None:  # type: ignore[no-untyped-def]
    data, spans = document
    path = tmp_path_factory.mktemp("doc") / "doc.md"
    path.write_bytes(data)
    report = update_sources(check(path, spans), kinds=rules_of, rerun=RERUN)
    assert not report.refused
    updated = path.read_bytes()
    assert updated.startswith(b"\xef\xbb\xbf") == data.startswith(b"\xef\xbb\xbf")
    # Every line ends as every line of the file did: no LF in a CRLF file, no CRLF in an LF one.
    newline = b"\r\n" if b"\r\n" in data else b"\n"
    assert b"\r" not in updated.replace(newline, b"") and b"\n" not in updated.replace(newline, b"")
    assert updated.endswith(b"\n") == data.endswith(b"\n")
    # Every line that is not an expectation comment is kept byte for byte.
    assert outside_expectations(updated, _spans_in(path)) == outside_expectations(data, spans)
    # After update, everything matches, and a second update changes nothing.
    assert all(verdict.status.value == "verified" for _, verdict in check(path, _spans_in(path)))
    again = update_sources(check(path, _spans_in(path)), kinds=rules_of, rerun=RERUN)
    assert again.rewritten == 0
    assert path.read_bytes() == updated


def _spans_in(path: Path) -> list[tuple[int, int]]:
    """Find the fenced blocks again after the file changed length."""
    lines = path.read_bytes().decode("utf-8-sig").replace("\r\n", "\n").split("\n")
    spans, start = [], None
    for n, line in enumerate(lines):
        if line == "```{jaxcheck}":
            start = n + 1
        elif line == "```" and start is not None:
            spans.append((start, n - start))
            start = None
    return spans


def test_a_file_modified_between_read_and_write_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "doc.md"
    path.write_text("```{jaxcheck}\nprint(1)\n\n# 2\n```\n")
    checked = check(path, [(1, 3)])
    path.write_text("```{jaxcheck}\nprint(1)\n\n# 2\n```\nhand edit\n")
    report = update_sources(checked, kinds=rules_of, rerun=RERUN)
    assert report.written == []
    assert "changed since it was checked" in report.refused[0][2]
    assert path.read_text().endswith("hand edit\n")


KILLER = """
import os, sys, time
from sphinx_jaxcheck.rewrite import edits
real_fsync = os.fsync
def slow_fsync(fd):
    time.sleep(0.3)
    real_fsync(fd)
os.fsync = slow_fsync
path, new = sys.argv[1], sys.argv[2].encode() * 20000
old = open(path, 'rb').read()
print('ready', flush=True)
edits.write_atomically(path, new, edits.digest(old))
print('done', flush=True)
"""


def test_killing_the_process_during_the_write_leaves_the_old_or_the_new_file(
    tmp_path: Path,
) -> None:
    outcomes = set()
    old, new = b"old content\n" * 1000, b"new content\n" * 20000
    for delay in (0.0, 0.05, 0.1, 0.2, 0.25, 0.35, 0.5, 0.8, None):
        folder = tmp_path / f"kill-{delay}"
        folder.mkdir()
        path = folder / "doc.md"
        path.write_bytes(old)
        process = subprocess.Popen(
            [sys.executable, "-c", KILLER, str(path), "new content\n"],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert process.stdout is not None and process.stdout.readline() == "ready\n"
        if delay is None:
            # Not killed: the new file, and no temporary file left behind.
            assert process.stdout.readline() == "done\n"
            assert process.wait() == 0
            assert path.read_bytes() == new
            assert [p.name for p in folder.iterdir()] == ["doc.md"]
            continue
        time.sleep(delay)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        data = path.read_bytes()
        assert data in (old, new)
        outcomes.add("old" if data == old else "new")
        # A kill may leave the temporary file; it is never mistaken for a source.
        assert all(
            re.fullmatch(r"\.jaxcheck-\w+\.tmp", p.name) for p in folder.iterdir() if p != path
        )
    assert "old" in outcomes  # some kills really landed mid-write
