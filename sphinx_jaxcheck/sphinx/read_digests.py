"""What each document was read from: the digest of its text as read, and of every file it
depends on (its includes, as Sphinx's ``env.dependencies`` lists them).

Sphinx reads a document again only when its modification time is newer than
the last read, so a symlink retargeted to an older file, or a copy that keeps
an old time (``cp -p``, ``rsync -a``, ``tar x``, ``git checkout`` of an old
file), would keep the verdicts of a text that is gone. :func:`changed_since_read`
compares content instead, for ``env-get-outdated`` (see ``checking/outdated``).

The page's own digest is of the very text Sphinx parsed (``source-read``). An
included file is hashed once the document is read; if it changed in the
meantime (its status-change time is not older than the start of the read, by
a margin for coarse file-system clocks), what was read is unknown, so the
stamp never matches and the next build reads the document again.
"""

from __future__ import annotations

import hashlib
import os
import time
import weakref

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from ..cache.dependencies import file_digests
from ..worker.dependencies import SETTLED_NS
from .compat import source_path
from .domain import READ_FROM, domain_of
from .stages import DoctreeRead, SourceRead

# A stamp that matches no digest: the file changed while its document was read (or so
# shortly before that its times cannot tell: SETTLED_NS).
UNSETTLED = "changed while the document was read"

# By environment and document being read: the digest of its text and when reading began.
_READING: weakref.WeakKeyDictionary[BuildEnvironment, dict[str, tuple[str, int]]] = (
    weakref.WeakKeyDictionary()
)


def setup_read_digests(app: Sphinx) -> None:
    """Stamp every document with what it was read from."""
    # First among source-read handlers: the text as it is in the file.
    app.connect("source-read", _note_text, priority=SourceRead.READ_DIGESTS)
    # After Sphinx's own collector has gathered the document's dependencies.
    app.connect("doctree-read", _stamp, priority=DoctreeRead.READ_DIGESTS)


def text_digest(text: str) -> str:
    """The digest of a document's text."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _note_text(app: Sphinx, docname: str, content: list[str]) -> None:
    _READING.setdefault(app.env, {})[docname] = (text_digest(content[0]), time.time_ns())


def _stamp(app: Sphinx, doctree: nodes.document) -> None:
    env = app.env
    docname = env.docname
    noted = _READING.get(env, {}).pop(docname, None)
    if noted is None:
        return  # not read from a file of ours (no source-read): nothing to compare later
    digest, began = noted
    stamps = [[str(source_path(env, docname)), digest]]
    # Absolute, or relative to the source folder as Sphinx before 8.2 keeps them.
    includes = [os.path.join(env.srcdir, dep) for dep in env.dependencies.get(docname, ())]
    # What the build wrote into its own folders while reading (nbsphinx's images, in the
    # doctree folder) was written then by the build itself: its digest is what the page made.
    written = tuple(
        os.path.join(os.path.realpath(folder), "") for folder in (env.doctreedir, app.outdir)
    )
    for path, found in sorted(file_digests(includes).items()):
        settled = os.path.realpath(path).startswith(written) or not _changed_since(path, began)
        stamps.append([path, found if settled else UNSETTLED])
    domain_of(env).per_document(READ_FROM)[docname] = stamps


def _changed_since(path: str, began: int) -> bool:
    try:
        return os.stat(path).st_ctime_ns >= began - SETTLED_NS
    except OSError:
        return False  # missing now: its digest says so


def changed_since_read(env: BuildEnvironment) -> set[str]:
    """Documents read before whose text, or a file they depend on, is not what was read.

    A document without stamps (read by an older sphinx-jaxcheck) counts as changed.
    """
    stored = domain_of(env).per_document(READ_FROM)
    encoding = env.settings.get("input_encoding") or env.config.source_encoding
    changed = set()
    for docname in env.all_docs:
        stamps = stored.get(docname)
        if not stamps or not _same_text(str(source_path(env, docname)), stamps[0], encoding):
            changed.add(docname)
            continue
        includes = dict(stamps[1:])
        if file_digests(includes) != includes:
            changed.add(docname)
    return changed


def _same_text(path: str, stamp: list[str], encoding: str) -> bool:
    """Whether the document at ``path`` holds the text it was read from (as Sphinx reads it)."""
    if stamp[0] != path:
        return False
    try:
        with open(path, encoding=encoding) as file:
            return text_digest(file.read()) == stamp[1]
    except (OSError, UnicodeDecodeError, LookupError):
        return False
