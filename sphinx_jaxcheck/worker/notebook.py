"""Run a notebook's code cells as Jupyter runs them, recording each cell's outputs as
nbformat stores them.

The cells run in an IPython shell, so a notebook's semantics are IPython's own, not ours
imitating them: the value of a cell's last expression is shown unless a ``;`` ends it,
``display()``, magics (``%timeit``, ``!cmd``), figures shown by matplotlib's inline backend.
What a kernel would send to the notebook is recorded here instead: streams, results,
displays and errors, in order. IPython is imported only here and only in the child that
runs a notebook (the workers' Python must have it; the message says so when it has not).
"""

from __future__ import annotations

import builtins
import contextlib
import dataclasses
import getpass
import importlib.util
import io
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import Any

from ..model import CellOutput, FailureKind, Outcome, Program
from .runner import Capture, OutputLimitExceeded, SessionRunner
from .streams import as_jupyter_stores

# Figures are shown as a notebook shows them (a PNG, and the figure's repr as text) when
# matplotlib's inline backend is there; the project's MPLBACKEND, if any, wins.
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"
MISSING_IPYTHON = (
    "not run: notebook cells run in IPython, which the workers' Python ({python}) lacks; "
    "install it there (pip install ipython)"
)


class _Displays:
    """Where each display id was shown, over the whole notebook: showing or updating a
    display updates every output shown with its id, in whichever cell (as nbclient does)."""

    def __init__(self) -> None:
        self.shown: dict[str, list[tuple[_Outputs, int]]] = {}  # id -> (a cell's outputs, index)
        self.revised: list[_Outputs] = []  # earlier cells' outputs changed since last taken

    def forget(self, outputs: _Outputs) -> None:
        """A cell's outputs were cleared: its displays are gone."""
        for places in self.shown.values():
            places[:] = [(where, index) for where, index in places if where is not outputs]


class _Outputs:
    """A cell's outputs as nbclient stores them from a kernel's messages: a stream's
    consecutive writes merged into one output (as Jupyter merges them), ``clear_output``
    (now, or with ``wait`` before the next output), and a display with an id updated in
    place."""

    def __init__(self, displays: _Displays | None = None) -> None:
        self.items: list[CellOutput] = []
        self.displays = displays if displays is not None else _Displays()
        self.clear_pending = False  # clear_output(wait=True): before the next output

    def clear(self, wait: bool) -> None:
        if wait:
            self.clear_pending = True
        else:
            self.items.clear()
            self.displays.forget(self)

    def _next_output(self) -> None:
        if self.clear_pending:
            self.clear(wait=False)
            self.clear_pending = False

    def stream(self, name: str, text: str) -> None:
        if not text:
            return
        self._next_output()
        last = self.items[-1] if self.items else None
        if last is not None and last.output_type == "stream" and last.name == name:
            self.items[-1] = CellOutput("stream", name, last.text + text)
        else:
            self.items.append(CellOutput("stream", name, text))

    def mime(
        self,
        output_type: str,
        data: dict[str, Any],
        metadata: Any = None,
        shows: str = "",
        display_id: str | None = None,
        update: bool = False,
    ) -> None:
        texts = tuple(
            sorted(
                (kind, value if isinstance(value, str) else json.dumps(value))
                for kind, value in data.items()
            )
        )
        plain = next((text for kind, text in texts if kind == "text/plain"), "")
        shown = json.dumps(metadata, sort_keys=True) if metadata else ""
        output = CellOutput(output_type, "", plain, texts, (), shown, shows)
        if display_id is not None:
            # Every output shown with this id takes the new data; an update adds none.
            for where, index in self.displays.shown.get(display_id, ()):
                kind = where.items[index].output_type
                where.items[index] = dataclasses.replace(output, output_type=kind)
                if where is not self and where not in self.displays.revised:
                    self.displays.revised.append(where)
            if update:
                return
        self._next_output()
        if display_id is not None:
            self.displays.shown.setdefault(display_id, []).append((self, len(self.items)))
        self.items.append(output)

    def error(self, name: str, message: str, traceback: list[str]) -> None:
        self._next_output()
        self.items.append(CellOutput("error", name, message, (), tuple(traceback)))

    def stored(self) -> tuple[CellOutput, ...]:
        """The outputs as the notebook stores them (a stream's overwritten text gone)."""
        return tuple(
            dataclasses.replace(item, text=as_jupyter_stores(item.text))
            if item.output_type == "stream"
            else item
            for item in self.items
        )


