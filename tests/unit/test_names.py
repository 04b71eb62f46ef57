"""Which inline literals are `jax.` names, and how the static index finds them (no builds, no
jax import)."""

from __future__ import annotations

import pytest

from sphinx_jaxcheck.cite.citation import installed_index
from sphinx_jaxcheck.cite.names import check_name, dotted_name


def test_members_only_a_type_stub_declares_exist() -> None:
    # ``Array.block_until_ready`` is attached to the concrete array type at run
    # time; jax's API reference lists it from the stub, and so do we.
    found = check_name(installed_index(), "jax.Array.block_until_ready").location
    assert found is not None and found.path == "jax/_src/basearray.pyi"


@pytest.mark.parametrize(
    ("literal", "name"),
    [
        ("jax.lax.scan", "jax.lax.scan"),
        ("jax.jit()", "jax.jit"),
        ('jax.config.update("jax_enable_x64", True)', "jax.config.update"),
        ("jax.jit(f).lower(x)", None),  # a chain of calls is an expression, not a name
        ("jax", None),
        ("numpy.where", None),
        ("jax.lax.scan + 1", None),
    ],
)
def test_which_literals_are_names(literal: str, name: str | None) -> None:
    assert dotted_name(literal) == name
