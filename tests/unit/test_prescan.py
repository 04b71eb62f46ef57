"""The pre-scan that lets ``jaxcheck check`` leave pages unparsed: what it must always read."""

from __future__ import annotations

import pytest

from sphinx_jaxcheck.expect.prescan import Prescan, directives

PROSE = "Title\n=====\n\nSee :func:`jax.jit` and :ref:`faq`.\n\n.. note::\n\n   Plain.\n"


@pytest.mark.parametrize(
    "text",
    [
        ">>> 1 + 1\n2\n",
        "Text with an example ``>>> x`` inline.\n",
        ".. jaxcheck::\n\n   print(1)\n",
        "```{jaxcheck}\nprint(1)\n```\n",
        ":::{jaxcheck-qa}\nq\n:::\n",
        "See :jaxsrc:`jax/_src/api.py`.\n",
        "See {jaxquote}`x`.\n",
        ".. include:: other.rst\n",
        ".. literalinclude:: code.py\n",
        "```{include} other.md\n```\n",
        ".. autofunction:: jax.jit\n",
        ".. automodule:: jax.numpy\n   :members:\n",
        ".. autosummary::\n   :toctree: _autosummary\n\n   jax.jit\n",
        "```{eval-rst}\n.. autofunction:: jax.jit\n```\n",
        ".. toctree::\n\n   other\n",
        ".. default-role:: jaxsrc\n\n`x`\n",
        ".. plot::\n\n   import matplotlib\n",
        "```{code-cell} python\nx = 1\n```\n",
        ".. testcode::\n\n   print(1)\n",
        ".. doctest::\n\n   x\n",
        ".. py:function:: f(x)\n",
        ".. |name| image:: a.png\n\n.. |other| include:: x\n",
        "> ```{include} quoted.md\n> ```\n",
        "~~~{literalinclude} a.py\n~~~\n",
        ":orphan:\n\nA page in no toctree.\n",
        "---\norphan: true\n---\n# A page\n",
        "..  unknown-directive:: with two spaces\n",
    ],
)
def test_pages_that_may_hold_checks_are_read(text: str) -> None:
    assert Prescan().may_hold_checks(PROSE + text)


@pytest.mark.parametrize(
    "text",
    [
        PROSE,
        "# A page\n\n```python\nimport jax\nprint(jax.numpy.ones(3))\n```\n",
        ".. code-block:: python\n\n   x = 1\n\n.. math::\n\n   e^x\n",
        "```{note}\nText.\n```\n\n```{code-block} python\nx = 1\n```\n",
        ".. image:: a.png\n.. figure:: b.png\n\n   Caption.\n\n.. |x| replace:: y\n",
        ".. _label:\n\n.. a comment, not a directive\n\n::\n\n   literal\n",
        "Literal:: text, then ``code``.\n",
    ],
)
def test_pages_holding_nothing_to_check_are_not(text: str) -> None:
    assert not Prescan().may_hold_checks(text), Prescan().reasons(text)


def test_with_name_checks_any_page_naming_jax_is_read() -> None:
    text = "Use ``jax.lax.scan`` here.\n"
    assert not Prescan().may_hold_checks(text)
    assert Prescan(check_names=True).may_hold_checks(text)
    assert not Prescan(check_names=True).may_hold_checks("Plain words.\n")


def test_substitutions_and_the_prolog_count_as_page_text() -> None:
    assert Prescan(substitutions=True).may_hold_checks("Text {{ name }}.\n")
    assert not Prescan(substitutions=False).may_hold_checks("Text {{ name }}.\n")
    assert Prescan(prolog=".. include:: /common.rst\n").may_hold_checks("Plain words.\n")


def test_directive_names_are_found_in_both_syntaxes() -> None:
    text = ".. note::\n.. py:function:: f\n```{tab-set}\n```\n:::{dropdown} Title\n:::\n"
    assert directives(text) == {"note", "py:function", "tab-set", "dropdown"}
