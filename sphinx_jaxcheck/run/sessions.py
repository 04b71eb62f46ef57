"""Group blocks into sessions, run them (or take them from the cache), judge them.

blocks --run--> outcomes --compare--> verdicts, for a set of documents. Pure of
Sphinx: the Sphinx adapter and the MkDocs front-end (and through them the command
line and the pytest plugin) call :func:`check_documents`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence, Set
from dataclasses import dataclass, field

from ..cache.dependencies import changes
from ..cache.key import session_key
from ..cache.outcomes import OutcomeCache
from ..errors import WorkerStartError
from ..expect.conditions import Runtime, why_skipped
from ..judge.example_verdicts import Tally, tally_of
from ..judge.notebooks import follow_failures
from ..kinds import judge, rules_of
from ..model import (
    Block,
    FailureKind,
    Outcome,
    OutputMode,
    Problem,
    Program,
    SessionKey,
    Status,
    Subtype,
    Verdict,
    session_name,
)
from ..report.records import relative
from ..worker.dependencies import Dependencies
from ..worker.protocol import RunSession, SessionKind
from .pool import SessionResult, Workers, WorkerSettings, run_sessions


@dataclass(frozen=True)
class CheckReport:
    """Verdicts per document, and what the cache and the sessions' dependencies said on the
    way."""

    verdicts: dict[str, list[Verdict]]
    # Cache entries that failed their check: (path, why).
    discarded: tuple[tuple[str, str], ...] = ()
    # By document: what its sessions depended on besides their code, as they first used it.
    used: dict[str, Dependencies] = field(default_factory=dict)
    # By document: why each session that ran could not be cached (what changed while it ran,
    # what it used that cannot be tracked), one text per session, at the block where it was
    # first heard (see :func:`why_uncached`); the next build runs it again.
    uncached: dict[str, list[str]] = field(default_factory=dict)
    # By document: each session cached by assumption (stored, or taken from the cache, though it
    # learned something untracked), with its first untracked reason at its block.
    assumed: dict[str, list[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class CheckPlan:
    """How many blocks and examples will run, come from the cache, or do not run at all."""

    to_run: Tally
    cached: Tally
    not_run: Tally  # skipped, or refused before running (bad options, syntax)


def describe_plan(plan: CheckPlan, documents: int, workers: int) -> str:
    """What a check is about to do, counting every block and example of the documents read,
    in the summary's words."""
    every = plan.to_run + plan.cached + plan.not_run
    line = f"running {plan.to_run.of(every)} ({documents} document(s), up to {workers} worker(s))"
    others = []
    if plan.cached.units:
        others.append(f"{plan.cached} from the cache")
    if plan.not_run.units:
        others.append(f"{plan.not_run} not run (skipped, or refused before running)")
    return line + ("; " + ", ".join(others) if others else "")


def sessions_of(blocks: Sequence[Block]) -> dict[SessionKey, list[Block]]:
    """Blocks that run, grouped by session, in document order."""
    grouped: dict[SessionKey, list[Block]] = {}
    for block in blocks:
        if block.error is None and block.options.output is not OutputMode.SKIP:
            grouped.setdefault(block.session_key, []).append(block)
    return grouped


