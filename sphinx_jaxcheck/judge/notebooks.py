"""Compare a notebook cell's stored outputs with those of a fresh run: Outcome -> Verdict.

Both sides become text the same way (:func:`comparable`): a stream's text, a result's or a
display's ``text/plain`` (its HTML reduced to its text where there is none, or where it only
names the object), an error's ``name: message`` (its traceback is not compared, as nbval
compares none). Before that, each normalizer of :data:`NORMALIZERS` named in the cell's
block removes one kind of noise from both sides, and nothing else (in an error's message,
only the address a repr names); each was measured on JAX's own notebooks, and each can be
switched off (``jaxcheck_notebook_normalizers``). Images are compared as the cell's rule says
(:mod:`.images`); a cell verified while some image of it was not is said to be.
"""

from __future__ import annotations

import html.parser
import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from ..model import (
    Block,
    CellOutput,
    CompareMode,
    Drift,
    Expectation,
    ExpectationKind,
    ImageRule,
    NotebookCell,
    Outcome,
    OutputMode,
    Problem,
    Status,
    Subtype,
    Verdict,
)
from ..worker.streams import as_jupyter_stores
from .images import MISSING_PILLOW, compared, image_line, pillow_missing
from .matching import (
    MatchRules,
    adopt_written_precision,
    normalize,
    split_lines,
    texts_match,
    unified_diff,
)

_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# A memory address where a repr names one: ``<function f at 0x10f4e1b20>``, ``<__main__.A
# object at 0x7f...>``. A hex number printed anywhere else is the cell's own output.
_ADDRESS = re.compile(r"(?<= at )0x[0-9a-fA-F]{6,}\b")
# In an error's message, only an address a repr names, inside its brackets.
_REPR_ADDRESS = re.compile(r"(<[^<>\n]* at )0x[0-9a-fA-F]{6,}\b(?=[^<>\n]*>)")
# The reprs of matplotlib's objects, each reduced to what its version does not change. They
# apply only to a value the worker saw was matplotlib's, and to the stored output of that
# cell that looks like the same kind of object: a user's own ``Text(...)`` is left alone.
_FIGURE = re.compile(r"<Figure size [\d.]+x[\d.]+ (with \d+ Axes)>")
_TEXT = re.compile(r"Text\(([-\d.e+]+), ?([-\d.e+]+), ?('.*'|\".*\")\)", re.DOTALL)
_AXES = re.compile(
    r"<(?:matplotlib\.[\w.]+\.)?(\w*Axes\w*?)(?:Subplot)?(:.*| at 0x[0-9a-fA-F?]+)>", re.DOTALL
)
_ARTIST = re.compile(r"<((?:matplotlib|mpl_toolkits)\.[\w.]+)(?: object)? at 0x[0-9a-fA-F?]+>")
_ARTISTS = re.compile(rf"\[?{_ARTIST.pattern}(?:, {_ARTIST.pattern})*\]?")
_MATPLOTLIB_TYPES = ("matplotlib.", "mpl_toolkits.")
# %timeit's own lines, as IPython prints them (the figures are the machine's): the timing
# (IPython 5 on, and before), and the notes it adds when a run was slow or compiling was.
_TIME = r"(?:[\d.e+-]+ (?:s|ms|us|\u03bcs|\u00b5s|ns)|\d+(?:d|h|min|s)(?: \d+(?:d|h|min|s))*)"
_TIMEIT = re.compile(
    rf"^{_TIME} (?:\u00b1|\+-) {_TIME} per loop \(mean (?:\u00b1|\+-) std\. dev\. of [\d,]+ "
    r"runs?, [\d,]+ loops? each\)$"
    rf"|^[\d,]+ loops?, best of \d+: {_TIME} per loop$",
    re.MULTILINE,
)
_TIMEIT_NOTES = re.compile(
    r"^(?:The slowest run took [\d.]+ times longer than the fastest\. This could mean that an "
    r"intermediate result is being cached\.|Compiler time: [\d.]+ s)\n",
    re.MULTILINE,
)
TIMEIT_LINE = "<%timeit's timing>"
# Where a kernel says a cell's code was: ``<ipython-input-4-f510dde58e22>``,
# ``/tmp/ipykernel_2270/410288286.py``, and ours (``notebook.ipynb:cell 4``); the line after
# it is the cell's own line, in every kernel, and is compared.
_CELL_FILES = re.compile(
    r"(?<![^\s\"'(\[])"  # a path starts a line, or follows a space, a quote or a bracket
    r"(?:<ipython-input-\d+-[0-9a-f]+>|/[^\s\"'(\[]*/ipykernel_\d+/\d+\.py"
    r"|[^\s\"'(\[]+\.ipynb:cell \d+)"
)
# A ``text/plain`` that only names the object (IPython's default repr): the output's HTML,
# Markdown or LaTeX is what a reader reads, so that is what is compared.
_PLACEHOLDER = re.compile(
    r"<[A-Za-z_][\w.]*(?: object(?: at 0x[0-9a-fA-F?]+)?| at 0x[0-9a-fA-F?]+)>"
)
_RICH = ("text/html", "text/markdown", "text/latex")

