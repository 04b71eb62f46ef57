"""The output formats of the command line, in a module of their own so that the
argument parser is built without importing what renders them."""

from __future__ import annotations

# ``jaxcheck check`` and ``jaxcheck merge``: see ``reports``.
REPORT_FORMATS = ("text", "github", "json")
# ``jaxcheck matrix``: see ``matrix``.
MATRIX_FORMATS = ("text", "json", "markdown")
