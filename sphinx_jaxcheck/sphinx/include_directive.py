"""The ``include`` directive this extension registers: Sphinx's, with two differences.

* **A missing file is still a dependency of its page.** docutils records an
  included file as a dependency only once it has read it, so a page whose
  include failed would never be read again when the file is created later: its
  checks would stay unread, and the build green. Here the path is noted as the
  page's dependency before the include is tried, as MyST's own include does;
  while the file is missing, Sphinx reads the page again in every build (and
  reports the failed include again).
* **The lines of a cut are numbered as in the file.** docutils numbers the lines
  an include cut by ``:start-line:`` or ``:start-after:`` inserts from the cut
  (a known gap of its own), so a block's findings would name another part of the
  file, and ``jaxcheck update`` would find other lines there. Here they are
  renumbered from where the cut starts, found as docutils finds it.
"""

from __future__ import annotations

from collections.abc import Sequence

from docutils import io, nodes
from sphinx.application import Sphinx
from sphinx.directives.other import Include

PADDING = "internal padding before "  # the source docutils names the line before an insert


def setup_include_directive(app: Sphinx) -> None:
    """Register the ``include`` directive."""
    app.add_directive("include", JaxcheckInclude, override=True)


class JaxcheckInclude(Include):
    """Sphinx's ``include``, noting its file as a dependency before reading it, and numbering
    the lines of a cut as the file does."""

    def run(self) -> Sequence[nodes.Node]:
        target = self.arguments[0]
        if not (target.startswith("<") and target.endswith(">")):
            _, path = self.env.relfn2path(target)
            self.env.note_dependency(path)
        found = super().run()
        self._number_as_in_the_file()
        return found

    def _number_as_in_the_file(self) -> None:
        """Shift the numbers of the lines just inserted into the input by the lines cut off
        before them (nothing to do for a literal or separately parsed include: nothing was
        inserted)."""
        if not ("start-line" in self.options or "start-after" in self.options):
            return
        if {"literal", "code", "parser"} & self.options.keys():
            return
        lines = self.state_machine.input_lines
        at = self.state_machine.line_offset + 1
        if at >= len(lines):
            return
        padding, _ = lines.info(at)
        if not (padding or "").startswith(PADDING):
            return
        source = padding[len(PADDING) :]
        cut = self._lines_before_the_cut(source)
        for index in range(at + 1, len(lines)):
            name, number = lines.items[index]
            if name != source:
                break
            lines.items[index] = (name, number + cut)

    def _lines_before_the_cut(self, source: str) -> int:
        """How many lines of the file come before the first line the include inserts, as
        docutils cuts it (line breaks counted as docutils counts them, by ``splitlines``)."""
        settings = self.state.document.settings
        text = io.FileInput(
            source_path=source,
            encoding=self.options.get("encoding", settings.input_encoding),
            error_handler=settings.input_encoding_error_handler,
        ).read()
        start, end = self.options.get("start-line"), self.options.get("end-line")
        before = 0
        if start or end is not None:
            lines = text.splitlines()
            before = len(lines[: start or 0])
            text = "\n".join(lines[start:end])
        after = self.options.get("start-after")
        if after:
            found = text.find(after)
            if found >= 0:
                # The breaks before the end of the marker: the line it ends on is the first.
                before += len((text[: found + len(after)] + "x").splitlines()) - 1
        return before
