"""Read a Jupyter notebook (``.ipynb``, nbformat 4) into its code cells: the code each runs,
the outputs it stores, the options it carries, and the line of the file it starts at.

A cell's options come from, weakest first: the notebook's metadata ``jaxcheck`` (say
``{"platforms": "tpu"}`` for a notebook that needs one), the cell's metadata ``jaxcheck``,
its tags, and nbval's comment lines anywhere in it, read as nbval reads them, so that
notebooks written for nbval keep their meaning (user guide: guide/notebooks).
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import tokenize
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePosixPath
from typing import Any

from ..errors import NotebookError
from ..model import (
    Block,
    BlockOptions,
    CellOutput,
    ImageRule,
    NotebookCell,
    OutputMode,
    Program,
    Subtype,
)
from . import conditions
from .options import (
    BadOption,
    StrictOptionSpec,
    bad_options,
    block_option_spec,
    block_options,
    closest,
)

# The session of a notebook's cells: one of their own beside the page's jaxcheck blocks.
SESSION = "<cells>"
# The options a cell's (or notebook's) metadata may set, as the jaxcheck directive spells them.
CELL_OPTIONS = (
    "output",
    "compare",
    "tolerance",
    "timeout",
    "jax-version",
    "platforms",
    "images",
)
# How a cell's images are compared (its option "images", jaxcheck_notebook_images): not at
# all, by their bytes, or by their decoded pixels within an RMS tolerance.
IMAGES = ("ignore", "compare", "rms", "rms:<tolerance>")
IMAGES_EXPECTED = "one of " + ", ".join(IMAGES) + " (a number, 0 or more)"
RMS_TOLERANCE = 2.0  # plain "rms": pytest-mpl's default tolerance
# nbval's markers, as nbval reads them: a comment line anywhere in the cell, or (lower case,
# ``_`` as ``-``) a tag; each sets one of a cell's three options, the last one read winning,
# a comment over a tag.
NBVAL_COMMENTS: dict[str, tuple[str, bool]] = {
    "NBVAL_IGNORE_OUTPUT": ("check", False),
    "PYTEST_VALIDATE_IGNORE_OUTPUT": ("check", False),  # nbval's older name
    "NBVAL_CHECK_OUTPUT": ("check", True),
    "NBVAL_RAISES_EXCEPTION": ("raises", True),
    "NBVAL_SKIP": ("skip", True),
}
# Jupyter's own tags (JupyterLab, MyST-NB, nbmake and nbval honour them).
TAG_RAISES = "raises-exception"
TAG_SKIP = "skip-execution"
NBVAL_TAGS: dict[str, tuple[str, bool]] = {
    **{name.lower().replace("_", "-"): marker for name, marker in NBVAL_COMMENTS.items()},
    TAG_RAISES: ("raises", True),
    TAG_SKIP: ("skip", True),
}
# A line that installs or removes packages where the notebook runs: IPython's magics (%pip,
# %conda, ...) and the shell's (!pip install, !python -m pip install, !conda install, ...).
_INSTALLER = (
    r"(?:pip3?|(?:\S*python[\d.]*|\{sys\.executable\}|\$\{?\w+\}?)\s+-m\s+pip|uv\s+pip"
    r"|conda|mamba|micromamba)"
)
_CHANGES_ENVIRONMENT = re.compile(
    rf"^\s*(?:%(?:pip|conda|mamba|micromamba|uv\s+pip)|!\s*{_INSTALLER})\s+"
    r"(?:install|uninstall|remove|update|upgrade|create|env\s+(?:create|update))\b.*$",
    re.MULTILINE,
)
ENVIRONMENT_SETTING = "jaxcheck_notebooks_environment"
# What a line left out of a cell becomes: a statement, so that the value of the cell's last
# expression is shown only where it was (a blank line would make the line before it last).
_LEFT_OUT = "pass"
# The tokens after which a line starts a statement of the cell's top level (with no bracket open).
_STATEMENT_ENDS = (tokenize.NEWLINE, tokenize.NL, tokenize.DEDENT, tokenize.ENCODING)
# A text notebook's expected output: a fence of this directive right after a code cell.
OUTPUT_DIRECTIVE = "jaxcheck-output"
OUTPUT_FENCE = re.compile(r"^\s*(`{3,}|~{3,})\{jaxcheck-output\}\s*$")
_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")


@dataclass(frozen=True)
class Cell:
    """One code cell of a notebook."""

    index: int  # in the notebook's ``cells`` list
    source: str
    line: int  # 1-based line of the file where its source starts
    stored: tuple[CellOutput, ...] | None  # None: no record of a run (nothing to compare)
    options: BlockOptions
    raises: bool  # an error it shows is expected
    problems: tuple[str, ...] = ()  # bad options in its metadata, said in words
    images: str = ""  # its option "images" (one of IMAGES), "" when it sets none
    written: Written | None = None  # a text notebook's output block after the cell
    # Its first line that installs or removes packages (``%pip install optax``); "": none.
    changes_environment: str = ""


@dataclass(frozen=True)
class Written:
    """The output block written after a cell of a text notebook: its lines, and the 1-based
    file line of the first (where it would stand, when it holds none)."""

    lines: tuple[str, ...]
    first: int


@dataclass(frozen=True)
class Notebook:
    """A notebook's code cells, and what the file holds besides them."""

    cells: tuple[Cell, ...]
    language: str  # the kernel's language: only Python notebooks are run
    # Why its metadata keeps it from being run (nbsphinx's ``"execute": "never"``); "": it does not.
    not_run: str = ""
    platforms: tuple[str, ...] = ()  # those its metadata's ``jaxcheck`` entry names (empty: any)


