"""The citation roles and directive in real Sphinx builds, from rST and MyST alike."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from buildkit import build, copy_root
from docutils import nodes
from sphinx.testing.util import SphinxTestApp

from sphinx_jaxcheck.model import Subtype
from sphinx_jaxcheck.sphinx.domain import CITATIONS, JaxcheckDomain
from sphinx_jaxcheck.sphinx.environment_records import CitedAt

# In the compatibility part, run on every supported Sphinx (tox -e sphinx73 ...).
pytestmark = pytest.mark.stack

COMMIT = "990e6a0b84138346e6a38785412f36356e0e5dc3"
BLOB = f"https://github.com/jax-ml/jax/blob/{COMMIT}/jax/_src/lax/control_flow/loops.py"


def _domain(app: SphinxTestApp) -> JaxcheckDomain:
    domain = app.env.get_domain("jaxcheck")
    assert isinstance(domain, JaxcheckDomain)
    return domain


def _normalized(doctree: nodes.document) -> str:
    """A doctree's shape without what legitimately differs between parsers (file, line)."""
    doctree = doctree.deepcopy()
    for node in doctree.findall(nodes.Element):
        for attribute in ("source", "line", "translatable"):
            node.attributes.pop(attribute, None)
    # Soft line breaks become separate Text nodes in MyST; what a reader sees is the same.
    for element in list(doctree.findall(nodes.TextElement)):
        merged: list[nodes.Node] = []
        for child in element.children:
            if isinstance(child, nodes.Text) and merged and isinstance(merged[-1], nodes.Text):
                merged[-1] = nodes.Text(merged[-1] + child)
            else:
                merged.append(child)
        element.children = []
        element.extend(
            nodes.Text(re.sub(r"\s+", " ", c)) if isinstance(c, nodes.Text) else c for c in merged
        )
    return doctree.pformat()


def test_rst_and_myst_give_identical_doctrees(tmp_path: Path) -> None:
    rst = build(copy_root("forms-rst", tmp_path)).app
    md = build(copy_root("forms-md", tmp_path)).app
    assert _normalized(rst.env.get_doctree("index")) == _normalized(md.env.get_doctree("index"))
    assert not list(_domain(rst).read_findings()) and not list(_domain(md).read_findings())


@pytest.mark.parametrize("root", ["forms-rst", "forms-md"])
def test_jaxsrc_links_to_the_pinned_lines(tmp_path: Path, root: str) -> None:
    app = build(copy_root(root, tmp_path)).app
    html = (app.outdir / "index.html").read_text()
    assert f'href="{BLOB}#L537-L621"' in html  # loops.py::_check_carry_type
    assert f'href="{BLOB}#L10-L20"' in html
    scan = re.search(rf'href="{re.escape(BLOB)}#L(\d+)-L(\d+)"[^>]*>the scan</a>', html)
    assert scan, "jax.lax.scan resolves into loops.py"
    cited = [c for items in _domain(app).per_document(CITATIONS).values() for c in items]
    assert all(isinstance(c, CitedAt) and c.citation.ok for c in cited)
    quote = next(c for c in cited if c.citation.quote and "pytree" in c.citation.quote)
    assert f'href="{quote.citation.url}"' in html


def test_jaxcheck_quote_renders_the_quoted_source_lines_with_a_linked_caption(
    tmp_path: Path,
) -> None:
    app = build(copy_root("forms-rst", tmp_path)).app
    doctree = app.env.get_doctree("index")
    wrapper = next(
        n for n in doctree.findall(nodes.container) if "jaxcheck-quote-block" in n["classes"]
    )
    caption, block = wrapper.children
    link = next(caption.findall(nodes.reference))
    assert "conditionals.py#L" in link["refuri"] and COMMIT in link["refuri"]
    start = int(link["refuri"].rsplit("#L", 1)[1].split("-")[0])
    source = Path(app.env.config.jaxcheck_jax_version and _jax_file("conditionals.py")).read_text()
    assert block.astext().strip() == source.splitlines()[start - 1].strip()
    assert "clamped to within bounds" in block.astext()


def _jax_file(name: str) -> str:
    from sphinx_jaxcheck.cite.citation import installed_index

    index = installed_index()
    return str(index.root / index.find_path(name))


def test_bad_targets_and_stale_quotes_are_findings_at_their_lines(tmp_path: Path) -> None:
    app = build(copy_root("citations-broken", tmp_path)).app
    findings = list(_domain(app).read_findings())
    assert all(f.subtype is Subtype.CITATION for f in findings)
    by_place = {(Path(f.path).name, f.line): f for f in findings}
    assert "closest: _check_carry_type" in by_place["index.rst", 8].message
    assert "ambiguous" in by_place["index.rst", 10].message
    assert "refused" in by_place["index.rst", 12].message
    stale = by_place["index.rst", 14]
    assert stale.is_drift and "--- quoted" in stale.message and "+++ jax/_src" in stale.message
    assert not by_place["index.rst", 8].is_drift
    assert by_place["broken_md.md", 3].message == by_place["index.rst", 8].message
    assert by_place["broken_md.md", 5].is_drift
    # The jaxcheck-quote directive whose text the pinned source does not hold.
    directive = by_place["index.rst", 16]
    assert directive.is_drift
    assert (
        "-carry input and carry output must have matching colours" in directive.message.splitlines()
    )
    assert "+++ jax/_src/lax/control_flow/loops.py#L" in directive.message
    # A card's :cite: is reported at its own option line, below the directive's.
    assert "'jax.lax.scann' does not resolve" in by_place["index.rst", 22].message
    assert "closest: jax.lax.scan" in by_place["index.rst", 22].message
    assert len(findings) == len(by_place) == 8  # one finding per broken citation, no more
    # The broken citation is rendered without a link (and the build goes on).
    html = (app.outdir / "index.html").read_text()
    assert 'class="jaxcheck-src jaxcheck-broken"' in html


def test_findings_survive_an_incremental_build_that_reads_nothing(tmp_path: Path) -> None:
    srcdir = copy_root("citations-broken", tmp_path)
    count = len(list(_domain(build(srcdir).app).read_findings()))
    second = build(srcdir)
    assert "0 added, 0 changed, 0 removed" in second.log
    assert len(list(_domain(second.app).read_findings())) == count > 0


def test_parallel_build_keeps_every_finding_and_citation(tmp_path: Path) -> None:
    serial = build(copy_root("citations-broken", tmp_path / "serial")).app
    parallel = build(copy_root("citations-broken", tmp_path / "parallel"), parallel=2).app

    def places(app: SphinxTestApp) -> list[tuple[str, int, bool]]:
        return sorted((Path(f.path).name, f.line, f.is_drift) for f in _domain(app).read_findings())

    assert places(parallel) == places(serial)
