"""Where a request stands across the children that serve it: what runs, what was reported,
and what a child's death means. Pure: the zygote feeds these the events its children send and
the deaths it sees, and relays what they return.

A session is run by one child, or by several when one dies: the next resumes after the
program that killed the last one, re-running the setup and the items before it quietly (to
rebuild the namespace, their outcomes already reported) and skipping every item that killed
a child.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from ..model import FailureKind, Outcome, Program
from .deaths import End, collection_death, program_death
from .protocol import Began, Collect, Collected, Part, Ran, RunSession, Step


@dataclass(frozen=True)
class Recovery:
    """What a child's death leaves to do: outcomes to report, and whether a fresh child goes
    on with the session."""

    reports: tuple[Ran, ...] = ()
    resume: bool = False


@dataclass
class SessionCursor:
    """A session's progress through the children that run it."""

    request: RunSession
    # The first item the running child reports; a resumed child re-runs what comes before.
    resume_at: int = 0
    # Items that killed a child: the children after it skip them.
    crashed: frozenset[int] = frozenset()
    running: Step | None = None  # the program the child runs now
    reported: set[Step] = field(default_factory=set)

    def program(self, step: Step) -> Program:
        """The program of ``step``; ValueError when the session has none there."""
        found = self.request.program(*step)
        if found is None:
            raise ValueError(f"the session has no {step[0].value} {step[1]}")
        return found

    def began(self, event: Began) -> Program:
        """A program starts: the one now running."""
        self._check(event.session)
        step = (event.part, event.index)
        program = self.program(step)
        self.running = step
        return program

    def ran(self, event: Ran) -> Ran | None:
        """A program's outcome: to relay, or None for a re-run's (reported already)."""
        self._check(event.session)
        step = (event.part, event.index)
        self.program(step)
        if step == self.running:
            self.running = None
        if self._rerun(step):
            return None
        self.reported.add(step)
        return event

    def blame_next(self) -> bool:
        """Something not an event came while no program ran: hold the next program to report
        answerable (the writer's); False when none waits."""
        if self.running is None:
            waiting = [s for s in self._steps() if not self._rerun(s) and s not in self.reported]
            if not waiting:
                return False
            self.running = waiting[0]
        return True

    def died(self, end: End) -> Recovery:
        """The child ended: report the program it ran as ``end`` says it ended; resume after
        it in a fresh child if items remain."""
        step, self.running = self.running, None
        if step is None:
            return Recovery()
        items = self.request.items
        if self._rerun(step):
            failed = "its setup" if step[0] is Part.SETUP else f"block {step[1] + 1}"
            lost = Outcome(
                failure=FailureKind.NOT_RUN,
                message=f"not run: re-running the earlier blocks of its session failed at {failed}",
            )
            return Recovery(
                tuple(
                    self._report(Part.ITEM, index, lost)
                    for index in range(self.resume_at, len(items))
                    if index not in self.crashed
                )
            )
        report = self._report(*step, program_death(end, self.program(step)))
        if step[0] is Part.SETUP:
            return Recovery((report,))  # its items do not run without it
        crashed = self.crashed | {step[1]}
        if all(index in crashed for index in range(step[1] + 1, len(items))):
            return Recovery((report,))
        self.resume_at, self.crashed = step[1] + 1, crashed
        return Recovery((report,), resume=True)

    def _report(self, part: Part, index: int, outcome: Outcome) -> Ran:
        self.reported.add((part, index))
        return Ran(self.request.session, part, index, outcome)

    def _steps(self) -> Iterator[Step]:
        yield from ((Part.SETUP, index) for index in range(len(self.request.setup)))
        yield from (
            (Part.ITEM, index)
            for index in range(len(self.request.items))
            if index not in self.crashed
        )

    def _rerun(self, step: Step) -> bool:
        """Whether the running child runs ``step`` only to rebuild the namespace."""
        return self.resume_at > 0 and (step[0] is Part.SETUP or step[1] < self.resume_at)

    def _check(self, session: str) -> None:
        if session != self.request.session:
            raise ValueError(f"an event of session {session!r} in session {self.request.session!r}")


@dataclass
class CollectionCursor:
    """A collection of docstrings: the module it imports now, and whether its result came."""

    request: Collect
    module: str = ""
    collected: bool = False

    def importing(self, module: str) -> None:
        self.module = module

    def result(self, event: Collected) -> Collected:
        if event.session != self.request.session:
            raise ValueError(f"a collection of {event.session!r} in {self.request.session!r}")
        self.collected = True
        return event

    def died(self, end: End) -> Collected | None:
        """The child ended: the problem to report, when no result came."""
        if self.collected:
            return None
        why = collection_death(end, self.module, self.request.timeout)
        return Collected(self.request.session, {}, problem=why)
