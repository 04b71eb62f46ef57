"""Every way a child can end, through the protocol, without a process: what the zygote reports
and whether a fresh child goes on with the session."""

from __future__ import annotations

import signal

import pytest

from sphinx_jaxcheck.model import FailureKind, Outcome, Program
from sphinx_jaxcheck.worker.cursors import CollectionCursor, SessionCursor
from sphinx_jaxcheck.worker.deaths import EXIT_GLIBC_FATAL, EXIT_LOST, End
from sphinx_jaxcheck.worker.protocol import Began, Collect, Collected, Part, Ran, RunSession

SETUP = Program("import jax", "<jaxcheck_setup>")
ITEMS = tuple(Program(f"print({n})", "page.md", timeout=5.0 + n) for n in range(4))
OK = Outcome(stdout="fine\n")
KILLED = End(int(signal.SIGKILL))  # a wait status: the signal's number


def exited(code: int) -> End:
    return End(code << 8)


def cursor(setup: tuple[Program, ...] = (SETUP,)) -> SessionCursor:
    return SessionCursor(RunSession("s", setup, ITEMS))


def run(session: SessionCursor, part: Part, index: int) -> Ran | None:
    """A program starts and reports: what the zygote relays."""
    session.began(Began("s", part, index))
    return session.ran(Ran("s", part, index, OK))


def test_a_block_that_kills_its_child_fails_alone_and_a_fresh_child_goes_on_after_it() -> None:
    session = cursor()
    assert run(session, Part.SETUP, 0) is not None
    assert run(session, Part.ITEM, 0) is not None
    session.began(Began("s", Part.ITEM, 1))
    recovery = session.died(KILLED)
    [report] = recovery.reports
    assert (report.part, report.index) == (Part.ITEM, 1)
    assert report.outcome.failure is FailureKind.CRASH
    assert report.outcome.message == (
        "the worker process was killed by signal SIGKILL (out of memory?) while running this block"
    )
    assert recovery.resume and (session.resume_at, session.crashed) == (2, frozenset({1}))
    # The fresh child re-runs the setup and block 0 quietly, skips block 1, reports block 2 on.
    assert run(session, Part.SETUP, 0) is None
    assert run(session, Part.ITEM, 0) is None
    assert run(session, Part.ITEM, 2) is not None


def test_a_block_that_hangs_is_stopped_at_its_timeout_and_the_session_goes_on() -> None:
    session = cursor(setup=())
    session.began(Began("s", Part.ITEM, 2))
    recovery = session.died(End(int(signal.SIGKILL), timed_out=True, seconds=7.5))
    [report] = recovery.reports
    assert report.outcome.failure is FailureKind.TIMEOUT
    assert report.outcome.seconds == 7.5
    assert report.outcome.message == (
        "the block ran longer than its timeout of 7 s and was stopped; if it needs longer, "
        "raise its :timeout: (`# jaxcheck: timeout SECONDS` among >>> examples) or "
        "jaxcheck_timeout"
    )
    assert recovery.resume and session.resume_at == 3


@pytest.mark.parametrize(
    ("end", "words"),
    [
        (exited(3), "the worker process exited with status 3 (os._exit?) while running this block"),
        (exited(EXIT_LOST), "the worker process lost its connection to jaxcheck"),
        (
            End(EXIT_GLIBC_FATAL << 8, memory_limit=512 * 1024 * 1024),
            "exited with status 127 (out of memory? each worker may use at most 512 MB",
        ),
        (
            End(int(signal.SIGSEGV), memory_limit=512 * 1024 * 1024),
            "killed by signal SIGSEGV (out of memory? each worker may use at most 512 MB",
        ),
        (End(int(signal.SIGALRM)), "killed by signal SIGALRM while running this block"),
        (End(0, garbled='{"forged'), "something other than a result from this block"),
    ],
)
def test_a_worker_that_exits_or_is_killed_is_a_crash_of_its_block_saying_how(
    end: End, words: str
) -> None:
    session = cursor(setup=())
    session.began(Began("s", Part.ITEM, 0))
    [report] = session.died(end).reports
    assert report.outcome.failure is FailureKind.CRASH
    assert words in report.outcome.message


def test_a_setup_that_kills_its_child_ends_the_session_its_items_unrun() -> None:
    session = cursor()
    session.began(Began("s", Part.SETUP, 0))
    recovery = session.died(exited(3))
    [report] = recovery.reports
    assert (report.part, report.index) == (Part.SETUP, 0)
    assert not recovery.resume


def test_a_crash_while_re_running_the_earlier_blocks_leaves_the_rest_not_run() -> None:
    session = cursor()
    session.began(Began("s", Part.ITEM, 1))
    assert session.died(KILLED).resume
    session.began(Began("s", Part.ITEM, 0))  # re-run: it behaves otherwise this time
    recovery = session.died(KILLED)
    assert not recovery.resume
    assert [(r.index, r.outcome.failure) for r in recovery.reports] == [
        (2, FailureKind.NOT_RUN),
        (3, FailureKind.NOT_RUN),
    ]
    assert recovery.reports[0].outcome.message == (
        "not run: re-running the earlier blocks of its session failed at block 1"
    )


def test_the_last_block_crashing_ends_the_session_and_so_does_a_child_between_blocks() -> None:
    session = cursor(setup=())
    session.began(Began("s", Part.ITEM, 3))
    recovery = session.died(KILLED)
    assert len(recovery.reports) == 1 and not recovery.resume
    # Nothing running: nothing to blame; the pool names the blocks that never reported.
    assert session.died(KILLED).reports == ()


def test_a_later_report_of_a_block_is_relayed_and_a_thread_problem_is_not_lost() -> None:
    session = cursor(setup=())
    assert run(session, Part.ITEM, 0) is not None
    later = Ran("s", Part.ITEM, 0, Outcome(failure=FailureKind.THREAD_OUTPUT))
    assert session.ran(later) == later


def test_garbage_with_no_block_running_is_the_next_blocks_and_none_when_nothing_waits() -> None:
    session = cursor(setup=())
    run(session, Part.ITEM, 0)
    assert session.blame_next() and session.running == (Part.ITEM, 1)
    done = cursor(setup=())
    for index in range(len(ITEMS)):
        run(done, Part.ITEM, index)
    assert not done.blame_next()


@pytest.mark.parametrize(
    "event",
    [
        Began("s", Part.ITEM, 4),
        Began("s", Part.SETUP, 1),
        Began("other", Part.ITEM, 0),
        Ran("s", Part.ITEM, -1, OK),
    ],
)
def test_an_event_of_no_program_of_the_session_is_refused(event: Began | Ran) -> None:
    session = cursor()
    with pytest.raises(ValueError):
        session.began(event) if isinstance(event, Began) else session.ran(event)


def test_a_collection_that_dies_says_which_import_and_one_that_reported_says_nothing() -> None:
    collection = CollectionCursor(Collect("c", ("pkg",), (), 9.0))
    assert collection.died(KILLED) == Collected(
        "c", {}, "the worker process was killed by signal 9 while importing the modules"
    )
    collection.importing("pkg.slow")
    problem = collection.died(End(int(signal.SIGKILL), timed_out=True))
    assert problem is not None and problem.problem == (
        "importing pkg.slow took longer than 9 s (jaxcheck_timeout) and was stopped"
    )
    assert collection.result(Collected("c", {"docstrings": []})).result == {"docstrings": []}
    assert collection.died(exited(0)) is None
