"""The ``jaxcheck`` builder: read every document, run every check, write no page.

``sphinx-build -M jaxcheck SOURCEDIR BUILDDIR`` (``make jaxcheck`` in a project
made by sphinx-quickstart) is to sphinx-jaxcheck what ``make doctest`` is to
``sphinx.ext.doctest``. The checks themselves run on Sphinx's events (see
``check``), as in any other build; this builder only skips the writing.
``jaxcheck check page.md`` narrows the checks to some documents through the
domain's scope.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.locale import _

from .compat import BuilderWritingNothing


class JaxcheckBuilder(BuilderWritingNothing):
    """Checks every ``jaxcheck`` block and citation; writes nothing."""

    name = "jaxcheck"
    epilog = _("Checked the jaxcheck blocks and citations; no pages were written.")
    allow_parallel = True

    def init(self) -> None:
        pass

    def get_outdated_docs(self) -> set[str]:
        # Every document is a target: its findings are reported in every run.
        return set(self.env.found_docs)

    def get_target_uri(self, docname: str, typ: str | None = None) -> str:  # noqa: V107 - Sphinx's signature
        return ""

    def write_doc(self, docname: str, doctree: nodes.document) -> None:
        pass

    def finish(self) -> None:
        pass


def setup_builder(app: Sphinx) -> None:
    """Register the builder (``-b jaxcheck``, ``-M jaxcheck``)."""
    app.add_builder(JaxcheckBuilder)
