"""Q&A cards: HTML details with anchors, refs and JSON-LD; plain structure for other builders."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

import nbformat
import pytest
from buildkit import build, copy_root, write_project
from nbformat.v4 import new_markdown_cell, new_notebook
from notebooks import KERNEL
from sphinx.testing.util import SphinxTestApp

from sphinx_jaxcheck.sphinx.domain import CARDS, domain_of
from sphinx_jaxcheck.sphinx.environment_records import Card
from sphinx_jaxcheck.sphinx.qa import card_anchor

# In the compatibility part, run on every supported Sphinx (tox -e sphinx73 ...).
pytestmark = pytest.mark.stack

COMMIT = "990e6a0b84138346e6a38785412f36356e0e5dc3"


@pytest.fixture(scope="module")
def html_app(tmp_path_factory: pytest.TempPathFactory) -> SphinxTestApp:
    return build(copy_root("cards", tmp_path_factory.mktemp("html"))).app


def test_card_is_details_with_summary_anchor_permalink_and_sources(html_app: SphinxTestApp) -> None:
    html = (html_app.outdir / "cards_rst.html").read_text()
    card = re.search(r'<details class="jaxcheck-qa" id="qa-carry">(.*?)</details>', html, re.S)
    assert card, "a :name: gives the card its anchor"
    body = card.group(1)
    assert "<summary" in body and "What does scan check about the carry?" in body
    assert 'href="#qa-carry"' in body  # permalink
    sources = body.split('class="jaxcheck-qa-sources"', 1)[1]
    assert f"/blob/{COMMIT}/jax/_src/lax/control_flow/loops.py#L537-L621" in sources
    assert "jaxcheck-qa-answer" in body and "same pytree structure" in body


def test_open_option_and_derived_anchor(html_app: SphinxTestApp) -> None:
    html = (html_app.outdir / "cards_rst.html").read_text()
    anchor = card_anchor("Why does scan check the carry type?")
    assert anchor == "qa-why-does-scan-check-the-carry-type"
    assert f'<details class="jaxcheck-qa" id="{anchor}" open="open">' in html
    assert '<details class="jaxcheck-qa" id="qa-carry">' in html  # not open


def test_cards_are_ref_targets_and_listed_by_the_index(html_app: SphinxTestApp) -> None:
    html = (html_app.outdir / "index.html").read_text()
    assert 'href="cards_rst.html#qa-carry"' in html
    assert 'href="cards_rst.html#qa-why-does-scan-check-the-carry-type"' in html
    indexes = re.findall(r'<ul class="jaxcheck-qa-index simple">(.*?)</ul>', html, re.S)
    everything, only_md = indexes
    assert everything.count("<li>") == 3 and "cards_md.html#qa-while-grad" in everything
    assert only_md.count("<li>") == 1 and "cards_md.html#qa-while-grad" in only_md
    cards = domain_of(html_app.env).per_document(CARDS)
    assert [c.anchor for c in cards["cards_rst"] if isinstance(c, Card)] == [
        "qa-carry",
        "qa-why-does-scan-check-the-carry-type",
    ]


def test_pages_with_cards_carry_faq_json_ld(html_app: SphinxTestApp) -> None:
    html = (html_app.outdir / "cards_rst.html").read_text()
    raw = re.search(r'<script type="application/ld\+json">(.*?)</script>', html, re.S)
    assert raw
    data = json.loads(raw.group(1))
    assert data["@type"] == "FAQPage"
    names = [q["name"] for q in data["mainEntity"]]
    assert names == ["What does scan check about the carry?", "Why does scan check the carry type?"]
    assert (
        "Because a loop carry must keep one type."
        in data["mainEntity"][1]["acceptedAnswer"]["text"]
    )
    assert "ld+json" not in (html_app.outdir / "index.html").read_text()  # no cards there
    assert (html_app.outdir / "_static" / "jaxcheck-qa.css").exists()
    assert "jaxcheck-qa.css" in html


@pytest.mark.parametrize(
    "builder", ["text", "latex", "man", "epub", "dummy", "singlehtml", "texinfo"]
)
def test_other_builders_render_question_answer_and_sources(tmp_path: Path, builder: str) -> None:
    app = build(copy_root("cards", tmp_path), builder).app
    output = "\n".join(
        p.read_text(errors="replace")
        for p in app.outdir.rglob("*")
        if p.suffix in {".txt", ".tex", ".1", ".xhtml", ".html", ".texi"}
    )
    if builder == "dummy":
        assert output == ""
        return
    assert "What does scan check about the carry?" in output
    assert "Because a loop carry must keep one type." in output
    assert "Sources" in output
    if builder in ("text", "latex", "man", "epub", "texinfo"):
        assert "<details" not in output
    if builder == "singlehtml":
        assert '<details class="jaxcheck-qa" id="qa-carry">' in output
    if builder == "latex":
        assert r"\label{\detokenize{cards_rst:qa-carry}}" in output
        assert r"\hyperref[\detokenize{cards_rst:qa-carry}]" in output
    if builder == "epub":
        assert output.count('id="qa-carry"') == 1
        assert "ld+json" not in output


COLON_CARD = """\
# Cards

