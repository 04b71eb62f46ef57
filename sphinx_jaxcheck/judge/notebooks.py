"""Compare a notebook cell's stored outputs with those of a fresh run: Outcome -> Verdict.

Both sides become text the same way (:func:`comparable`): a stream's text, a result's or a
display's ``text/plain`` (HTML reduced to its text where there is none), an error's
``name: message`` (its traceback is not compared, as nbval compares none). Before that,
each normalizer of :data:`NORMALIZERS` named in the cell's block removes one kind of noise
from both sides; each was measured on JAX's own notebooks, and each can be switched off
(``jaxcheck_notebook_normalizers``). Images are not compared.
"""

from __future__ import annotations

import hashlib
import html.parser
import re
from collections.abc import Callable, Sequence

from ..model import (
    Block,
    CellOutput,
    CompareMode,
    Drift,
    Expectation,
    ExpectationKind,
    NotebookCell,
    Outcome,
    OutputMode,
    Problem,
    Status,
    Subtype,
    Verdict,
)
from .matching import (
    MatchRules,
    mask_addresses,
    normalize,
    split_lines,
    texts_match,
    unified_diff,
)

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# The repr of a matplotlib object shown as a cell's value: a figure, an artist or a list of
# artists, a Text (``ax.set_title(...)``).
_MATPLOTLIB = re.compile(
    r"\s*(?:<Figure size [\d.]+x[\d.]+ with \d+ Axes>"
    r"|\[?<(?:matplotlib|mpl_toolkits)\.[\w.]+ (?:object )?at 0x[0-9a-fA-F?]+>"
    r"(?:,\s*<(?:matplotlib|mpl_toolkits)\.[\w.]+ (?:object )?at 0x[0-9a-fA-F?]+>)*\]?"
    r"|<(?:matplotlib\.)?\w*(?:Axes|Subplot)\w*: .*>"
    r"|Text\([-\d.e]+, [-\d.e]+, '.*'\))\s*",
    re.DOTALL,
)
# What %timeit prints, in every IPython's words (the figures are the machine's).
_TIMEIT = re.compile(
    r"^.*(?:per loop|loops?, best of \d|slowest run took|intermediate result is being cached)"
    r".*\n?",
    re.MULTILINE,
)
# Where a kernel says a cell's code was: ``<ipython-input-4-f510dde58e22>:3``,
# ``/tmp/ipykernel_2270/410288286.py:4:10``, and ours (``notebook.ipynb:cell 4``).
_CELL_FILES = re.compile(
    r"(?:<ipython-input-\d+-[0-9a-f]+>|/\S*/ipykernel_\d+/\d+\.py|\S+\.ipynb:cell \d+)"
    r"(?::\d+)*"
)


def _ansi(output: CellOutput) -> CellOutput | None:
    return _each_text(output, lambda text: _ANSI.sub("", text))


def _addresses(output: CellOutput) -> CellOutput | None:
    return _each_text(output, mask_addresses)


def _matplotlib(output: CellOutput) -> CellOutput | None:
    if output.output_type in ("execute_result", "display_data") and _MATPLOTLIB.fullmatch(
        output.text
    ):
        # The repr goes; a figure's image stays, for a cell whose images are compared.
        images = tuple((mime, data) for mime, data in output.data if mime.startswith("image/"))
        return CellOutput(output.output_type, "", "", images) if images else None
    return output


def _timeit(output: CellOutput) -> CellOutput | None:
    if output.output_type != "stream":
        return output
    text = _TIMEIT.sub("", output.text)
    return CellOutput("stream", output.name, text) if text else None


def _cell_files(output: CellOutput) -> CellOutput | None:
    return _each_text(output, lambda text: _CELL_FILES.sub("<cell>", text))


def _each_text(output: CellOutput, change: Callable[[str], str]) -> CellOutput:
    return CellOutput(
        output.output_type,
        output.name,
        change(output.text),
        tuple(
            (mime, change(text) if mime.startswith("text/") else text) for mime, text in output.data
        ),
        tuple(map(change, output.traceback)),
    )


# Each normalizer, by the name the setting uses, in the order they apply.
NORMALIZERS: dict[str, Callable[[CellOutput], CellOutput | None]] = {
    "ansi": _ansi,  # colour codes (JAX colours its jaxprs under IPython)
    "addresses": _addresses,  # 0x7f61... in reprs
    "matplotlib": _matplotlib,  # figure and artist reprs, whose sizes follow the version
    "timeit": _timeit,  # %timeit's figures
    "cell-files": _cell_files,  # the kernel's file name for a cell's code
}


