"""Which documents to read (and so check) again, beyond those Sphinx finds changed.

``env-get-outdated``: every document whose text, or a file it includes, is not
what was read last time, whatever its modification time says (see
:mod:`..read_digests`); after a change of the workers' fingerprint (jax, jaxlib,
numpy, Python), every document with blocks or citations; and every document whose sessions
depended on something that changed since (a module of the project, such as
``helper.py`` beside it, or where an import is found) or cannot be tracked (unless
``jaxcheck_cache_assume`` names it).
"""

from __future__ import annotations

import functools
import os

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from ...cache.dependencies import reusable, tree_digest
from ...worker.dependencies import Finders
from ..domain import CITATIONS, domain_of
from ..interpreter import fingerprint
from ..read_digests import changed_since_read
from .assumptions import assumed_documents


def setup_outdated(app: Sphinx) -> None:
    """Add the documents whose checks are out of date to those Sphinx reads."""
    app.connect("env-get-outdated", _outdated)


def _outdated(
    app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str], removed: set[str]
) -> list[str]:
    # Sphinx compares modification times; an older copy or a retargeted symlink keeps one.
    rewritten = changed_since_read(env) - added - changed - removed
    return sorted(rewritten | set(_to_check_again(app, env, removed)))


def _to_check_again(app: Sphinx, env: BuildEnvironment, removed: set[str]) -> list[str]:
    """Documents whose checks are out of date although their text is not."""
    domain = domain_of(env)
    stored = domain.build.fingerprint
    # Only with a stored one to compare: a first build asks the interpreter after
    # reading, while the zygote started early imports jax on the other core.
    if stored and (stored != fingerprint(app) or domain.build.extension != extension_digest()):
        # Blocks must run again, and citations must be resolved against the new source; or
        # the code that read the blocks and judged them is not the one that made the
        # verdicts kept in the environment (an upgrade, an edited checkout).
        citing = set(domain.per_document(CITATIONS)) | set(domain.documents_with_blocks())
        return sorted(citing - removed)
    # Something a document's sessions depended on (helper.py beside it, where an import was
    # found) changed, or cannot be tracked (and is not assumed unchanged).
    finders: dict[tuple[str, ...], Finders] = {}
    assumed = assumed_documents(app)
    return sorted(
        doc
        for doc, used in domain.used().items()
        if doc not in removed
        and not reusable(
            used,
            finders.setdefault(used.suffixes, Finders(used.suffixes)),
            assume=assumed(doc),
        )
    )


@functools.cache
def extension_digest() -> str:
    """The digest of this extension's code, all of it: what reads a document's blocks and
    judges their outcomes, besides what runs them (which the workers' fingerprint holds)."""
    return tree_digest(os.path.dirname(os.path.dirname(os.path.dirname(__file__))))
