"""The objects alive once the extension is set up stay out of garbage collection for the build.

Those objects (Sphinx's, MyST's and this package's modules, classes and functions) live as
long as the build does. Left in the collector's oldest generation they are walked by every
full collection, and the extension's own make a build need one more (about 40 ms). Frozen
at setup (:func:`gc.freeze`) they are walked by none, and given back to the collector when
the build ends, so that a process running several builds keeps nothing it would have freed.
"""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING

from .stages import BuildFinished

if TYPE_CHECKING:
    from sphinx.application import Sphinx

# Whether the frozen objects are this module's to give back: a build that failed before it
# ended (an extension's setup raised) left them frozen.
_frozen = False


def setup_long_lived(app: Sphinx) -> None:
    """Freeze what is alive now, unless something else froze objects (its own to give back)."""
    global _frozen
    if _frozen:
        gc.unfreeze()
    elif gc.get_freeze_count():
        return
    gc.freeze()
    _frozen = True
    app.connect("build-finished", _unfreeze, priority=BuildFinished.UNFREEZE)


def _unfreeze(_app: Sphinx, _exception: BaseException | None) -> None:
    global _frozen
    if _frozen:
        gc.unfreeze()
        _frozen = False
