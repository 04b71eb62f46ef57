"""Stylesheets and scripts of jaxcheck's HTML, added for html-format builders only."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx

from .stages import BuilderInited, BuildFinished, HtmlPageContext

STATIC = Path(__file__).parent.parent / "static"


def add_stylesheet(app: Sphinx, filename: str) -> None:
    """Link ``static/<filename>`` from every HTML page and copy it to ``_static``."""

    def link(app: Sphinx) -> None:
        if app.builder.format == "html":
            app.add_css_file(filename)

    app.connect("builder-inited", link, priority=BuilderInited.ASSETS)
    _copy_at_end(app, filename)


def add_page_script(app: Sphinx, filename: str, wanted: Callable[[nodes.document], bool]) -> None:
    """Load ``static/<filename>`` on the HTML pages whose doctree ``wanted`` accepts."""

    def link(
        app: Sphinx,
        _pagename: str,
        _templatename: str,
        _context: dict[str, Any],
        doctree: nodes.document | None,
    ) -> None:
        if doctree is not None and app.builder.format == "html" and wanted(doctree):
            # Added during html-page-context, a script belongs to this page only.
            app.add_js_file(filename, loading_method="defer")

    app.connect("html-page-context", link, priority=HtmlPageContext.ASSETS)
    _copy_at_end(app, filename)


def _copy_at_end(app: Sphinx, filename: str) -> None:
    """Copy ``static/<filename>`` to ``_static`` once the build is done.

    Copied by hand rather than listed in ``html_static_path``, which would
    change the user's configuration; a plain copy, as it is no template (Sphinx's
    ``copy_asset_file`` warns of overwriting before 8.0 and needs ``force`` after).
    """

    def copy(app: Sphinx, exception: Exception | None) -> None:
        if exception is None and app.builder.format == "html":
            static = Path(app.outdir) / "_static"
            static.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(STATIC / filename, static / filename)

    app.connect("build-finished", copy, priority=BuildFinished.ASSETS)
