"""Run a session's blocks one after another in one namespace, capturing what each prints
(as Python runs a script, and doctest its examples), in the child that runs the session
(see ``session``). A notebook's runner (``notebook``) builds on this one.
"""

from __future__ import annotations
import __future__

import ast
import builtins
import codecs
import contextlib
import functools
import importlib
import io
import linecache
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from typing import Any

from ..model import (
    DEFAULT_OUTPUT_LIMIT,
    CellOutput,
    Example,
    FailureKind,
    Outcome,
    Program,
    RaisedException,
)
from .frames import hide_worker_frames
from .protocol import Step
from .warning_filters import applied, resolved

SLOT_NAME = "__jaxcheck_inline_print__"
LATE_KEPT = 4096  # characters kept of what a block's leftover threads print
# Builtins as they were before any block ran: our own code runs with these, so a
# block that monkeypatches ``len`` or ``print`` breaks only its own session.
PRISTINE_BUILTINS = dict(vars(builtins))
_len, _isinstance, _str, _type = len, isinstance, str, type


def _install_builtins(state: dict[str, Any]) -> None:
    namespace = vars(builtins)
    namespace.clear()
    namespace.update(state)


class OutputLimitExceeded(BaseException):
    """Raised into the block when it prints more than the limit.

    A BaseException so that ``except Exception`` in user code does not swallow it.
    """


class _BytesToText(io.RawIOBase):
    """``sys.stdout.buffer`` of a :class:`Capture`: bytes decoded as UTF-8 into its text."""

    def __init__(self, text: Capture) -> None:
        self.text = text
        self.decoder = codecs.getincrementaldecoder("utf-8")("replace")

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        chunk = bytes(data)
        self.text.write(self.decoder.decode(chunk))
        return _len(chunk)


class Capture(io.TextIOBase):
    """A stdout that sends text to the current slot and stops a flood.

    ``divert(text)`` may claim text first (output of threads of earlier blocks).
    """

    def __init__(self, limit: int, divert: Callable[[str], bool] | None = None) -> None:
        self.limit = limit
        self.used = 0
        self.slots: list[io.StringIO] = [io.StringIO()]
        self.exceeded = False
        self.divert = divert
        self.buffer = _BytesToText(self)

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not _isinstance(text, _str):
            raise TypeError(f"write() argument must be str, not {_type(text).__name__}")
        if self.divert is not None and self.divert(text):
            return _len(text)
        self.used += _len(text)
        if self.used > self.limit:
            self.exceeded = True
            raise OutputLimitExceeded
        return self.slots[-1].write(text)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        # A block that closes stdout must not break the next block's capture.
        pass

    @contextlib.contextmanager
    def slot(self) -> Iterator[io.StringIO]:
        """Send everything printed inside the ``with`` to a fresh buffer."""
        buffer = io.StringIO()
        self.slots.append(buffer)
        try:
            yield buffer
        finally:
            self.slots.pop()


class _InlinePrints(ast.NodeTransformer):
    """Wrap each annotated print statement in ``with SLOT(first_line):``."""

    def __init__(self, lines: set[int]) -> None:
        self.lines = lines

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        for field in ("body", "orelse", "finalbody"):
            statements = getattr(node, field, None)
            if isinstance(statements, list):
                setattr(node, field, [self._wrap(s) for s in statements])
        return node

    def _wrap(self, statement: Any) -> Any:
        if not isinstance(statement, ast.stmt) or statement.lineno not in self.lines:
            return statement
        call = ast.Call(
            func=ast.Name(SLOT_NAME, ast.Load()),
            args=[ast.Constant(statement.lineno)],
            keywords=[],
        )
        wrapped = ast.With(items=[ast.withitem(context_expr=call)], body=[statement])
        ast.copy_location(wrapped, statement)
        ast.fix_missing_locations(wrapped)
        return wrapped


