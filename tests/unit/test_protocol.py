"""The protocol's records: each comes back from its line as it went, and a line that is no
record (a block may write on its child's channel) is refused."""

from __future__ import annotations

import typing
from dataclasses import dataclass

import pytest

from sphinx_jaxcheck.model import Example, FailureKind, Outcome, Program, RaisedException
from sphinx_jaxcheck.worker import protocol
from sphinx_jaxcheck.worker.dependencies import Dependencies, Lookup
from sphinx_jaxcheck.worker.protocol import (
    RECORDS,
    Began,
    Collect,
    Collected,
    Ended,
    Environment,
    Importing,
    Part,
    Ran,
    Ready,
    RunSession,
    Used,
    decode,
    encode,
)

PROGRAM = Program("print(1)", "page.md", ((1, 1),), (Example("x", 2),), "ValueError", 3.0)
OUTCOME = Outcome(
    stdout="1\n",
    inline=((1, "1"),),
    exception=RaisedException("ValueError", "ValueError: no", "tb"),
    failure=FailureKind.EXCEPTION,
)
EVERY = [
    RunSession("s", (Program("import jax", "<setup>"),), (PROGRAM,)),
    Collect("c", ("jax.numpy",), ("jax.numpy.fft",), 60.0),
    Began("s", Part.SETUP, 0),
    Ran("s", Part.ITEM, 0, OUTCOME),
    Used("s", Dependencies(files={"/p/helper.py": "ab"}, lookups=(Lookup("m", ("/p",), None),))),
    Importing("c", "jax.numpy"),
    Collected("c", {"docstrings": [{"name": "f"}]}, ""),
    Ended("s"),
    Ready(("jax", "jax.numpy"), ""),
    Environment({"JAX_PLATFORMS": "cpu"}),
]


def test_every_record_is_declared_once_and_comes_back_as_it_went() -> None:
    assert {type(record) for record in EVERY} == set(RECORDS.values())
    for record in EVERY:
        assert decode(encode(record)) == record


@pytest.mark.parametrize(
    "line",
    [
        b'{"event": "block", "index": 99, "outcome": {}}',  # the format before records
        b'["began", {"session": "s", "part": "item", "index": true}]',
        b'["began", {"session": "s", "part": "cleanup", "index": 0}]',
        b'["began", {"session": "s", "part": "item"}]',
        b'["began", {"session": "s", "part": "item", "index": 0, "more": 1}]',
        b'["ended", {"session": 3}]',
        b'["ended", ["s"]]',
        b'["nothing", {}]',
        b'["began"]',
        b'["ran", {"session": "s", "part": "item", "index": 0, "outcome": []}]',
        b'["ra',
    ],
)
def test_a_line_that_is_no_record_is_refused(line: bytes) -> None:
    with pytest.raises(ValueError, match="not a protocol line"):
        decode(line)


def test_a_field_may_bear_any_name_even_the_words_of_the_wire(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    @dataclass(frozen=True)
    class Probe:
        kind: str
        record: str
        name: str

    monkeypatch.setitem(RECORDS, "probe", Probe)
    probe = Probe("notebook", "r", "n")
    assert decode(encode(probe)) == probe  # type: ignore[arg-type]


def test_a_record_of_another_kind_than_expected_is_refused() -> None:
    with pytest.raises(ValueError, match="not a protocol line"):
        decode(encode(Ended("s")), Began, Ran, Used)


def test_records_are_read_though_conf_py_replaced_typing_get_type_hints(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # dm-haiku's conf.py, run in the build's process before any event is read.
    monkeypatch.setattr(typing, "get_type_hints", lambda obj, *_: obj.__annotations__)
    monkeypatch.setattr(protocol, "_hints_of", {})
    ready = Ready(("jax", "jax.numpy"), "")
    assert decode(encode(ready)) == ready
