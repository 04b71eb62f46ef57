"""The worker processes: the only part of the package that runs user code.

One ``zygote`` process imports jax once and forks a fresh child per session;
the child runs ``session``. The Sphinx side (:mod:`sphinx_jaxcheck.run.pool`)
speaks to them in the JSON-lines protocol of ``protocol``. Nothing here imports
more of the package than :mod:`sphinx_jaxcheck.model`, and the Sphinx process
never imports jax.
"""