class _Text(html.parser.HTMLParser):
    """An HTML output's text, without its scripts and styles (Colab's DataFrame wrapper
    holds buttons, a stylesheet and a script around the table)."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:  # noqa: V107 - HTMLParser's signature
        if tag in ("script", "style"):
            self.hidden += 1
        elif tag in ("tr", "br", "p", "div", "li"):
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self.hidden -= 1
        elif tag in ("td", "th"):
            self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.parts.append(data)


def html_text(markup: str) -> str:
    """What a reader reads of an HTML output: its text, one line per row or block."""
    parser = _Text()
    parser.feed(markup)
    parser.close()
    lines = (" ".join(line.split()) for line in "".join(parser.parts).splitlines())
    return "\n".join(line for line in lines if line)


def comparable(
    outputs: Sequence[CellOutput], normalizers: Sequence[str], images: bool = False
) -> list[str]:
    """The lines a cell's outputs are compared by, after the normalizers named (and, with
    ``images``, a line naming each image by a digest of its bytes)."""
    lines: list[str] = []
    for output in outputs:
        kept: CellOutput | None = output
        for name in normalizers:
            kept = NORMALIZERS[name](kept) if kept is not None else None
        if kept is None:
            continue
        if kept.output_type == "stream":
            text = kept.text if kept.name == "stdout" else _headed(f"[{kept.name}]", kept.text)
        elif kept.output_type == "error":
            text = f"{kept.name}: {kept.text}" if kept.text else kept.name
        else:
            markup = kept.mime("text/html")
            if kept.mime("text/plain") is None and markup is not None:
                text = html_text(markup)
            else:
                text = kept.text
        if text:
            lines.extend(normalize(split_lines(text)))
        if images:
            lines.extend(
                f"[{mime} {hashlib.sha256(data.strip().encode()).hexdigest()[:16]}]"
                for mime, data in kept.data
                if mime.startswith("image/")
            )
    return lines


def _headed(header: str, text: str) -> str:
    return f"{header}\n{text}"


def _looks_like_jaxpr(lines: Sequence[str]) -> bool:
    return bool(lines) and lines[0].lstrip().startswith("{ lambda")


def judge_cell(block: Block, cell: NotebookCell, outcome: Outcome) -> Verdict:
    """The verdict on a notebook cell that ran (its failures to run already judged)."""
    line = block.body_line
    raised = outcome.exception
    if raised is not None and not cell.raises:
        shown = "\n".join(_ANSI.sub("", step) for step in _error_traceback(outcome))
        return Verdict(
            Status.FAILED,
            problems=(
                Problem(
                    Subtype.ERROR,
                    f"the cell raised an exception it does not expect (tag it "
                    f"raises-exception if it should):\n{shown or raised.traceback}",
                    line,
                ),
            ),
            seconds=outcome.seconds,
            outputs=outcome.outputs,
        )
    expected = _expected(cell)
    if block.options.output is OutputMode.IGNORE or expected is None:
        return Verdict(Status.NOT_COMPARED, seconds=outcome.seconds, outputs=outcome.outputs)
    actual = comparable(outcome.outputs, cell.normalizers, cell.images)
    jaxpr = block.options.compare is CompareMode.JAXPR or (
        _looks_like_jaxpr(expected) and _looks_like_jaxpr(actual)
    )
    rules = MatchRules(
        CompareMode.JAXPR if jaxpr else CompareMode.TEXT,
        block.options.tolerance,
        ellipsis=False,
        addresses=False,  # the addresses normalizer decides
    )
    if texts_match(expected, actual, rules):
        return Verdict(Status.VERIFIED, seconds=outcome.seconds, outputs=outcome.outputs)
    expectation = Expectation(ExpectationKind.CELL_OUTPUTS, tuple(expected), 0, 0, statement_line=1)
    at = cell.written_line if cell.stored is None and cell.written is not None else line
    drift = Drift(expectation, tuple(actual), unified_diff(expected, actual), at)
    return Verdict(
        Status.STALE,
        drifts=(drift,),
        actual_text="\n".join(actual),
        seconds=outcome.seconds,
        outputs=outcome.outputs,
    )


def _expected(cell: NotebookCell) -> list[str] | None:
    """What a cell is expected to show, as compared: its stored outputs, or the output block
    written after it in a text notebook; None when it has neither."""
    if cell.stored is not None:
        return comparable(cell.stored, cell.normalizers, cell.images)
    if cell.written is not None:
        written = CellOutput("stream", "stdout", "\n".join(cell.written))
        return comparable((written,), cell.normalizers)
    return None


def written_text(outputs: Sequence[CellOutput]) -> list[str]:
    """A cell's outputs as an output block holds them: as compared, only colours removed."""
    return comparable(outputs, ("ansi",))


def _error_traceback(outcome: Outcome) -> list[str]:
    error = next((o for o in outcome.outputs if o.output_type == "error"), None)
    return list(error.traceback) if error is not None else []
