"""The objects a build keeps to its end, kept out of the garbage collector's passes.

Each full pass of Python's collector walks every tracked object, and this extension
adds its own modules and records to those of Sphinx and the other extensions: in a build
whose sessions all come from the cache, the collector's passes grew from about 36 ms to
74 ms on the synthetic benchmark's project (a second full pass). What exists once the
builder is made (modules, classes, the configuration) and once the documents are read
(the environment) lives until the build ends anyway, so it is frozen there
(``gc.freeze``), and handed back to the collector when the build finishes, so that a
process running several builds frees each one's garbage.
"""

from __future__ import annotations

import gc

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from .stages import BuilderInited, BuildFinished, EnvUpdated


def setup_frozen_heap(app: Sphinx) -> None:
    app.connect("builder-inited", _freeze_setup, priority=BuilderInited.FROZEN_HEAP)
    app.connect("env-updated", _freeze_environment, priority=EnvUpdated.FROZEN_HEAP)
    app.connect("build-finished", _thaw, priority=BuildFinished.FROZEN_HEAP)


def _freeze_setup(_app: Sphinx) -> None:
    gc.freeze()


def _freeze_environment(_app: Sphinx, _env: BuildEnvironment) -> None:
    gc.freeze()


def _thaw(_app: Sphinx, _problem: BaseException | None) -> None:
    gc.unfreeze()
