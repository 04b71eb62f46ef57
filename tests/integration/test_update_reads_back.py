"""What ``jaxcheck update`` writes reads back, page by page, as the check reads it.

Each test is one way update used to lose a check or write what a check would
not accept, run as a user runs it (the real command line, real Sphinx, real
workers, real files): a fence whose closing line doctest reads as output, an
``include`` cut by ``:start-after:``, the blank lines and trailing spaces
doctest compares, one docstring run in two modules. The oracles are the next
``jaxcheck check`` and, for pages and docstrings, pytest itself.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from importlib.metadata import entry_points, version
from pathlib import Path

import pytest
from buildkit import jaxcheck, jaxcheck_here, sphinx_build, write_project

REPO = Path(__file__).resolve().parents[2]
CHECK_EXAMPLES = 'jaxcheck_doctests = "check"\n'
PLUGIN = "sphinx_jaxcheck.pytest_plugin"

FENCE_READ_AS_OUTPUT = """\
# A fence

```python
>>> 1 + 1
3
```

```{jaxcheck}
print(2 + 2)
# 4
```
"""


def refusals(stderr: str) -> dict[str, str]:
    """``FILE:LINE: cannot update: ...`` lines by ``FILE:LINE`` (the file's name only)."""
    found = {}
    for line in stderr.splitlines():
        match = re.match(r"(.+?):(\d+): cannot update: (.*)", line)
        if match:
            found[f"{Path(match.group(1)).name}:{match.group(2)}"] = match.group(3)
    return found


def guide_messages() -> set[str]:
    """The messages the guide's "What update writes, and what it refuses" shows."""
    text = (REPO / "demo_docs" / "guide" / "command-line.md").read_text("utf-8")
    section = text.split("### What update writes, and what it refuses", 1)[1]
    section = section.split("\n### ", 1)[0]
    blocks = re.findall(r"^ *```text\n(.*?)\n *```$", section, re.MULTILINE | re.DOTALL)
    return {line.strip() for block in blocks for line in block.splitlines()}


def shown_in_guide(stderr: str, root: Path, shown: str = "/home/me/project/docs") -> None:
    """Each refusal printed is in the guide, with the project's folder as the guide shows it."""
    printed = [line for line in stderr.splitlines() if ": cannot update: " in line]
    assert printed
    for line in printed:
        assert line.replace(str(root), shown) in guide_messages(), line


def pytest_doctests(root: Path, *pages: str) -> subprocess.CompletedProcess[str]:
    """``pytest --doctest-glob`` on the pages, as a project's CI runs it."""
    globs = [f"--doctest-glob={page}" for page in pages]
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *globs, *pages],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_closing_fence_read_as_output_is_refused_naming_it_and_the_page_is_untouched(
    tmp_path: Path,
) -> None:
    root = write_project(tmp_path, {"fence.md": FENCE_READ_AS_OUTPUT}, conf=CHECK_EXAMPLES)
    checked = jaxcheck_here("check", str(root))
    assert checked.returncode == 1
    assert "1 block(s)" in checked.stderr + checked.stdout

    done = jaxcheck_here("update", str(root))
    assert done.returncode == 1, done.stderr
    assert (root / "fence.md").read_text() == FENCE_READ_AS_OUTPUT
    why = refusals(done.stderr)["fence.md:4"]
    assert why.startswith("block 'fence.md:4': "), why
    assert "'```'" in why and "line 6" in why and "line 3" in why, why
    assert "rewrote 0 expectation(s) in 0 file(s)" in done.stderr
    shown_in_guide(done.stderr, root)

    again = jaxcheck_here("check", str(root))
    assert "1 block(s)" in again.stderr + again.stdout  # the block after the fence is still read


SNIPPET = """\

.. jaxcheck::

   print(1 + 1)

   # 5
.. marker
.. jaxcheck::

   print(1 + 1)

   # 5
"""


CUTS = [":start-after: .. marker", ":start-line: 7", ":start-after: .. marker\n   :end-line: 13"]


def include_cuts(root: Path, snippet: str, cuts: list[str]) -> Path:
    """A project of one page per cut, page N including its own copy of ``snippet``
    (``snipN.txt``) with cut N: the cuts share one build, each read from its own file."""
    pages = {f"snip{n}.txt": snippet for n in range(len(cuts))}
    for n, cut in enumerate(cuts):
        pages[f"page{n}.rst"] = f"Page {n}\n======\n\n.. include:: snip{n}.txt\n   {cut}\n"
    return write_project(root, pages)


