"""Where a page's example regions start and end, as doctest reads the page; a text file's
regions as blocks."""

from __future__ import annotations

from sphinx_jaxcheck.expect.page_examples import file_blocks, find_regions
from sphinx_jaxcheck.model import FileExamples

LOOP = """\
A loop:

>>> for i in range(2):
...     print(i)
...
0
1

After it.
"""


def test_a_region_ending_in_a_bare_prompt_keeps_every_output_line() -> None:
    (region,) = find_regions(LOOP)
    assert region.first == 3
    assert region.lines == (">>> for i in range(2):", "...     print(i)", "...", "0", "1")


def test_an_indented_docstring_region_keeps_every_output_line() -> None:
    text = "".join(f"    {line}\n" if line else "\n" for line in LOOP.splitlines())
    (region,) = find_regions(text)
    assert region.lines[-2:] == ("0", "1")


def test_a_text_files_regions_are_one_session_of_its_own_run_in_its_folder() -> None:
    text = f"# A README\n\n{LOOP}\n>>> 1 + 1  # doctest: +SKIP\n3\n"
    blocks = file_blocks(
        text,
        docname="index",
        path="/project/README.md",
        name="../README.md",
        flags=0,
        timeout=9.0,
        digest="d",
    )
    assert [(b.body_line, b.label) for b in blocks] == [(5, "README.md:5"), (13, "README.md:13")]
    assert {(b.docname, b.session_key) for b in blocks} == {
        ("index", ("index", "file ../README.md"))
    }
    assert {b.program.cwd for b in blocks} == {"/project"}
    assert {b.kind for b in blocks} == {FileExamples()}
    assert [b.program.filename for b in blocks] == ["<../README.md:5>", "<../README.md:13>"]
    assert blocks[1].expectations[0].skip
