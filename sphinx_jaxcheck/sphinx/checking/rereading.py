"""The documents ``jaxcheck update`` would change, read again by Sphinx as they would read once
written, before anything is written (see :mod:`...rewrite.reread`).

The documents that read an edited file (its own page, or a page that includes
it) are read by a second, read-only application of the same project (same
configuration, overrides, tags and builder; a scratch build folder; no block
runs), while every file update would write reads as its new bytes: Python's
``open`` (which Sphinx, docutils' and MyST's ``include``, this extension and
any other extension read files through) gives the new text for those paths and
nothing else. So the blocks compared are the ones the build itself would find:
a fence the new text closes or leaves open, an include's cut, what a reader
drops from a line are all the reader's own doing. A file beside the project
(``jaxcheck_doctest_files``), which no reader reads, is read again as the
check read it: by stdlib doctest's parser, each a document of its own.
"""

from __future__ import annotations

import builtins
import contextlib
import io
import logging
import os
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from sphinx.application import Sphinx
from sphinx.util import docutils as sphinx_docutils
from sphinx.util import logging as sphinx_logging
from sphinx.util.docutils import docutils_namespace, patch_docutils

from ...kinds import rules_of
from ...model import Block
from ...rewrite.reread import Reading, Reread
from ..compat import source_path
from ..domain import domain_of
from .doctest_files import read_file_blocks, shown_name
from .read_only import read_only


def reread_of(app: Sphinx) -> Reread:
    """Update's reading of documents again, for this build's project."""

    def read_again(texts: Mapping[str, bytes]) -> Reading:
        reads = _files_read(app)
        wanted = {doc for doc, files in reads.items() if files & texts.keys()}
        before = {doc: _read_by_page(domain_of(app.env).blocks(doc)) for doc in sorted(wanted)}
        named = _named_files_again(app, texts)
        try:
            after, again = _read(app, sorted(wanted), texts)
        except Exception as error:  # any failure proves nothing: update writes none of it
            return Reading(before, {}, reads, problem=f"{type(error).__name__}: {error}")
        files = {doc: reads.get(doc, frozenset()) | again.get(doc, frozenset()) for doc in wanted}
        return Reading(
            {**before, **named.before}, {**after, **named.after}, {**files, **named.files}
        )

    return read_again


def _read_by_page(blocks: Sequence[Block]) -> list[Block]:
    """A document's blocks less those of the files beside the project, which no page reads."""
    return [block for block in blocks if not rules_of(block).read_on_its_own()]


def _named_files_again(app: Sphinx, texts: Mapping[str, bytes]) -> Reading:
    """The files of ``jaxcheck_doctest_files`` among ``texts``: their blocks as checked, and as
    read from the new texts, each file under its name as a document of its own (no reader
    reads them: they are read again as the check read them)."""
    domain = domain_of(app.env)
    checked: dict[str, list[Block]] = {}
    for docname in domain.documents_with_blocks():
        for block in domain.blocks(docname):
            real = os.path.realpath(block.path)
            if rules_of(block).read_on_its_own() and real in texts:
                checked.setdefault(real, []).append(block)
    before, after, files = {}, {}, {}
    for real, blocks in checked.items():
        path, docname = blocks[0].path, blocks[0].docname
        name = shown_name(app, path)
        again = read_file_blocks(path, name, docname, app, texts[real])
        before[name] = blocks
        after[name] = again if isinstance(again, list) else []
        files[name] = frozenset({real})
    return Reading(before, after, files)


def _files_read(app: Sphinx) -> dict[str, frozenset[str]]:
    """By document: the real paths of its own file, of the files it includes, and of the files
    its blocks were read from."""
    env = app.env
    domain = domain_of(env)
    found = {}
    for docname in sorted(env.all_docs):
        paths = [str(source_path(env, docname))]
        # Absolute, or relative to the source folder as Sphinx before 8.2 keeps them.
        paths += [os.path.join(env.srcdir, dep) for dep in env.dependencies.get(docname, ())]
        paths += [block.path for block in _read_by_page(domain.blocks(docname))]
        found[docname] = frozenset(os.path.realpath(path) for path in paths)
    return found