class _Stream(Capture):
    """``sys.stdout`` or ``sys.stderr`` of a cell: what it writes becomes a stream output;
    both streams count towards one output limit."""

    def __init__(self, name: str, outputs: Callable[[], _Outputs], shared: _Budget) -> None:
        super().__init__(shared.limit)
        self.name = name
        self.outputs = outputs
        self.shared = shared

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self.shared.spend(len(text))
        self.outputs().stream(self.name, text)
        return len(text)


class _Budget:
    """The characters a cell may still print, over both streams."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
        self.exceeded = False

    def spend(self, count: int) -> None:
        self.used += count
        if self.used > self.limit:
            self.exceeded = True
            raise OutputLimitExceeded


def type_name(value: object) -> str:
    """The type of a shown value, as the judge reads it: ``matplotlib.text.Text``; a list or
    tuple whose items are all of one type names it too (``list[matplotlib.lines.Line2D]``)."""

    def name(kind: type) -> str:
        module = kind.__module__
        return kind.__qualname__ if module == "builtins" else f"{module}.{kind.__qualname__}"

    found = name(type(value))
    if isinstance(value, (list, tuple)) and value:
        items = {type(item) for item in value}
        if len(items) == 1:
            found += f"[{name(items.pop())}]"
    return found


def _shell_class() -> Any:
    """IPython's shell, its display hook, display publisher, display formatter and compiler
    made to record what a kernel would send (ipykernel subclasses the same)."""
    from IPython.core.compilerop import CachingCompiler
    from IPython.core.displayhook import DisplayHook
    from IPython.core.displaypub import DisplayPublisher
    from IPython.core.formatters import DisplayFormatter
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets import Type

    class Hook(DisplayHook):
        def write_output_prompt(self) -> None:
            pass

        def write_format_data(self, format_dict: Any, md_dict: Any = None) -> None:
            shell: Any = self.shell
            shows = shell.display_formatter.take_shown()
            shell.cell_outputs.mime("execute_result", format_dict, md_dict, shows)

        def finish_displayhook(self) -> None:
            self._is_active = False

    class Publisher(DisplayPublisher):
        def publish(self, data: Any, metadata: Any = None, *args: Any, **kwargs: Any) -> None:
            transient = kwargs.get("transient") or {}
            self.shell.cell_outputs.mime(
                "display_data",
                data,
                metadata,
                self.shell.display_formatter.take_shown(),
                transient.get("display_id"),
                bool(kwargs.get("update")),
            )

        def clear_output(self, wait: bool = False) -> None:
            self.shell.cell_outputs.clear(wait)

    class Formatter(DisplayFormatter):
        # Both a result and display() are formatted here first: the type of the value is
        # kept for the output published next (a matplotlib object's repr is judged as one).
        shown = ""  # the type of the value formatted last, until its output is published

        def format(self, obj: Any, include: Any = None, exclude: Any = None) -> Any:  # noqa: V107 - IPython's signature
            self.shown = type_name(obj)
            return super().format(obj, include, exclude)  # type: ignore[no-untyped-call]

        def take_shown(self) -> str:
            shown, self.shown = self.shown, ""
            return shown

    class Compiler(CachingCompiler):
        # A cell's code is named after its notebook and cell, so tracebacks and the
        # session's record of what it used say which cell it was.
        filename = "<cell>"

        def get_code_name(self, raw_code: str, transformed_code: str, number: int) -> str:  # noqa: V107 - IPython's signature
            return self.filename

    class Shell(InteractiveShell):
        displayhook_class = Type(Hook)
        display_pub_class = Type(Publisher)
        compiler_class = Type(Compiler)
        cell_outputs = _Outputs()

        def init_display_formatter(self) -> None:
            self.display_formatter = Formatter(parent=self)
            self.configurables.append(self.display_formatter)  # type: ignore[arg-type]

        def _showtraceback(self, etype: Any, evalue: Any, stb: list[str]) -> None:
            self.cell_outputs.error(etype.__name__, str(evalue), stb)

    return Shell


def _new_shell(namespace: dict[str, Any]) -> Any:
    """A shell of its own for this session: no history file, no colours, no profile of the
    user's (a notebook's outputs must not depend on who runs it)."""
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.enabled = False  # kept in memory (``;`` reads the last input there)
    config.InteractiveShell.colors = "nocolor"
    config.InteractiveShell.autocall = 0
    if importlib.util.find_spec("matplotlib_inline") is not None:
        os.environ.setdefault("MPLBACKEND", INLINE_BACKEND)
    # IPython makes a profile folder; not in the user's home, and none of theirs is read.
    folder = os.path.join(tempfile.gettempdir(), "jaxcheck-ipython")
    return _shell_class().instance(ipython_dir=folder, config=config, user_ns=namespace)


class NotebookRunner(SessionRunner):
    """Runs a notebook's cells, in order, in one IPython shell."""

    def __init__(self, output_limit: int, namespace: dict[str, Any] | None = None) -> None:
        super().__init__(output_limit, namespace)
        self.shell = _new_shell(self.namespace)
        # The builtins a cell starts with are a notebook's (``display``, ``get_ipython``), and
        # asking for input fails as in a kernel whose frontend has no stdin (nbclient's).
        self.user_builtins = dict(vars(builtins))
        self.user_builtins["input"] = _no_input
        getpass.getpass = _no_getpass
        self.displays = _Displays()
        self.runs: list[_Outputs] = []  # each cell's outputs, in the order the cells ran

    def take_revised(self) -> dict[int, tuple[CellOutput, ...]]:
        revised = {
            number: outputs.stored()
            for number, outputs in enumerate(self.runs)
            if outputs in self.displays.revised
        }
        self.displays.revised.clear()
        return revised

    def _run(self, program: Program) -> Outcome:
        started = time.perf_counter()
        outputs = _Outputs(self.displays)
        self.runs.append(outputs)
        self.shell.cell_outputs = outputs
        self.shell.compile.filename = program.filename
        budget = _Budget(self.output_limit)
        saved = sys.stdout, sys.stderr
        sys.stdout = _Stream("stdout", lambda: outputs, budget)
        sys.stderr = _Stream("stderr", lambda: outputs, budget)
        raised: BaseException | None = None
        failure: FailureKind | None = None
        message = ""
        try:
            with self._users_turn(None):
                result = self.shell.run_cell(program.code, store_history=True)
            raised = result.error_before_exec or result.error_in_exec
        except OutputLimitExceeded:
            pass
        finally:
            sys.stdout, sys.stderr = saved
        if budget.exceeded:
            failure = FailureKind.OUTPUT_LIMIT
            message = f"the cell printed more than {self.output_limit // (1024 * 1024)} MB"
        exception = self._describe(raised, program.raises) if raised is not None else None
        if exception is not None and exception.out_of_memory and failure is None:
            failure = FailureKind.OUT_OF_MEMORY
            message = exception.traceback
        stored = outputs.stored()
        return Outcome(
            stdout="".join(o.text for o in stored if o.output_type == "stream"),
            exception=exception,
            failure=failure,
            message=message,
            seconds=time.perf_counter() - started,
            outputs=stored,
        )


def _no_input(prompt: str = "") -> str:
    """``input()`` in a kernel whose frontend sends no input (ipykernel's words)."""
    from IPython.core.error import StdinNotImplementedError

    raise StdinNotImplementedError(
        "raw_input was called, but this frontend does not support input requests."
    )


def _no_getpass(prompt: str = "Password: ", stream: Any = None) -> str:
    """``getpass.getpass()`` in a kernel whose frontend sends no input (ipykernel's words)."""
    from IPython.core.error import StdinNotImplementedError

    raise StdinNotImplementedError(
        "getpass was called, but this frontend does not support input requests."
    )


def notebook_runner(output_limit: int, namespace: dict[str, Any] | None) -> SessionRunner:
    """The runner of a notebook session; ImportError (with what to do) without IPython."""
    if importlib.util.find_spec("IPython") is None:
        raise ImportError(MISSING_IPYTHON.format(python=sys.executable))
    with _quiet_warnings():
        return NotebookRunner(output_limit, namespace)


@contextlib.contextmanager
def _quiet_warnings() -> Iterator[None]:
    """IPython's start may warn (about its folder, say); that is not a cell's output."""
    saved = sys.stderr
    sys.stderr = io.StringIO()
    try:
        yield
    finally:
        sys.stderr = saved
