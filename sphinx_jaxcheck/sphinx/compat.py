"""Every difference between the Sphinx releases the extension supports, in one place.

Each function names the releases it serves; the rest of the package calls these
instead of asking for ``sphinx.version_info`` itself. When the lowest supported
release passes a line below, that branch goes.
"""

from __future__ import annotations

from collections.abc import Set
from pathlib import Path
from typing import Any

import sphinx
from sphinx.application import Sphinx
from sphinx.builders import Builder
from sphinx.environment import BuildEnvironment


def source_path(env: BuildEnvironment, docname: str) -> Path:
    """The source file of a document (``env.doc2path`` gives a str before Sphinx 8.0)."""
    return Path(env.doc2path(docname))


def add_setting(app: Sphinx, name: str, default: object, help_text: str) -> None:
    """Register a ``jaxcheck_*`` value that re-reads every document when it changes.

    Sphinx 7.4 added the ``description`` argument; 7.3 has no place for the help text.
    """
    try:
        app.add_config_value(name, default, "env", description=help_text)
    except TypeError:  # Sphinx 7.3
        app.add_config_value(name, default, "env")


class BuilderWritingNothing(Builder):
    """A builder whose writing step does nothing, on every supported Sphinx.

    Sphinx 8.1 added ``write_documents``; before it, ``write`` itself loops over
    the documents, resolving each doctree only to hand it to ``write_doc``, so
    there the whole step is skipped (as ``sphinx.ext.doctest``'s builder did).
    """

    def write_documents(self, docnames: Set[str]) -> None:
        pass

    if sphinx.version_info < (8, 1):
        # Final from 8.1 on, where this branch is not taken.
        def write(self, *args: Any, **kwargs: Any) -> None:  # type: ignore[misc]
            pass
