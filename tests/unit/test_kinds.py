"""The kinds of checked thing as rules (sphinx_jaxcheck/kinds): every kind has a module whose
rules implement the one protocol, and no stage asks what kind a block is but the one dispatch
point, kinds/__init__.py's rules_of."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

import pytest

import sphinx_jaxcheck
from sphinx_jaxcheck.config import Settings
from sphinx_jaxcheck.kinds import _RULES, rules_of, warning_filters
from sphinx_jaxcheck.model import (
    Block,
    BlockKind,
    BlockOptions,
    DocstringExamples,
    FileExamples,
    GroupCode,
    MarkdownFence,
    NotebookCell,
    PageExamples,
    Program,
)

PACKAGE = Path(sphinx_jaxcheck.__file__).parent
DISPATCH = PACKAGE / "kinds" / "__init__.py"
KINDS = {kind.__name__ for kind in typing.get_args(BlockKind)}


def _names(node: ast.AST) -> set[str]:
    """The class names an isinstance argument, a ``type(...) is`` operand or a class pattern
    names (``NotebookCell``, ``model.NotebookCell``, a tuple or ``|`` of them)."""
    if isinstance(node, ast.Name):
        return {node.id}
    if isinstance(node, ast.Attribute):
        return {node.attr}
    if isinstance(node, ast.Tuple):
        return {name for item in node.elts for name in _names(item)}
    if isinstance(node, ast.BinOp):
        return _names(node.left) | _names(node.right)
    return set()


def _is_call(node: ast.AST, *names: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names


def type_tests(tree: ast.AST) -> list[tuple[int, str]]:
    """Where a module asks what kind a block is: ``isinstance``/``issubclass`` of a kind,
    ``type(...)`` compared with one, a ``case`` matching one, or ``type``, ``hasattr`` or
    ``getattr`` of something's ``.kind``."""
    found = []
    for node in ast.walk(tree):
        if _is_call(node, "isinstance", "issubclass"):
            assert isinstance(node, ast.Call)
            if len(node.args) == 2 and _names(node.args[1]) & KINDS:
                found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_is_call(side, "type") for side in sides) and any(
                _names(side) & KINDS for side in sides
            ):
                found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.MatchClass) and _names(node.cls) & KINDS:
            found.append((node.lineno, ast.unparse(node)))
        elif _is_call(node, "type", "hasattr", "getattr"):
            assert isinstance(node, ast.Call)
            target = node.args[0] if node.args else None
            if isinstance(target, ast.Attribute) and target.attr == "kind":
                found.append((node.lineno, ast.unparse(node)))
    return found


def test_no_module_but_the_dispatch_point_asks_what_kind_a_block_is() -> None:
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {text}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path != DISPATCH
        for line, text in type_tests(ast.parse(path.read_text("utf-8")))
    ]
    assert found == [], "ask rules_of(block) instead:\n" + "\n".join(found)


@pytest.mark.parametrize(
    "source",
    [
        "isinstance(block.kind, NotebookCell)",
        "isinstance(b.kind, (DocstringExamples, FileExamples))",
        "isinstance(k, model.Directive | MarkdownFence)",
        "type(block.kind) is GroupCode",
        "match block.kind:\n    case PageExamples():\n        pass",
        "hasattr(block.kind, 'cell')",
        "getattr(block.kind, 'cell', None)",
    ],
)
def test_the_scan_finds_each_way_of_asking(source: str) -> None:
    assert type_tests(ast.parse(source))


def test_the_scan_lets_other_type_tests_be() -> None:
    assert type_tests(ast.parse("isinstance(x, str)\ntype(x) is int\nrules_of(b).cell()")) == []


def test_every_kind_has_rules_of_its_own_module() -> None:
    assert set(_RULES) == set(typing.get_args(BlockKind))
    modules = {rules.__module__ for rules in _RULES.values()}  # type: ignore[attr-defined]
    assert len(modules) == len(_RULES)  # one module per kind


def block(kind: BlockKind) -> Block:
    return Block(
        "docs/page",
        1,
        "/project/docs/page.md",
        12,
        ("print(1)",),
        BlockOptions(),
        (),
        Program("print(1)", "page.md"),
        kind=kind,
    )


def test_a_markdown_fence_runs_as_a_script_is_counted_as_a_block_and_named_by_its_line() -> None:
    fence = block(MarkdownFence())
    rules = rules_of(fence)
    assert not fence.doctest_style
    assert fence.label == "page.md:12"
    assert not rules.judged_like_pytest("pytest")
    assert rules.outputs_place() is None and not rules.written_where_it_is()
    assert rules.named(fence.label) == "block 'page.md:12'"


@pytest.mark.parametrize(
    ("kind", "sphinx", "pytest_like"),
    [
        (MarkdownFence(), False, False),
        (PageExamples(), False, True),
        (GroupCode(setup=True), False, True),
        (DocstringExamples(), True, True),
        (FileExamples(), True, True),
        (NotebookCell(0), False, False),
    ],
)
def test_the_examples_pytest_would_run_run_under_its_filters(
    kind: BlockKind, sphinx: bool, pytest_like: bool
) -> None:
    """A docstring's and a named text file's examples always; a page's where they are judged
    as pytest judges them (an MkDocs page's always); never a fence or a notebook cell."""
    settings = Settings(filterwarnings=("error",))
    assert bool(warning_filters(block(kind), settings, "sphinx")) is sphinx
    assert bool(warning_filters(block(kind), settings, "pytest")) is pytest_like
