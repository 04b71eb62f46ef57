"""The cache folder stays under jaxcheck_cache_max_mb; `jaxcheck cache` shows, prunes, clears.

Session outcomes are pruned to their share after every build, least recently
used first; the compiled programs are emptied after a build that leaves more
than theirs (JAX gets no limit of its own: it rescans the folder on every store).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from buildkit import jaxcheck, write_project

from sphinx_jaxcheck import cli
from sphinx_jaxcheck.cache.size import human_size, usage
from sphinx_jaxcheck.config import compiled_share, results_share

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


# MB. A build stores two outcomes (~410 bytes each) and two compiled programs (~3.1 KB
# each; the first build also jnp.arange's, ~2.1 KB): the outcomes' share holds three
# builds' worth, the programs' share one build's.
CAP_MB = 0.012
LIMIT = int(CAP_MB * 1024 * 1024)


def test_changing_blocks_never_take_the_caches_over_their_cap(tmp_path: Path) -> None:
    root = cached_project(tmp_path, CAP_MB)
    compiled = []
    for build in range(1, 5):
        for name, text in pages(build).items():
            (root / name).write_text(text)
        assert cli.main(["check", str(root)]) == 0
        found = usage(root / ".jaxcheck_cache")
        compiled.append(found.compiled)
        assert found.size("outcome") <= results_share(LIMIT)
        assert found.compiled <= compiled_share(LIMIT)
        assert found.size() <= LIMIT
    # The programs were kept while they fitted, and emptied when a build left more.
    assert max(compiled) > 0 and 0 in compiled, compiled
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
    found = usage(root / ".jaxcheck_cache")
    assert found.count("outcome") == 6
    # The same builds compile more than all of CAP_MB, and it is all kept ...
    assert found.compiled > LIMIT
    # ... without JAX's own bookkeeping of a limit (an access time beside each program).
    assert not list((root / ".jaxcheck_cache" / "xla").glob("*-atime"))


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
    compiled = usage(folder).compiled
    assert f"compiled programs: {human_size(compiled)} in xla/ of at most" in info.stdout
    pruned = jaxcheck("cache", "prune", str(root), "-D", "jaxcheck_cache_max_mb=0.000001")
    assert pruned.returncode == 0 and "2 item(s) removed" in pruned.stdout
    assert usage(folder).size("outcome") == 0
    assert usage(folder).compiled == 0 and "compiled programs emptied" in pruned.stdout
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


LIMIT_PAGE = """# Limit

```{jaxcheck}
import os
print(os.environ.get("JAX_COMPILATION_CACHE_MAX_SIZE"))

# None
```
"""


@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
def test_the_workers_give_jax_no_limit_of_its_own(tmp_path: Path, cache: bool) -> None:
    """In the cache folder, bounded after the build; a build without the cache compiles into
    a folder of its own, for that build only."""
    root = write_project(
        tmp_path / "docs",
        {"limit.md": LIMIT_PAGE},
        conf=f"jaxcheck_cache = {cache}\njaxcheck_cache_max_mb = 1\n",
    )
    assert cli.main(["check", str(root)]) == 0
