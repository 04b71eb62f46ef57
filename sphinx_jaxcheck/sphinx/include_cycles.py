"""A MyST include cycle is one configuration error naming the files, not a RecursionError.

docutils refuses an rST file that includes itself (directly or through
others); MyST's ``{include}`` renders the included text again, which includes
the next one again, until Python's recursion limit ends the build with
thousands of lines of traceback. Whenever a Markdown file is included
(``include-read``, which MyST emits too), the includes it holds are followed
as MyST would follow them (fences found by a CommonMark parser, paths resolved
against the document being read); one that leads back to it stops the build.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

from markdown_it import MarkdownIt
from mdit_py_plugins.colon_fence import colon_fence_plugin
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from .compat import source_path
from .settings import stop
from .stages import EnvBeforeReadDocs

MARKDOWN = (".md", ".markdown")
# An rST include with a parser option (``:parser: myst_parser.sphinx_`` renders Markdown).
_RST_MARKDOWN_INCLUDE = re.compile(
    r"^[ \t]*\.\. include::[ \t]*(?P<file>\S+)[ \t]*\n(?P<options>(?:[ \t]+:.*\n)*?"
    r"[ \t]+:parser:.*\n(?:[ \t]+:.*\n)*)",
    re.MULTILINE,
)
# Options with which {include} shows the file as code instead of rendering it.
_AS_CODE = re.compile(r"^\s*:?(literal|code)\s*:", re.MULTILINE)


def setup_include_cycles(app: Sphinx) -> None:
    """Stop the build on a Markdown file that includes itself, directly or through others."""
    # Before reading, in this process (parallel readers would turn the stop into a crash
    # report): Markdown documents, and the Markdown files rST documents include
    # (``:parser: myst_parser.sphinx_``).
    app.connect(
        "env-before-read-docs",
        _refuse_cycles_of_documents,
        priority=EnvBeforeReadDocs.INCLUDE_CYCLES,
    )
    # And what those files lead to while a document is read (an rST file included by another).
    app.connect("include-read", _refuse_cycles_of_included)


def _refuse_cycles_of_documents(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    for docname in docnames:
        path = str(source_path(env, docname))
        try:
            text = Path(path).read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # Sphinx, or sphinx/source_files.py, reports it
        if path.endswith(MARKDOWN):
            if "{include}" in text:
                _refuse(env, docname, include_cycle(env, docname, path, text))
            continue
        for found in _RST_MARKDOWN_INCLUDE.finditer(text):
            if "myst" not in found.group("options"):
                continue
            target = os.path.normpath(env.relfn2path(found.group("file"), docname)[1])
            if not target.endswith(MARKDOWN):
                continue
            try:
                included = Path(target).read_text("utf-8")
            except (OSError, UnicodeDecodeError):
                continue  # docutils reports it
            _refuse(env, docname, include_cycle(env, docname, target, included))


def _refuse_cycles_of_included(
    app: Sphinx, relative_path: Path, _parent: str, content: list[str]
) -> None:
    env = app.env
    start = os.path.normpath(os.path.join(env.srcdir, relative_path))
    if start.endswith(MARKDOWN):
        _refuse(env, env.docname, include_cycle(env, env.docname, start, content[0]))


def _refuse(env: BuildEnvironment, docname: str, cycle: list[tuple[str, int, str]] | None) -> None:
    if cycle is None:
        return
    steps = ", which ".join(
        f"includes {_shown(env, target)} (at {_shown(env, path)}:{line})"
        for path, line, target in cycle
    )
    page = _shown(env, source_path(env, docname))
    stop(
        f"configuration error: a MyST include cycle, read for {page}"
        f": {_shown(env, cycle[0][0])} {steps}; expected includes that end. Remove one of them, "
        "or show the file as code (:literal:)"
    )


def include_cycle(
    env: BuildEnvironment, docname: str, start: str, text: str
) -> list[tuple[str, int, str]] | None:
    """The includes (file, line, included file) that go round in a circle, among those that
    ``start`` (holding ``text``) leads to while ``docname`` is read; None if they all end."""
    parser = MarkdownIt("commonmark").use(colon_fence_plugin)
    trail: list[tuple[str, int, str]] = []  # the includes followed to get here
    on_trail, ended = {start}, set()

    def follow(path: str, text: str) -> list[tuple[str, int, str]] | None:
        for line, target in _includes(env, parser, docname, text):
            if target in on_trail:
                begins = next((n for n, step in enumerate(trail) if step[0] == target), len(trail))
                return [*trail[begins:], (path, line, target)]
            if target in ended or not target.endswith(MARKDOWN):
                continue
            try:
                included = Path(target).read_text("utf-8")
            except (OSError, UnicodeDecodeError):
                continue  # MyST reports a file it cannot read
            trail.append((path, line, target))
            on_trail.add(target)
            found = follow(target, included)
            if found is not None:
                return found
            trail.pop()
            on_trail.discard(target)
            ended.add(target)
        return None

    return follow(start, text)


def _includes(
    env: BuildEnvironment, parser: MarkdownIt, docname: str, text: str
) -> Iterator[tuple[int, str]]:
    """(line, absolute path) of every file ``text`` includes as Markdown, directive bodies
    included."""
    for token in parser.parse(text):
        if token.type not in ("fence", "colon_fence") or token.map is None:
            continue
        name, _, argument = token.info.strip().partition(" ")
        if name == "{include}" and argument.strip() and not _AS_CODE.search(token.content):
            # As MyST resolves it: against the document being read, "/" the source folder.
            found = env.relfn2path(argument.strip(), docname)[1]
            yield token.map[0] + 1, os.path.normpath(found)
        elif name.startswith("{") and name.endswith("}"):  # a directive's body is Markdown
            offset = token.map[0] + 1
            for line, path in _includes(env, parser, docname, token.content):
                yield offset + line, path


def _shown(env: BuildEnvironment, path: str | os.PathLike[str]) -> str:
    return os.path.relpath(path, env.srcdir)