def check_documents(
    documents: Mapping[str, Sequence[Block]],
    workers: Workers | WorkerSettings,
    *,
    cache: OutcomeCache | None = None,
    reuse: bool = True,
    fingerprint: str = "",
    progress: Callable[[int, int], None] | None = None,
    setup: str = "",
    announce: Callable[[CheckPlan], None] | None = None,
    select: Callable[[Sequence[SessionKey]], Set[SessionKey]] | None = None,
    runtime: Runtime | None = None,
    assume: Callable[[str], bool] | None = None,
) -> CheckReport:
    """Run every session of these documents and judge every block, in ``workers`` (started
    already, which the caller closes) or in workers started with these settings for the call.

    ``cache`` keeps what ran; what it holds is taken only with ``reuse``.
    ``setup`` (``jaxcheck_setup``) runs first in every session; it is part of
    the session's cache key, and when it fails every block of the session fails.
    ``announce`` hears what will happen before anything runs; ``progress``
    then hears (done, total) in blocks and examples together, up to
    ``CheckPlan.to_run.units``.
    ``select``, given every session (also those whose blocks cannot run),
    returns the ones to check here; the blocks of the others are
    ``other-shard``. With ``runtime``, blocks whose limits exclude it are
    skipped with the reason (and left out of their session).
    ``assume`` tells the documents (by name) whose sessions are cached although
    they learned something untracked (``jaxcheck_cache_assume``).
    """
    selection = select_sessions(documents, select, runtime)
    setups = (Program(setup, SETUP_FILENAME),) if setup.strip() else ()
    found = take_cached(
        selection.sessions, setups, cache if reuse else None, fingerprint, assume or _nothing
    )
    running = tally_of(b for key in found.to_run for b in selection.sessions[key])
    if announce:
        announce(_plan(documents, selection, running))
    counted = _counting(progress, selection.sessions, running.units) if progress else None
    keep = found.keeper(cache)
    ran = (
        workers.run(found.to_run, counted, keep)
        if isinstance(workers, Workers)
        else run_sessions(found.to_run, workers, counted, keep)
    )
    for key, result in ran.items():
        found.outcomes.update(_outcomes_of(selection.sessions[key], result))
    verdicts = judge_documents(documents, selection, found.outcomes)
    discarded = tuple(cache.discarded) if cache else ()
    return CheckReport(verdicts, discarded, found.used, found.uncached, found.assumed)


def not_started(
    documents: Mapping[str, Sequence[Block]], error: WorkerStartError
) -> dict[str, list[Verdict]]:
    """Every block's verdict when the workers cannot start: failed, saying why."""
    return {
        doc: [
            Verdict(Status.FAILED, problems=(Problem(Subtype.WORKER, str(error), b.file_line(1)),))
            for b in blocks
        ]
        for doc, blocks in documents.items()
    }


def _nothing(_docname: str) -> bool:
    return False


@dataclass(frozen=True)
class Selection:
    """The blocks a check runs: by session, those of the sessions checked here (``chosen``),
    less the blocks skipped for the runtime (``skipped``: why, by document and index)."""

    sessions: dict[SessionKey, list[Block]]
    chosen: Set[SessionKey]
    skipped: Mapping[tuple[str, int], str]


def select_sessions(
    documents: Mapping[str, Sequence[Block]],
    select: Callable[[Sequence[SessionKey]], Set[SessionKey]] | None,
    runtime: Runtime | None,
) -> Selection:
    """The sessions checked here (``select``: a shard's) and the blocks the runtime skips."""
    skipped = {
        (b.docname, b.index): why
        for blocks in documents.values()
        for b in blocks
        if (why := why_not_run(b, runtime))
    }
    every_session = list(
        dict.fromkeys(b.session_key for blocks in documents.values() for b in blocks)
    )
    chosen = set(every_session) if select is None else select(every_session)
    sessions: dict[SessionKey, list[Block]] = {}
    for blocks in documents.values():
        runnable = [b for b in blocks if (b.docname, b.index) not in skipped]
        sessions.update((k, s) for k, s in sessions_of(runnable).items() if k in chosen)
    return Selection(sessions, chosen, skipped)


def why_not_run(block: Block, runtime: Runtime | None) -> str | None:
    """Why a block is left out of its session, or None when it runs: its kind leaves it out
    (a notebook not run, or needing a platform the workers lack), or its own limits exclude
    the runtime."""
    left_out = rules_of(block).left_out(runtime)
    if left_out is not None:
        return left_out  # before any problem of its options: nothing of it runs
    if runtime and block.error is None:
        return why_skipped(block.options.limits, runtime)
    return None


