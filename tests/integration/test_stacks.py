"""The same project on every supported stack: a drifted block, a drifted ``>>>`` example and a
citation that does not resolve fail at their lines under ``sphinx-build`` and ``jaxcheck
check``, from reStructuredText and MyST alike, and pass once fixed (``jaxcheck update`` for
the outputs, by hand for the citation).

tox runs this file's serial run, with the rest of the compatibility part of the suite
(``-m stack``), once per Sphinx minor release from the lowest supported to the newest
(``tox -e sphinx73`` ...).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from buildkit import jaxcheck, write_project
from corpus import STACK_CONF, STACK_PAGES, assert_caught_until_fixed


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_project(tmp_path / "docs", dict(STACK_PAGES), conf=STACK_CONF)


# The -j 2 run is in py alone: on every stack, reading in two processes is tested by
# test_parallel_reading.py and test_citations_sphinx.py (findings and citations under -j 2).
@pytest.mark.parametrize(
    "parallel", [pytest.param([], marks=pytest.mark.stack), ["-j", "2"]], ids=["serial", "j2"]
)
def test_drift_and_a_bad_citation_fail_at_their_lines_until_fixed(
    project: Path, parallel: list[str]
) -> None:
    assert_caught_until_fixed(project, parallel)


INCLUDED = (
    "A citation: {jaxsrc}`loops.py::_check_carry_typo`.\n\n```{jaxcheck}\nprint(1)\n\n# 2\n```\n"
)


@pytest.mark.stack
def test_what_a_myst_include_brings_is_reported_at_its_own_lines(tmp_path: Path) -> None:
    # myst-parser 4 (beside Sphinx 7) numbers an included file's lines one too high.
    pages = {"page.md": "# Page\n\n```{include} part.md\n```\n", "part.md": INCLUDED}
    root = write_project(tmp_path / "docs", pages, conf='exclude_patterns += ["part.md"]\n')
    checked = jaxcheck("check", root, "--format", "json")
    found = {
        (Path(f["path"]).name, f["line"], f["subtype"])
        for f in json.loads(checked.stdout)["findings"]
    }
    assert found == {("part.md", 1, "citation"), ("part.md", 6, "drift")}
