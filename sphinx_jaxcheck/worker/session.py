"""Run one session in this process: its setup, then its items, each block by the runner of
the session's kind, reporting each outcome, what the session used, and what threads its
blocks left running did.

This module runs inside a disposable child process, forked from the zygote for this
one session: a session may change any global state (stdout, cwd, builtins, modules,
the backend), and nothing of it reaches another session, which gets a child of its own.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..model import DEFAULT_OUTPUT_LIMIT, FailureKind, Outcome
from .protocol import Began, Event, Part, Ran, RunSession, SessionKind, Step, Used
from .recorder import Recorder
from .runner import SessionRunner, exception_summary
from .warning_filters import Resolved, applied, resolved


def enter_folder(folder: str, previous: str | None) -> None:
    """Run from ``folder`` as a script there would: the working directory, and first on
    ``sys.path``.

    Only when a block's document lies elsewhere than the previous block's, so
    a block that changes directory keeps it for the next one of its document.
    """
    with contextlib.suppress(OSError):  # a folder gone meanwhile: the block says what it misses
        os.chdir(folder)
    if previous in sys.path:
        sys.path.remove(previous)
    sys.path.insert(0, folder)


def run_session(
    request: RunSession,
    emit: Callable[[Event], None],
    *,
    crashed: frozenset[int] = frozenset(),
    output_limit: int = DEFAULT_OUTPUT_LIMIT,
) -> None:
    """Run a session's setup, then its items but those that killed a child (``crashed``), in
    order, in a namespace of its own, reporting each; when the setup fails, no item runs."""
    # The project's own modules and files the session uses decide outcomes as much as the code.
    programs = (*request.setup, *request.items)
    recorder = Recorder({p.filename for p in programs})
    recorder.install()
    # Code without a document of its own (jaxcheck_setup) runs where the session's first block does.
    folder = next((p.cwd for p in programs if p.cwd), None)
    if folder:
        enter_folder(folder, None)
    runner = _start(request, recorder, emit, output_limit)
    if runner is None:
        return
    outcomes = _run_programs(request, crashed, runner, recorder, folder, emit)
    _wait_for_threads(request, runner, outcomes, emit)
    # Last, what the threads used meanwhile.
    _report_dependencies(request.session, recorder, emit, ending=True)


def _start(
    request: RunSession, recorder: Recorder, emit: Callable[[Event], None], output_limit: int
) -> SessionRunner | None:
    """The session's runner, in a copy of the globals of the module its docstrings come from
    if they do; None when either cannot be had, each item reported not run."""
    module, entries = next(
        (
            (p.module_globals, p.filterwarnings)
            for p in (*request.setup, *request.items)
            if p.module_globals
        ),
        ("", ()),
    )
    try:
        filters = resolved(entries)
    except LookupError:
        filters = ()  # a bad entry: each program reports it, and does not run
    try:
        namespace = _module_globals(module, filters) if module else None
    except BaseException as error:  # whatever importing it raises, it is not run
        _report_not_run(
            request,
            emit,
            f"not run: importing {module}, whose globals this docstring's examples start "
            f"from (as pytest runs them), failed:\n{exception_summary(error)}",
        )
        _report_dependencies(request.session, recorder, emit)  # the files the failed import read
        return None
    try:
        with recorder.paused():  # the worker's own making (IPython's profile folder)
            return _runner(request.kind, output_limit, namespace)
    except ImportError as missing:
        _report_not_run(request, emit, str(missing))
        return None


def _module_globals(module: str, filters: tuple[Resolved, ...]) -> dict[str, Any]:
    """A copy of a module's globals, where pytest runs the examples of its docstrings; imported
    under the examples' warning filters, as pytest imports a module it collects."""
    with applied(filters):
        return dict(vars(importlib.import_module(module)))


def _report_not_run(request: RunSession, emit: Callable[[Event], None], message: str) -> None:
    """Report each item of the session not run, for this reason."""
    lost = Outcome(failure=FailureKind.NOT_RUN, message=message)
    for index in range(len(request.items)):
        emit(Ran(request.session, Part.ITEM, index, lost))


def _run_programs(
    request: RunSession,
    crashed: frozenset[int],
    runner: SessionRunner,
    recorder: Recorder,
    folder: str | None,
    emit: Callable[[Event], None],
) -> dict[Step, Outcome]:
    """Run the setup, then the items but the crashed ones, each from its document's folder
    (``folder``: where the session started), reporting each as it ends; no item after a
    setup program that failed. Their outcomes, by step."""
    session = request.session
    # pytest's doctests of a module start from one copy of its globals, taken as it is imported.
    start = dict(runner.namespace)
    setup_names: dict[str, Any] = {}
    docstring = ""
    outcomes: dict[Step, Outcome] = {}
    runs: list[Step] = []  # each step, in the order it ran
    steps = [
        *((Part.SETUP, index) for index in range(len(request.setup))),
        *((Part.ITEM, index) for index in range(len(request.items)) if index not in crashed),
    ]
    for step in steps:
        program = request.program(*step)
        assert program is not None
        if program.cwd and program.cwd != folder:
            enter_folder(program.cwd, folder)
            folder = program.cwd
        if step[0] is Part.ITEM and program.namespace != docstring:
            if not docstring:  # the setup has run: what it defined, every docstring gets
                setup_names = _defined(start, runner.namespace)
            docstring = program.namespace
            runner.namespace = {**start, **setup_names}
        emit(Began(session, *step))
        before = set(threading.enumerate())
        outcome = runner.run(program)
        runner.adopt_threads(before, step)
        outcomes[step] = outcome
        emit(Ran(session, *step, outcome))
        runs.append(step)
        _report_revised(session, runner, outcomes, runs, emit)
        _report_late_output(session, runner, outcomes, step, emit)
        _report_dependencies(session, recorder, emit)  # now: a later block may crash the process
        if step[0] is Part.SETUP and (outcome.failure or outcome.exception):
            break
    return outcomes


