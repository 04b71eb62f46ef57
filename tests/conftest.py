"""Hypothesis profiles, the second environment with an older jax, the order of the test
files, and test projects' modules forgotten after each test."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

# buildkit's shared assertions explain their failures as a test's own asserts do.
pytest.register_assert_rewrite("buildkit")

# CI (tox passes CI through) replays the same examples on every run and keeps no
# example database, so a run's result depends on the code alone. Local runs search
# with fresh random examples and remember failures in .hypothesis/ (git-ignored).
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.register_profile("dev")
# tox -e mutation runs the fast tests once per mutant: fewer examples, same every time.
settings.register_profile("mutation", derandomize=True, database=None, max_examples=10)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


OLDER_JAX = "0.4.35"


@pytest.fixture(autouse=True)
def forget_project_modules(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """A build in this process imports its project's modules (autodoc, sphinx.ext.doctest):
    a later test's project with a module of the same name must import its own, not find
    this one in ``sys.modules``."""
    yield
    temporary = str(tmp_path_factory.getbasetemp())
    for name, module in list(sys.modules.items()):
        if (getattr(module, "__file__", None) or "").startswith(temporary):
            del sys.modules[name]


@pytest.fixture(scope="session")
def older_python() -> Path:
    """The Python of a second environment with jax and jaxlib 0.4.35, made once and kept.

    It lives in ``.tox/jax-0.4.35`` beside the one ``tox -e docs`` uses (the same
    folder when run from the repository), so later runs reuse it.
    """
    repo = Path(__file__).parents[1]
    spec = importlib.util.spec_from_file_location("jax_env", repo / "tools" / "jax_env.py")
    assert spec is not None and spec.loader is not None
    jax_env = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(jax_env)
    try:
        return Path(jax_env.ensure(repo / ".tox" / f"jax-{OLDER_JAX}", OLDER_JAX))
    except subprocess.CalledProcessError:
        with tempfile.TemporaryDirectory() as scratch:
            reach = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pip",
                    "download",
                    "--no-deps",
                    "--quiet",
                    "-d",
                    scratch,
                    f"jax=={OLDER_JAX}",
                ],
                capture_output=True,
                text=True,
            )
        if reach.returncode != 0:
            pytest.skip(
                f"the package index is unreachable, so no environment with jax {OLDER_JAX} "
                f"can be made: {reach.stderr.strip()[-300:]}"
            )
        raise


# The test files that take longest, longest first, as `--durations` measured them (all of a
# file's tests together): tox runs the suite with `--dist loadfile --no-loadscope-reorder`,
# which gives each file to one worker (a module- or session-scoped fixture is made once) in
# the order of this list, so that no long file starts when the other worker is nearly done.
# The files not listed keep their order after these.
SLOWEST_FILES = tuple(
    f"tests/integration/{name}.py"
    for name in (
        "test_doctest_modules",
        "test_newcomer",
        "test_other_python",
        "test_cache",
        "test_update",
        "test_edit_sequences",
        "test_sharding",
        "test_pytest_plugin",
        "test_interrupt",
        "test_update_properties",
        "test_realworld",
        "test_cache_dependencies",
        "test_configuration",
        "test_faults",
        "test_conformance",
        "test_update_docstrings",
        "test_update_proof",
        "test_sphinx_doctest",
        "test_demo_docs",
        "test_guide_promises",
        "test_browser",
    )
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files of ``SLOWEST_FILES`` first, in its order; within a file, the file's order."""
    rank = {path: i for i, path in enumerate(SLOWEST_FILES)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))
