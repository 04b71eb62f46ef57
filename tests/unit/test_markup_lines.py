"""Finding a role's or literal's line in a paragraph's source (no builds)."""

from __future__ import annotations

from sphinx_jaxcheck.sphinx.markup_lines import line_of, markup_content


def test_markup_is_found_on_its_own_line_even_when_wrapped_or_repeated() -> None:
    lines = ["Intro", "see ``jax.x`` and", "``jax.x`` and :jaxquote:`a long", "   quote <t>`."]
    assert markup_content(":jaxquote:`a long\nquote <t>`") == "a long\nquote <t>"
    assert markup_content("{func}`jax.jit`") == "jax.jit"
    assert [line_of(lines, 1, "jax.x", nth) for nth in (0, 1, 2)] == [2, 3, None]
    assert line_of(lines, 1, "a long quote <t>") == 3
    assert line_of(lines, 3, "jax.x") == 3