class SessionRunner:
    """Runs the blocks of one session, in order, in one namespace."""

    def __init__(
        self, output_limit: int = DEFAULT_OUTPUT_LIMIT, namespace: dict[str, Any] | None = None
    ) -> None:
        self.namespace: dict[str, Any] = (
            {"__name__": "__main__", "__builtins__": builtins} if namespace is None else namespace
        )
        self.output_limit = output_limit
        self.user_builtins: dict[str, Any] | None = None  # as the last block left them
        # Threads still alive when the program that started them ended: thread id -> its step;
        # what they print later is theirs (``late``), not the running program's.
        self.thread_owner: dict[int, Step] = {}
        self.late: dict[Step, list[str]] = {}

    def _divert(self, text: str) -> bool:
        owner = self.thread_owner.get(threading.get_ident())
        if owner is None:
            return False
        kept = self.late.setdefault(owner, [])
        if (
            sum(map(_len, kept)) < LATE_KEPT
        ):  # a report quotes the start; a flood must not fill memory
            kept.append(text)
        return True

    def wait_for_threads(self, timeout_of: Callable[[Step], float]) -> dict[Step, float]:
        """At the end of a session, wait for the threads blocks left running, as Python does
        when a script ends.

        Runs the threading module's exit hooks (which end idle executor
        threads), then joins each non-daemon thread a block left running, for
        at most that block's timeout, capturing what it prints (see
        :meth:`take_late`). Daemon threads end with the session unwaited, as
        they end with a script. Returns, by block, the timeout its still-running
        threads were given (the limit, not the measured wait, which a loaded
        machine stretches).
        """
        for hook in reversed(
            getattr(threading, "_threading_atexits", [])
        ):  # private; absent: no executors to end
            with contextlib.suppress(Exception):
                hook()
        saved = sys.stdout
        sys.stdout = Capture(self.output_limit, self._divert)
        stuck: dict[Step, float] = {}
        started = time.monotonic()
        try:
            for thread in threading.enumerate():
                owner = self.thread_owner.get(thread.ident or 0)
                if owner is None or thread.daemon or thread is threading.current_thread():
                    continue
                thread.join(max(0.0, started + timeout_of(owner) - time.monotonic()))
                if thread.is_alive():
                    stuck[owner] = timeout_of(owner)
        finally:
            sys.stdout = saved
        return stuck

    def adopt_threads(self, before: set[threading.Thread], step: Step) -> None:
        """Threads started by the program at ``step`` that outlive it: their later output is
        theirs."""
        for thread in threading.enumerate():
            if thread not in before and thread.ident is not None:
                self.thread_owner.setdefault(thread.ident, step)

    def take_late(self) -> dict[Step, str]:
        """Output printed by threads after their program ended, by step, since the last call."""
        late = {step: "".join(parts) for step, parts in list(self.late.items()) if parts}
        for step in late:
            self.late[step] = []
        return late

    def take_revised(self) -> dict[int, tuple[CellOutput, ...]]:
        """The outputs of earlier runs (numbered from 0, in the order they ran) that a later
        one changed since the last call: a notebook's display updated by its id. None here."""
        return {}

    def run(self, program: Program) -> Outcome:
        """Run one block and return what happened; never raises."""
        return self._run(program)

    @contextlib.contextmanager
    def _users_turn(self, inline_print: Any) -> Iterator[None]:
        """Run user code with the builtins it left behind; ours run with pristine ones."""
        _install_builtins(self.user_builtins or PRISTINE_BUILTINS)
        setattr(builtins, SLOT_NAME, inline_print)
        try:
            yield
        finally:
            self.user_builtins = dict(vars(builtins))
            _install_builtins(PRISTINE_BUILTINS)

    def _run(self, program: Program) -> Outcome:
        hide_worker_frames()  # jax may have been imported by the previous block
        try:
            filters = resolved(program.filterwarnings)
        except LookupError as problem:
            return Outcome(failure=FailureKind.NOT_RUN, message=f"not run: {problem}")
        started = time.perf_counter()
        capture = Capture(self.output_limit, self._divert)
        inline: dict[int, io.StringIO] = {}

        @contextlib.contextmanager
        def inline_print(line: int) -> Iterator[None]:
            with capture.slot() as buffer:
                yield
            inline.setdefault(line, io.StringIO()).write(buffer.getvalue())

        turn = functools.partial(self._users_turn, inline_print)
        linecache.cache[program.filename] = (
            len(program.code),
            None,
            program.code.splitlines(keepends=True),
            program.filename,
        )
        saved = sys.stdout, sys.stderr, sys.displayhook
        sys.stdout = capture
        sys.displayhook = sys.__displayhook__
        raised: RaisedException | None = None
        examples: list[str] = []
        example_errors: list[str | None] = []
        failure: FailureKind | None = None
        message = ""
        try:
            with applied(filters):
                if program.code.strip():
                    raised = self._run_body(program, turn)
                if raised is None:
                    for example in program.examples:
                        printed, error = self._run_example(program, example, capture, turn)
                        examples.append(printed)
                        example_errors.append(error)
        except OutputLimitExceeded:
            failure = FailureKind.OUTPUT_LIMIT
            message = (
                f"the block printed more than {self.output_limit // (1024 * 1024)} MB "
                "and was stopped"
            )
        finally:
            sys.stdout, sys.stderr, sys.displayhook = saved
        if capture.exceeded and failure is None:
            failure = FailureKind.OUTPUT_LIMIT
            message = "the block printed more than the output limit (and caught the error)"
        if raised is not None and program.raises is None:
            failure, message = FailureKind.EXCEPTION, raised.traceback
        if raised is not None and raised.out_of_memory and not raised.matches_raises:
            failure, message = FailureKind.OUT_OF_MEMORY, out_of_memory_message(raised)
        return Outcome(
            stdout=capture.slots[0].getvalue(),
            inline=tuple((line, buffer.getvalue()) for line, buffer in sorted(inline.items())),
            examples=tuple(examples),
            example_errors=tuple(example_errors),
            exception=raised,
            failure=failure,
            message=message,
            seconds=time.perf_counter() - started,
        )

    def _run_body(self, program: Program, turn: Callable[[], Any]) -> RaisedException | None:
        try:
            tree = ast.parse(program.code, program.filename)
            tree = _InlinePrints({first for first, _ in program.inline_prints}).visit(tree)
            # dont_inherit: blocks run as plain Python, not under this module's __future__ imports
            # (``annotations`` would turn every annotation of a block into a string).
            code = compile(tree, program.filename, "exec", dont_inherit=True)
        except (SyntaxError, ValueError) as error:  # the reader checks first; never a lost worker
            return self._describe(error, program.raises)
        try:
            with turn():
                exec(code, self.namespace)
        except OutputLimitExceeded:
            raise
        except BaseException as error:  # SystemExit too is the block's doing
            return self._describe(error, program.raises)
        return None

    def _run_example(
        self, program: Program, example: Example, capture: Capture, turn: Callable[[], Any]
    ) -> tuple[str, str | None]:
        """What one example printed, and the exception it raised as doctest words it."""
        error_text: str | None = None
        with capture.slot() as buffer:
            try:
                tree: ast.Module | ast.Interactive
                if example.mode == "exec":
                    tree = ast.parse(example.source, program.filename, mode="exec")
                else:
                    tree = ast.parse(example.source, program.filename, mode="single")
                ast.increment_lineno(tree, example.line - 1)
                flags = future_flags(self.namespace)
                code = compile(tree, program.filename, example.mode, flags, dont_inherit=True)
                with turn():
                    exec(code, self.namespace)
            except OutputLimitExceeded:
                raise
            except BaseException as error:  # doctest shows any exception
                error_text = doctest_exception_text(error)
                # As doctest expects it: the header, then the exception as doctest compares
                # it; no frames.
                buffer.write(f"Traceback (most recent call last):\n{error_text}")
        return buffer.getvalue(), error_text

    def _describe(self, error: BaseException, raises: str | None) -> RaisedException:
        own = __file__
        frames = traceback.extract_tb(error.__traceback__)
        shown = traceback.StackSummary.from_list([f for f in frames if f.filename != own])
        text = "Traceback (most recent call last):\n" + "".join(shown.format())
        text += "".join(traceback.format_exception_only(type(error), error))
        summary = exception_summary(error)
        matches, problem = None, None
        if raises is not None:
            try:
                expected = resolve_exception_class(raises, self.namespace)
                matches = isinstance(error, expected)
            except LookupError as lookup:
                problem = str(lookup)
        return RaisedException(
            type_name=summary.split(":", 1)[0].strip(),
            summary=summary.rstrip("\n"),
            traceback=text.rstrip("\n"),
            matches_raises=matches,
            raises_problem=problem,
            out_of_memory=is_out_of_memory(error),
        )


