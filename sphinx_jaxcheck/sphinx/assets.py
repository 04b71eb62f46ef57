"""Stylesheets of jaxcheck's HTML, added for html-format builders only."""

from __future__ import annotations

from pathlib import Path

from sphinx.application import Sphinx
from sphinx.util.fileutil import copy_asset_file

STATIC = Path(__file__).parent.parent / "static"


def add_stylesheet(app: Sphinx, filename: str) -> None:
    """Link ``static/<filename>`` from every HTML page and copy it to ``_static``.

    Copied by hand at the end of the build rather than listed in
    ``html_static_path``, which would change the user's configuration.
    """

    def link(app: Sphinx) -> None:
        if app.builder.format == "html":
            app.add_css_file(filename)

    def copy(app: Sphinx, exception: Exception | None) -> None:
        if exception is None and app.builder.format == "html":
            copy_asset_file(STATIC / filename, Path(app.outdir) / "_static", force=True)

    app.connect("builder-inited", link)
    app.connect("build-finished", copy)
