"""Drift -> rewritten source: ``jaxcheck update``.

Which stale expectations may be rewritten and why others may not, the new
text aligned with what still holds, and the edit of the file itself (every
other byte kept, nothing written over a file that changed). Pure but for
reading and writing the sources.
"""
