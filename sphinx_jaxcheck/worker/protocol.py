"""The JSON-lines protocol between the pool, the zygote and its children.

Requests (pool -> zygote), one JSON object a line::

    {"op": "run", "id": ID, "programs": [PROGRAM, ...], "starts": [I, ...]}
    {"op": "collect", "id": ID, "modules": [NAME, ...], "ignore": [NAME, ...],
     "timeout": SECONDS}

Events (zygote -> pool)::

    {"id": ID, "event": "block", "index": I, "outcome": OUTCOME}
    {"id": ID, "event": "dependencies", "found": DEPENDENCIES}
    {"id": ID, "event": "docstrings", "docstrings": [...], ...}  (or "problem": "...")
    {"id": ID, "event": "end"}
    {"event": "ready", "preloaded": [...], "problem": "..."}

A spare zygote (started with :data:`ENV_FOLLOWS`, see ``run.spare``) imports jax,
then reads one line, ``{"env": {NAME: VALUE, ...}}``, its environment.

A ``run`` request is one session, or several when ``starts`` says where
further ones begin (each gets a namespace of its own, in one process). A
child reports ``{"event": "start", "index": I}`` before each block so the
zygote can time it, then ``{"event": "block", ...}`` when it is done, and
``{"event": "dependencies", ...}`` when the block used files of the project
or searched for modules it had not before (see ``dependencies``; each report
holds only what is new, so what a child reported stays when a later block
kills it). A ``collect`` request gets one ``docstrings`` event (see
``doctest_modules``; its child reports ``{"event": "collecting", "module":
NAME}`` before each import, which the zygote times).
"""

from __future__ import annotations

import json
import re
from dataclasses import fields
from typing import Any

from ..model import Example, FailureKind, Outcome, Program, RaisedException

# The command-line flag of a spare zygote: it imports jax, then waits for its environment,
# which may differ from the one it started with only in AFTER_IMPORT variables.
ENV_FOLLOWS = "--env-follows"
# Variables jax reads after its import: XLA_FLAGS when a backend starts (in the forks), this
# package's own; those of the compilation cache, read as jax is imported, the spare sets as
# the options they stand for (CACHE_OPTIONS), before anything compiles.
CACHE_OPTIONS: dict[str, tuple[str, type]] = {
    "JAX_COMPILATION_CACHE_DIR": ("jax_compilation_cache_dir", str),
    "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": (
        "jax_persistent_cache_min_compile_time_secs",
        float,
    ),
    "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": ("jax_persistent_cache_min_entry_size_bytes", int),
}
AFTER_IMPORT = re.compile("|".join(["XLA_FLAGS$", "JAXCHECK_", *(f"{n}$" for n in CACHE_OPTIONS)]))


def encode(message: dict[str, Any]) -> bytes:
    """One protocol line."""
    return (json.dumps(message, separators=(",", ":")) + "\n").encode()


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
    return Program(**values)


def outcome_to_wire(outcome: Outcome) -> dict[str, Any]:
    """An outcome as JSON-ready data (``dataclasses.asdict``, the failure as its value)."""
    data = _fields_of(outcome)
    data["exception"] = _fields_of(outcome.exception) if outcome.exception else None
    data["failure"] = outcome.failure.value if outcome.failure else None
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
    )