def read_notebook(text: str) -> Notebook:
    """The code cells of a notebook's JSON text; NotebookError when it is not one."""
    # Imported here: nbformat brings jsonschema, a tenth of a second every build would pay,
    # notebooks or not.
    import nbformat

    try:
        node = nbformat.reads(text, as_version=nbformat.NO_CONVERT)
    except Exception as error:  # nbformat raises JSON, validation and version errors alike
        raise NotebookError(f"not a notebook nbformat can read ({error})") from error
    if node.get("nbformat") != 4:
        raise NotebookError(f"nbformat {node.get('nbformat')}; expected version 4")
    lines = source_lines(text)
    metadata = node.get("metadata", {})
    defaults = _metadata_options(metadata.get("jaxcheck", {}))
    cells = []
    for index, cell in enumerate(node.cells):
        if cell.get("cell_type") != "code":
            continue
        cells.append(_cell(index, cell, lines.get(index, 1), defaults))
    nbsphinx = metadata.get("nbsphinx")
    never = isinstance(nbsphinx, Mapping) and nbsphinx.get("execute") == "never"
    return Notebook(
        tuple(cells),
        _language(node),
        'excluded from execution by its metadata: nbsphinx "execute": "never"' if never else "",
        _platforms(defaults),
    )


def _platforms(defaults: _Options) -> tuple[str, ...]:
    """The platforms a notebook's metadata names; none when it names none, or badly (its cells
    report that)."""
    try:
        return conditions.platforms(str(defaults.values["platforms"]))
    except (KeyError, ValueError):
        return ()


def excluding_pattern(paths: Sequence[str], patterns: Sequence[str]) -> str | None:
    """The first of ``patterns`` that matches one of ``paths`` (a notebook's, and its jupytext
    twin's), as MyST-NB matches ``nb_execution_excludepatterns``: a glob matched from the
    right of the file's path (``PurePosixPath.match``); None when none does."""
    for pattern in patterns:
        if any(PurePosixPath(path.replace(os.sep, "/")).match(pattern) for path in paths):
            return pattern
    return None


def read_text_notebook(node: Any, source_map: Sequence[int], text: str) -> Notebook:
    """The code cells of a MyST text notebook as MyST-NB reads it (``node``, with the line of
    each cell's fence in ``source_map``), each with the output block written after it."""
    lines = text.splitlines()
    defaults = _metadata_options(node.get("metadata", {}).get("jaxcheck", {}))
    cells = []
    for index, cell in enumerate(node.cells):
        if cell.get("cell_type") != "code":
            continue
        close = _closing_fence(lines, source_map[index] - 1)
        body = str(cell.get("source", "")).split("\n") if cell.get("source") else []
        first = close - len(body) + 1 if body else source_map[index]
        found = _cell(index, cell, first, defaults)
        cells.append(replace(found, written=_output_block(lines, close + 1)))
    return Notebook(tuple(cells), _language(node))


