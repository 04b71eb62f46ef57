"""An ``include`` whose file is missing still makes the file a dependency of its page.

docutils records an included file as a dependency only once it has read it,
so a page whose include failed would never be read again when the file is
created later: its checks would stay unread, and the build green. Here the
path is noted as the page's dependency before the include is tried, as MyST's
own include does; while the file is missing, Sphinx reads the page again in
every build (and reports the failed include again).
"""

from __future__ import annotations

from collections.abc import Sequence

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.directives.other import Include


def setup_missing_includes(app: Sphinx) -> None:
    """Register the ``include`` directive that notes its file first."""
    app.add_directive("include", NotedInclude, override=True)


class NotedInclude(Include):
    """Sphinx's ``include``, noting the file it names as a dependency before reading it."""

    def run(self) -> Sequence[nodes.Node]:
        target = self.arguments[0]
        if not (target.startswith("<") and target.endswith(">")):
            _, path = self.env.relfn2path(target)
            self.env.note_dependency(path)
        return super().run()
