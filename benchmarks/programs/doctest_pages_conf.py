"""conf.py of the project ``doctest_pages.py`` checks with jaxcheck: the pages' own ``>>>``
examples, as JAX's pytest runs them."""

extensions = ["myst_parser", "sphinx_jaxcheck"]
exclude_patterns = ["_build"]
suppress_warnings = ["ref.ref", "image.not_readable"]
jaxcheck_env = {"JAX_PLATFORMS": "cpu", "XLA_FLAGS": "--xla_force_host_platform_device_count=8"}
jaxcheck_doctests = "check"
jaxcheck_doctest_flags = ["NUMBER", "NORMALIZE_WHITESPACE"]
jaxcheck_setup = """
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
"""
