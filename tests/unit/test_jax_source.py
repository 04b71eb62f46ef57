"""Resolving citation targets in the real installed jax, by parsing only."""

from __future__ import annotations

import ast

import pytest

from sphinx_jaxcheck.cite.citation import check_citation, installed_index
from sphinx_jaxcheck.cite.jax_source import SourceIndex, TargetError
from sphinx_jaxcheck.cite.pin import Pin, installed

COMMIT = "990e6a0b84138346e6a38785412f36356e0e5dc3"
LOOPS = "jax/_src/lax/control_flow/loops.py"


@pytest.fixture(scope="module")
def index() -> SourceIndex:
    return installed_index()


def _def_lines(index: SourceIndex, path: str, name: str) -> tuple[int, int]:
    """The lines of a top-level def, found independently of the resolver."""
    tree = ast.parse(index.source(path).text)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            return start, node.end_lineno or start
    raise AssertionError(name)


def test_check_carry_type_links_to_its_lines_at_the_pinned_commit(index: SourceIndex) -> None:
    assert installed().version == "0.10.2", "these expectations are for the pinned jax 0.10.2"
    citation = check_citation("loops.py::_check_carry_type", Pin("0.10.2", COMMIT), index=index)
    assert citation.ok
    assert citation.url == (f"https://github.com/jax-ml/jax/blob/{COMMIT}/{LOOPS}#L537-L621")
    assert (citation.start, citation.end) == _def_lines(index, LOOPS, "_check_carry_type")
    lines = index.source(LOOPS).lines
    assert lines[536].startswith("def _check_carry_type(")


def test_full_path_and_suffixes_name_the_same_file(index: SourceIndex) -> None:
    for written in (LOOPS, "loops.py", "control_flow/loops.py"):
        assert index.resolve(f"{written}::_check_carry_type").path == LOOPS


def test_methods_and_module_level_names_resolve(index: SourceIndex) -> None:
    array = index.resolve("jax/_src/basearray.py::Array.shape")
    assert array.qualname == "Array.shape"
    text = index.source(array.path).lines[array.start - 1 : array.end]
    assert any("def shape" in line for line in text)
    scan_p = index.resolve("loops.py::scan_p")
    assert index.source(LOOPS).lines[scan_p.start - 1].startswith("scan_p")


def test_line_ranges(index: SourceIndex) -> None:
    location = index.resolve("loops.py#L10-L20")
    assert (location.path, location.start, location.end) == (LOOPS, 10, 20)
    with pytest.raises(TargetError, match="within"):
        index.resolve("loops.py#L10-L999999")


def test_public_dotted_names_follow_reexports_statically(index: SourceIndex) -> None:
    scan = index.resolve("jax.lax.scan")
    assert scan.path == LOOPS and scan.qualname == "scan"
    reexport = index.source("jax/lax/__init__.py").text
    assert "scan as scan" in reexport  # the re-export the resolver followed
    assert index.resolve("jax.jit").path == "jax/_src/api.py"
    where = index.resolve("jax.numpy.where")
    # The real definition, not an @overload stub.
    body = index.source(where.path).lines[where.start - 1 : where.end]
    assert not any("@overload" in line for line in body)


def test_ambiguous_suffix_names_candidates(index: SourceIndex) -> None:
    with pytest.raises(TargetError) as error:
        index.resolve("__init__.py")
    assert "ambiguous" in str(error.value)
    assert "jax/__init__.py" in error.value.candidates
    assert "jax/__init__.py" in str(error.value)


def test_unknown_symbol_names_closest_candidates(index: SourceIndex) -> None:
    with pytest.raises(TargetError) as error:
        index.resolve("loops.py::_check_cary_type")
    assert error.value.candidates[0] == "_check_carry_type"
    assert "_check_carry_type" in str(error.value)


def test_unknown_file_and_dotted_name_name_candidates(index: SourceIndex) -> None:
    with pytest.raises(TargetError) as error:
        index.resolve("lops.py::scan")
    assert LOOPS in error.value.candidates
    with pytest.raises(TargetError) as error:
        index.resolve("jax.lax.scann")
    assert "scan" in error.value.candidates


@pytest.mark.parametrize(
    "path", ["../../etc/passwd", "/etc/passwd", "jax/../../etc/passwd", "jax/_src/../../../x.py"]
)
def test_paths_escaping_the_package_are_refused(index: SourceIndex, path: str) -> None:
    with pytest.raises(TargetError, match="refused"):
        index.resolve(path)
