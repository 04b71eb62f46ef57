"""Which of a build's folders lie inside its source folder, as ``exclude_patterns`` takes
them."""

from __future__ import annotations

from pathlib import Path

from sphinx_jaxcheck.sphinx.output_folders import inside_sources


def test_only_folders_below_the_sources_are_left_out(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "_build").mkdir(parents=True)
    (tmp_path / "link").symlink_to(docs)
    folders = [docs / "_build" / "jaxcheck" / "out", tmp_path / "link" / "_build" / "doctrees"]
    assert inside_sources(docs, folders) == ["_build/jaxcheck/out", "_build/doctrees"]
    # The source folder itself (a build in place), a folder around it, or one beside it: none.
    assert inside_sources(docs, [docs, tmp_path, tmp_path / "elsewhere"]) == []
    # A name exclude_patterns would read as a glob matches only itself.
    assert inside_sources(docs, [docs / "out[1]*"]) == ["out[[]1][*]"]
