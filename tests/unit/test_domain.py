"""sphinx/domain.py: every piece of per-document state is dropped and merged as Sphinx asks."""

from __future__ import annotations

import pickle
from types import SimpleNamespace

from sphinx_jaxcheck.sphinx import domain as declared_in
from sphinx_jaxcheck.sphinx.domain import PER_DOCUMENT, JaxcheckDomain, PerDocument


def _domain() -> JaxcheckDomain:
    return JaxcheckDomain(SimpleNamespace(domaindata={}))  # type: ignore[arg-type]


def test_every_piece_declared_is_one_of_per_document_under_a_key_of_its_own() -> None:
    pieces = [value for value in vars(declared_in).values() if isinstance(value, PerDocument)]
    assert set(pieces) == set(PER_DOCUMENT)
    assert len({piece.key for piece in PER_DOCUMENT}) == len(PER_DOCUMENT)


def test_a_document_is_dropped_from_every_piece_and_merged_from_a_parallel_reader() -> None:
    reader = _domain()
    for piece in PER_DOCUMENT:
        reader.per_document(piece).update(a=piece.key, b=piece.key)
    # What Sphinx merges: the data of a parallel reader's environment, pickled.
    theirs = pickle.loads(pickle.dumps(reader.data))
    reader.clear_doc("a")
    assert all(reader.per_document(piece) == {"b": piece.key} for piece in PER_DOCUMENT)
    merged = _domain()
    merged.merge_domaindata({"a"}, theirs)
    assert all(merged.per_document(piece) == {"a": piece.key} for piece in PER_DOCUMENT)
