"""tools/realworld_pages.py: JAX's pages converted as the real-world tests expect them."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from corpus import PAGES, REALWORLD, REALWORLD_MISSING

TOOL = Path(__file__).parents[2] / "tools" / "realworld_pages.py"
spec = importlib.util.spec_from_file_location("realworld_pages", TOOL)
assert spec is not None and spec.loader is not None
realworld_pages = importlib.util.module_from_spec(spec)
spec.loader.exec_module(realworld_pages)

RST = """\
Title
=====

Prose.

>>> x = 1
>>> x
1

.. code-block:: python

   >>> x + 1
   2

.. code-block:: python

   y = 2
"""


def test_rst_doctest_paragraphs_and_code_blocks_with_prompts_become_jaxcheck_blocks() -> None:
    converted = realworld_pages.convert("page.rst", RST)
    assert converted.startswith(
        "Title\n=====\n\n.. jaxcheck::\n   :hide:\n\n   import jax\n   import jax.numpy as jnp\n"
        "   import numpy as np\n   from jax import lax\n\n\nProse.\n"
    )
    assert ".. jaxcheck::\n\n   >>> x = 1\n   >>> x\n   1\n\n.. jaxcheck::\n\n   >>> x + 1" in (
        converted
    )
    assert ".. code-block:: python\n\n   y = 2\n" in converted  # no prompt: left as it is


def test_myst_python_fences_with_prompts_become_jaxcheck_blocks() -> None:
    page = "(label)=\n\n# Title\n\n```python\n>>> 1\n1\n```\n\n```python\nz = 3\n```\n"
    assert realworld_pages.convert("page.md", page) == (
        "(label)=\n\n# Title\n\n```{jaxcheck}\n:hide:\n\nimport jax\nimport jax.numpy as jnp\n"
        "import numpy as np\nfrom jax import lax\n```\n\n```{jaxcheck}\n>>> 1\n1\n```\n\n"
        "```python\nz = 3\n```\n"
    )


@pytest.mark.skipif(not REALWORLD.is_dir(), reason=REALWORLD_MISSING)
@pytest.mark.parametrize("page", PAGES)
def test_the_converted_pages_are_the_ones_the_tests_read(page: str) -> None:
    text = (REALWORLD / "jax-docs" / page).read_text("utf-8")
    expected = (REALWORLD / "jax-docs-jaxcheck" / page).read_text("utf-8")
    assert realworld_pages.convert(page, text) == expected


def test_the_skip_reason_of_the_real_world_tests_names_the_command_that_gets_the_pages() -> None:
    # A new user has no folder beside the checkout: the reason says what to run instead.
    assert "run `python tools/realworld_pages.py`" in REALWORLD_MISSING
    assert "JAXCHECK_REALWORLD" in REALWORLD_MISSING
    assert set(realworld_pages.DIGESTS) == set(PAGES)