Normalizer = Callable[[CellOutput, frozenset[str]], "CellOutput | None"]


def _ansi(output: CellOutput, matplotlib: frozenset[str]) -> CellOutput | None:
    return _each_text(output, lambda text: _ANSI.sub("", text))


def _addresses(output: CellOutput, matplotlib: frozenset[str]) -> CellOutput | None:
    return _each_text(output, lambda text: _ADDRESS.sub("0x?", text) if "0x" in text else text)


def matplotlib_kind(text: str) -> str | None:
    """Which of matplotlib's reprs a ``text/plain`` is (``figure``, ``text``, ``axes``,
    ``artists``), None when it is none of them."""
    stripped = text.strip()
    for kind, pattern in (
        ("figure", _FIGURE),
        ("text", _TEXT),
        ("axes", _AXES),
        ("artists", _ARTISTS),
    ):
        if pattern.fullmatch(stripped):
            return kind
    return None


def shown_matplotlib(outputs: Sequence[CellOutput]) -> frozenset[str]:
    """The kinds of matplotlib repr among the outputs of values the worker saw were
    matplotlib's (the context the ``matplotlib`` normalizer needs)."""
    kinds = set()
    for output in outputs:
        shows = output.shows.rpartition("[")[2]
        if shows.startswith(_MATPLOTLIB_TYPES) and (kind := matplotlib_kind(output.text)):
            kinds.add(kind)
    return frozenset(kinds)


def _matplotlib(output: CellOutput, matplotlib: frozenset[str]) -> CellOutput | None:
    if output.output_type not in ("execute_result", "display_data"):
        return output
    kind = matplotlib_kind(output.text)
    shows = output.shows.rpartition("[")[2]
    fresh_matplotlib = shows.startswith(_MATPLOTLIB_TYPES)
    # A stored output has no type: it is matplotlib's where the fresh run showed that kind.
    if kind is None or not (fresh_matplotlib or (not output.shows and kind in matplotlib)):
        return output
    text = _matplotlib_text(kind, output.text.strip())
    data = tuple((mime, text if mime == "text/plain" else value) for mime, value in output.data)
    return replace(output, text=text, data=data)


def _matplotlib_text(kind: str, text: str) -> str:
    """A matplotlib repr without what its version changes: a figure's size, an address, the
    layout of a Text's position, the name of an Axes' class; its titles and labels stay."""
    if kind == "figure":
        return _FIGURE.sub(r"<Figure \1>", text)
    if kind == "text":
        found = _TEXT.fullmatch(text)
        assert found is not None
        x, y, label = found.groups()
        return f"Text({_number(x)}, {_number(y)}, {label})"
    if kind == "axes":
        found = _AXES.fullmatch(text)
        assert found is not None
        name, rest = found.groups()
        return f"<{name}{_unspaced(rest) if rest.startswith(':') else ''}>"
    return _ARTIST.sub(r"<\1>", text)


def _number(text: str) -> str:
    try:
        return repr(float(text))
    except ValueError:
        return text


def _unspaced(text: str) -> str:
    """Without the spaces outside quotes (matplotlib 3.7 put one after each ``:`` and ``,``)."""
    parts = re.split(r"('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")", text)
    return "".join(part if n % 2 else re.sub(r"\s+", "", part) for n, part in enumerate(parts))


def _timeit(output: CellOutput, matplotlib: frozenset[str]) -> CellOutput | None:
    if output.output_type != "stream":
        return output
    text = _TIMEIT.sub(TIMEIT_LINE, _TIMEIT_NOTES.sub("", output.text))
    return CellOutput("stream", output.name, text) if text else None


