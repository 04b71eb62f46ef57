"""``jaxcheck check`` leaves unparsed the pages that provably hold nothing to check, and that
changes no verdict.

Every corpus the project has (JAX's own pages, their jaxcheck conversion, the
conformance corpus), padded with pages holding no example, is checked twice by
the real command line, with the scan and without (``jaxcheck_prescan = False``),
each from an empty cache: the reports must be the same but for durations. Which
pages were parsed shows in the doctree folder (Sphinx writes a ``.doctree`` for
every page it parses).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from buildkit import ROOTS, build, jaxcheck, sphinx_build, write_project
from corpus import CONF, PAGES, REALWORLD, REALWORLD_MISSING, padding_pages

REPO = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(REPO)}


def _padded(root: Path, pages: dict[str, str], conf: str, pads: int) -> list[str]:
    """A project of ``pages`` plus ``pads`` pages without examples; the padding docnames."""
    root.mkdir(parents=True)
    padding = padding_pages(pads)
    for name, text in {**pages, **padding}.items():
        (root / name).write_text(text, "utf-8")
    (root / "conf.py").write_text(conf, "utf-8")
    if "index.rst" not in pages:
        names = [n.rsplit(".", 1)[0] for n in [*pages, *padding]]
        (root / "index.rst").write_text(
            "Index\n=====\n\n.. toctree::\n\n" + "".join(f"   {n}\n" for n in names), "utf-8"
        )
    else:
        with open(root / "index.rst", "a", encoding="utf-8") as index:
            index.write(
                "\n.. toctree::\n\n" + "".join(f"   {n.rsplit('.', 1)[0]}\n" for n in padding)
            )
    return [n.rsplit(".", 1)[0] for n in padding]


def _jax_pages(folder: str) -> tuple[dict[str, str], str]:
    pages = {p: (REALWORLD / folder / p).read_text("utf-8") for p in PAGES}
    return pages, CONF


def _conformance() -> tuple[dict[str, str], str]:
    source = ROOTS / "test-conformance-stale"
    pages = {p.name: p.read_text("utf-8") for p in source.iterdir() if p.suffix in (".md", ".rst")}
    return pages, (ROOTS / "conf.py").read_text("utf-8") + "\njaxcheck_cache_dir = CACHE\n"


def _report(root: Path, *options: str) -> tuple[int, dict[str, Any]]:
    # From the project's folder, so that reports of two copies name the same paths.
    done = jaxcheck("check", ".", "--format", "json", *options, cwd=root, env=ENV)
    report = json.loads(done.stdout)
    for items in report.values():  # blocks and groups of examples, each with its duration
        for item in items if isinstance(items, list) else ():
            if isinstance(item, dict):
                item.pop("seconds", None)
    report.pop("run")  # names the run's fingerprint and settings, which differ by jaxcheck_prescan
    return done.returncode, report


def _parsed(root: Path) -> set[str]:
    doctrees = root / "_build" / "jaxcheck" / "doctrees"
    return {str(p.relative_to(doctrees).with_suffix("")) for p in doctrees.rglob("*.doctree")}


CORPORA = {
    "jax-docs": (lambda: _jax_pages("jax-docs"), 150),
    "jax-docs-jaxcheck": (lambda: _jax_pages("jax-docs-jaxcheck"), 20),
    "conformance-stale": (_conformance, 20),
}


@pytest.mark.parametrize("corpus", list(CORPORA))
def test_the_scan_changes_no_verdict_of_a_corpus(tmp_path: Path, corpus: str) -> None:
    if corpus.startswith("jax-docs") and not REALWORLD.is_dir():
        pytest.skip(REALWORLD_MISSING)
    make, pads = CORPORA[corpus]
    pages, conf = make()
    runs = {}
    for scan in ("1", "0"):
        root = tmp_path / f"scan-{scan}"
        padding = _padded(root, pages, conf.replace("CACHE", repr(str(root / ".cache"))), pads)
        runs[scan] = (*_report(root, "-D", f"jaxcheck_prescan={scan}"), _parsed(root))
    (status, report, parsed), (status_off, report_off, parsed_off) = runs["1"], runs["0"]
    assert report["blocks"] or report["example_groups"], "the corpus has something to check"
    assert (status, report) == (status_off, report_off)
    assert parsed.isdisjoint(padding) and set(padding) <= parsed_off
    assert {p.rsplit(".", 1)[0] for p in pages} <= parsed


def test_a_page_given_examples_later_is_checked_whatever_its_time_says(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "docs",
        {"notes.rst": "Notes\n=====\n\nNothing to run.\n"},
        "jaxcheck_doctests = 'check'\n",
    )
    page = root / "notes.rst"
    first = _report(root)
    assert first[1]["example_groups"] == [] and "notes" not in _parsed(root)
    before = page.stat()
    page.write_text("Notes\n=====\n\n>>> 1 + 1\n3\n", "utf-8")
    os.utime(page, ns=(before.st_atime_ns, before.st_mtime_ns))  # an older copy's time
    status, report = _report(root)
    assert status == 1 and [g["status"] for g in report["example_groups"]] == ["stale"]
    assert "notes" in _parsed(root)


def test_another_extension_filling_pages_turns_the_scan_off(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "docs",
        {
            "filler.py": (
                "def fill(app, docname, source):\n"
                "    if docname == 'notes':\n"
                "        source[0] += '\\n.. jaxcheck::\\n\\n   print(1 + 1)\\n   # 3\\n'\n\n"
                "def setup(app):\n    app.connect('source-read', fill)\n"
            ),
            "notes.rst": "Notes\n=====\n\nNothing to run here.\n",
        },
        "import sys, os\nsys.path.insert(0, os.path.dirname(__file__))\n"
        "extensions.append('filler')\n",
    )
    status, report = _report(root)
    assert status == 1 and [b["status"] for b in report["blocks"]] == ["stale"], report
    assert "notes" in _parsed(root)


def test_an_html_build_sharing_the_doctrees_reads_every_page(tmp_path: Path) -> None:
    root = write_project(tmp_path / "docs", {"notes.rst": "Notes\n=====\n\nPlain prose here.\n"})
    doctrees = tmp_path / "doctrees"
    done = sphinx_build("-q", "-b", "jaxcheck", "-d", doctrees, root, tmp_path / "out-check")
    assert done.returncode == 0, done.stderr
    assert not (doctrees / "notes.doctree").exists()
    done = sphinx_build("-q", "-b", "html", "-d", doctrees, root, tmp_path / "html")
    assert done.returncode == 0, done.stderr
    assert "Plain prose here." in (tmp_path / "html" / "notes.html").read_text("utf-8")


def test_the_html_builder_parses_every_page(tmp_path: Path) -> None:
    root = write_project(tmp_path / "docs", {"notes.rst": "Notes\n=====\n\nPlain prose here.\n"})
    built = build(root, "html", fresh=True)
    assert built.status == 0, built.warnings
    assert "notes" in built.app.env.all_docs
    assert (Path(built.app.doctreedir) / "notes.doctree").exists()


def test_unparsed_pages_keep_sphinxs_own_warnings(tmp_path: Path) -> None:
    """A page in no toctree gets Sphinx's warning, parsed or not."""
    root = write_project(
        tmp_path / "docs",
        {"index.rst": "Index\n=====\n", "lonely.rst": "Lonely\n======\n\nNo toctree lists me.\n"},
    )
    for scan in ("1", "0"):
        shutil.rmtree(root / "_build", ignore_errors=True)
        done = jaxcheck("check", root, "-D", f"jaxcheck_prescan={scan}", env=ENV)
        assert done.returncode == 0, done.stderr
        assert "lonely.rst: WARNING: document isn't included in any toctree" in done.stderr
