"""Keep the worker's own frames out of what JAX records about the user's code.

JAX attaches the Python call stack to every traced operation (MLIR location
chains, ``as_text(debug_info=True)``, its filtered tracebacks). Under a worker
that stack runs through this package and through ``runpy``; those frames would
land in printed outputs, differ between installs, and be written into pages by
``jaxcheck update``. JAX hides frames of files it is told about, by path prefix.
"""

from __future__ import annotations

import importlib
import os
import sys

# Our package (the worker and everything it imports), and frozen stdlib modules such as runpy.
_HIDDEN = (os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep, "<frozen ")
_done: list[bool] = []


def hide_worker_frames() -> None:
    """Tell an imported jax to leave our frames out; a no-op before jax is imported, or once
    done."""
    if _done or "jax" not in sys.modules:
        return
    _done.append(True)
    for module_name in ("jax._src.source_info_util", "jax._src.traceback_util"):
        try:
            register = importlib.import_module(module_name).register_exclusion
        except (ImportError, AttributeError):  # another jax version without this private API
            continue
        for path in _HIDDEN:
            register(path)