def _cell_files(output: CellOutput, matplotlib: frozenset[str]) -> CellOutput | None:
    return _each_text(output, lambda text: _CELL_FILES.sub("<cell>", text))


def _each_text(output: CellOutput, change: Callable[[str], str]) -> CellOutput:
    return CellOutput(
        output.output_type,
        output.name,
        change(output.text),
        tuple(
            (mime, change(text) if mime.startswith("text/") else text) for mime, text in output.data
        ),
        output.traceback,
        output.metadata,
        output.shows,
    )


# Each normalizer, by the name the setting uses, in the order they apply. None touches an
# error (its name and message are compared as they are), but for the address a repr in its
# message names (``addresses``).
NORMALIZERS: dict[str, Normalizer] = {
    "ansi": _ansi,  # colour codes (JAX colours its jaxprs under IPython)
    "addresses": _addresses,  # 0x7f61... where a repr names an address
    "matplotlib": _matplotlib,  # what matplotlib's version changes in its objects' reprs
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
    outputs: Sequence[CellOutput],
    normalizers: Sequence[str],
    images: ImageRule | None = None,
    matplotlib: frozenset[str] = frozenset(),
    stored_images: Sequence[tuple[str, str]] = (),
) -> list[str]:
    """The lines a cell's outputs are compared by, after the normalizers named (and, under
    an ``images`` rule, a line for each image it compares, each fresh one given the stored
    one at its place in ``stored_images``: :func:`.images.image_line`). ``matplotlib``: the
    kinds of matplotlib repr the fresh run of the cell showed (:func:`shown_matplotlib`)."""
    lines: list[str] = []
    shown = 0  # images compared so far
    for output in outputs:
        kept: CellOutput | None = output
        if output.output_type == "stream":
            # As Jupyter stores it, before any normalizer reads it: a notebook saved elsewhere
            # (Colab, nbclient) may hold the carriage returns and backspaces still, and what
            # they overwrote is not on the reader's screen.
            kept = replace(output, text=as_jupyter_stores(output.text))
        if output.output_type != "error":
            for name in normalizers:
                kept = NORMALIZERS[name](kept, matplotlib) if kept is not None else None
        elif "addresses" in normalizers and "0x" in output.text:
            # An error's message is compared as the kernel gave it, but for the address a repr
            # in it names (``<function f at 0x7f61...>``): that differs on every run, and a
            # cell stale on every run is one no update can fix.
            kept = replace(output, text=_REPR_ADDRESS.sub(r"\g<1>0x?", output.text))
        if kept is None:
            continue
        if kept.output_type == "stream":
            text = kept.text if kept.name == "stdout" else _headed(f"[{kept.name}]", kept.text)
        elif kept.output_type == "error":
            text = f"{kept.name}: {kept.text}" if kept.text else kept.name
        else:
            text = _shown_text(kept)
        if text:
            lines.extend(normalize(split_lines(text)))
        for mime, data in kept.data:
            if images is not None and mime.startswith("image/") and compared(images, mime):
                stored = stored_images[shown] if shown < len(stored_images) else None
                lines.append(image_line(images, mime, data, stored))
                shown += 1
    return lines


def images_of(outputs: Sequence[CellOutput], rule: ImageRule | None) -> list[tuple[str, str]]:
    """The images among ``outputs`` that ``rule`` compares, in order: (MIME type, data)."""
    return [
        (mime, data)
        for output in outputs
        for mime, data in output.data
        if mime.startswith("image/") and compared(rule, mime)
    ]


def _uncompared_image(outputs: Sequence[CellOutput], rule: ImageRule | None) -> bool:
    """Whether some image among ``outputs`` is one ``rule`` does not compare."""
    return any(
        mime.startswith("image/") and not compared(rule, mime)
        for output in outputs
        for mime, _ in output.data
    )


