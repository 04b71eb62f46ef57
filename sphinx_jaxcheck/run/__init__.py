"""Block -> outcome, in the process that reads the documents (Sphinx's, or the MkDocs
front-end's): plan sessions, shard them, start and feed the workers.

What runs inside the worker processes is :mod:`sphinx_jaxcheck.worker`; this
package decides what they run, asks their interpreter what it has, and stops
cleanly on a signal.
"""