def future_flags(namespace: dict[str, Any]) -> int:
    """The ``__future__`` features a namespace imported, which doctest compiles each example
    with (a module's ``from __future__ import annotations`` reaches its docstrings)."""
    flags = 0
    for name in __future__.all_feature_names:
        feature: __future__._Feature = getattr(__future__, name)
        if namespace.get(name) is feature:
            flags |= feature.compiler_flag
    return flags


def is_out_of_memory(error: BaseException) -> bool:
    """A failed allocation: Python's MemoryError, XLA's RESOURCE_EXHAUSTED, or C++'s bad_alloc.

    jaxlib passes a ``std::bad_alloc`` on as a RuntimeError, e.g. when the CPU
    backend cannot start for want of memory.
    """
    if _isinstance(error, MemoryError):
        return True
    try:
        text = _str(error)
    except Exception:  # a block's exception may fail to print itself
        return False
    return ("RESOURCE_EXHAUSTED" in text and "memory" in text.lower()) or "std::bad_alloc" in text


def out_of_memory_message(raised: RaisedException) -> str:
    """What a block that ran out of memory did, and what limits it."""
    limit = os.environ.get("JAXCHECK_MEMORY_LIMIT")
    if limit:
        cap = (
            f"each worker may use at most {int(limit) // (1024 * 1024)} MB "
            "(jaxcheck_memory_limit_mb); make the block smaller, or raise the limit"
        )
    else:
        cap = "the machine had no more to give; set jaxcheck_memory_limit_mb to bound each worker"
    return f"the block ran out of memory ({cap}):\n{raised.traceback}"