def _closing_fence(lines: Sequence[str], opening: int) -> int:
    """The 0-based line closing the fence opened at ``opening`` (the file's end if none)."""
    fence = _FENCE.match(lines[opening])
    mark = fence.group(2) if fence else "```"
    for number in range(opening + 1, len(lines)):
        found = _FENCE.match(lines[number])
        if found and not found.group(3).strip() and found.group(2).startswith(mark):
            return number
    return len(lines)


def _output_block(lines: Sequence[str], start: int) -> Written | None:
    """The ``{jaxcheck-output}`` block starting at 0-based line ``start`` (blank lines before
    it skipped), or None."""
    number = start
    while number < len(lines) and not lines[number].strip():
        number += 1
    if number >= len(lines) or not OUTPUT_FENCE.match(lines[number]):
        return None
    close = _closing_fence(lines, number)
    return Written(tuple(lines[number + 1 : close]), number + 2)


def _language(node: Any) -> str:
    metadata = node.get("metadata", {})
    found = metadata.get("kernelspec", {}).get("language") or metadata.get("language_info", {}).get(
        "name", "python"
    )
    return str(found)


def _cell(index: int, cell: Mapping[str, Any], line: int, defaults: _Options) -> Cell:
    source = cell.get("source", "")
    source = "".join(source) if isinstance(source, list) else str(source)
    own = _metadata_options(cell.get("metadata", {}).get("jaxcheck", {}))
    values = {**defaults.values, **own.values}
    markers = _markers(cell.get("metadata", {}).get("tags", ()), source)
    raises = markers.get("raises", False)
    if markers.get("skip"):
        values["output"] = OutputMode.SKIP.value
    elif "check" in markers:
        values["output"] = (OutputMode.CHECK if markers["check"] else OutputMode.IGNORE).value
    spec = _spec()
    converted = {name: spec[name](str(value)) for name, value in values.items()}
    problems = (
        *defaults.problems,
        *own.problems,
        *(bad.message("jaxcheck") for bad in bad_options(converted)),
    )
    images = converted.pop("images", "")
    options = block_options({k: v for k, v in converted.items() if not isinstance(v, BadOption)})
    if "platforms" in converted and not isinstance(converted["platforms"], BadOption):
        options = replace(options, limits=replace(options.limits, platforms=converted["platforms"]))
    outputs = cell.get("outputs", [])
    ran = bool(outputs) or cell.get("execution_count") is not None
    return Cell(
        index,
        source,
        line,
        tuple(stored_output(o) for o in outputs) if ran else None,
        options,
        raises,
        tuple(problems),
        images="" if isinstance(images, BadOption) else images,
        changes_environment=_changes_environment(source),
    )


def _changes_environment(source: str) -> str:
    """The first line of a cell's code that installs or removes packages ("": none)."""
    found = _CHANGES_ENVIRONMENT.search(source)
    return found.group(0).strip() if found else ""


@dataclass(frozen=True)
class LeftOut:
    """A cell's code as it runs without its lines that change the environment."""

    code: str  # each such line ``pass``, its continuation lines blank: every line keeps its number
    lines: str  # those lines, in words: ``line 1: %pip install -q optax``


def without_environment(source: str) -> LeftOut | None:
    """A cell's code without its lines that install or remove packages, as IPython reads
    lines: each a line of the cell's top level (unindented, in no string or brackets, not
    continuing the line before), with the lines its trailing backslashes continue it on.
    None when the cell cannot run without them: it holds nothing else (but comments), one is
    not such a line (say, under an ``if``), or it is the body of a cell magic (``%%capture``).
    """
    lines = source.split("\n")
    if source.lstrip().startswith("%%"):
        return None
    code = list(lines)
    cut: dict[int, str] = {}  # 0-based line: the command it starts, its continuations joined
    number = 0
    while number < len(lines):
        found = _CHANGES_ENVIRONMENT.fullmatch(lines[number])
        if found and lines[number][:1].isspace():
            return None
        if found:
            first = number
            code[number] = _LEFT_OUT
            while lines[number].endswith("\\") and number + 1 < len(lines):
                number += 1
                code[number] = ""
            joined = (line.removesuffix("\\").strip() for line in lines[first : number + 1])
            cut[first] = " ".join(joined)
        number += 1
    rest = (line.strip() for n, line in enumerate(code) if n not in cut)
    if not cut or not any(line and not line.startswith("#") for line in rest):
        return None
    if not _statements_at(code, {n + 1 for n in cut}):
        return None
    words = "; ".join(f"line {n + 1}: {command}" for n, command in cut.items())
    return LeftOut("\n".join(code), words)


