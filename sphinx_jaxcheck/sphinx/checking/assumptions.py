"""``jaxcheck_cache_assume``: the documents whose sessions are cached by assumption, though
they learned something the workers cannot record (a child process, a database)."""

from __future__ import annotations

import os
from collections.abc import Callable

from sphinx.application import Sphinx
from sphinx.util.matching import Matcher

from ..compat import source_path
from ..settings import settings_of


def assumed_documents(app: Sphinx) -> Callable[[str], bool]:
    """Whether a document (by name) is one ``jaxcheck_cache_assume`` names: a pattern matches
    its name or its source file's path from the source folder, as ``exclude_patterns`` does."""
    patterns = settings_of(app.config).cache_assume
    matcher = Matcher(patterns)

    def assumed(docname: str) -> bool:
        if not patterns:
            return False
        if matcher(docname):
            return True
        path = os.path.relpath(source_path(app.env, docname), app.srcdir)
        return matcher(path)

    return assumed
