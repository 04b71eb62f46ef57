"""The things that travel between the stages: blocks, expectations, results, verdicts.

Everything here is plain data (frozen dataclasses of str, int and tuples), so it
pickles into Sphinx's environment, crosses process boundaries as JSON, and is
easy to build by hand in unit tests.
"""

from __future__ import annotations

import enum
import os
from dataclasses import dataclass
from typing import ClassVar

from .errors import ShardError

# Seconds a block may run (jaxcheck_timeout, :timeout:, ``# jaxcheck: timeout``). A limit for a
# stuck block, not a judge of speed: real examples (a ResNet initialised in a docstring) take
# minutes on a loaded machine, and a stuck one still ends well within a CI job.
DEFAULT_TIMEOUT = 600.0
DEFAULT_OUTPUT_LIMIT = 8 * 1024 * 1024  # bytes a block may print (jaxcheck_output_limit_mb)
# Variables of the workers (jaxcheck_env); read, never changed.
DEFAULT_ENV = {"JAX_PLATFORMS": "cpu"}
SessionKey = tuple[str, str]  # (docname, session name): blocks with one key share a namespace
# Beside the outcomes in the cache folder: how long each session took, to balance shards.
DURATIONS_FILE = "durations.tsv"


class OutputMode(enum.Enum):
    """What to do with a block's output (the ``:output:`` option)."""

    CHECK = "check"
    IGNORE = "ignore"
    SKIP = "skip"


class CompareMode(enum.Enum):
    """How expected and actual text are compared (the ``:compare:`` option)."""

    TEXT = "text"
    JAXPR = "jaxpr"


class ExpectationKind(enum.Enum):
    """The ways an expected output is written."""

    TRAILING = "trailing"  # the final run of ``#`` lines
    INLINE = "inline"  # ``print(x)  # expected``
    REPL = "repl"  # ``# >>> stmt`` inside the trailing block
    DOCTEST = "doctest"  # a body that starts with ``>>> ``
    CELL_OUTPUTS = "cell outputs"  # the outputs a notebook stores for a cell


class Subtype(enum.Enum):
    """Kinds of jaxcheck warnings (the part after ``jaxcheck.``)."""

    DRIFT = "drift"  # an expected output no longer matches what happens
    ERROR = "error"  # a block raised an exception it does not expect
    TIMEOUT = "timeout"  # a block ran longer than its timeout
    CRASH = "crash"  # a block killed its worker (signal, os._exit)
    MEMORY = "memory"  # a block ran out of memory (see jaxcheck_memory_limit_mb)
    OUTPUT = "output"  # a block printed more than the output limit
    RAISES = "raises"  # ``:raises:`` was not satisfied, or names no exception
    SYNTAX = "syntax"  # a block is not valid Python, is empty, or its fence is never closed
    ENCODING = "encoding"  # a source file that does not decode (left out of the build)
    OPTION = "option"  # an unknown option or a bad option value
    CITATION = "citation"  # a jaxsrc / jaxquote target or quote that does not hold
    NAME = "name"  # a ``jax.`` name in prose that the pinned jax does not have
    WORKER = "worker"  # the worker processes could not start
    UPDATE = "update"  # an expectation that ``update`` cannot or may not rewrite
    MATRIX = "matrix"  # a drift-history table whose saved matrix is missing or out of date
    SETTING = "setting"  # a ``jaxcheck_*`` name that is no setting (a typo): it does nothing
    DROPPED = "dropped"  # a warning that drops checks: autodoc could not import what a page shows


@dataclass(frozen=True)
class Limits:
    """Where a block applies: a PEP 440 specifier of jax versions, and platforms (empty: any)."""

    jax_version: str | None = None
    platforms: tuple[str, ...] = ()


