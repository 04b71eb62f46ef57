"""Citations of the pinned JAX source: the pin, targets, quotes and names in prose.

Everything is found by parsing the installed ``jax/`` files, never by importing
them. Pure: source text in, places, verdicts and links out.
"""