def _statements_at(code: Sequence[str], wanted: set[int]) -> bool:
    """Whether each of the ``wanted`` 1-based lines of ``code`` (each ``pass``) starts a
    statement of its top level. Python's tokenizer finds strings and brackets; IPython's
    other escaped lines (``!ls``, ``%time f()``) read as statements for it."""
    probe = [
        line[: len(line) - len(line.lstrip())] + _LEFT_OUT
        if line.lstrip().startswith(("!", "%"))
        else line
        for line in code
    ]
    found = set()
    depth = 0
    before = tokenize.ENCODING
    try:
        for token in tokenize.generate_tokens(io.StringIO("\n".join(probe) + "\n").readline):
            if (
                token.start[0] in wanted
                and token.start[1] == 0
                and token.string == _LEFT_OUT
                and depth == 0
                and before in _STATEMENT_ENDS
            ):
                found.add(token.start[0])
            if token.type == tokenize.OP and token.string in ("(", "[", "{"):
                depth += 1
            elif token.type == tokenize.OP and token.string in (")", "]", "}"):
                depth -= 1
            before = token.type
    except (tokenize.TokenError, SyntaxError):  # an unclosed string or bracket, a bad dedent
        return False
    return found == wanted


@dataclass(frozen=True)
class _Options:
    values: dict[str, Any]
    problems: tuple[str, ...]


def _metadata_options(found: Any) -> _Options:
    """The options a ``jaxcheck`` metadata entry sets, and what is wrong with it."""
    if not isinstance(found, Mapping):
        return _Options({}, (f"metadata 'jaxcheck' is {found!r}; expected a mapping of options",))
    known = {name: value for name, value in found.items() if name in CELL_OPTIONS}
    unknown = sorted(set(found) - set(CELL_OPTIONS))
    problems = tuple(
        f"metadata 'jaxcheck' has no option {name!r}"
        + (f"; did you mean {guess!r}?" if (guess := closest(name, CELL_OPTIONS)) else "")
        + f" Expected one of {', '.join(CELL_OPTIONS)}"
        for name in unknown
    )
    if isinstance(known.get("platforms"), list):
        known["platforms"] = ",".join(map(str, known["platforms"]))
    return _Options(known, problems)


def _spec() -> StrictOptionSpec:
    spec = block_option_spec()
    own = {"images": _images}
    return StrictOptionSpec({name: own.get(name) or spec[name] for name in CELL_OPTIONS})


def _images(value: str | None) -> str | BadOption:
    text = (value or "").strip()
    try:
        image_rule(text)
    except ValueError:
        # A misspelt name is guessed at; a bad tolerance after "rms:" is its own mistake.
        guess = None if ":" in text else closest(text, IMAGES[:3])
        return BadOption("images", value, IMAGES_EXPECTED, guess)
    return text


def image_rule(text: str) -> ImageRule | None:
    """The rule an ``images`` value names (None for ``"ignore"``); ValueError when it names
    none."""
    name, colon, tolerance = text.strip().partition(":")
    if not colon and name in ("ignore", "compare"):
        return ImageRule() if name == "compare" else None
    if name == "rms":
        try:
            value = float(tolerance) if colon else RMS_TOLERANCE
        except ValueError:
            value = math.nan
        if math.isfinite(value) and value >= 0:
            return ImageRule(value)
    raise ValueError(f"{text!r} is not {IMAGES_EXPECTED}")