@dataclass(frozen=True)
class BlockOptions:
    """The parsed options of one ``jaxcheck`` block."""

    name: str | None = None
    session: str | None = None
    raises: str | None = None
    output: OutputMode = OutputMode.CHECK
    compare: CompareMode = CompareMode.TEXT
    tolerance: float | None = None
    timeout: float | None = None
    hide: bool = False
    limits: Limits = Limits()

    def program(
        self,
        code: str,
        filename: str,
        *,
        inline_prints: tuple[tuple[int, int], ...] = (),
        examples: tuple[Example, ...] = (),
        default_timeout: float = DEFAULT_TIMEOUT,
    ) -> Program:
        """What a worker runs for this code: the options that reach the worker travel with it."""
        return Program(
            code,
            filename,
            inline_prints,
            examples,
            raises=self.raises,
            timeout=self.timeout or default_timeout,
        )


@dataclass(frozen=True)
class Expectation:
    """One expected output, and where its lines sit in the block body.

    ``first``/``stop`` index body lines (0-based, ``stop`` exclusive) holding the
    expected text; for an inline print both point at the print's last line.
    ``statement_line`` is the 1-based block line of the code that produces the
    output (the print call, the ``>>>`` statement), used to report drift.
    """

    kind: ExpectationKind
    expected: tuple[str, ...]
    first: int
    stop: int
    statement_line: int
    source: str = ""  # the statement, for REPL and doctest examples
    comment_column: int = -1  # where the ``#`` of an inline comment starts
    # Doctest examples: the parser's ``want`` and ``exc_msg``, and the option
    # flags in force (configured flags with the example's directives applied).
    want: str = ""
    exc_msg: str | None = None
    optionflags: int = 0
    skip: bool = False  # ``# doctest: +SKIP``: never run, never rewritten


@dataclass(frozen=True)
class Example:
    """A REPL or doctest statement run after the block body, doctest-style."""

    source: str
    line: int  # 1-based block line of the ``>>>``
    mode: str = "single"  # ``exec`` for a ``testcode`` snippet of several statements


@dataclass(frozen=True)
class Program:
    """What a worker runs for one block: nothing about expected outputs."""

    code: str
    filename: str
    inline_prints: tuple[tuple[int, int], ...] = ()  # (first, last) block lines
    examples: tuple[Example, ...] = ()
    raises: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    cwd: str = ""  # the folder it runs in: its document's (empty: wherever the worker is)
    # A docstring's examples: the module whose globals (a copy) their session starts from, as
    # pytest's doctests do. Empty: a fresh ``__main__`` namespace.
    module_globals: str = ""
    # ``>>>`` examples: the warning filters they run under (``jaxcheck_filterwarnings``, in
    # pytest's ``filterwarnings`` syntax). Empty: the interpreter's own filters.
    filterwarnings: tuple[str, ...] = ()
    # A docstring's examples: the docstring (as pytest names its doctest). A session holds a
    # module's docstrings, in one process as pytest runs them, and each starts in a fresh copy
    # of the module's globals with what the setup defined. Empty: the session's one namespace.
    namespace: str = ""


# The kinds of block. Each holds what its blocks need beyond the block itself, and says how
# reports name its blocks (``label``) and whether its examples are counted one by one
# (``doctest_style``); every other rule of a kind is in its module of :mod:`.kinds`.


@dataclass(frozen=True)
class Directive:
    """A ``jaxcheck`` block: its options and comments say what to expect."""

    #: Whether its ``>>>`` examples are judged as doctest judges them, and counted one by one
    #: (a block of such a kind is not counted as a block).
    doctest_style: ClassVar[bool] = False

    def label(self, block: Block) -> str:
        """How reports name its block: by its name, else by its place among its page's."""
        return block.options.name or f"{block.docname}[{block.index + 1}]"


@dataclass(frozen=True)
class _Examples:
    """A kind of ``>>>`` examples, judged as doctest judges them."""

    doctest_style: ClassVar[bool] = True

    def label(self, block: Block) -> str:
        """By its name, else by its file and the line its examples start at."""
        return _by_line(block)


@dataclass(frozen=True)
class PageExamples(_Examples):
    """``>>>`` examples a page already holds, or a ``sphinx.ext.doctest`` test, judged as
    doctest judges them."""


@dataclass(frozen=True)
class GroupCode(_Examples):
    """A ``sphinx.ext.doctest`` group's setup or cleanup code: it must print nothing, and
    when the setup fails the rest of its group does not run."""

    setup: bool


