"""demo_docs, the showcase: it builds clean, and every checked block really checks.

The build is preceded by ``jaxcheck matrix`` of the drift-history page with a
second environment holding jax 0.4.35, as ``tox -e docs`` does, since that
page shows the matrix; it builds as ``-W`` would, with every Python warning
the extension causes an error. A corruption test changes the last expected
line of every checked block at once (expectations are comments, so the code
that runs is unchanged) and requires drift at each one: in the build for the
blocks of jax 0.10.2, under jax 0.4.35 for the older outputs of the
drift-history page.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import warnings
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest
from buildkit import Build, build, jaxcheck

from sphinx_jaxcheck.model import Block, NotebookCell, OutputMode, Status
from sphinx_jaxcheck.sphinx.domain import CARDS, CITATIONS

# Each skip says how to get what demo_docs needs: the docs extra (tox -e py has it).
_DOCS_EXTRA = "demo_docs needs {}, from the docs extra: pip install -e '.[docs]'"
pytest.importorskip("quax", reason=_DOCS_EXTRA.format("quax"))
pytest.importorskip("furo", reason=_DOCS_EXTRA.format("furo"))
pytest.importorskip("sphinx_copybutton", reason=_DOCS_EXTRA.format("sphinx-copybutton"))

pytestmark = pytest.mark.slow

DEMO_DOCS = Path(__file__).parents[2] / "demo_docs"
CORRUPTION = " <corrupted by test_demo_docs>"

# Blocks whose output is deliberately not compared: timings and code that
# needs another JAX or a GPU. Anything else without an expectation is a bug.
UNCHECKED_ON_PURPOSE = {
    "cond-timing",
    "guide-output-ignore",
    "guide-output-skip",
    "notebook.ipynb:cell 1",  # the notebook's imports: they show nothing
}
DRIFT_PAGE = "guide/drift"


def copy_demo_docs(target: Path) -> Path:
    """A private copy of demo_docs without build output or cached results."""
    shutil.copytree(DEMO_DOCS, target, ignore=shutil.ignore_patterns("_build", ".jaxcheck_cache"))
    return target


def all_blocks(result: Build) -> Iterator[Block]:
    """Every block of the build, in document order."""
    domain = result.app.env.get_domain("jaxcheck")
    for docname in domain.documents_with_blocks():
        yield from domain.blocks(docname)


def is_checked(block: Block) -> bool:
    """A block whose output is compared with an expectation (a notebook cell's: the outputs
    its notebook stores)."""
    if isinstance(block.kind, NotebookCell):
        return block.options.output is OutputMode.CHECK and bool(block.kind.stored)
    return block.options.output is OutputMode.CHECK and bool(block.expectations)


@pytest.fixture(scope="module")
def demo_matrix(
    tmp_path_factory: pytest.TempPathFactory, older_python: Path
) -> tuple[Path, dict[str, object]]:
    """A copy of demo_docs and the compatibility matrix of its drift-history page over jax
    0.4.35 and 0.10.2, made as ``tox -e docs`` makes it."""
    srcdir = copy_demo_docs(tmp_path_factory.mktemp("demo") / "demo_docs")
    page = srcdir / f"{DRIFT_PAGE}.md"
    done = jaxcheck("matrix", page, "--python", older_python, "--format", "json")
    # Every block of the page holds in its release: nothing for tox to ignore.
    assert done.returncode == 0, done.stderr
    return srcdir, json.loads(done.stdout)


@pytest.fixture(scope="module")
def clean_build(demo_matrix: tuple[Path, dict[str, object]]) -> Build:
    with warnings.catch_warnings():
        # A deprecated Sphinx API (or any other Python warning) used by the extension fails.
        warnings.filterwarnings("error", module=r"sphinx_jaxcheck(\.|$)")
        return build(demo_matrix[0], fresh=True, jaxcheck_cache=False)


def test_the_drift_page_holds_in_both_releases(demo_matrix: tuple[Path, dict[str, object]]) -> None:
    _, matrix = demo_matrix
    assert matrix["versions"] == ["0.4.35", "0.10.2"]
    rows = matrix["blocks"]
    assert [row["path"] for row in rows] == [f"{DRIFT_PAGE}.md"] * 12  # type: ignore[attr-defined]
    for row in rows:
        old = row["name"].endswith("-old")
        expected = (
            {"0.4.35": "verified", "0.10.2": "skipped"}
            if old
            else {"0.4.35": "skipped", "0.10.2": "verified"}
        )
        assert row["status"] == expected, row


def test_the_drift_page_shows_its_matrix(clean_build: Build) -> None:
    page = (Path(clean_build.app.outdir) / "guide" / "drift.html").read_text(encoding="utf-8")
    table = page[page.index("jaxcheck-matrix-table") :]
    table = table[: table.index("</table>")]
    assert "jax 0.4.35" in table and "jax 0.10.2" in table
    assert table.count("<tr") == 1 + 12  # the header, and one row per block of the page
    assert "drift-pjit-old" in table


def test_demo_docs_build_without_any_warning(clean_build: Build) -> None:
    assert clean_build.status == 0, clean_build.warnings
    assert clean_build.warnings.strip() == "", clean_build.warnings


def test_the_notebook_pages_traceback_shows_no_path_of_the_build_machine(
    clean_build: Build,
) -> None:
    page = (Path(clean_build.app.outdir) / "explainer" / "notebook.html").read_text("utf-8")
    assert "TypeError: scan body function carry input and carry output" in page
    assert "File jax/_src/lax/control_flow/loops.py:" in page
    for machines in ("site-packages", str(Path.home()), str(Path(clean_build.app.srcdir))):
        assert machines not in page


def test_demo_docs_meet_the_showcase_targets(clean_build: Build) -> None:
    blocks = list(all_blocks(clean_build))
    checked = [b for b in blocks if is_checked(b)]
    domain = clean_build.app.env.get_domain("jaxcheck")
    cards = sum(len(c) for c in domain.per_document(CARDS).values())
    citations = sum(len(c) for c in domain.per_document(CITATIONS).values())
    assert len(checked) >= 45
    assert cards >= 5
    assert citations >= 15
    unchecked = {b.label for b in blocks if not is_checked(b)}
    assert unchecked == UNCHECKED_ON_PURPOSE


# What Google's FAQPage structured data accepts in an answer's text.
FAQ_ANSWER_TAGS = {
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "br",
    "ol",
    "ul",
    "li",
    "a",
    "p",
    "div",
    "b",
    "strong",
    "i",
    "em",
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
        assert set(parsed.tags) <= FAQ_ANSWER_TAGS, (
            question["name"],
            set(parsed.tags) - FAQ_ANSWER_TAGS,
        )
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
    domain = clean_build.app.env.get_domain("jaxcheck")
    notebooks: dict[Path, list[int]] = {}  # notebook -> the cells to corrupt
    for block in all_blocks(clean_build):
        verdict = domain.verdict(block.docname, block.index)
        if not is_checked(block) or verdict.status is Status.SKIPPED:
            continue  # the older outputs of the drift page: see the next test
        if isinstance(block.kind, NotebookCell):
            path = srcdir / Path(os.path.relpath(block.path, clean_srcdir))
            notebooks.setdefault(path, []).append(block.kind.cell)
            corrupted[block.label] = block.body_line
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
    for path, cells in notebooks.items():
        node = nbformat.read(path, as_version=4)
        for cell in cells:  # the last text of its last output
            last = node.cells[cell].outputs[-1]
            if last.output_type == "stream":
                last.text += CORRUPTION
            elif last.output_type == "error":
                last.evalue += CORRUPTION
            else:
                last.data["text/plain"] += CORRUPTION
        nbformat.write(node, path)

    result = build(srcdir, fresh=True, jaxcheck_cache=False)

    assert result.status != 0
    drifted = {
        report.message.split("'")[1]
        if report.message.startswith("block '")
        else report.message.split(": ")[0]  # a notebook cell: nb.ipynb:cell 2
        for report in result.reported
        if report.subtype == "drift"
    }
    missing = sorted(set(corrupted) - drifted)
    instead = [
        r.message for r in result.reported if any(f"'{name}'" in r.message for name in missing)
    ]
    assert not missing, f"corrupting these blocks went unnoticed: {missing}; reported: {instead}"


def test_every_older_output_drifts_under_its_release_when_corrupted(
    tmp_path: Path, older_python: Path
) -> None:
    project = tmp_path / "drift"
    project.mkdir()
    shutil.copy(DEMO_DOCS / "conf.py", project / "conf.py")
    lines = (DEMO_DOCS / f"{DRIFT_PAGE}.md").read_text(encoding="utf-8").split("\n")
    corrupted = 0
    for number, line in enumerate(lines):
        # The last expected line of each block for jax <0.5: the comment line before the
        # closing fence.
        if line.startswith("# ") and lines[number + 1] == "```" and _block_is_old(lines, number):
            lines[number] += CORRUPTION
            corrupted += 1
    assert corrupted == 6
    (project / "index.md").write_text("\n".join(lines), encoding="utf-8")
    done = jaxcheck(
        "check", project, "--python", older_python, "--jax-version", "0.4.35", "--format", "json"
    )
    assert done.returncode == 1
    statuses = {b["name"]: b["status"] for b in json.loads(done.stdout)["blocks"]}
    assert {name: status for name, status in statuses.items() if name.endswith("-old")} == {
        name: "stale" for name in statuses if name.endswith("-old")
    }
    assert len([name for name in statuses if name.endswith("-old")]) == 6


def _block_is_old(lines: list[str], number: int) -> bool:
    """Whether line ``number`` is inside a block limited to ``:jax-version: <0.5``."""
    opening = max(i for i in range(number) if lines[i].startswith("```{jaxcheck}"))
    return ":jax-version: <0.5" in lines[opening:number]
