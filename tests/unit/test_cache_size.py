"""Pruning the session outcomes to their share of the cap, least recently used first (fast,
no builds)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from sphinx_jaxcheck.cache.size import STALE_TEMPORARY_SECONDS, compiled_folder, prune, usage
from sphinx_jaxcheck.config import compiled_share, results_share


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
    pruned = prune(folder, 2000, now=now)
    left = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
    # JAX's folder is left alone, however old: JAX keeps it under its own share.
    assert left == [
        "being-written.tmp",
        "new.json",
        "used-lately.json",
        "xla/jit_f-abc-atime",
        "xla/jit_f-abc-cache",
        "xla/jit_g-def-cache",
    ]
    assert (pruned.removed, pruned.freed, pruned.left) == (2, 2000, 2000)
    assert usage(folder).compiled == 3000


def test_the_shares_of_the_cap_leave_room_for_what_jax_does_not_count() -> None:
    cap = 512 * 1024 * 1024
    assert results_share(cap) + compiled_share(cap) <= 0.97 * cap
    assert results_share(cap) >= cap // 4 and compiled_share(cap) >= 0.7 * cap


def test_a_folder_of_programs_stored_without_the_limit_is_emptied_once(tmp_path: Path) -> None:
    legacy = tmp_path / "xla" / "jit_f-abc-cache"  # no access time beside it: JAX would fail
    legacy.parent.mkdir()
    legacy.write_bytes(b"x" * 100)
    folder = compiled_folder(tmp_path)
    assert folder == str(tmp_path / "xla") and not legacy.exists()
    kept = tmp_path / "xla" / "jit_g-def-cache"
    kept.write_bytes(b"y" * 100)
    assert compiled_folder(tmp_path) == folder and kept.exists()  # since then: JAX's own