@dataclass(frozen=True)
class DocstringExamples(_Examples):
    """A docstring's ``>>>`` examples, run in a copy of its module's globals as
    ``pytest --doctest-modules`` runs them."""


@dataclass(frozen=True)
class FileExamples(_Examples):
    """The ``>>>`` examples of a text file ``jaxcheck_doctest_files`` names (a README beside
    the project): no page reads it, so the file is a session of its own, its whole text read
    as ``pytest --doctest-glob`` reads it, and judged as doctest judges them."""


@dataclass(frozen=True)
class MarkdownFence:
    """A Markdown page's ```` ```python ```` fence (an MkDocs page's): run as a script, its
    comments (and the ``<!-- jaxcheck: ... -->`` lines above it) say what to expect."""

    doctest_style: ClassVar[bool] = False

    def label(self, block: Block) -> str:
        """By its name, else by its page's file and the line its code starts at."""
        return _by_line(block)


def _by_line(block: Block) -> str:
    """A block named by its name, else by its file and the line its body starts at."""
    return block.options.name or f"{os.path.basename(block.path)}:{block.body_line}"


@dataclass(frozen=True)
class ImageRule:
    """How a notebook cell's images are compared with those it stores: by a digest of their
    bytes, or (``rms`` given) by their decoded pixels, as pytest-mpl compares figures: the
    root mean square of the difference of every pixel's channels (0 to 255) may be at most
    ``rms``."""

    rms: float | None = None


@dataclass(frozen=True)
class NotebookCell:
    """A notebook's code cell: it runs as Jupyter runs it (the value of its last expression
    shown, magics, ``display()``), and its outputs are compared with those the notebook stores.

    ``stored`` is None when the cell keeps no record of a run (no outputs and no execution
    count, as nbval decides): it runs, and nothing is compared. ``raises``: tagged
    ``raises-exception`` (or ``# NBVAL_RAISES_EXCEPTION``): an error it shows is no failure.
    """

    cell: int  # index in the notebook's ``cells`` list
    stored: tuple[CellOutput, ...] | None = None
    raises: bool = False
    normalizers: tuple[str, ...] = ()  # the noise removed before comparing (judge.notebooks)
    # A text notebook's cell: the lines of the output block written after it (None: none),
    # and the file line of its first.
    written: tuple[str, ...] | None = None
    written_line: int = 0
    twin: str = ""  # in a notebook with a jupytext twin: the twin's file:line of this cell
    images: ImageRule | None = None  # how its images are compared (None: they are not)
    # Why it is not run: its notebook is not run at all (excluded from execution by conf.py
    # or its metadata), or it changes the environment (``%pip install``); "" when it runs.
    not_run: str = ""
    # The platforms its notebook's metadata names (empty: any): elsewhere no cell of it runs.
    notebook_platforms: tuple[str, ...] = ()
    # Floats compare to the precision the stored outputs write them with, as doctest's
    # NUMBER compares them (``jaxcheck_notebooks_number``).
    number: bool = False
    # The page the build read, when it is a copy the build made of this cell's notebook (its
    # ``path``: the one file git tracks with the same bytes); "" when the page is the notebook.
    copy: str = ""
    # The lines it ran without, as they change the environment (``line 1: %pip install -q
    # optax``); "" when it runs whole. Where it stores outputs, they are not compared.
    left_out: str = ""

    doctest_style: ClassVar[bool] = False

    def label(self, block: Block) -> str:
        """By its notebook and index, and its line in the notebook's twin if it has one."""
        twin = f" ({self.twin})" if self.twin else ""
        return f"{os.path.basename(block.path)}:cell {self.cell}{twin}"


# What a block is: one of these kinds, each a type of its own (not flags on the block). The
# stages never ask which: :func:`.kinds.rules_of` gives a block's rules, and the stages below
# it are handed them.
BlockKind = (
    Directive
    | PageExamples
    | GroupCode
    | DocstringExamples
    | FileExamples
    | NotebookCell
    | MarkdownFence
)


