"""Both caches stay under jaxcheck_cache_max_mb, least recently used first; `jaxcheck cache` shows, prunes, clears."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from buildkit import jaxcheck, write_project

from sphinx_jaxcheck import cli
from sphinx_jaxcheck.cache.size import usage

JITTED = """# Page {n}

```{{jaxcheck}}
import jax
import jax.numpy as jnp
open("ran.txt", "a").write("ran\\n")  # in the document's folder
print(jax.jit(lambda x: jnp.tanh(x * {c}))(jnp.arange(3.0)).shape)

# (3,)
```
"""


def pages(build: int) -> dict[str, str]:
    return {f"page{n}.md": JITTED.format(n=n, c=f"{build}.{n}5") for n in range(2)}


def cached_project(tmp_path: Path, cap_mb: float) -> Path:
    return write_project(
        tmp_path / "docs",
        pages(0),
        conf=f"jaxcheck_cache = True\njaxcheck_cache_max_mb = {cap_mb}\n",
    )


def test_changing_blocks_never_take_the_caches_over_their_cap(tmp_path: Path) -> None:
    cap = 0.02  # MB: room for two builds (an outcome is ~300 bytes, a compiled program ~3.5 KB)
    root = cached_project(tmp_path, cap)
    sizes = []
    for build in range(1, 5):
        for name, text in pages(build).items():
            (root / name).write_text(text)
        assert cli.main(["check", str(root)]) == 0
        found = usage(root / ".jaxcheck_cache")
        assert found.count("xla") > 0  # the compiled programs are in the count
        sizes.append(found.size())
    assert max(sizes) <= cap * 1024 * 1024
    kept = usage(root / ".jaxcheck_cache").count("outcome")
    assert 2 <= kept < 8  # some of the 8 sessions were pruned ...
    runs = len((root / "ran.txt").read_text().splitlines())
    shutil.rmtree(root / "_build")  # forget the environment: every document is read again
    assert cli.main(["check", str(root)]) == 0
    # ... the least recently used: the last build's are all still there, nothing runs again.
    assert len((root / "ran.txt").read_text().splitlines()) == runs


def test_without_a_cap_in_reach_the_caches_keep_every_build(tmp_path: Path) -> None:
    root = cached_project(tmp_path, 512)
    for build in range(1, 4):
        for name, text in pages(build).items():
            (root / name).write_text(text)
        assert cli.main(["check", str(root)]) == 0
    assert usage(root / ".jaxcheck_cache").count("outcome") == 6


def test_jaxcheck_cache_info_prune_and_clear(tmp_path: Path) -> None:
    root = cached_project(tmp_path, 512)
    assert cli.main(["check", str(root)]) == 0
    folder = root / ".jaxcheck_cache"
    info = jaxcheck("cache", "info", str(root))
    assert info.returncode == 0
    assert f"cache folder:      {folder}" in info.stdout
    assert (
        "session outcomes:  2 (" in info.stdout
        and "of at most 512.0 MB (jaxcheck_cache_max_mb)" in info.stdout
    )
    pruned = jaxcheck("cache", "prune", str(root), "-D", "jaxcheck_cache_max_mb=0.000001")
    assert pruned.returncode == 0 and "item(s) removed" in pruned.stdout
    assert usage(folder).size() == 0
    assert cli.main(["check", str(root)]) == 0
    cleared = jaxcheck("cache", "clear", str(root))
    assert cleared.returncode == 0 and "freed" in cleared.stdout
    assert usage(folder).items == () and not (folder / "xla").exists()
    assert (folder / ".gitignore").exists()


@pytest.mark.parametrize("value", ["0", "-1", "inf", "lots"])
def test_a_bad_cap_is_a_configuration_error(tmp_path: Path, value: str) -> None:
    root = cached_project(tmp_path, 512)
    done = jaxcheck("cache", "info", str(root), "-D", f"jaxcheck_cache_max_mb={value}")
    assert (
        done.returncode == 2
        and "jaxcheck_cache_max_mb" in done.stderr
        and "Traceback" not in done.stderr
    )
