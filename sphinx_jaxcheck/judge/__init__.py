"""Outcome -> verdict: does what a block really did match what its comments expect?

Matching rules (ellipsis, numbers, jaxprs, doctest's output checker), the
verdict on a block, and the verdict on each ``>>>`` example. Pure.
"""
