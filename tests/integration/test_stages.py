"""Every handler the extension connects to an event it handles more than once runs at a stage
named in ``sphinx/stages.py``, and every stage named there has a handler."""

from __future__ import annotations

import enum
import gc
import io
from pathlib import Path

from buildkit import write_project
from sphinx.application import Sphinx

from sphinx_jaxcheck.sphinx import stages

EVENTS: dict[str, type[enum.IntEnum]] = {
    "config-inited": stages.ConfigInited,
    "builder-inited": stages.BuilderInited,
    "env-before-read-docs": stages.EnvBeforeReadDocs,
    "doctree-read": stages.DoctreeRead,
    "env-updated": stages.EnvUpdated,
    "build-finished": stages.BuildFinished,
    "html-page-context": stages.HtmlPageContext,
    "source-read": stages.SourceRead,
}


def _app(tmp_path: Path) -> Sphinx:
    """An application of a one-page project, made as sphinx-build makes it."""
    root = write_project(tmp_path, {"index.rst": "Index\n=====\n"})
    return Sphinx(
        root,
        root,
        root / "_build",
        root / "_build" / ".doctrees",
        "html",
        status=io.StringIO(),
        warning=io.StringIO(),
    )


def test_each_handler_runs_at_a_named_stage_and_each_stage_has_one(tmp_path: Path) -> None:
    app = _app(tmp_path)
    used: set[enum.IntEnum] = set()
    for event, listeners in app.events.listeners.items():
        ours = [
            listener
            for listener in listeners
            if listener.handler.__module__.startswith("sphinx_jaxcheck.")
        ]
        if event not in EVENTS:
            assert len(ours) <= 1, f"{event} has {len(ours)} handlers and no stages"
            continue
        for listener in ours:
            stage = EVENTS[event](listener.priority)  # ValueError: a number no stage names
            used.add(stage)
    declared = {stage for stages_of in EVENTS.values() for stage in stages_of}
    assert declared == used, declared - used
    every = {
        value
        for value in vars(stages).values()
        if isinstance(value, type) and issubclass(value, enum.IntEnum) and value is not enum.IntEnum
    }
    assert every == set(EVENTS.values())


def test_the_objects_a_build_keeps_are_frozen_during_it_and_collectable_after(
    tmp_path: Path,
) -> None:
    """The collector skips what lives through the build (sphinx/frozen_heap.py), and has it
    back once the build ends: a process running builds one after another frees each one."""
    app = _app(tmp_path)
    frozen: list[int] = []
    app.connect("html-page-context", lambda *_args: frozen.append(gc.get_freeze_count()))
    app.build()
    assert frozen and min(frozen) > 0
    assert gc.get_freeze_count() == 0