def _read(
    app: Sphinx, docnames: Sequence[str], texts: Mapping[str, bytes]
) -> tuple[dict[str, list[Block]], dict[str, frozenset[str]]]:
    """The blocks of these documents, read by a fresh read-only application of the project with
    ``texts`` in place of the files' bytes; and the files each read."""
    sphinx_logger = logging.getLogger(sphinx_logging.NAMESPACE)
    handlers, level = list(sphinx_logger.handlers), sphinx_logger.level
    propagate = sphinx_logger.propagate
    with (
        tempfile.TemporaryDirectory(prefix="jaxcheck-reread-") as scratch,
        patch_docutils(app.confdir),
        _namespace_inside(),
    ):
        again: Sphinx | None = None
        try:
            again = Sphinx(
                app.srcdir,
                app.confdir,
                Path(scratch, "out"),
                Path(scratch, "doctrees"),
                app.builder.name,
                # Sphinx takes ``-D extensions=...`` out of the overrides as it reads it.
                confoverrides={**app.config.overrides, "extensions": app.config.extensions},
                status=io.StringIO(),
                warning=io.StringIO(),
                freshenv=True,
                tags=list(app.tags),
                parallel=0,
            )
            read_only(again)
            with files_read_as(texts):
                again.env.find_files(again.config, again.builder)
                reading = [doc for doc in docnames if doc in again.env.found_docs]
                again.events.emit("env-before-read-docs", again.env, reading)
                for docname in reading:
                    again.builder.read_doc(docname)
                blocks = {doc: domain_of(again.env).blocks(doc) for doc in docnames}
                files = _files_read(again)
            return blocks, {doc: files.get(doc, frozenset()) for doc in docnames}
        finally:
            if again is not None:
                # What its setup started (signal handlers, frozen objects) ends as after a build.
                again.events.emit("build-finished", None)
            # Its logging setup took over Sphinx's logger: the build's own handlers come back.
            sphinx_logger.handlers[:] = handlers
            sphinx_logger.setLevel(level)
            sphinx_logger.propagate = propagate


@contextlib.contextmanager
def _namespace_inside() -> Iterator[None]:
    """Sphinx's docutils namespace for the second application, inside the build's own (while
    ``-D jaxcheck_update=1`` builds): leaving it forgets every node class registered, so the
    build's own are registered again."""
    registered = set(sphinx_docutils.additional_nodes)
    try:
        with docutils_namespace():
            yield
    finally:
        for node in registered:
            sphinx_docutils.register_node(node)


class _Named(io.BytesIO):
    """New bytes of a file, opened under its name."""

    def __init__(self, data: bytes, name: str) -> None:
        super().__init__(data)
        self.name = name


@contextlib.contextmanager
def files_read_as(texts: Mapping[str, bytes]) -> Iterator[None]:
    """While inside, every file opened for reading whose real path is a key of ``texts`` reads
    as those bytes (in binary or text mode, with the encoding and newlines asked for); every
    other file, and every other way of opening one, is the file itself."""
    real_open = builtins.open
    io_open = io.open

    def open_(
        file: Any,
        mode: str = "r",
        buffering: int = -1,
        encoding: str | None = None,
        errors: str | None = None,
        newline: str | None = None,
        closefd: bool = True,
        opener: Any = None,
    ) -> IO[Any]:
        if isinstance(file, (str, bytes, os.PathLike)) and mode and set(mode) <= set("rbt"):
            name = os.fsdecode(file)
            data = texts.get(os.path.realpath(name))
            if data is not None:
                raw = _Named(data, name)
                if "b" in mode:
                    return raw
                return io.TextIOWrapper(raw, encoding=encoding, errors=errors, newline=newline)
        found: IO[Any] = real_open(
            file, mode, buffering, encoding, errors, newline, closefd, opener
        )
        return found

    builtins.open = open_  # type: ignore[assignment]
    io.open = open_  # type: ignore[assignment]
    try:
        yield
    finally:
        builtins.open = real_open
        io.open = io_open
