"""``jaxcheck update`` reads the documents back before it writes (rewrite/reread.py).

The reader here is a stand-in (a Markdown page's ``{jaxcheck}`` fences, read
from the bytes update would write), told to read as a real reader would when it
misreads: a block gone, a block still showing its old lines. The real reader,
Sphinx reading the new texts, is in tests/integration/test_update_reads_back.py.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from sphinx_jaxcheck.expect.grammar import parse_body
from sphinx_jaxcheck.kinds import judge, rules_of
from sphinx_jaxcheck.model import Block, BlockOptions, Outcome, Verdict
from sphinx_jaxcheck.rewrite.edits import digest
from sphinx_jaxcheck.rewrite.reread import Reading
from sphinx_jaxcheck.rewrite.update import UpdateReport, update_sources

PAGE = "# Page\n\n```{jaxcheck}\nprint(1)\n\n# 5\n```\n\n```{jaxcheck}\nprint(2)\n\n# 5\n```\n"
Shown = Callable[[list[Block], list[Block]], list[Block]]  # (as read now, as written) -> read


def blocks_of(path: Path, data: bytes, docname: str = "doc") -> list[Block]:
    """The ``{jaxcheck}`` blocks a reader finds in these bytes of the page at ``path``."""
    lines = data.decode().split("\n")
    found: list[Block] = []
    start = None
    for n, line in enumerate(lines):
        if line == "```{jaxcheck}":
            start = n + 1
        elif line == "```" and start is not None:
            body = tuple(lines[start:n])
            parsed = parse_body(body)
            options = BlockOptions()
            found.append(
                Block(
                    docname,
                    len(found),
                    str(path),
                    start + 1,
                    body,
                    options,
                    parsed.expectations,
                    parsed.program("<b>", options),
                    parsed.error,
                    digest(data),
                )
            )
            start = None
    return found


def reader(
    pages: Sequence[Path], calls: list[Mapping[str, bytes]], shown: Shown | None = None
) -> Callable[[Mapping[str, bytes]], Reading]:
    """Reads each page (its own document, named by its stem) from the bytes update would write;
    ``shown`` turns what it reads into what a misreading reader would."""

    def reread(texts: Mapping[str, bytes]) -> Reading:
        calls.append(dict(texts))
        before, after, files = {}, {}, {}
        for path in pages:
            real = os.path.realpath(path)
            if real not in texts:
                continue
            now = blocks_of(path, path.read_bytes(), path.stem)
            written = blocks_of(path, texts[real], path.stem)
            before[path.stem] = now
            after[path.stem] = written if shown is None else shown(now, written)
            files[path.stem] = frozenset({real})
        return Reading(before, after, files)

    return reread


def update(
    pages: Sequence[Path],
    printed: Mapping[tuple[str, int], str],
    calls: list[Mapping[str, bytes]],
    shown: Shown | None = None,
) -> UpdateReport:
    """Update the pages' blocks, each printing ``printed[page stem, index]``."""
    blocks = [b for path in pages for b in blocks_of(path, path.read_bytes(), path.stem)]
    outcomes = {key: Outcome(stdout=text) for key, text in printed.items()}

    def rerun(documents: Mapping[str, Sequence[Block]]) -> Mapping[str, Sequence[Verdict]]:
        return {
            doc: [judge(b, outcomes[doc, b.index]) for b in blocks]
            for doc, blocks in documents.items()
        }

    checked = [(b, judge(b, outcomes[b.docname, b.index])) for b in blocks]
    return update_sources(checked, kinds=rules_of, rerun=rerun, reread=reader(pages, calls, shown))


def page(tmp_path: Path, text: str = PAGE, name: str = "doc.md") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_pages_that_read_back_are_written_after_one_reading_of_the_new_texts(
    tmp_path: Path,
) -> None:
    path = page(tmp_path)
    calls: list[Mapping[str, bytes]] = []
    report = update([path], {("doc", 0): "1\n", ("doc", 1): "2\n"}, calls)
    assert path.read_text() == PAGE.replace("# 5", "# 1", 1).replace("# 5", "# 2")
    assert report.refused == [] and report.rewritten == 2
    assert calls == [{os.path.realpath(path): path.read_bytes()}]


