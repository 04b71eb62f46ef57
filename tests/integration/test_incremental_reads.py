"""Which pages an incremental build reads again: every page whose text, or the text of a file
it includes, is not what was read last time, whatever the file's times say.

Sphinx re-reads a page only when its modification time is newer than the last
read; a symlink retargeted to an older file, or a copy that keeps an old time
(``cp -p``, ``rsync -a``, ``tar x``, ``git checkout`` of an old file), is not.
Each test here makes such an edit and requires the warm build to see it.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest
from buildkit import Build, build, write_project

from sphinx_jaxcheck.model import Problem, Status, Subtype, Verdict
from sphinx_jaxcheck.run import sessions
from sphinx_jaxcheck.sphinx.checking import check, outdated

# In the compatibility part, run on every supported Sphinx (tox -e sphinx73 ...): which
# files a document depends on is Sphinx's to record.
pytestmark = pytest.mark.stack

CACHED = "jaxcheck_cache = True\n"


def page(said: str) -> str:
    """A page whose one block prints ``said`` and expects ``hello``."""
    return f'# Page\n\n```{{jaxcheck}}\nprint("{said}")\n\n# hello\n```\n'


def old_file(path: Path, text: str) -> Path:
    """``text`` in ``path``, dated a day ago (as ``cp -p`` of an old file leaves it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    a_day_ago = path.stat().st_mtime - 86400
    os.utime(path, (a_day_ago, a_day_ago))
    return path


def drifts(done: Build) -> bool:
    """Whether the build failed on the drifting block, with its diff."""
    return done.status == 1 and done.subtypes() == ["drift"] and "+bye" in done.warnings


def test_a_page_replaced_by_an_older_copy_of_itself_is_read_again(tmp_path: Path) -> None:
    older = old_file(tmp_path / "backup" / "page.md", page("bye"))
    root = write_project(tmp_path / "docs", {"page.md": page("hello")}, conf=CACHED)
    assert build(root, fresh=True).status == 0
    shutil.copy2(older, root / "page.md")  # keeps the older modification time
    assert (root / "page.md").stat().st_mtime < (root / "index.rst").stat().st_mtime
    assert drifts(build(root))
    assert drifts(build(root, fresh=True))


def test_a_page_that_is_a_symlink_is_read_again_when_it_points_elsewhere(tmp_path: Path) -> None:
    targets = tmp_path / "targets"
    good = old_file(targets / "good.md", page("hello"))
    bad = old_file(targets / "bad.md", page("bye"))
    index = "# Index\n\n```{toctree}\npage\n```\n"
    root = write_project(tmp_path / "docs", {"index.md": index}, conf=CACHED)
    (root / "page.md").symlink_to(good)
    assert build(root, fresh=True).status == 0
    (root / "page.md").unlink()
    (root / "page.md").symlink_to(bad)
    assert drifts(build(root))
    (root / "page.md").unlink()
    (root / "page.md").symlink_to(good)  # back: the cached verdict of this text holds again
    back = build(root)
    assert back.status == 0 and "1 block(s) from the cache" in back.log


def test_an_included_file_replaced_by_an_older_copy_is_read_again(tmp_path: Path) -> None:
    older = old_file(tmp_path / "backup" / "part.md", page("bye").replace("# Page\n\n", ""))
    pages = {
        "index.rst": "Index\n=====\n\n.. toctree::\n\n   page\n   other\n",
        "page.md": "# Page\n\n```{include} part.md\n```\n",
        "part.md": page("hello").replace("# Page\n\n", ""),
        "other.rst": "Other\n=====\n\n.. include:: part.rst.inc\n",
        "part.rst.inc": ".. jaxcheck::\n\n   print('hi')\n\n   # hi\n",
    }
    root = write_project(tmp_path / "docs", pages, conf=CACHED + 'exclude_patterns += ["part*"]\n')
    assert build(root, fresh=True).status == 0
    shutil.copy2(older, root / "part.md")
    assert drifts(build(root))
    old_file(root / "part.rst.inc", ".. jaxcheck::\n\n   print('ho')\n\n   # hi\n")
    done = build(root)
    assert done.status == 1 and "+ho" in done.warnings and "+bye" in done.warnings


MADE_FIGURE = '''
import os
from docutils import nodes
from sphinx.util.docutils import SphinxDirective


class MadeFigure(SphinxDirective):
    """Writes a figure into the doctree folder while the page is read, and depends on it,
    as nbsphinx does with a notebook's images."""

    def run(self):
        folder = os.path.join(self.env.doctreedir, "made")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "figure.png")
        with open(path, "wb") as figure:
            figure.write(b"a figure")
        self.env.note_dependency(path)
        return [nodes.paragraph(text="made")]


def setup(app):
    app.add_directive("madefigure", MadeFigure)
'''


def test_a_page_that_writes_a_file_it_depends_on_into_the_build_is_not_read_every_time(
    tmp_path: Path,
) -> None:
    """nbsphinx writes each image of a notebook into the doctree folder while it reads the
    page, and depends on it: written during the read, it is the build's own, not an edit."""
    conf = CACHED + "import sys, os\nsys.path.insert(0, os.path.dirname(__file__))\n"
    conf += 'extensions.append("madefig")\n'
    pages = {"page.rst": "Page\n====\n\n.. madefigure::\n", "madefig.py": MADE_FIGURE}
    root = write_project(tmp_path / "docs", pages, conf=conf)
    assert build(root, fresh=True).status == 0
    warm = build(root)
    assert warm.status == 0 and read(warm) == [], warm.log
    (Path(warm.app.doctreedir) / "made" / "figure.png").unlink()  # a real change: read again
    again = build(root)
    assert read(again) == ["page"], again.log


def read(done: Build) -> list[str]:
    """The documents the build read, from its log."""
    plain = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", done.log)  # colours, and erased lines
    return re.findall(r"^reading sources\.\.\. \[\s*\d+%\] (\S+)", plain, re.MULTILINE)


def test_verdicts_kept_in_the_environment_are_made_again_when_the_extension_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An upgraded extension (or an edited checkout of it) may read a block or judge an
    outcome otherwise: the verdicts an earlier build kept are not reused. The document is read
    and judged again, its session's outcome taken from the cache."""
    root = write_project(tmp_path / "docs", {"page.md": page("hello")}, conf=CACHED)
    assert build(root, fresh=True).status == 0
    # The new code's judgement, and its digest (as an edit of any of its files changes it).
    problem = "judged by the new code"
    monkeypatch.setattr(
        sessions,
        "judge",
        lambda block, _outcome: Verdict(
            Status.FAILED, problems=(Problem(Subtype.ERROR, problem, block.file_line(1)),)
        ),
    )
    for module in (outdated, check):
        monkeypatch.setattr(module, "extension_digest", lambda: "another extension")
    again = build(root)
    assert again.status == 1 and problem in again.warnings
    assert "running 0 of" in again.log or "from the cache" in again.log