def _shown_text(output: CellOutput) -> str:
    """What a result or display is compared by: its ``text/plain``, or where that is missing
    or only names the object, the text of its HTML (or Markdown, or LaTeX)."""
    plain = output.mime("text/plain")
    if plain is not None and not _PLACEHOLDER.fullmatch(plain.strip()):
        return output.text
    for mime in _RICH:
        rich = output.mime(mime)
        if rich is not None:
            return html_text(rich) if mime == "text/html" else rich
    return output.text


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
    if block.options.output is OutputMode.IGNORE:
        return Verdict(Status.NOT_COMPARED, seconds=outcome.seconds, outputs=outcome.outputs)
    rule = cell.images if cell.stored is not None else None  # an output block holds no image
    stored_images = images_of(cell.stored or (), rule)
    decodes = rule is not None and rule.rms is not None
    if decodes and (stored_images or images_of(outcome.outputs, rule)) and pillow_missing():
        problem = Problem(Subtype.OPTION, MISSING_PILLOW, line)
        return Verdict(
            Status.FAILED, problems=(problem,), seconds=outcome.seconds, outputs=outcome.outputs
        )
    matplotlib = shown_matplotlib(outcome.outputs)
    expected = _expected(cell, matplotlib)
    if expected is None:
        return Verdict(Status.NOT_COMPARED, seconds=outcome.seconds, outputs=outcome.outputs)
    actual = comparable(outcome.outputs, cell.normalizers, rule, matplotlib, stored_images)
    if cell.number and expected and actual:
        # As doctest's NUMBER: a float that equals the stored one to the precision written
        # there reads as written (numbers pair by position, as pytest pairs them).
        actual = adopt_written_precision("\n".join(expected), "\n".join(actual)).split("\n")
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
        # Its text verified: so were its images only where the rule compared every one.
        images = cell.stored is not None and (
            _uncompared_image(cell.stored, rule) or _uncompared_image(outcome.outputs, rule)
        )
        return Verdict(
            Status.VERIFIED,
            seconds=outcome.seconds,
            outputs=outcome.outputs,
            images_not_compared=images,
        )
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


def follow_failures(
    blocks: Sequence[Block], verdicts: list[Verdict], followed: Callable[[Block], bool]
) -> None:
    """Mark each block that failed after an earlier block of its session failed (``after``),
    and list them on that first one (``followers``), in place, for the blocks whose kind is
    ``followed`` (notebook cells): the shell went on after the first failure, as a kernel
    does, so the later ones most often fail for it (a name it did not define). A cell not run
    for its bad options is neither: its finding says what to fix in its metadata."""
    roots: dict[tuple[str, str | None], int] = {}  # notebook's session -> its first failed cell
    followers: dict[int, list[str]] = {}
    for number, (block, verdict) in enumerate(zip(blocks, verdicts, strict=True)):
        if (
            not followed(block)
            or verdict.status is not Status.FAILED
            or block.error  # not run, for its options: reported on its own
        ):
            continue
        root = roots.setdefault(block.session_key, number)
        if root != number:
            verdicts[number] = replace(verdict, after=blocks[root].label)
            followers.setdefault(root, []).append(
                f"{block.label} (line {block.body_line}): {_failure(verdict)}"
            )
    for root, found in followers.items():
        verdicts[root] = replace(verdicts[root], followers=tuple(found))


def _failure(verdict: Verdict) -> str:
    """How a failed cell failed, in one line: the error it raised, or its problem's first."""
    error = next((o for o in verdict.outputs if o.output_type == "error"), None)
    if error is not None:
        return f"{error.name}: {error.text}".splitlines()[0] if error.text else error.name
    return verdict.problems[0].message.splitlines()[0] if verdict.problems else "failed"


def _expected(cell: NotebookCell, matplotlib: frozenset[str]) -> list[str] | None:
    """What a cell is expected to show, as compared: its stored outputs, or the output block
    written after it in a text notebook; None when it has neither."""
    if cell.stored is not None:
        return comparable(cell.stored, cell.normalizers, cell.images, matplotlib)
    if cell.written is not None:
        lines = list(cell.written)
        if "matplotlib" in cell.normalizers:
            # An output block holds a repr as a line of its own (as written_text wrote it).
            for number, line in enumerate(lines):
                kind = matplotlib_kind(line)
                if kind is not None and kind in matplotlib:
                    lines[number] = _matplotlib_text(kind, line.strip())
        written = CellOutput("stream", "stdout", "\n".join(lines))
        return comparable((written,), cell.normalizers)
    return None


def written_text(outputs: Sequence[CellOutput]) -> list[str]:
    """A cell's outputs as an output block holds them: as compared, only colours removed."""
    return comparable(outputs, ("ansi",))


def _error_traceback(outcome: Outcome) -> list[str]:
    error = next((o for o in outcome.outputs if o.output_type == "error"), None)
    return list(error.traceback) if error is not None else []
