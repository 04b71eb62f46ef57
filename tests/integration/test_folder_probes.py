"""What a block learns of a folder by asking about it (is it a folder, does it exist, where
does it lead, is it the same as another) is what the cache checks again: a change to that
answer runs the block again, and a file added to the folder, which changes its times but no
answer, does not. A temporary folder the block makes is no input at all.

The block appends a line to a file each time it really runs, so "it ran" is observed in the
worker itself (appending reads nothing, so it is no input of the session).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from buildkit import jaxcheck, write_project

ASKING = """# Page

```{{jaxcheck}}
with open({ran!r}, 'a') as log:
    log.write('ran\\n')
import os
from pathlib import Path
W = {world!r}
print(Path(W).exists(), Path(W, 'x').is_dir(), os.path.isdir(W + '/y'))
print(Path(W, 'x').resolve().name, os.path.samefile(W, W + '/.'), Path(W).is_mount())

# True True False
# x True False
```
"""


def check(root: Path, *options: str) -> list[str]:
    """The statuses of the blocks, from the JSON report of a fresh ``jaxcheck check``."""
    done = jaxcheck("check", root, "--format", "json", *options)
    assert done.returncode in (0, 1), done.stderr
    report: dict[str, Any] = json.loads(done.stdout)
    return [block["status"] for block in report["blocks"]]


def runs(ran: Path) -> int:
    return len(ran.read_text().splitlines()) if ran.exists() else 0


def test_a_folder_asked_about_runs_its_block_again_only_when_an_answer_changes(
    tmp_path: Path,
) -> None:
    world, ran = tmp_path / "world", tmp_path / "ran.txt"
    (world / "x").mkdir(parents=True)
    page = ASKING.format(ran=str(ran), world=str(world))
    root = write_project(tmp_path / "docs", {"page.md": page}, "jaxcheck_cache = True\n")
    assert check(root) == ["verified"] and runs(ran) == 1

    # Entries added to the folders asked about and to the folder above them: no answer changes.
    (world / "unrelated.txt").write_text("new", "utf-8")
    (world / "x" / "inside.txt").write_text("new", "utf-8")
    (world / "other").mkdir()
    (tmp_path / "beside.txt").write_text("new", "utf-8")
    assert check(root) == ["verified"] and runs(ran) == 1

    # A folder the block asked about is created, then one is removed: each runs it again.
    (world / "y").mkdir()
    assert check(root) == ["stale"] and runs(ran) == 2
    (world / "y").rmdir()
    assert check(root) == ["verified"] and runs(ran) == 3
    (world / "x" / "inside.txt").unlink()
    (world / "x").rmdir()
    assert check(root) == ["stale"] and runs(ran) == 4
    assert check(root, "--no-cache") == ["stale"] and runs(ran) == 5


COPYING = """# Page

```{{jaxcheck}}
with open({ran!r}, 'a') as log:
    log.write('ran\\n')
import os, shutil, tempfile
with tempfile.TemporaryDirectory() as made:
    shutil.copy({data!r}, made)
    print(os.listdir(made), open(os.path.join(made, 'data.txt')).read())

# ['data.txt'] one
```
"""


def test_a_temporary_folder_a_block_makes_and_removes_keeps_its_session_cached(
    tmp_path: Path,
) -> None:
    """Removing it (shutil.rmtree, by descriptor) and what it held are the session's own
    doing; the file copied into it is an input."""
    data, ran = tmp_path / "data.txt", tmp_path / "ran.txt"
    data.write_text("one", "utf-8")
    page = COPYING.format(ran=str(ran), data=str(data))
    root = write_project(tmp_path / "docs", {"page.md": page}, "jaxcheck_cache = True\n")
    done = jaxcheck("check", root, "--format", "json")
    assert json.loads(done.stdout)["uncached"] == [] and runs(ran) == 1
    assert check(root) == ["verified"] and runs(ran) == 1
    data.write_text("two", "utf-8")
    assert check(root) == ["stale"] and runs(ran) == 2


DISTRIBUTIONS = """# Page

```{{jaxcheck}}
with open({ran!r}, 'a') as log:
    log.write('ran\\n')
import sys, importlib.metadata
sys.path.insert(0, {world!r})
found = importlib.metadata.distributions(path=[{world!r}])
print(importlib.metadata.version('toy'), len(list(found)))

# 1.0 1
```
"""


def test_importlib_metadata_learns_which_distributions_a_folder_holds_not_its_times(
    tmp_path: Path,
) -> None:
    """importlib.metadata stats each folder of the path to know whether to list it again (JAX
    asks it for plugins, so every session did): a file added beside the distributions ran
    every session again. What it learns is which distributions the folder holds."""
    world, ran = tmp_path / "world", tmp_path / "ran.txt"
    info = world / "toy-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy\nVersion: 1.0\n", "utf-8")
    page = DISTRIBUTIONS.format(ran=str(ran), world=str(world))
    root = write_project(tmp_path / "docs", {"page.md": page}, "jaxcheck_cache = True\n")
    assert check(root) == ["verified"] and runs(ran) == 1

    (world / "NOTES.txt").write_text("new", "utf-8")
    (world / "build").mkdir()
    assert check(root) == ["verified"] and runs(ran) == 1

    # Another distribution in the folder, then a version changed: each runs it again.
    (world / "other-2.0.dist-info").mkdir()
    assert check(root) == ["stale"] and runs(ran) == 2
    (world / "other-2.0.dist-info").rmdir()
    assert check(root) == ["verified"] and runs(ran) == 3
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy\nVersion: 1.1\n", "utf-8")
    assert check(root) == ["stale"] and runs(ran) == 4
    assert check(root, "--no-cache") == ["stale"] and runs(ran) == 5