def lines_of(output: str, marker: str, snip: str) -> list[str]:
    """The ``FILE:LINE`` before ``marker`` of each line of ``output`` that reports ``snip``."""
    found = [line.split(marker)[0] for line in output.splitlines() if marker in line]
    return [place for place in found if place.startswith(f"{snip}:")]


@pytest.fixture(scope="module")
def numbered(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, subprocess.CompletedProcess[str], subprocess.CompletedProcess[str], int]:
    """The cuts of ``CUTS`` checked, updated, and checked again."""
    root = include_cuts(tmp_path_factory.mktemp("numbered") / "docs", SNIPPET, CUTS)
    # Run from the project, which the report's paths are then relative to.
    checked = jaxcheck_here("check", ".", cwd=root)
    done = jaxcheck_here("update", str(root))
    return root, checked, done, jaxcheck_here("check", str(root)).returncode


@pytest.mark.stack
@pytest.mark.parametrize("cut", range(len(CUTS)), ids=CUTS)
def test_an_include_cut_is_numbered_as_its_file_and_the_block_it_shows_rewritten(
    numbered: tuple[Path, subprocess.CompletedProcess[str], subprocess.CompletedProcess[str], int],
    cut: int,
) -> None:
    # The page shows the second block only; docutils would number its lines from the cut,
    # which are the first block's numbers, whose text is the same.
    root, checked, done, again = numbered
    assert checked.returncode == 1
    snip = f"snip{cut}.txt"
    assert lines_of(checked.stdout, ": drift: ", snip) == [f"{snip}:12"], checked.stdout
    assert done.returncode == 0, done.stderr
    shown = SNIPPET.rsplit("# 5", 1)
    assert (root / snip).read_text() == shown[0] + "# 2" + shown[1]
    assert again == 0


# A block, a blank line, the marker, another block; then the end marker and a third block.
# Each block prints 2 and expects something else, at lines 6, 14 and 22.
MARKED = """\

.. jaxcheck::

   print(1 + 1)

   # 5

.. marker

.. jaxcheck::

   print(1 + 1)

   # 6

.. end

.. jaxcheck::

   print(1 + 1)

   # 7
"""


# Each cut, and the lines of MARKED its blocks are reported at.
MARKED_CUTS = [
    (":start-after: marker", [14, 22]),
    (":start-after: .. marker", [14, 22]),
    (":end-before: .. marker", [6]),
    (":start-after: marker\n   :end-before: .. end", [14]),
    (":start-line: 7", [14, 22]),
    (":start-line: 8\n   :end-line: 17", [14]),
    (":start-line: 2\n   :start-after: marker", [14, 22]),
]


@pytest.fixture(scope="module")
def marked(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
    """The cuts of ``MARKED_CUTS`` checked, and built by sphinx-build."""
    tmp_path = tmp_path_factory.mktemp("marked")
    root = include_cuts(tmp_path / "docs", MARKED, [cut for cut, _ in MARKED_CUTS])
    checked = jaxcheck_here("check", ".", cwd=root)
    return checked, sphinx_build("-q", "-b", "html", root, tmp_path / "out")


@pytest.mark.stack
@pytest.mark.parametrize(
    ("cut", "lines"),
    [(n, lines) for n, (_, lines) in enumerate(MARKED_CUTS)],
    ids=[cut for cut, _ in MARKED_CUTS],
)
def test_each_block_an_include_cut_shows_drifts_at_its_own_line_of_the_file(
    marked: tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]],
    cut: int,
    lines: list[int],
) -> None:
    """In the check's report and in sphinx-build's warnings: not at the line of the block
    above the marker, as was reported for a blank line before the marker (docutils numbers
    the lines it inserts from the cut)."""
    checked, built = marked
    assert checked.returncode == 1, checked.stderr
    snip = f"snip{cut}.txt"
    found = lines_of(checked.stdout, ": drift: ", snip)
    assert found == [f"{snip}:{line}" for line in lines], checked.stdout
    warned = re.findall(rf"\b{re.escape(snip)}:(\d+): WARNING", built.stderr)
    assert [int(n) for n in warned] == lines, built.stderr


