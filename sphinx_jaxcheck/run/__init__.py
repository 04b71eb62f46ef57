"""Block -> outcome, on the Sphinx side: plan sessions, shard them, start and feed the workers.

What runs inside the worker processes is :mod:`sphinx_jaxcheck.worker`; this
package decides what they run, asks their interpreter what it has, and stops
cleanly on a signal.
"""