def exception_summary(error: BaseException) -> str:
    """``ExcType: message`` as Python prints it, without notes added to the exception.

    (JAX adds a note about its traceback filtering; it is not the message.)
    """
    kind = type(error)
    name = kind.__qualname__
    if kind.__module__ not in ("builtins", "__main__"):
        name = f"{kind.__module__}.{name}"
    try:
        message = str(error)
    except Exception:  # as Python's own traceback printer does
        message = "<exception str() failed>"
    return f"{name}: {message}" if message else name


def doctest_exception_text(error: BaseException) -> str:
    """The exception as doctest's runner compares it with an expected traceback.

    ``format_exception_only`` (with any notes); for a SyntaxError only from the
    ``ExcType:`` line on, as doctest leaves out the quoted code and caret.
    """
    lines = traceback.format_exception_only(type(error), error)
    if _isinstance(error, SyntaxError):
        kind = type(error)
        prefixes = (f"{kind.__qualname__}:", f"{kind.__module__}.{kind.__qualname__}:")
        start = next((i for i, line in enumerate(lines) if line.startswith(prefixes)), 0)
        lines = lines[start:]
    return "".join(lines)


def resolve_exception_class(name: str, namespace: dict[str, Any]) -> type[BaseException]:
    """Find the class ``:raises:`` names: a builtin, a name in the session, or dotted."""
    head, *rest = name.split(".")
    found: Any
    if head in namespace:
        found = namespace[head]
    elif hasattr(builtins, head):
        found = getattr(builtins, head)
    else:
        found = None
        for cut in range(len(rest), -1, -1):
            module_name = ".".join([head, *rest[:cut]])
            try:
                found = importlib.import_module(module_name)
            except ImportError:
                continue
            rest = rest[cut:]
            break
        if found is None:
            raise LookupError(
                f":raises: names {name!r}, which is not a builtin, a name of the session or "
                "an importable class"
            )
    for part in rest:
        found = getattr(found, part, None)
    if not (isinstance(found, type) and issubclass(found, BaseException)):
        raise LookupError(f":raises: names {name!r}, which is not an exception class")
    return found
