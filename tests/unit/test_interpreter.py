"""What the description of the workers' interpreter says it can do (no interpreter asked)."""

from __future__ import annotations

import pytest

from sphinx_jaxcheck.run.interpreter import Interpreter


@pytest.mark.parametrize(
    ("jax", "filelock", "keeps"),
    [
        ("0.10.2", "3.16.1", True),
        ("0.4.31", "3.0", True),
        # 0.4.30 removes any file of the folder, other releases' programs too.
        ("0.4.30", "3.16.1", False),
        ("0.10.2", None, False),  # JAX's eviction cannot lock the folder
        (None, "3.16.1", False),
        ("not-a-version", "3.16.1", False),
    ],
)
def test_jax_keeps_a_limit_on_its_cache_from_0_4_31_with_filelock(
    jax: str | None, filelock: str | None, keeps: bool
) -> None:
    found = Interpreter("python", (("jax", jax), ("filelock", filelock)), None)
    assert found.keeps_compilation_cache_limit is keeps
