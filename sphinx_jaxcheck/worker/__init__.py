"""Running blocks in worker processes: the only part of the package that runs user code.

``pool`` (Sphinx side) starts one ``zygote`` process that imports jax once and
forks a fresh child per session; the child runs ``runner``. They speak the
JSON-lines protocol of ``protocol``. The Sphinx process never imports jax.
"""
