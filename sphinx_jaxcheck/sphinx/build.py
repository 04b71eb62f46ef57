"""A ``jaxcheck``-builder build in this process, for the ``jaxcheck`` commands and the pytest
plugin.

Every document read, every block run, nothing written; doctrees are kept in
the build folder, so repeated builds are incremental. Sphinx's status stream is
filtered down to our progress lines, and its warnings are kept apart: ours are
reported structurally, Sphinx's own are printed with :func:`other_warnings`.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from sphinx.application import Sphinx
from sphinx.errors import ConfigError, ExtensionError, SphinxError
from sphinx.util.build_phase import BuildPhase
from sphinx.util.docutils import docutils_namespace, patch_docutils

from ..errors import ConfigurationError
from .build_folder import DOCTREES, IGNORE_MARK, default_build_dir
from .checking.read_only import read_only as only_read
from .domain import domain_of
from .settings import conf_py_only

_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_LINE_END = re.compile(r"[\r\n]")


# Our progress lines: documents read, blocks run. Found anywhere in a line, since a line
# logged while documents are read may land after a piece of Sphinx's own.
_OURS = re.compile(r"jaxcheck: (running|reading documents)")
# Sphinx's own reading bar, shown on a terminal, where it is the reading's only progress.
_SPHINX_READING = "reading sources... "


class _StatusFilter(io.TextIOBase):
    """Pass only our own progress lines from Sphinx's status stream to ``target``, and on a
    terminal Sphinx's reading bar.

    Sphinx's progress display ends a line with a carriage return on a terminal,
    so that the next one overwrites it; so does this filter.
    """

    def __init__(self, target: TextIO) -> None:
        self.target = target
        self.pending = ""
        self.overwrite = bool(getattr(target, "isatty", lambda: False)())
        self.line_open = False  # a progress line waits to be overwritten

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        """As the stream shown: on a terminal, progress redraws its line."""
        return self.overwrite

    def write(self, text: str) -> int:
        self.pending += text
        while (end := _LINE_END.search(self.pending)) is not None:
            line, ending = self.pending[: end.start()], end.group()
            self.pending = self.pending[end.end() :]
            plain = _ANSI.sub("", line)
            ours = _OURS.search(plain)
            redrawn = ending == "\r" and self.overwrite
            if ours is not None or (redrawn and plain.startswith(_SPHINX_READING)):
                plain = plain[ours.start() :] if ours else plain
                newline = "\r" if ending == "\r" and self.overwrite else "\n"
                self.target.write(("\x1b[2K" if self.overwrite else "") + plain + newline)
                self.target.flush()
                self.line_open = newline == "\r"
            elif self.line_open and ending == "\n":  # the display ended: keep its last line
                self.target.write("\n")
                self.line_open = False
        return len(text)


@dataclass(frozen=True)
class Finished:
    """A build that reached its end, or was stopped by an error once every block was checked
    (another extension's, at the end of the build: its report is still whole)."""

    app: Sphinx
    warnings: str
    stopped: str = ""  # that error, said for the command line; "" when the build completed


def run_build(
    srcdir: Path,
    overrides: dict[str, object],
    jobs: int | None,
    *,
    build_dir: Path | None = None,
    pages: Sequence[Path] = (),
    read_only: bool = False,
) -> Finished:
    """A ``jaxcheck``-builder build of ``srcdir`` (of only ``pages``, if any).

    ``jobs``: Sphinx's readers (None: one per CPU, where every extension is safe for
    parallel reading). ``read_only``: read every document (blocks, citations, cards) but
    run no block.
    Raises :class:`ConfigurationError` for whatever stops the build before it
    checks anything: conf.py, a ``-D`` value, the pin, a folder, a page not in the project.
    """
    build_dir = build_dir or default_build_dir(srcdir)
    _ignored_by_git(build_dir, srcdir)
    warnings = io.StringIO()
    status = _StatusFilter(sys.stderr)
    app: Sphinx | None = None
    try:
        # The pytest plugin's builds (read only) take no -D: their messages say conf.py.
        in_conf_py = conf_py_only() if read_only else contextlib.nullcontext()
        with patch_docutils(srcdir), docutils_namespace(), in_conf_py:
            app = Sphinx(
                srcdir,
                srcdir,
                build_dir / "out",
                build_dir / DOCTREES,
                "jaxcheck",
                # Warnings carry their type, by which other_warnings tells ours apart (the
                # default from Sphinx 8.0 on).
                confoverrides={**overrides, "show_warning_types": True},
                status=status,  # type: ignore[arg-type]
                warning=warnings,
                parallel=jobs if jobs is not None else available_cpus(),
                keep_going=True,
            )
            if jobs is None and not _parallel_read_safe(app):
                app.parallel = 1  # as Sphinx would, without its warning naming the extension
            if "sphinx_jaxcheck" not in app.config.extensions:
                raise ConfigurationError(
                    f"{srcdir / 'conf.py'} does not load the extension: add "
                    '"sphinx_jaxcheck" to `extensions`'
                )
            if pages:
                domain_of(app.env).scope = frozenset(_docnames(app, pages))
            if read_only:
                only_read(app)
            app.build()
            return Finished(app, warnings.getvalue())
    except SphinxError as error:
        plain = isinstance(error, ConfigError | ExtensionError)
        said = str(error) if plain else f"{type(error).__name__}: {error}"
        # Every document was read and checked (``env-updated`` ends the reading): what
        # stopped the build after that leaves the report whole (a read-only build has none).
        if app is not None and not read_only and app.phase >= BuildPhase.CONSISTENCY_CHECK:
            return Finished(app, warnings.getvalue(), said)
        raise ConfigurationError(said) from None


def available_cpus() -> int:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def _parallel_read_safe(app: Sphinx) -> bool:
    return all(getattr(ext, "parallel_read_safe", None) for ext in app.extensions.values())


def _docnames(app: Sphinx, pages: Sequence[Path]) -> list[str]:
    app.env.find_files(app.config, app.builder)  # as reading will (exclude_patterns applied)
    found = []
    for page in pages:
        docname = app.env.path2doc(page)
        if docname is None or docname not in app.env.found_docs:
            suffixes = ", ".join(app.config.source_suffix)
            raise ConfigurationError(
                f"{os.path.relpath(page)}: not a document of the project in "
                f"{os.path.relpath(app.srcdir)} "
                f"(its source suffixes: {suffixes}; excluded pages are not built)"
            )
        found.append(docname)
    return found


def _ignored_by_git(build_dir: Path, srcdir: Path) -> None:
    """A build folder inside the sources carries a .gitignore, so `git status` stays clean."""
    if not build_dir.is_relative_to(srcdir):
        return
    try:
        build_dir.mkdir(parents=True, exist_ok=True)
        ignore = build_dir / ".gitignore"
        if not ignore.exists():
            ignore.write_text(f"{IGNORE_MARK}\n*\n", encoding="utf-8")
    except OSError as error:
        raise ConfigurationError(
            f"configuration error: cannot write to {build_dir}, the build folder of jaxcheck "
            f"({error.strerror or error}): choose one you can write to with --build-dir"
        ) from None


def other_warnings(text: str) -> str:
    """Sphinx's own warnings (not ours, which are reported structurally), one block a line."""
    blocks = re.split(r"\n(?=\S+: WARNING: |\S+: ERROR: |WARNING: |ERROR: )", _ANSI.sub("", text))
    return "".join(
        block.rstrip() + "\n" for block in blocks if block.strip() and "[jaxcheck." not in block
    )