def _markers(tags: Any, source: str) -> dict[str, bool]:
    """The options nbval's markers set (``check``, ``raises``, ``skip``), as nbval reads
    them: its tags in order, then every comment line of the cell, the last one winning."""
    found: dict[str, bool] = {}
    for tag in tags if isinstance(tags, list) else ():
        if str(tag) in NBVAL_TAGS:
            kind, value = NBVAL_TAGS[str(tag)]
            found[kind] = value
    for line in source.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            comment = stripped.lstrip("#").strip()
            if comment in NBVAL_COMMENTS:
                kind, value = NBVAL_COMMENTS[comment]
                found[kind] = value
    return found


def stored_output(output: Mapping[str, Any]) -> CellOutput:
    """One output as the notebook stores it."""
    kind = str(output.get("output_type", ""))
    if kind == "stream":
        return CellOutput(kind, str(output.get("name", "")), _joined(output.get("text", "")))
    if kind == "error":
        return CellOutput(
            kind,
            str(output.get("ename", "")),
            str(output.get("evalue", "")),
            (),
            tuple(map(str, output.get("traceback", ()))),
        )
    # By MIME type, as nbformat writes them: an output reads back as it was written.
    data = tuple(
        sorted(
            (str(mime), _mime_text(mime, value)) for mime, value in output.get("data", {}).items()
        )
    )
    plain = next((text for mime, text in data if mime == "text/plain"), "")
    metadata = output.get("metadata") or {}
    return CellOutput(
        kind, "", plain, data, (), json.dumps(metadata, sort_keys=True) if metadata else ""
    )


def _mime_text(mime: str, value: Any) -> str:
    """One MIME type's data as text: JSON as JSON, a text as one string."""
    if mime.endswith("json"):
        return json.dumps(value)
    return _joined(value)


def _joined(text: Any) -> str:
    """nbformat's multiline strings: a string, or a list of lines."""
    return "".join(text) if isinstance(text, list) else str(text)


@dataclass(frozen=True)
class Span:
    """Where one value of a cell stands in the notebook's text (character offsets)."""

    start: int
    stop: int
    first: int  # a list's first item (where nbformat writes a source's first line); else start


def cell_spans(text: str) -> dict[int, dict[str, Span]]:
    """For each cell of a notebook's JSON text (by index), where each of its values stands.

    JSON parsers keep no positions, so this walks the text: the top-level ``cells`` array and
    the values of each cell. ValueError when the text is no JSON object with such an array.
    """
    return _Walker(text).cells()


def source_lines(text: str) -> dict[int, int]:
    """For each cell of a notebook's JSON text, the 1-based line its source starts on."""
    try:
        spans = cell_spans(text)
    except (IndexError, ValueError):  # nbformat read it, so this is only a layout we miss
        return {}
    return {
        index: text.count("\n", 0, values["source"].first) + 1
        for index, values in spans.items()
        if "source" in values
    }