@dataclass
class Lookup:
    """What the cache gave (outcomes by document and index, what their sessions used) and the
    sessions left to run, with the cache key of each."""

    outcomes: dict[tuple[str, int], Outcome] = field(default_factory=dict)
    to_run: dict[SessionKey, RunSession] = field(default_factory=dict)
    keys: dict[SessionKey, str] = field(default_factory=dict)
    used: dict[str, Dependencies] = field(default_factory=dict)
    # By document: why a session that ran could not be cached.
    uncached: dict[str, list[str]] = field(default_factory=dict)
    # By document: why a session is cached only by assumption (see CheckReport).
    assumed: dict[str, list[str]] = field(default_factory=dict)
    blocks: dict[SessionKey, Sequence[Block]] = field(default_factory=dict)
    assume: Callable[[str], bool] = _nothing

    def depended(self, docname: str, found: Dependencies) -> None:
        self.used[docname] = self.used.get(docname, Dependencies()).merged(found)

    def keeper(self, cache: OutcomeCache | None) -> Callable[[SessionKey, SessionResult], None]:
        """What to do with each session as soon as it ends."""

        def keep(key: SessionKey, result: SessionResult) -> None:
            # As first used: a file changed since makes the next build run the session again.
            self.depended(key[0], result.used)
            if not cache or result.failed_setup:
                return
            assume = self.assume(key[0])
            why = why_uncached(self.blocks[key], result, assume=assume)
            if why:
                self.uncached.setdefault(key[0], []).append(why)
                return
            if result.used.untracked:
                self.assumed.setdefault(key[0], []).append(
                    located(self.blocks[key], result.used.untracked, result.untracked_at)
                )
            # At once, so that sessions that finished stay cached if the build is stopped.
            cache.put(
                self.keys[key], result.items, result.used, result.untracked_at if assume else None
            )

        return keep


def why_uncached(blocks: Sequence[Block], result: SessionResult, *, assume: bool = False) -> str:
    """Why a session that ran may not be cached, or "" when it may: the first reason, at the
    file and line of the block that ran when it was heard (of the session's first block for a
    file changed while it ran), with how many more there are. With ``assume``, what it used
    untracked is no reason (a file changed while it ran still is)."""
    changed = [f"{c} while the session ran" for c in changes(result.used)]
    untracked = () if assume else result.used.untracked
    return located(blocks, [*untracked, *changed], result.untracked_at)


def located(blocks: Sequence[Block], reasons: Sequence[str], at: Mapping[str, int | None]) -> str:
    """The first of these reasons at the file and line of the block that ran when it was
    heard (``at``: by reason, the block's number; the first block when it has none), with
    how many more there are; "" when there are none."""
    if not reasons:
        return ""
    item = at.get(reasons[0])
    block = blocks[item if item is not None and item < len(blocks) else 0]
    more = f" (and {len(reasons) - 1} more)" if len(reasons) > 1 else ""
    return f"{relative(block.path)}:{block.body_line}: {reasons[0]}{more}"


def session_request(
    key: SessionKey, blocks: Sequence[Block], setups: tuple[Program, ...]
) -> RunSession:
    """What the workers run for one session, as its blocks' kind runs them: a notebook's
    cells as Jupyter runs them, without ``jaxcheck_setup`` (a notebook holds all it needs, as
    it runs in Jupyter)."""
    kind = rules_of(blocks[0]).session_kind if blocks else SessionKind.SCRIPT
    if kind is SessionKind.NOTEBOOK:
        return RunSession(session_name(key), (), tuple(b.program for b in blocks), kind)
    return RunSession(session_name(key), setups, tuple(b.program for b in blocks))


def take_cached(
    sessions: Mapping[SessionKey, Sequence[Block]],
    setups: tuple[Program, ...],
    cache: OutcomeCache | None,
    fingerprint: str,
    assume: Callable[[str], bool] = _nothing,
) -> Lookup:
    """Each session's outcomes from the cache, or the request to run it; ``assume``: whether
    a document's sessions are cached by assumption (see :func:`check_documents`)."""
    found = Lookup(assume=assume)
    for key, blocks in sessions.items():
        request = session_request(key, blocks, setups)
        found.blocks[key] = blocks
        found.keys[key] = session_key([*request.setup, *request.items], fingerprint, request.kind)
        cached = cache.get(found.keys[key], len(blocks), assume=assume(key[0])) if cache else None
        if cached is not None:
            found.outcomes.update(_outcomes_of(blocks, SessionResult((), tuple(cached.outcomes))))
            found.depended(key[0], cached.used)
            if cached.used.untracked:
                found.assumed.setdefault(key[0], []).append(
                    located(blocks, cached.used.untracked, cached.untracked_at)
                )
        else:
            found.to_run[key] = request
    return found