Text.

:::{jaxcheck-qa} Does it work?
:cite: conditionals.py::cond

Yes.
:::
"""


def test_a_colon_fence_card_without_colon_fence_fails_at_its_line_naming_the_setting(
    tmp_path: Path,
) -> None:
    # Without the extension MyST shows the card as a paragraph; its citation would vanish.
    files = {"cards.md": COLON_CARD, "cards_rst.rst": "Cards\n=====\n\n" + COLON_CARD[9:]}
    root = write_project(tmp_path / "plain", files)
    result = build(root)
    assert result.status == 1
    found = [(r.file, r.line, r.subtype) for r in result.reported]
    assert found == [("cards.md", 5, "syntax"), ("cards_rst.rst", 6, "syntax")]
    assert (
        "`:::{jaxcheck-qa}` is shown as text, not read as a jaxcheck-qa directive: MyST reads "
        '`:::` fences only with its colon_fence extension; expected "colon_fence" in '
        "myst_enable_extensions: add it in conf.py"
    ) in result.warnings
    assert "expected reStructuredText's `.. jaxcheck-qa::` here" in result.warnings
    # With the extension, the MyST card is a card and only the rST page is reported.
    enabled = write_project(
        tmp_path / "enabled", files, conf='myst_enable_extensions = ["colon_fence"]\n'
    )
    result = build(enabled)
    assert [(r.file, r.line) for r in result.reported] == [("cards_rst.rst", 6)]
    assert '<details class="jaxcheck-qa"' in (result.app.outdir / "cards.html").read_text()


@pytest.mark.skipif(
    importlib.util.find_spec("myst_nb") is None,
    reason="MyST-NB reads the pages: pip install 'sphinx-jaxcheck[test]'",
)
def test_a_colon_fence_card_under_myst_nb_is_told_to_enable_colon_fence(tmp_path: Path) -> None:
    # MyST-NB registers .md and .ipynb as filetype "myst-nb", not "markdown": still MyST.
    notebook = new_notebook(cells=[new_markdown_cell(COLON_CARD)], metadata={"kernelspec": KERNEL})
    conf = (
        'extensions = ["myst_nb", "sphinx_jaxcheck"]\n'
        'source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}\n'
    )
    root = write_project(
        tmp_path, {"cards.md": COLON_CARD, "nb.ipynb": nbformat.writes(notebook)}, conf=conf
    )
    (root / "index.rst").write_text("Index\n=====\n\n.. toctree::\n\n   cards\n   nb\n", "utf-8")
    result = build(root)
    assert [(r.file, r.subtype) for r in result.reported] == [
        ("cards.md", "syntax"),
        ("nb.ipynb", "syntax"),
    ]
    assert result.warnings.count('expected "colon_fence" in myst_enable_extensions') == 2
    assert "reStructuredText" not in result.warnings