@dataclass(frozen=True)
class Block:
    """One block of code a document holds, of one :data:`BlockKind`."""

    docname: str
    index: int  # position among the document's blocks
    path: str  # the real file the body lines come from
    body_line: int  # 1-based file line of the first body line
    body: tuple[str, ...]
    options: BlockOptions
    expectations: tuple[Expectation, ...]
    program: Program
    error: str | None = None  # a problem found while parsing (bad syntax, ...)
    file_digest: str = ""  # sha256 of the file when it was read (for update)
    error_line: int = 1  # block line ``error`` points at (<= 0: the directive line above the body)
    error_subtype: Subtype = Subtype.SYNTAX  # the kind of ``error``
    kind: BlockKind = Directive()
    update_refusal: str = ""  # why ``jaxcheck update`` must not rewrite this block, if so
    # False: the body is not written at ``path`` as it runs (a directive made it, or its
    # docstring was not found in its file); everything is reported at ``body_line``.
    placed: bool = True

    @property
    def label(self) -> str:
        """How reports name the block, as its kind says (a page's own examples: by the line
        they start at)."""
        return self.kind.label(self)

    @property
    def doctest_style(self) -> bool:
        """Whether its examples are judged as doctest judges them (every kind but a
        ``jaxcheck`` block, a Markdown fence and a notebook cell); then it is counted by its
        examples, not as a block."""
        return self.kind.doctest_style

    @property
    def session_key(self) -> SessionKey:
        """Blocks with the same key share one namespace, in document order."""
        return (self.docname, self.options.session or "")

    def file_line(self, block_line: int) -> int:
        """Turn a 1-based block line into a 1-based line of ``path``."""
        return self.body_line + block_line - 1 if self.placed else self.body_line


@dataclass(frozen=True)
class RaisedException:
    """An exception a block raised, as the worker saw it."""

    type_name: str  # as Python prints it: ``ValueError``, ``jax.errors.X``
    summary: str  # ``format_exception_only``: ``ExcType: message`` lines
    traceback: str  # the formatted traceback, our own frames removed
    matches_raises: bool | None = None  # is it an instance of ``:raises:``?
    raises_problem: str | None = None  # why ``:raises:`` could not be resolved
    out_of_memory: bool = False  # MemoryError, or XLA's RESOURCE_EXHAUSTED


class FailureKind(enum.Enum):
    """Ways a block can fail other than by producing other output."""

    EXCEPTION = "exception"
    TIMEOUT = "timeout"
    CRASH = "crash"
    OUTPUT_LIMIT = "output-limit"
    OUT_OF_MEMORY = "out-of-memory"
    NOT_RUN = "not-run"
    THREAD_OUTPUT = (
        "thread-output"  # a thread it started printed after it ended, or outlived its session
    )


@dataclass(frozen=True)
class CellOutput:
    """One output of a notebook cell, in nbformat's terms.

    ``output_type`` is nbformat's (``stream``, ``execute_result``, ``display_data``,
    ``error``); ``name`` a stream's (``stdout``, ``stderr``) or an error's class name
    (``ename``); ``text`` a stream's text, a result's ``text/plain`` or an error's message
    (``evalue``); ``data`` every MIME type a result or display holds, each as text (images in
    base64, JSON as JSON) and its ``metadata`` (JSON), for the page and ``jaxcheck update``.
    ``shows`` is the type of the value a fresh run's result or display showed (a notebook
    stores none): ``matplotlib.text.Text``, or ``list[matplotlib.lines.Line2D]`` for a list
    or tuple whose items are all of one type.
    """

    output_type: str
    name: str = ""
    text: str = ""
    data: tuple[tuple[str, str], ...] = ()
    traceback: tuple[str, ...] = ()
    metadata: str = ""  # a result's or display's metadata, as JSON (empty: none)
    shows: str = ""  # the shown value's type, as the worker saw it ("": not known)

    def mime(self, kind: str) -> str | None:
        """The text of one MIME type of a result or display, None when it has none."""
        return next((text for name, text in self.data if name == kind), None)


