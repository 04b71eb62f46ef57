"""The protocol between the pool, the zygote and its children: every request and event is a
record declared here, one JSON line on the wire, written by :func:`encode` and read by
:func:`decode`.

On the wire a record is ``[name, {field: value}]``: its name beside its fields, so that any
name is free for a field.

Requests, pool -> zygote: :class:`RunSession` (one session, run in a child forked for it
alone) and :class:`Collect` (the docstrings of modules, collected in a child).

Events, child -> zygote -> pool: :class:`Began` (a program starts: the zygote times it; not
relayed), :class:`Ran` (its outcome; sent again when a thread it left running misbehaves
later), :class:`Used` (what the session used that it had not reported: sent after each
program, so that what a child reported stays when a later program kills it),
:class:`Importing` (a collection imports a module: the zygote times it; not relayed) and
:class:`Collected`. The zygote adds :class:`Ready` (jax imported) and :class:`Ended` (the
session is over: nothing more will come for it).

A session's programs are its setup (``jaxcheck_setup``: when it fails, no item runs) and its
items; events name the session and the program by its :class:`Part` and index in that part.

An early zygote (started with :data:`ENV_FOLLOWS`, see ``run.early_zygote``) imports jax, then reads
one line, an :class:`Environment`.
"""

from __future__ import annotations

import enum
import inspect
import json
import re
import typing
from dataclasses import dataclass, fields
from typing import Any

from ..model import CellOutput, Example, FailureKind, Outcome, Program, RaisedException
from .dependencies import Dependencies, dependencies_from_wire, dependencies_to_wire

# The command-line flag of an early zygote: it imports jax, then waits for its environment,
# which may differ from the one it started with only in AFTER_IMPORT variables.
ENV_FOLLOWS = "--env-follows"
# Variables jax reads after its import: XLA_FLAGS when a backend starts (in the forks), this
# package's own; those of the compilation cache, read as jax is imported, the early zygote sets as
# the options they stand for (CACHE_OPTIONS), before anything compiles.
CACHE_OPTIONS: dict[str, tuple[str, type]] = {
    "JAX_COMPILATION_CACHE_DIR": ("jax_compilation_cache_dir", str),
    "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": (
        "jax_persistent_cache_min_compile_time_secs",
        float,
    ),
    "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": ("jax_persistent_cache_min_entry_size_bytes", int),
}
# The folders conf.py put on sys.path after the interpreter's own (see run.pool.PythonPath): the
# zygote appends them before it imports jax, so they are no variable read after the import.
PATH_LAST = "JAXCHECK_PATH_LAST"
AFTER_IMPORT = re.compile(
    "|".join(["XLA_FLAGS$", f"JAXCHECK_(?!{PATH_LAST[9:]}$)", *(f"{n}$" for n in CACHE_OPTIONS)])
)


class Part(enum.Enum):
    """Where a program sits in its session."""

    SETUP = "setup"
    ITEM = "item"


Step = tuple[Part, int]  # a program of a session: its part, its index there


class SessionKind(enum.Enum):
    """How a session's programs run and what their outcomes hold."""

    SCRIPT = "script"  # as Python runs a script: what they print
    NOTEBOOK = "notebook"  # as Jupyter runs cells: each cell's outputs (see worker.notebook)


@dataclass(frozen=True)
class RunSession:
    """Run a session's setup, then its items, in order, in one namespace."""

    session: str
    setup: tuple[Program, ...]
    items: tuple[Program, ...]
    kind: SessionKind = SessionKind.SCRIPT

    def program(self, part: Part, index: int) -> Program | None:
        """The program at ``part``/``index``; None when the session has none there."""
        programs = self.setup if part is Part.SETUP else self.items
        return programs[index] if 0 <= index < len(programs) else None


@dataclass(frozen=True)
class Collect:
    """Import these modules (each within ``timeout`` seconds, under the warning filters
    ``filterwarnings``) and collect their docstrings."""

    session: str
    modules: tuple[str, ...]
    ignore: tuple[str, ...]
    timeout: float
    filterwarnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Began:
    """A program starts."""

    session: str
    part: Part
    index: int


@dataclass(frozen=True)
class Ran:
    """A program's outcome."""

    session: str
    part: Part
    index: int
    outcome: Outcome


@dataclass(frozen=True)
class Used:
    """What the session used since its last report, besides its code."""

    session: str
    found: Dependencies


@dataclass(frozen=True)
class Importing:
    """A collection imports a module."""

    session: str
    module: str


@dataclass(frozen=True)
class Collected:
    """The docstrings collected (see ``doctest_modules.collect`` for ``result``), or, in
    ``problem``, why there are none."""

    session: str
    result: dict[str, Any]
    problem: str = ""


@dataclass(frozen=True)
class Ended:
    """Nothing more comes for this session."""

    session: str


@dataclass(frozen=True)
class Ready:
    """The zygote is ready: the modules it imported, and what failed to import."""

    preloaded: tuple[str, ...]
    problem: str


@dataclass(frozen=True)
class Environment:
    """An early zygote's environment."""

    env: dict[str, str]


Request = RunSession | Collect
Event = Began | Ran | Used | Importing | Collected | Ended | Ready
Record = Request | Event | Environment
RECORDS: dict[str, type[Any]] = {
    cls.__name__.lower(): cls
    for cls in (
        RunSession,
        Collect,
        Began,
        Ran,
        Used,
        Importing,
        Collected,
        Ended,
        Ready,
        Environment,
    )
}


