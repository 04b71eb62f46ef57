"""Block code compiled once is not compiled again to look for syntax errors; an error is
found in every build, and a record naming code that does not compile makes nothing pass."""

from __future__ import annotations

from pathlib import Path

from buildkit import build, write_project

from sphinx_jaxcheck.cache.syntax import code_digest, known_to_compile, record_path
from sphinx_jaxcheck.expect.grammar import python_code

CACHED = "jaxcheck_cache = True\n"
GOOD = 'print("hello")\n'
# The parser accepts it; only the compiler refuses `return` outside a function.
BROKEN = "return 1\n"


def page(code: str) -> str:
    return f"# Page\n\n```{{jaxcheck}}\n{code}\n# hello\n```\n"


def digest_of(code: str) -> str:
    """The digest of the code the block of :func:`page` compiles."""
    return code_digest(python_code(f"{code}\n# hello".split("\n")))


def test_code_that_compiled_is_recorded_and_a_syntax_error_is_found_in_every_build(
    tmp_path: Path,
) -> None:
    root = write_project(tmp_path / "docs", {"page.md": page(GOOD)}, conf=CACHED)
    cache = root / ".jaxcheck_cache"
    assert build(root, fresh=True).status == 0
    assert known_to_compile(cache) == {digest_of(GOOD)}
    record = Path(record_path(cache))
    written = record.stat().st_mtime_ns
    assert build(root, fresh=True).status == 0
    assert record.stat().st_mtime_ns == written  # nothing new: not written again
    (root / "page.md").write_text(page(BROKEN))
    for _ in range(2):
        broken = build(root, fresh=True)
        assert broken.status == 1 and broken.subtypes() == ["syntax"]
        assert "'return' outside function" in broken.reported[0].message
    assert known_to_compile(cache) == {digest_of(GOOD)}


def test_a_record_naming_code_that_does_not_compile_makes_nothing_pass(tmp_path: Path) -> None:
    root = write_project(tmp_path / "docs", {"page.md": page(BROKEN)}, conf=CACHED)
    cache = root / ".jaxcheck_cache"
    record = Path(record_path(cache))
    record.parent.mkdir(parents=True)
    record.write_text(digest_of(BROKEN) + "\n")  # as if it had compiled
    planted = build(root, fresh=True)
    # Not compiled here: the worker compiles it, and the block fails with its error.
    assert planted.status == 1 and planted.subtypes() == ["error"]
    assert "'return' outside function" in planted.reported[0].message


def test_without_the_cache_every_block_is_compiled(tmp_path: Path) -> None:
    root = write_project(tmp_path / "docs", {"page.md": page(BROKEN)}, conf="")
    cache = root / ".jaxcheck_cache"
    record = Path(record_path(cache))
    record.parent.mkdir(parents=True)
    record.write_text(digest_of(BROKEN) + "\n")
    broken = build(root, fresh=True, jaxcheck_cache="0")
    assert broken.status == 1 and broken.subtypes() == ["syntax"]