@pytest.mark.stack
def test_sphinx_builds_and_pytest_updating_read_back_as_jaxcheck_update_does(
    tmp_path: Path,
) -> None:
    conf = CHECK_EXAMPLES + 'extensions.append("sphinx.ext.doctest")\n'
    root = write_project(tmp_path / "docs", {"spaces.rst": SPACES_RST}, conf=conf)
    out = tmp_path / "out"
    built = sphinx_build("-q", "-E", "-b", "html", "-D", "jaxcheck_update=1", root, out)
    assert (root / "spaces.rst").read_text() == SPACES_RST.replace("   2\n", "   1\n")
    assert "spaces.rst:6: WARNING: cannot update this expectation: block 'spaces.rst:6': read " in (
        built.stderr
    )
    # Installed, the plugin loads through its entry point, as for users.
    registered = [e.value for e in entry_points(group="pytest11")]
    plugin = [] if PLUGIN in registered else ["-p", PLUGIN]
    pytest = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *plugin]
    tested = subprocess.run(
        [*pytest, "--jaxcheck", "docs", "--jaxcheck-update"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert tested.returncode == 1, tested.stdout
    assert (root / "spaces.rst").read_text() == SPACES_RST.replace("   2\n", "   1\n")
    assert "cannot update: block 'spaces.rst:6': read again as update would write it" in (
        tested.stdout
    )


MYST_SNIPPET = """\

```{jaxcheck}
print(1 + 1)

# 5
```
<!-- marker -->
```{jaxcheck}
print(1 + 1)

# 5
```
"""


MYST_4 = int(version("myst-parser").split(".")[0]) < 5


@pytest.mark.stack
@pytest.mark.parametrize(
    "cut",
    [
        ":start-line: 7",
        pytest.param(
            ":start-after: <!-- marker -->",
            marks=pytest.mark.skipif(
                MYST_4, reason="myst-parser 4 numbers a cut by :start-after: by its characters"
            ),
        ),
    ],
)
def test_a_myst_include_cut_gets_the_block_it_shows_rewritten(tmp_path: Path, cut: str) -> None:
    # MyST numbers the lines of the cut as the file does: the shown block is rewritten.
    root = write_project(
        tmp_path,
        {"page.md": f"# Page\n\n```{{include}} snip.md\n{cut}\n```\n", "snip.md": MYST_SNIPPET},
        conf='exclude_patterns.append("snip.md")\n',
    )
    done = jaxcheck_here("update", str(root))
    assert done.returncode == 0, done.stderr
    shown = MYST_SNIPPET.rsplit("# 5", 1)
    assert (root / "snip.md").read_text() == shown[0] + "# 2" + shown[1]
    assert jaxcheck_here("check", str(root)).returncode == 0


BLANK_AND_SPACES = """\
# Outputs doctest compares exactly

```python
>>> print("a\\n")
a

>>> print("b  ")
b

>>> print("c\\n\\nd")
c
d

```
"""


def test_blank_lines_and_trailing_spaces_are_written_as_doctest_compares_them(
    tmp_path: Path,
) -> None:
    root = write_project(tmp_path, {"exact.md": BLANK_AND_SPACES}, conf=CHECK_EXAMPLES)
    assert pytest_doctests(root, "exact.md").returncode == 1

    dry = jaxcheck_here("update", str(root), "--dry-run")
    assert dry.returncode == 1, dry.stderr
    assert "would rewrite 3 expectation(s) in 1 file(s)" in dry.stderr

    done = jaxcheck_here("update", str(root))
    assert done.returncode == 0, done.stderr
    assert (root / "exact.md").read_text() == (
        BLANK_AND_SPACES.replace("a\n\n>>>", "a\n<BLANKLINE>\n\n>>>")
        .replace('"b  ")\nb\n', '"b  ")\nb  \n')
        .replace("c\nd\n", "c\n<BLANKLINE>\nd\n")
    )
    assert jaxcheck_here("check", str(root)).returncode == 0
    oracle = pytest_doctests(root, "exact.md")
    assert oracle.returncode == 0, oracle.stdout
    again = jaxcheck_here("update", str(root))
    assert again.returncode == 0 and "rewrote 0 expectation(s)" in again.stderr


def sphinx_doctest(root: Path) -> subprocess.CompletedProcess[str]:
    """``sphinx-build -b doctest``: sphinx.ext.doctest's own verdicts."""
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-b", "doctest", ".", "_build/doctest"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )


SPACES_RST = """\
Spaces
======

.. doctest::

   >>> print('b  ')
   a

.. doctest::

   >>> print(1)
   2
"""


@pytest.mark.stack
def test_trailing_spaces_a_reader_drops_are_refused_and_the_rest_is_written(
    tmp_path: Path,
) -> None:
    # sphinx.ext.doctest compares a directive's text as docutils reads it, without the spaces
    # that end its lines (pytest, reading the file itself, would keep them): no text written
    # there makes the first example pass.
    conf = CHECK_EXAMPLES + 'extensions.append("sphinx.ext.doctest")\n'
    root = write_project(tmp_path, {"spaces.rst": SPACES_RST}, conf=conf)
    done = jaxcheck_here("update", str(root))
    assert done.returncode == 1, done.stderr
    why = refusals(done.stderr)["spaces.rst:6"]
    assert why.startswith("block 'spaces.rst:6': read again as update would write it"), why
    assert "as ['b'], which does not accept the output ['b  ']" in why, why
    shown_in_guide(done.stderr, root)
    assert "rewrote 1 expectation(s) in 1 file(s)" in done.stderr
    assert (root / "spaces.rst").read_text() == SPACES_RST.replace("   2\n", "   1\n")
    # The check says what sphinx.ext.doctest says: the first example fails, whatever it holds.
    (root / "spaces.rst").write_text(SPACES_RST.replace("   a\n", "   b  \n"))
    assert sphinx_doctest(root).returncode == 1
    checked = jaxcheck_here("check", str(root))
    assert checked.returncode == 1 and "spaces.rst:6: drift" in checked.stdout, checked.stdout


WHERE = '''\
WHERE = "a"


def where():
    """Where the example runs.

    >>> WHERE
    'b'
    """
    return WHERE
'''
WRAPPED = """\
import functools

from pkg.a import where as _where

WHERE = "b"


@functools.wraps(_where)
def where():
    return _where()


where.__module__ = __name__
"""


def test_one_docstring_run_in_two_modules_that_disagree_is_refused_with_both_needs(
    tmp_path: Path,
) -> None:
    root = tmp_path / "project"
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "a.py").write_text(WHERE)
    (root / "pkg" / "b.py").write_text(WRAPPED)
    docs = write_project(
        root / "docs",
        {"index.rst": "API\n===\n\nThe docstrings.\n"},
        conf=CHECK_EXAMPLES + 'jaxcheck_doctest_modules = ["pkg"]\n',
    )
    pythonpath = os.pathsep.join([str(root), str(REPO)])
    env = {**os.environ, "PYTHONPATH": pythonpath, "JAX_PLATFORMS": "cpu", "NO_COLOR": "1"}
    for _ in range(2):  # it used to write 'a', then 'b', then 'a', ... each exiting 0
        done = jaxcheck("update", docs, cwd=docs, env=env)
        assert done.returncode == 1, done.stderr
        assert (root / "pkg" / "a.py").read_text() == WHERE
        why = refusals(done.stderr)["a.py:7"]
        assert "the docstring 'pkg.a.where' needs" in why, why
        assert "the docstring 'pkg.b.where' reads these lines too and there it needs no" in why, why
        assert "[\"'a'\"]" in why, why
        assert "rewrote 0 expectation(s)" in done.stderr
        shown_in_guide(done.stderr, root, "/home/me/project")


def test_extensions_given_on_the_command_line_read_back_too(tmp_path: Path) -> None:
    # Sphinx takes -D extensions=... out of its overrides as it reads them; the reading back
    # must still parse Markdown with them.
    root = write_project(tmp_path, {"index.md": "# P\n\n```{jaxcheck}\nprint(1 + 1)\n# 3\n```\n"})
    (root / "conf.py").write_text('extensions = ["sphinx_jaxcheck"]\n')
    done = jaxcheck_here("update", str(root), "-D", "extensions=myst_parser,sphinx_jaxcheck")
    assert done.returncode == 0, done.stderr
    assert (root / "index.md").read_text().endswith("print(1 + 1)\n# 2\n```\n")