def encode(record: Record) -> bytes:
    """One protocol line: the record's name, then its fields (beside them, not among them, so
    that any name is free for a field)."""
    data = {f.name: _to_wire(getattr(record, f.name)) for f in fields(record)}
    return (
        json.dumps([type(record).__name__.lower(), data], separators=(",", ":")) + "\n"
    ).encode()


def decode(line: bytes | str, *kinds: type[Any]) -> Any:
    """The record on a protocol line, one of ``kinds`` (any when none is given); ValueError
    when the line is anything else (a child's channel is untrusted: a block may write on it)."""
    try:
        name, data = json.loads(line)
        cls = RECORDS[name]
        if not isinstance(data, dict):
            raise TypeError("the fields are not an object")
        if kinds and cls not in kinds:
            raise ValueError(f"a {cls.__name__} where {kinds} was expected")
        hints = _hints(cls)
        if set(data) != set(hints):
            raise ValueError(f"the fields of {cls.__name__} are {sorted(hints)}")
        return cls(**{name: _from_wire(hints[name], value) for name, value in data.items()})
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise ValueError(f"not a protocol line: {error}") from error


def _to_wire(value: Any) -> Any:
    if isinstance(value, Program):
        return program_to_wire(value)
    if isinstance(value, Outcome):
        return outcome_to_wire(value)
    if isinstance(value, Dependencies):
        return dependencies_to_wire(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple):
        return [_to_wire(item) for item in value]
    return value


_PLAIN: dict[Any, type | tuple[type, ...]] = {str: str, int: int, float: (int, float), dict: dict}


def _from_wire(hint: Any, value: Any) -> Any:
    origin = typing.get_origin(hint)
    if hint is Program:
        return program_from_wire(value)
    if hint is Outcome:
        return outcome_from_wire(value)
    if hint is Dependencies:
        return dependencies_from_wire(value)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return hint(value)
    if origin is tuple:
        if not isinstance(value, list):
            raise TypeError("not a list")
        item = typing.get_args(hint)[0]
        return tuple(_from_wire(item, v) for v in value)
    plain = _PLAIN[origin or hint]
    if not isinstance(value, plain) or isinstance(value, bool):
        raise TypeError(f"{value!r} is not a {hint}")
    return value


_hints_of: dict[type[Any], dict[str, Any]] = {}


def _hints(cls: type[Any]) -> dict[str, Any]:
    """The fields of a record and their types (resolved once).

    Not ``typing.get_type_hints``: a project's conf.py may replace it in the
    build's process (dm-haiku's returns the annotations unresolved), and every
    event would then be unreadable.
    """
    if cls not in _hints_of:
        hints: dict[str, Any] = {}
        for klass in reversed(cls.__mro__[:-1]):
            hints.update(inspect.get_annotations(klass, eval_str=True))
        _hints_of[cls] = {f.name: hints[f.name] for f in fields(cls)}
    return _hints_of[cls]


def _fields_of(item: Any) -> dict[str, Any]:
    """A dataclass's fields by name, shallow: what ``asdict`` gives for fields holding
    no dataclass, without its recursion and copies (it costs a cached build)."""
    return {f.name: getattr(item, f.name) for f in fields(item)}


def program_to_wire(program: Program) -> dict[str, Any]:
    """A program as JSON-ready data (equal to ``dataclasses.asdict``)."""
    data = _fields_of(program)
    data["examples"] = tuple(_fields_of(example) for example in program.examples)
    return data


def program_from_wire(data: dict[str, Any]) -> Program:
    """The inverse of :func:`program_to_wire`.

    Fields of plain JSON types come back as they went; a new one needs no change here.
    """
    values = {f.name: data[f.name] for f in fields(Program) if f.name in data}
    values["inline_prints"] = tuple((int(a), int(b)) for a, b in data["inline_prints"])
    values["examples"] = tuple(Example(**e) for e in data["examples"])
    values["filterwarnings"] = tuple(str(entry) for entry in data.get("filterwarnings", ()))
    return Program(**values)


def outcome_to_wire(outcome: Outcome) -> dict[str, Any]:
    """An outcome as JSON-ready data (``dataclasses.asdict``, the failure as its value)."""
    data = _fields_of(outcome)
    data["exception"] = _fields_of(outcome.exception) if outcome.exception else None
    data["failure"] = outcome.failure.value if outcome.failure else None
    data["outputs"] = tuple(_fields_of(output) for output in outcome.outputs)
    return data


def outcome_from_wire(data: dict[str, Any]) -> Outcome:
    """The inverse of :func:`outcome_to_wire`."""
    raised = data.get("exception")
    return Outcome(
        stdout=data.get("stdout", ""),
        inline=tuple((int(line), text) for line, text in data.get("inline", ())),
        examples=tuple(data.get("examples", ())),
        example_errors=tuple(data.get("example_errors", ())),
        exception=RaisedException(**raised) if raised else None,
        failure=FailureKind(data["failure"]) if data.get("failure") else None,
        message=data.get("message", ""),
        seconds=float(data.get("seconds", 0.0)),
        outputs=tuple(
            CellOutput(
                output["output_type"],
                output["name"],
                output["text"],
                tuple((str(kind), str(text)) for kind, text in output["data"]),
                tuple(output["traceback"]),
                output["metadata"],
                output.get("shows", ""),
            )
            for output in data.get("outputs", ())
        ),
    )