def _wait_for_threads(
    request: RunSession,
    runner: SessionRunner,
    outcomes: dict[Step, Outcome],
    emit: Callable[[Event], None],
) -> None:
    """Wait for the threads the session's blocks left running, as a script's end waits; report
    again each block whose threads printed meanwhile or outlived its timeout."""
    stuck = runner.wait_for_threads(lambda step: request.program(*step).timeout)  # type: ignore[union-attr]
    _report_late_output(request.session, runner, outcomes, None, emit)
    for step, seconds in sorted(stuck.items(), key=lambda item: _order(item[0])):
        _report_thread_problem(
            request.session,
            outcomes,
            step,
            emit,
            (
                f"a thread this block started was still running {seconds:g} s after the last "
                "block of its session ended (its timeout), so it was stopped and anything it "
                "printed later is lost; a script would wait for it: join the thread "
                "(thread.join()) before the block ends, or start it with daemon=True if it may "
                "be cut off"
            ),
        )


def _runner(
    kind: SessionKind, output_limit: int, namespace: dict[str, Any] | None
) -> SessionRunner:
    """The runner of a session of this kind; ImportError when it cannot be made here."""
    if kind is SessionKind.NOTEBOOK:
        # Imported here, in a notebook's child alone: notebook.py imports getpass, and a module
        # the zygote already holds is not looked up when a block of a script imports it, so
        # the recorder would miss what that lookup depends on.
        from .notebook import notebook_runner

        return notebook_runner(output_limit, namespace)
    return SessionRunner(output_limit, namespace)


def _order(step: Step) -> tuple[bool, int]:
    """Steps in the order they run: the setup first."""
    return (step[0] is Part.ITEM, step[1])


def _report_dependencies(
    session: str, recorder: Recorder, emit: Callable[[Event], None], *, ending: bool = False
) -> None:
    """Send what the session used since the last report, if anything (``ending``: its last
    report)."""
    found = recorder.take(ending=ending)
    if found.files or found.lookups or found.untracked or found.probes:
        emit(Used(session, found))


def _defined(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The names code bound in ``after`` that ``before`` lacks or bound to another object:
    the setup's names, which each docstring of a session gets (pytest's ``doctest_namespace``,
    the same objects in every doctest)."""
    return {k: v for k, v in after.items() if k not in before or before[k] is not v}


def _report_revised(
    session: str,
    runner: SessionRunner,
    outcomes: dict[Step, Outcome],
    runs: list[Step],
    emit: Callable[[Event], None],
) -> None:
    """Report again each earlier step whose outputs the last one changed (a notebook's
    display updated by its id from a later cell, as Jupyter updates it in place)."""
    for number, outputs in sorted(runner.take_revised().items()):
        step = runs[number]
        outcomes[step] = replace(outcomes[step], outputs=outputs)
        emit(Ran(session, *step, outcomes[step]))


def _report_late_output(
    session: str,
    runner: SessionRunner,
    outcomes: dict[Step, Outcome],
    running: Step | None,
    emit: Callable[[Event], None],
) -> None:
    """Report again, as failed, each block whose threads printed after it ended.

    ``running`` is the block that ran meanwhile; None: the session had ended.
    """
    for step, text in sorted(runner.take_late().items(), key=lambda item: _order(item[0])):
        if running is None:
            when = "after the last block of its session ended"
        elif running == step:
            when = "after it ended"
        elif running[0] is Part.SETUP:
            when = "while the session's setup ran"
        else:
            when = f"while block {running[1] + 1} ran"
        # Slices, not len(): a thread of a block may have patched the builtins meanwhile.
        shown = repr(text[:200]) + (" ..." if text[200:] else "")
        _report_thread_problem(
            session,
            outcomes,
            step,
            emit,
            (
                f"a thread this block started printed {shown} {when}; that output belongs to no "
                "expectation: join the thread (thread.join()) before the block ends"
            ),
        )


def _report_thread_problem(
    session: str,
    outcomes: dict[Step, Outcome],
    step: Step,
    emit: Callable[[Event], None],
    message: str,
) -> None:
    """Report ``step`` again, failed for what a thread it left running did."""
    previous = outcomes[step]
    if previous.failure is FailureKind.THREAD_OUTPUT:
        message = previous.message + "\n" + message
    elif previous.failure is not None:
        return  # already failed for a reason of its own
    outcomes[step] = replace(previous, failure=FailureKind.THREAD_OUTPUT, message=message)
    emit(Ran(session, *step, outcomes[step]))
