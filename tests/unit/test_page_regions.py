"""Where a page's example regions start and end, as doctest reads the page."""

from __future__ import annotations

from sphinx_jaxcheck.expect.page_examples import find_regions

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
