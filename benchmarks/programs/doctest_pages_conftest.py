"""conftest.py of the pages ``doctest_pages.py`` gives pytest: jax, lax, jnp and np in every
example's namespace."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax


@pytest.fixture(autouse=True)
def add_imports(doctest_namespace: dict[str, object]) -> None:
    doctest_namespace.update(jax=jax, lax=lax, jnp=jnp, np=np)
