"""demo_docs, the showcase: it builds clean, and every checked block really checks.

The second test corrupts the last expected line of every checked block at once
(expectations are comments, so the code that runs is unchanged) and requires
the build to fail with drift at each one of those blocks.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest
from buildkit import Build, build

from sphinx_jaxcheck.model import Block, OutputMode

pytest.importorskip("quax", reason="demo_docs needs the docs extra (quax)")
pytest.importorskip("furo", reason="demo_docs needs the docs extra (furo)")
pytest.importorskip("sphinx_copybutton", reason="demo_docs needs the docs extra (sphinx-copybutton)")

pytestmark = pytest.mark.slow

DEMO_DOCS = Path(__file__).parent.parent / "demo_docs"
CORRUPTION = " <corrupted by test_demo_docs>"

# Blocks whose output is deliberately not compared: timings and code that
# needs another JAX or a GPU. Anything else without an expectation is a bug.
UNCHECKED_ON_PURPOSE = {"cond-timing", "guide-output-ignore", "guide-output-skip", "drift-pjit-old"}


def copy_demo_docs(target: Path) -> Path:
    """A private copy of demo_docs without build output or cached results."""
    shutil.copytree(
        DEMO_DOCS, target, ignore=shutil.ignore_patterns("_build", ".jaxcheck_cache")
    )
    return target


def all_blocks(result: Build) -> Iterator[Block]:
    """Every block of the build, in document order."""
    domain = result.app.env.get_domain("jaxcheck")
    for docname in domain.documents_with_blocks():
        yield from domain.blocks(docname)


def is_checked(block: Block) -> bool:
    """A block whose output is compared with an expectation."""
    return block.options.output is OutputMode.CHECK and bool(block.expectations)


@pytest.fixture(scope="module")
def clean_build(tmp_path_factory: pytest.TempPathFactory) -> Build:
    srcdir = copy_demo_docs(tmp_path_factory.mktemp("demo") / "demo_docs")
    return build(srcdir, fresh=True, jaxcheck_cache=False)


def test_demo_docs_build_without_any_warning(clean_build: Build) -> None:
    assert clean_build.status == 0, clean_build.warnings
    assert clean_build.warnings.strip() == "", clean_build.warnings


def test_demo_docs_meet_the_showcase_targets(clean_build: Build) -> None:
    blocks = list(all_blocks(clean_build))
    checked = [b for b in blocks if is_checked(b)]
    domain = clean_build.app.env.get_domain("jaxcheck")
    cards = sum(len(c) for c in domain.per_document("cards").values())
    citations = sum(len(c) for c in domain.per_document("citations").values())
    assert len(checked) >= 45
    assert cards >= 5
    assert citations >= 15
    unchecked = {b.label for b in blocks if not is_checked(b)}
    assert unchecked == UNCHECKED_ON_PURPOSE


# What Google's FAQPage structured data accepts in an answer's text.
FAQ_ANSWER_TAGS = {
    "h1", "h2", "h3", "h4", "h5", "h6", "br", "ol", "ul", "li", "a", "p", "div", "b", "strong", "i", "em"
}


class _Tags(HTMLParser):
    """Every start tag and attribute of an HTML fragment, as a browser's parser sees them."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.attributes: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attributes |= {f"{tag}[{name}]" for name, _ in attrs}


def test_the_questions_page_json_ld_holds_only_tags_faq_answers_allow(clean_build: Build) -> None:
    html = (Path(clean_build.app.outdir) / "explainer" / "questions.html").read_text("utf-8")
    (script,) = re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, re.DOTALL)
    questions = json.loads(script)["mainEntity"]
    assert len(questions) == len(re.findall(r'<details class="jaxcheck-qa"', html)) >= 8
    for question in questions:
        answer = question["acceptedAnswer"]["text"]
        parsed = _Tags()
        parsed.feed(answer)
        assert set(parsed.tags) <= FAQ_ANSWER_TAGS, (question["name"], set(parsed.tags) - FAQ_ANSWER_TAGS)
        assert parsed.attributes <= {"a[href]"}, question["name"]
        assert "verified" not in answer and "jaxcheck" not in answer, question["name"]
        assert "<p>" in answer


def test_every_checked_block_fails_when_its_last_expected_line_is_corrupted(
    clean_build: Build, tmp_path: Path
) -> None:
    srcdir = copy_demo_docs(tmp_path / "demo_docs")
    clean_srcdir = Path(clean_build.app.srcdir)
    corrupted: dict[str, int] = {}  # block label -> 1-based file line corrupted
    by_file: dict[Path, list[int]] = {}
    for block in all_blocks(clean_build):
        if not is_checked(block):
            continue
        last = max(block.expectations, key=lambda e: e.stop)
        line = block.file_line(last.stop)  # the body line ``stop - 1``, 1-based in the file
        path = srcdir / Path(os.path.relpath(block.path, clean_srcdir))
        by_file.setdefault(path, []).append(line)
        corrupted[block.label] = line
    for path, lines in by_file.items():
        text = path.read_text(encoding="utf-8").split("\n")
        for line in lines:
            assert text[line - 1].strip(), f"{path}:{line} is blank, not an expected line"
            text[line - 1] += CORRUPTION
        path.write_text("\n".join(text), encoding="utf-8")

    result = build(srcdir, fresh=True, jaxcheck_cache=False)

    assert result.status != 0
    drifted = {
        report.message.split("'")[1]
        for report in result.reported
        if report.subtype == "drift" and report.message.startswith("block '")
    }
    missing = sorted(set(corrupted) - drifted)
    assert not missing, f"corrupting these blocks went unnoticed: {missing}"
