"""The objects alive at setup stay out of garbage collection during a build, and only then."""

from __future__ import annotations

import gc
import sys
from pathlib import Path

from buildkit import build, write_project

# A local extension, set up after sphinx_jaxcheck: how many objects are frozen once the
# documents are read.
RECORDER = """\
import gc
import sys

sys.modules["frozen_during_build"] = frozen = []


def note(app, env):
    frozen.append(gc.get_freeze_count())


def setup(app):
    app.connect("env-updated", note)
"""


def frozen_during_build(tmp_path: Path) -> list[int]:
    """Build a project without blocks in this process; the freeze counts it noted."""
    root = tmp_path / "project"
    write_project(
        root,
        {"page.md": "# Page\n\nNo blocks.\n", "recorder.py": RECORDER},
        conf=f'import sys\nsys.path.insert(0, {str(root)!r})\nextensions.append("recorder")\n',
    )
    done = build(root, fresh=True)
    assert done.status == 0, done.warnings
    noted: list[int] = sys.modules.pop("frozen_during_build")  # type: ignore[assignment]
    return noted


def test_a_build_freezes_what_setup_left_alive_and_gives_it_back_at_the_end(
    tmp_path: Path,
) -> None:
    assert gc.get_freeze_count() == 0
    noted = frozen_during_build(tmp_path)
    assert len(noted) == 1 and noted[0] > 10_000  # Sphinx's modules and more
    assert gc.get_freeze_count() == 0


def test_objects_someone_else_froze_are_theirs_to_give_back(tmp_path: Path) -> None:
    gc.freeze()
    try:
        before = gc.get_freeze_count()
        noted = frozen_during_build(tmp_path)
        # Frozen objects can still be freed (by reference counting), never added or thawed.
        assert len(noted) == 1 and noted[0] <= before
        assert before // 2 < gc.get_freeze_count() <= before
    finally:
        gc.unfreeze()
