"""Pruning the session outcomes to their share of the cap, least recently used first, and
emptying the compiled programs past theirs (fast, no builds)."""

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
    pruned = prune(folder, 2000, 3000, now=now)
    left = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file())
    # JAX's folder is left alone, however old, while it fits its share.
    assert left == [
        "being-written.tmp",
        "new.json",
        "used-lately.json",
        "xla/jit_f-abc-atime",
        "xla/jit_f-abc-cache",
        "xla/jit_g-def-cache",
    ]
    assert (pruned.removed, pruned.freed, pruned.left, pruned.emptied) == (2, 2000, 2000, 0)
    assert usage(folder).compiled == 3000
    (folder / "xla" / "jit_h-123-cache").write_bytes(b"x")  # one byte over
    (folder / "xla" / "nested").mkdir()
    (folder / "xla" / "nested" / "entry").write_bytes(b"x" * 10)
    assert prune(folder, 2000, 3000, now=now).emptied == 3011
    assert (folder / "xla").is_dir() and not any((folder / "xla").iterdir())
    assert usage(folder).size("outcome") == 2000  # the outcomes under their share stay


def test_the_shares_of_the_cap_add_up_to_at_most_the_cap() -> None:
    cap = 512 * 1024 * 1024
    assert results_share(cap) + compiled_share(cap) <= cap
    assert results_share(cap) >= cap // 4 and compiled_share(cap) >= 0.7 * cap


def test_the_folder_of_programs_is_made_and_kept(tmp_path: Path) -> None:
    folder = compiled_folder(tmp_path)
    assert folder == str(tmp_path / "xla")
    kept = tmp_path / "xla" / "jit_g-def-cache"
    kept.write_bytes(b"y" * 100)
    assert compiled_folder(tmp_path) == folder and kept.exists()
