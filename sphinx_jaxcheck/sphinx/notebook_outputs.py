"""A notebook cell's outputs from our run, as the page shows them in place of the stored ones.

The nodes carry the classes MyST-NB gives its own (``cell_output``, ``output``, ``stream``,
``text_plain``, ``traceback``), so a theme styles them alike. HTML builders get HTML
outputs as they are and images inline; other builders the text of each output.
"""

from __future__ import annotations

import html
import re

from docutils import nodes

from ..model import CellOutput

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
IMAGES = ("image/png", "image/jpeg", "image/svg+xml")


def replace_outputs(cell: nodes.Element, outputs: tuple[CellOutput, ...], is_html: bool) -> None:
    """Put ``outputs`` where MyST-NB's rendering of the stored ones was (or after the code)."""
    for child in list(cell.children):
        if isinstance(child, nodes.Element) and child.get("nb_element") == "cell_code_output":
            cell.remove(child)
    shown = [node for output in outputs for node in _output(output, is_html)]
    if shown:
        area = nodes.container(nb_element="cell_code_output", classes=["cell_output"])
        area.extend(shown)
        cell += area


def _output(output: CellOutput, is_html: bool) -> list[nodes.Node]:
    if output.output_type == "stream":
        return [_text(output.text, ["output", "stream", output.name])]
    if output.output_type == "error":
        shown = "\n".join(_ANSI.sub("", line) for line in output.traceback)
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