class _Walker:
    """Just enough of a JSON reader to find where values start and end."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0
        self.decoder = json.JSONDecoder()

    def cells(self) -> dict[int, dict[str, Span]]:
        found: dict[int, dict[str, Span]] = {}
        for key in self._keys():
            if key == "cells":
                self._cells(found)
            else:
                self._skip()
        return found

    def _keys(self) -> Iterator[str]:
        """The keys of the object starting here, each with the position at its value."""
        self._space()
        self._expect("{")
        while True:
            self._space()
            if self._peek() == "}":
                self.at += 1
                return
            key = self._string()
            self._space()
            self._expect(":")
            self._space()
            yield key
            self._space()
            if self._peek() == ",":
                self.at += 1

    def _cells(self, found: dict[int, dict[str, Span]]) -> None:
        self._expect("[")
        index = 0
        while True:
            self._space()
            if self._peek() == "]":
                self.at += 1
                return
            values: dict[str, Span] = {}
            for key in self._keys():
                start = first = self.at
                if self._peek() == "[":
                    self.at += 1
                    self._space()
                    first = self.at if self._peek() != "]" else start
                    self.at = start
                self._skip()
                values[key] = Span(start, self.at, first)
            found[index] = values
            index += 1
            self._space()
            if self._peek() == ",":
                self.at += 1

    def _skip(self) -> None:
        _, self.at = self.decoder.raw_decode(self.text, self.at)

    def _string(self) -> str:
        value, self.at = self.decoder.raw_decode(self.text, self.at)
        if not isinstance(value, str):
            raise ValueError("a key that is not a string")
        return value

    def _space(self) -> None:
        while self.at < len(self.text) and self.text[self.at] in " \t\r\n":
            self.at += 1

    def _peek(self) -> str:
        return self.text[self.at]

    def _expect(self, char: str) -> None:
        if self.text[self.at] != char:
            raise ValueError(f"expected {char!r} at {self.at}")
        self.at += 1


def ran_code(cell: Cell, environment: str) -> str:
    """The code a cell runs: without its lines that change the environment, unless
    ``environment`` is ``"run"`` (see :func:`notebook_blocks`)."""
    left_out = _left_out(cell, environment)
    return left_out.code if left_out else cell.source


def _left_out(cell: Cell, environment: str) -> LeftOut | None:
    if cell.changes_environment and environment != "run":
        return without_environment(cell.source)
    return None


def notebook_blocks(
    docname: str,
    path: str,
    notebook: Notebook,
    *,
    timeout: float,
    normalizers: tuple[str, ...],
    digest: str,
    first: int = 0,
    not_run: str = "",
    environment: str = "skip",
    floats_as_written: bool = False,
    tolerance: float | None = None,
    copy: str = "",
    update_refusal: str = "",
    images: str = "ignore",
    twins: Sequence[str] = (),
) -> list[Block]:
    """A notebook's code cells as the blocks of one session, in order, numbered from
    ``first`` (after the page's other blocks); ``not_run`` says why none of them runs (the
    notebook's own reason, from its metadata, is taken when it is ""). A cell that changes
    the environment (``%pip install``) runs without those lines (what it stores is then
    compared only when it stores no output), or not at all when it cannot
    (:func:`without_environment`), unless ``environment`` is ``"run"``;
    ``floats_as_written``: floats compare to their written precision (doctest's NUMBER);
    ``tolerance``: the relative tolerance of numbers where neither the cell nor its notebook
    sets one.
    ``copy``: the page the build read, a copy of the notebook at ``path``;
    ``update_refusal``: why update must not rewrite any of its cells ("": it may);
    ``images``: how images are compared where neither the cell nor its notebook says;
    ``twins``: each cell's ``file:line`` in the notebook's jupytext twin (empty: none)."""
    blocks = []
    for number, cell in enumerate(notebook.cells):
        own = ""
        left_out = _left_out(cell, environment)
        if cell.changes_environment and environment != "run" and left_out is None:
            own = (
                f"changes the environment ({cell.changes_environment}): set "
                f'{ENVIRONMENT_SETTING} = "run" in conf.py to run such cells'
            )
        program = Program(
            ran_code(cell, environment),
            f"{path}:cell {cell.index}",
            timeout=cell.options.timeout or timeout,
        )
        options = replace(cell.options, session=SESSION)
        if options.tolerance is None:
            options = replace(options, tolerance=tolerance)
        if left_out and cell.stored and options.output is OutputMode.CHECK:
            # What it stores may hold what the lines left out printed: nothing is compared.
            options = replace(options, output=OutputMode.IGNORE)
        blocks.append(
            Block(
                docname=docname,
                index=first + number,
                path=path,
                body_line=cell.line,
                body=tuple(cell.source.splitlines()),
                options=options,
                expectations=(),
                program=program,
                error=f"not run: {'; '.join(cell.problems)}" if cell.problems else None,
                file_digest=digest,
                error_line=1,
                error_subtype=Subtype.OPTION,
                update_refusal=update_refusal,
                kind=NotebookCell(
                    cell.index,
                    cell.stored,
                    cell.raises,
                    normalizers,
                    cell.written.lines if cell.written else None,
                    cell.written.first if cell.written else 0,
                    images=image_rule(cell.images or images),
                    not_run=not_run or notebook.not_run or own,
                    notebook_platforms=notebook.platforms,
                    number=floats_as_written,
                    copy=copy,
                    left_out=left_out.lines if left_out else "",
                    twin=twins[number] if twins else "",
                ),
                placed=False,
            )
        )
    return blocks
