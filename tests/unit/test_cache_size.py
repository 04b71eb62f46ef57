"""Pruning a cache folder to its cap, least recently used first (fast, no builds)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from sphinx_jaxcheck.cache.size import STALE_TEMPORARY_SECONDS, prune


def test_prune_removes_least_recently_used_first_and_old_temporary_files(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    (folder / "xla").mkdir(parents=True)
    now = time.time()
    files = {
        "old.json": now - 300,
        "used-lately.json": now - 10,
        "new.json": now - 5,
        "xla/jit_f-abc-cache": now - 200,
        "xla/jit_f-abc-atime": now - 1,  # JAX stamped it just now
        "xla/jit_g-def-cache": now - 100,
        "left-by-a-crash.tmp": now - STALE_TEMPORARY_SECONDS - 60,
        "being-written.tmp": now,
    }
    for name, stamp in files.items():
        path = folder / name
        path.write_bytes(b"x" * 1000)
        os.utime(path, (stamp, stamp))
    pruned = prune(folder, 5000, now=now)
    left = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
    assert left == [
        "being-written.tmp",
        "new.json",
        "used-lately.json",
        "xla/jit_f-abc-atime",
        "xla/jit_f-abc-cache",
    ]
    assert pruned.removed == 3 and pruned.freed == 3000
