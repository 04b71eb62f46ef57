"""``jaxcheck update`` repairs exactly the broken examples of JAX's own pages, and nothing else.

The pages are five of JAX's documentation pages converted to ``jaxcheck``
blocks. We corrupt the expected output of several examples that pass (two of
them tracebacks whose source ends in a bare ``...`` line), run the real
command line, and ask JAX's own doctest run (``pytest --doctest-glob`` with
NUMBER and NORMALIZE_WHITESPACE, the namespace of JAX's conftest, eight host
devices) whether the result passes: the oracle is not ours.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from buildkit import jaxcheck
from corpus import CONF, JAX_CONFTEST, PAGES, REALWORLD_MISSING
from corpus import REALWORLD as SHARED

REALWORLD = SHARED / "jax-docs-jaxcheck"  # the pages as jaxcheck blocks
pytestmark = pytest.mark.skipif(not REALWORLD.is_dir(), reason=REALWORLD_MISSING)

PYTEST_INI = "[pytest]\ndoctest_optionflags = NUMBER NORMALIZE_WHITESPACE\n"
BARE = (
    "TypeError: Argument types differ from the types for which this computation was compiled. "
    "The mismatches are:\n"
)
# (page, text of a passing example's expected output, the corrupted text)
CORRUPTIONS = (
    (
        "aot.md",
        BARE + "Argument 'x' compiled with int32[] and called with int32[3]",
        "ValueError" + BARE[9:] + "Argument 'x' compiled with int32[] and called with int32[3]",
    ),
    (
        "aot.md",
        BARE + "Argument 'x' compiled with int32[] and called with float32[]",
        "KeyError" + BARE[9:] + "Argument 'x' compiled with int32[] and called with float32[]",
    ),
    (
        "faq.rst",
        "   >>> print(jit(f)(x))\n   0.5723649\n",
        "   >>> print(jit(f)(x))\n   0.9723649\n",
    ),
    ("faq.rst", "   >>> print(f(x))\n   inf\n", "   >>> print(f(x))\n   nan\n"),
    (
        "type_promotion.rst",
        "   >>> jnp.int32(2) * x\n   Array([0, 2, 4, 6, 8], dtype=int32)",
        "   >>> jnp.int32(2) * x\n   Array([0, 2, 4, 6, 8], dtype=int16)",
    ),
    ("type_promotion.rst", "  >>> print(z)\n  2.0\n", "  >>> print(z)\n  3.0\n"),
)


def jax_doctests(root: Path) -> subprocess.CompletedProcess[str]:
    """JAX's own check of the pages: pytest's doctest runner, as JAX's CI runs it."""
    env = {
        **os.environ,
        "XLA_FLAGS": "--xla_force_host_platform_device_count=8",
        "JAX_PLATFORMS": "cpu",
    }
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "-c",
            str(root / "pytest.ini"),
            "--rootdir",
            str(root),
            "--ignore",
            str(root / "_build"),
            "--doctest-glob=*.md",
            "--doctest-glob=*.rst",
            "--doctest-continue-on-failure",
            *(str(root / page) for page in PAGES),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        check=False,
    )


@pytest.fixture(scope="module")
def corrupted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("realworld")
    for page in PAGES:
        shutil.copyfile(REALWORLD / page, root / page)
    for page, good, bad in CORRUPTIONS:
        text = (root / page).read_text("utf-8")
        assert text.count(good) == 1, (page, good)
        (root / page).write_text(text.replace(good, bad), "utf-8")
    # As the pages' own check configures them (the same flags as JAX's pytest), caching
    # inside the project.
    (root / "conf.py").write_text(
        CONF.replace("CACHE", repr(str(root / ".jaxcheck_cache"))), "utf-8"
    )
    (root / "conftest.py").write_text(JAX_CONFTEST, "utf-8")
    (root / "pytest.ini").write_text(PYTEST_INI, "utf-8")
    (root / "index.rst").write_text(
        "Index\n=====\n\n.. toctree::\n\n" + "".join(f"   {p.rsplit('.', 1)[0]}\n" for p in PAGES)
    )
    return root


def test_update_repairs_exactly_the_corrupted_examples_and_jax_doctests_pass(
    corrupted: Path,
) -> None:
    before = jax_doctests(corrupted)
    assert before.returncode == 1 and "3 failed" in before.stdout, before.stdout[-2000:]

    done = jaxcheck("update", str(corrupted))
    assert done.returncode == 0, done.stderr
    assert "jaxcheck update: rewrote 6 expectation(s) in 3 file(s)" in done.stderr

    for page in PAGES:
        original = (REALWORLD / page).read_text("utf-8").splitlines()
        updated = (corrupted / page).read_text("utf-8").splitlines()
        assert len(updated) == len(original), page
        changed = [(a, b) for a, b in zip(original, updated, strict=True) if a != b]
        if page == "aot.md":
            # The types are repaired; the message is the one JAX 0.10.2 raises, on one line,
            # and the lines under it that still match are kept.
            assert [a for a, _ in changed] == [BARE.rstrip("\n")] * 2
            assert all(
                b.startswith("TypeError: Argument types differ") and "Perhaps" in b
                for _, b in changed
            )
        else:
            assert changed == [], page  # the other repairs restore the page byte for byte

    after = jax_doctests(corrupted)
    assert after.returncode == 0, after.stdout[-3000:]

    again = jaxcheck("update", str(corrupted))
    assert (
        again.returncode == 0
        and "jaxcheck update: rewrote 0 expectation(s) in 0 file(s)" in again.stderr
    )