@dataclass(frozen=True)
class Outcome:
    """What really happened when a worker ran one block."""

    stdout: str = ""  # everything not captured by an inline print
    inline: tuple[tuple[int, str], ...] = ()  # (print's first line, its output)
    examples: tuple[str, ...] = ()  # doctest-style output of each example
    # Per example: the exception as doctest words it, None when none was raised.
    example_errors: tuple[str | None, ...] = ()
    exception: RaisedException | None = None
    failure: FailureKind | None = None
    message: str = ""  # for failures: what happened, in words
    seconds: float = 0.0
    outputs: tuple[CellOutput, ...] = ()  # a notebook cell's, in order (its stdout is there)

    def inline_output(self, line: int) -> str:
        """The output of the inline print starting at block ``line``."""
        return next((text for first, text in self.inline if first == line), "")


class Status(enum.Enum):
    """The verdict on one block; the values are the words every report uses."""

    VERIFIED = "verified"  # ran, and printed what its comments expect
    STALE = "stale"  # ran, and printed something else than expected
    FAILED = "failed"  # raised, timed out, crashed, or cannot run as written
    NOT_COMPARED = "not compared"  # ran, with nothing to compare (`:output: ignore`, no output)
    SKIPPED = "skipped"  # not run (`:output: skip`)
    OTHER_SHARD = "other-shard"  # its session runs on another shard (``jaxcheck check --shard``)

    @property
    def slug(self) -> str:
        """The value as a CSS class or identifier part."""
        return self.value.replace(" ", "-")


@dataclass(frozen=True)
class Drift:
    """One expectation whose text no longer matches what really happens."""

    expectation: Expectation
    actual: tuple[str, ...]
    diff: str  # unified diff, expected -> actual
    line: int  # 1-based file line to report at
    note: str = ""  # why it cannot be rewritten automatically, if so
    # A ``>>>`` example: what it printed, exactly (``actual`` is that less trailing blanks),
    # and the exception it raised as doctest words it (None: none); doctest compares these.
    printed: str | None = None
    raised: str | None = None


@dataclass(frozen=True)
class Problem:
    """A failure that is not drift: an exception, a timeout, a crash, bad input."""

    subtype: Subtype
    message: str
    line: int  # 1-based file line


@dataclass(frozen=True)
class Verdict:
    """The result of comparing one block's expectations with its outcome."""

    status: Status
    drifts: tuple[Drift, ...] = ()
    problems: tuple[Problem, ...] = ()
    actual_text: str = ""  # what the block printed, for the stale marker
    seconds: float = 0.0
    reason: str = ""  # why a skipped block did not run (its limits exclude this JAX)
    # ``>>>`` examples that failed by themselves (their source does not compile), each
    # reported by a problem of its own; the block's other examples keep their verdicts.
    failed_examples: tuple[Expectation, ...] = ()
    outputs: tuple[CellOutput, ...] = ()  # a notebook cell's, as it ran: what its page shows
    # A notebook cell that failed after an earlier cell of its notebook failed: that cell's
    # label (its finding lists this one); "" for any other verdict.
    after: str = ""
    # The first failed cell of a notebook: each later cell that failed too, in words
    # (``nb.ipynb:cell 4 (line 52): NameError: name 'x' is not defined``).
    followers: tuple[str, ...] = ()
    # A verified notebook cell of which some image, stored or shown, was not compared: its
    # text alone was verified, so no report calls it plainly verified.
    images_not_compared: bool = False


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"K/N"`` with 1 <= K <= N."""
        index, slash, count = str(text).partition("/")
        if not (slash and index.strip().isdigit() and count.strip().isdigit()):
            raise ShardError(f"shard {text!r} is not of the form K/N, e.g. 1/3")
        shard = cls(int(index), int(count))
        if not 1 <= shard.index <= shard.count:
            raise ShardError(f"shard {text!r}: K must be between 1 and N")
        return shard

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def session_name(key: SessionKey) -> str:
    """How durations name a session: the document, and ``::name`` for a named session."""
    docname, session = key
    return f"{docname}::{session}" if session else docname