def test_lines_added_above_a_block_move_it_and_it_is_still_found(tmp_path: Path) -> None:
    path = page(tmp_path)
    calls: list[Mapping[str, bytes]] = []
    report = update([path], {("doc", 0): "1\n1\n1\n", ("doc", 1): "2\n"}, calls)
    assert report.refused == [] and report.rewritten == 2
    assert path.read_text() == PAGE.replace("# 5", "# 1\n# 1\n# 1", 1).replace("# 5", "# 2")


def test_a_block_the_page_would_no_longer_hold_leaves_the_whole_file_alone(
    tmp_path: Path,
) -> None:
    path = page(tmp_path)
    calls: list[Mapping[str, bytes]] = []
    report = update(
        [path], {("doc", 0): "1\n", ("doc", 1): "2\n"}, calls, lambda now, written: written[:1]
    )
    assert path.read_text() == PAGE and report.rewritten == 0
    why = (
        "nothing is written to doc.md: read again as update would write it, document 'doc' "
        "would no longer hold block 'doc[2]' (now at doc.md:10): the page around it would read "
        "differently"
    )
    assert report.refused == [
        (str(path), 6, f"block 'doc[1]': {why}"),
        (str(path), 12, f"block 'doc[2]': {why}"),
    ]


def test_a_block_still_showing_its_old_output_is_refused_and_the_rest_is_written(
    tmp_path: Path,
) -> None:
    # As a page shows an include cut after a marker: the lines written are not those shown.
    path = page(tmp_path)
    calls: list[Mapping[str, bytes]] = []
    report = update(
        [path],
        {("doc", 0): "1\n", ("doc", 1): "2\n"},
        calls,
        lambda now, written: [written[0], now[1]],
    )
    assert path.read_text() == PAGE.replace("# 5", "# 1", 1)
    assert report.rewritten == 1
    assert report.refused == [
        (
            str(path),
            12,
            "block 'doc[2]': read again as update would write it, document 'doc' would still "
            "read the expected output of block 'doc[2]' as ['5'], not as the new output ['2']: "
            "the lines update would rewrite (doc.md:12) are not the ones the document shows "
            "(its reader numbers the lines of an included file from elsewhere, as myst-parser 4 "
            "does for an include cut by :start-after:); rewrite this expectation by hand",
        )
    ]
    assert len(calls) == 2  # what is left is read again, on its own


def test_documents_that_cannot_be_read_again_prove_nothing(tmp_path: Path) -> None:
    path = page(tmp_path)
    blocks = blocks_of(path, path.read_bytes())
    checked = [(b, judge(b, Outcome(stdout="1\n"))) for b in blocks]
    report = update_sources(
        checked,
        kinds=rules_of,
        rerun=lambda documents: {"doc": [judge(b, Outcome(stdout="1\n")) for b in blocks]},
        reread=lambda texts: Reading({"doc": blocks}, {}, {}, problem="OSError: boom"),
    )
    assert path.read_text() == PAGE
    why = (
        "nothing is written to doc.md: document 'doc' could not be read again (OSError: "
        "boom), so nothing is proven"
    )
    assert report.refused == [
        (str(path), 6, f"block 'doc[1]': {why}"),
        (str(path), 12, f"block 'doc[2]': {why}"),
    ]


def test_a_file_changed_while_update_read_leaves_every_file_alone(tmp_path: Path) -> None:
    first, second = page(tmp_path, name="a.md"), page(tmp_path, name="b.md")
    calls: list[Mapping[str, bytes]] = []

    def edited(now: list[Block], written: list[Block]) -> list[Block]:
        second.write_text(PAGE + "\nMore.\n")  # an editor saves while the pages are read
        return written

    report = update(
        [first, second],
        {("a", 0): "1\n", ("a", 1): "2\n", ("b", 0): "1\n", ("b", 1): "2\n"},
        calls,
        edited,
    )
    assert first.read_text() == PAGE and second.read_text() == PAGE + "\nMore.\n"
    assert report.written == [] and report.rewritten == 0 and report.diffs == {}
    assert report.refused == [
        (
            str(second),
            6,
            f"{second} changed since jaxcheck read it; nothing was written, in this file or any "
            "other. Run the update again to rewrite it from its current text.",
        )
    ]