def _plan(
    documents: Mapping[str, Sequence[Block]], selection: Selection, running: Tally
) -> CheckPlan:
    every = tally_of(
        b for blocks in documents.values() for b in blocks if b.session_key in selection.chosen
    )
    in_sessions = tally_of(b for blocks in selection.sessions.values() for b in blocks)
    return CheckPlan(running, _minus(in_sessions, running), _minus(every, in_sessions))


def judge_documents(
    documents: Mapping[str, Sequence[Block]],
    selection: Selection,
    outcomes: Mapping[tuple[str, int], Outcome],
) -> dict[str, list[Verdict]]:
    """Every block's verdict, by document."""
    verdicts = {
        docname: [
            # Another shard's block is that shard's to report, skipped or not.
            Verdict(Status.OTHER_SHARD)
            if b.session_key not in selection.chosen
            else Verdict(Status.SKIPPED, reason=selection.skipped[b.docname, b.index])
            if (b.docname, b.index) in selection.skipped
            else judge(b, outcomes.get((b.docname, b.index)))
            for b in blocks
        ]
        for docname, blocks in documents.items()
    }
    _skip_after_failed_setups(documents, verdicts)
    for docname, blocks in documents.items():
        follow_failures(blocks, verdicts[docname], lambda b: rules_of(b).follows_failures())
    return verdicts


SETUP_FILENAME = "<jaxcheck_setup>"
_FAILED = (Status.FAILED, Status.STALE)  # setup code that printed failed too


def _skip_after_failed_setups(
    documents: Mapping[str, Sequence[Block]], verdicts: dict[str, list[Verdict]]
) -> None:
    """Once a doctest group's setup failed, the page examples after it in its session are
    skipped, saying why: sphinx.ext.doctest runs neither the group's tests nor its cleanup."""
    for docname, blocks in documents.items():
        judged = verdicts[docname]
        failed: dict[SessionKey, Block] = {}  # session -> its first failed setup
        for number, block in enumerate(blocks):
            setup = failed.get(block.session_key)
            if setup is not None and block.doctest_style:
                judged[number] = Verdict(
                    Status.SKIPPED,
                    reason=f"its group's setup code ({setup.label}) failed, so its tests and "
                    "cleanup do not run",
                )
            elif rules_of(block).stops_its_group() and judged[number].status in _FAILED:
                failed[block.session_key] = block


def _outcomes_of(blocks: Sequence[Block], result: SessionResult) -> dict[tuple[str, int], Outcome]:
    """Outcomes by block; when the setup failed, each block fails with its reason."""
    failed = result.failed_setup
    if failed is not None:
        message = (
            "jaxcheck_setup (in conf.py) failed, so this session's blocks did not run; "
            f"fix the setup code:\n{failed.message or failed.exception}"
        )
        lost = Outcome(failure=FailureKind.NOT_RUN, message=message)
        return {(b.docname, b.index): lost for b in blocks}
    return {(b.docname, b.index): o for b, o in zip(blocks, result.items, strict=True)}


def _minus(whole: Tally, part: Tally) -> Tally:
    return Tally(whole.blocks - part.blocks, whole.examples - part.examples)


def _counting(
    progress: Callable[[int, int], None],
    sessions: Mapping[SessionKey, Sequence[Block]],
    total: int,
) -> Callable[[SessionKey, int], None]:
    """The pool's "this item ran" as progress in blocks and examples: a block of examples
    advances by its examples."""
    done = 0

    def ran(key: SessionKey, item: int) -> None:
        nonlocal done
        done += tally_of([sessions[key][item]]).units
        progress(done, total)

    return ran
