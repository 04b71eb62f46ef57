"""A notebook cell's outputs from our run, as the page shows them in place of the stored ones.

The nodes carry the classes MyST-NB gives its own (``cell_output``, ``output``, ``stream``,
``text_plain``, ``traceback``), so a theme styles them alike. HTML builders get HTML
outputs as they are and images inline; other builders the text of each output. A traceback
names files as a reader expects, not where the build machine keeps them.
"""

from __future__ import annotations

import html
import os
import re

from docutils import nodes

from ..model import CellOutput

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
IMAGES = ("image/png", "image/jpeg", "image/svg+xml")
# An absolute POSIX path in a traceback (IPython's "File /x/y.py:12, in f()"), up to its line.
_PATH = re.compile(r"(?<![\w./~-])/[^\s:,'\"()<>\[\]]+")
# Where installed modules live: a path is shown from there (jax/_src/api.py, json/decoder.py).
_LIBRARY = re.compile(r"/(?:site-packages|dist-packages|lib/python\d+(?:\.\d+)?t?)(?=/)")


def reader_paths(text: str, srcdir: str) -> str:
    """``text`` (a rendered traceback) with the build machine's absolute paths shortened: a
    module installed (site-packages, the standard library) from its library folder, a file of
    the project (beside the source folder or in it) relative to the source folder."""
    project = os.path.dirname(os.path.abspath(srcdir))

    def shorter(found: re.Match[str]) -> str:
        path = found.group(0)
        library = list(_LIBRARY.finditer(path))
        if library:
            return path[library[-1].end() + 1 :]
        if path.startswith(project.rstrip("/") + "/"):
            return os.path.relpath(path, srcdir)
        return path

    return _PATH.sub(shorter, text)


def replace_outputs(
    cell: nodes.Element, outputs: tuple[CellOutput, ...], is_html: bool, srcdir: str
) -> None:
    """Put ``outputs`` where MyST-NB's rendering of the stored ones was (or after the code);
    tracebacks name files relative to ``srcdir`` or their library (``reader_paths``)."""
    for child in list(cell.children):
        if isinstance(child, nodes.Element) and child.get("nb_element") == "cell_code_output":
            cell.remove(child)
    shown = [node for output in outputs for node in _output(output, is_html, srcdir)]
    if shown:
        area = nodes.container(nb_element="cell_code_output", classes=["cell_output"])
        area.extend(shown)
        cell += area


def _output(output: CellOutput, is_html: bool, srcdir: str) -> list[nodes.Node]:
    if output.output_type == "stream":
        return [_text(output.text, ["output", "stream", output.name])]
    if output.output_type == "error":
        shown = reader_paths("\n".join(_ANSI.sub("", line) for line in output.traceback), srcdir)
        return [_text(shown or f"{output.name}: {output.text}", ["output", "traceback"])]
    if is_html:
        for mime in IMAGES:
            data = output.mime(mime)
            if data is not None:
                source = (
                    f"data:{mime};base64,{data.strip()}"
                    if mime != "image/svg+xml"
                    else "data:image/svg+xml;charset=utf-8," + html.escape(data)
                )
                return [nodes.raw("", f'<img src="{source}" alt="output">', format="html")]
        markup = output.mime("text/html")
        if markup is not None:
            return [nodes.raw("", f'<div class="output text_html">{markup}</div>', format="html")]
    return [_text(output.text, ["output", "text_plain"])] if output.text else []


def _text(text: str, classes: list[str]) -> nodes.literal_block:
    text = _ANSI.sub("", text).rstrip("\n")
    block = nodes.literal_block(text, text, classes=classes)
    block["language"] = "none"
    return block
