"""``jaxcheck check`` parses only the pages that may hold something to check.

On ``env-before-read-docs`` of the ``jaxcheck`` builder, every page about to
be read is pre-scanned (:mod:`..expect.prescan`); one that provably holds
nothing to check is not parsed. It stays a document of the build (found,
listed by toctrees, counted wherever pages are), and is recorded as read now
with the digest of its text, so later builds scan it again only once it
changed. Other builders (HTML) read every page, and re-read those a
``jaxcheck`` build left unparsed in a shared doctree folder.

The root document is always parsed. Sphinx's own warnings about the markup of
an unparsed page come from the HTML build only. The scan is off (every page
parsed) with ``jaxcheck_prescan = False``, and whenever a page's text may not
be what the scan sees: a ``source-read`` or ``include-read`` handler of another
extension may fill it, or a parser other than reStructuredText's or MyST's reads it.
"""

from __future__ import annotations

import time

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.errors import FiletypeNotFoundError
from sphinx.util import get_filetype, logging

from .compat import source_path
from .domain import domain_of
from .read_digests import text_digest
from .settings import settings_of

logger = logging.getLogger(__name__)

UNPARSED = "unparsed"  # per document: left unparsed by a jaxcheck build
# Modules whose handlers of source-read leave a page's text as written.
_TEXT_KEEPING = ("sphinx_jaxcheck.", "sphinx.ext.intersphinx", "sphinx.ext.duration")
_KNOWN_PARSERS = {
    "restructuredtext": ("sphinx.parsers",),
    "markdown": ("myst_parser.parsers.sphinx_", "myst_parser.parsers."),
}


def setup_unparsed_pages(app: Sphinx) -> None:
    """Leave out of the reading the pages that hold nothing to check (jaxcheck builder only)."""
    # Before the workers start early (.checking.workers): they need not, if no page is left.
    app.connect("env-before-read-docs", _leave_unparsed, priority=400)
    app.connect("env-get-outdated", _parse_for_other_builders)


def _leave_unparsed(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    if app.builder.name != "jaxcheck" or not settings_of(app.config).prescan:
        return
    if _text_may_change(app):
        return
    from ..expect.prescan import Prescan  # the jaxcheck builder's only

    scan = Prescan(
        check_names=settings_of(app.config).check_names,
        substitutions=bool(getattr(app.config, "myst_substitutions", None)),
        prolog="\n".join(filter(None, (app.config.rst_prolog, app.config.rst_epilog))),
    )
    encoding = env.settings.get("input_encoding") or app.config.source_encoding
    domain = domain_of(env)
    left = 0
    for docname in list(docnames):
        if docname == app.config.root_doc:
            continue  # a read keeps Sphinx's checks of the toctrees (pages in none are named)
        path = source_path(env, docname)
        if not _parsed_as_written(app, str(path)):
            continue
        try:
            with open(path, encoding=encoding) as file:  # as read_digests reads it
                text = file.read()
        except (OSError, UnicodeDecodeError, LookupError):
            continue  # Sphinx (or source_files) reports it
        if scan.may_hold_checks(text):
            continue
        docnames.remove(docname)
        app.events.emit("env-purge-doc", env, docname)
        env.clear_doc(docname)  # what an earlier read of it left
        env.all_docs[docname] = time.time_ns() // 1_000  # as Sphinx stamps a read
        domain.per_document("read_from")[docname] = [[str(path), text_digest(text)]]
        domain.per_document(UNPARSED)[docname] = [True]
        left += 1
    if left:
        logger.info("jaxcheck: %d page(s) hold nothing to check: not parsed", left)


def _text_may_change(app: Sphinx) -> bool:
    """Whether another extension handles source-read or include-read (it may fill pages)."""
    for event in ("source-read", "include-read"):
        for listener in app.events.listeners.get(event, []):
            module = getattr(listener.handler, "__module__", "") or ""
            if not module.startswith(_TEXT_KEEPING):
                logger.verbose(
                    "jaxcheck: every page is parsed: %s handles %s", module or "?", event
                )
                return True
    return False


def _parsed_as_written(app: Sphinx, path: str) -> bool:
    """Whether a known parser (reStructuredText's, MyST's) reads this file as it is written."""
    try:
        filetype = get_filetype(app.config.source_suffix, path)
    except FiletypeNotFoundError:
        return False
    parser = app.registry.get_source_parsers().get(filetype)
    return parser is not None and parser.__module__.startswith(_KNOWN_PARSERS.get(filetype, ()))


def _parse_for_other_builders(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    if app.builder.name == "jaxcheck":
        return []
    return sorted(set(domain_of(env).per_document(UNPARSED)) - removed)
