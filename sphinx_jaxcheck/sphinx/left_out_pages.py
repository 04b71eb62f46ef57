"""Pages in the source folder that the build does not read, and what they would hold.

Nothing is left unchecked without a word:

* ``.md`` pages in a project without a Markdown parser (no ``myst_parser`` in
  ``extensions``) are not documents at all, so their blocks and examples
  would silently not exist. One that holds a ``jaxcheck`` block (or, unless
  ``jaxcheck_doctests = "off"``, a ``>>>`` example) stops the build.
* Pages ``exclude_patterns`` leaves out are no documents either, but
  ``pytest --doctest-glob`` still checks their examples; the summary counts
  those as unchecked and names the pages (``jaxcheck_doctests`` not ``"off"``).

Both look where ``pytest`` looks: folders it never enters (hidden ones,
``build``, ``dist``, ``venv``, ``node_modules``, ``*.egg``) and Sphinx's build
folders are left alone, and so are the files ``jaxcheck_doctest_files`` names,
whose examples are checked (or counted) as files beside the project.
"""

from __future__ import annotations

import doctest
import fnmatch
import os
import re
from collections.abc import Iterator
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.project import EXCLUDE_PATHS
from sphinx.util.matching import Matcher

from ..config import doctest_files
from ..expect.page_examples import find_regions
from .compat import source_path
from .domain import domain_of
from .settings import cache_directory, settings_of, stop
from .stages import BuilderInited, EnvUpdated

# pytest's default norecursedirs, and Sphinx's usual build folder.
NEVER_ENTERED = ("*.egg", ".*", "_darcs", "build", "_build", "CVS", "dist", "node_modules", "venv")
MARKDOWN = ".md"
_BLOCK_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,}|:{3,})[ \t]*\{jaxcheck\}", re.MULTILINE)


def setup_left_out_pages(app: Sphinx) -> None:
    """Refuse Markdown pages no parser reads; count the examples of excluded pages."""
    app.connect(
        "builder-inited", _refuse_unparsed_markdown, priority=BuilderInited.UNPARSED_MARKDOWN
    )
    app.connect("env-updated", _count_excluded_examples, priority=EnvUpdated.LEFT_OUT_PAGES)


def _refuse_unparsed_markdown(app: Sphinx) -> None:
    if MARKDOWN in app.config.source_suffix:
        return
    settings = settings_of(app.config)
    excluded = Matcher([*app.config.exclude_patterns, *app.config.templates_path, *EXCLUDE_PATHS])
    for path in _files(app, (MARKDOWN,), _named(app)):
        relative = path.relative_to(app.srcdir).as_posix()
        parts = relative.split("/")
        # A pattern that matches a folder leaves out everything in it, as in Sphinx.
        if any(excluded("/".join(parts[:n])) for n in range(1, len(parts) + 1)):
            continue
        text = _text(path)
        held = "a jaxcheck block" if _BLOCK_FENCE.search(text) else None
        if held is None and settings.doctests != "off" and _examples(text):
            held = "`>>>` examples"
        if held:
            stop(
                f"configuration error: {relative} holds {held}, but no parser reads Markdown "
                f'pages in this project, so it would never be checked: add "myst_parser" to '
                f"`extensions` in {Path(app.confdir, 'conf.py')} (or exclude the page with "
                "exclude_patterns)"
            )


def _count_excluded_examples(app: Sphinx, env: BuildEnvironment) -> list[str]:
    domain = domain_of(env)
    counts: dict[str, int] = {}
    if settings_of(app.config).doctests != "off" and domain.scope is None:
        read: set[Path] | None = None  # resolved only for a file not read under its own name
        for path in _files(app, tuple(app.config.source_suffix), _named(app)):
            doc = env.path2doc(path)
            if doc is None or (doc in env.found_docs and Path(source_path(env, doc)) == path):
                continue
            if read is None:
                read = {Path(source_path(env, doc)).resolve() for doc in env.found_docs}
            # A notebook's jupytext twin is the notebook, read as its .ipynb.
            twin = path.with_suffix(".ipynb").resolve()
            if path.resolve() not in read and twin not in read:
                found = _examples(_text(path))
                if found:
                    counts[path.relative_to(app.srcdir).as_posix()] = found
    domain.build.excluded_examples = counts
    return []


def excluded_examples(env: BuildEnvironment) -> dict[str, int]:
    """The ``>>>`` examples of each page ``exclude_patterns`` leaves out (pages without none)."""
    return domain_of(env).build.excluded_examples


def _named(app: Sphinx) -> set[Path]:
    """The real paths of the files ``jaxcheck_doctest_files`` names."""
    patterns = settings_of(app.config).doctest_files
    return {Path(path).resolve() for path in doctest_files(app.confdir, patterns)}


def _files(app: Sphinx, suffixes: tuple[str, ...], named: set[Path]) -> Iterator[Path]:
    """The files under the source folder whose names end in ``suffixes``, where pytest looks,
    but those ``named`` (real paths)."""
    settings = settings_of(app.config)
    own = {
        Path(folder).resolve()
        for folder in (app.outdir, app.doctreedir, cache_directory(app.confdir, settings))
    }
    seen: set[Path] = set()
    for root, folders, names in os.walk(app.srcdir, followlinks=True):
        here = Path(root).resolve()
        if here in seen:  # a symlink back up the tree
            folders[:] = []
            continue
        seen.add(here)
        folders[:] = sorted(
            name
            for name in folders
            if not any(fnmatch.fnmatch(name, skip) for skip in NEVER_ENTERED)
            and (here / name).resolve() not in own
        )
        for name in sorted(names):
            if name.endswith(suffixes) and Path(root, name).resolve() not in named:
                yield Path(root, name)


def _text(path: Path) -> str:
    try:
        return path.read_text("utf-8", errors="replace")
    except OSError:
        return ""


def _examples(text: str) -> int:
    """How many ``>>>`` examples a page's text holds, as doctest's parser counts them."""
    parser = doctest.DocTestParser()
    found = 0
    for region in find_regions(text):
        try:
            found += len(parser.get_examples("\n".join(region.lines)))
        except ValueError:  # malformed (``>>>x``): one example, which would fail
            found += 1
    return found
