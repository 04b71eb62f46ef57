"""An MkDocs project checked by an interpreter that has no Sphinx and no docutils to import: a
virtual environment holding every package of this one but those (and MyST, which needs them),
with this checkout on its path. ``jaxcheck check``, ``update`` and ``pytest --jaxcheck`` work
there, and so do the workers they start, which are that interpreter too."""

from __future__ import annotations

import json
import os
import site
import subprocess
import sys
from pathlib import Path

import pytest
from pytest_runs import entry_point_registered

REPO = Path(__file__).parents[2]
LEFT_OUT = ("sphinx", "docutils", "myst")  # distributions, by the start of their names

PAGE = """\
# Units

```python
try:
    import sphinx
except ModuleNotFoundError as error:
    print(error)  # No module named 'sphinx'
```

```python
print(2 + 2)  # 5
```

>>> 3 * 3
9

::: scale
"""
# A module mkdocstrings shows: a worker collects its docstrings, without Sphinx too.
SCALE = '''\
def twice(x):
    """Twice ``x``.

    >>> twice(4)
    8
    """
    return 2 * x
'''


def left_out(name: str) -> bool:
    """Whether a site-packages entry is left out of the environment: Sphinx, docutils and
    MyST; and the installed sphinx_jaxcheck, for this checkout (its metadata stays, for
    pytest's entry point)."""
    lowered = name.lower()
    if lowered.startswith("sphinx_jaxcheck"):
        return not lowered.endswith(".dist-info")
    return lowered.startswith(LEFT_OUT) or lowered.startswith("__editable__")


@pytest.fixture(scope="module")
def python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The interpreter of an environment made here without Sphinx (no package is installed:
    the others are linked from this interpreter's site-packages)."""
    env = tmp_path_factory.mktemp("no-sphinx") / "env"
    made = subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(env)], capture_output=True, text=True
    )
    if made.returncode != 0:
        pytest.skip(
            f"cannot make a virtual environment here ({made.stderr.strip()}); "
            "install the venv module of this Python (apt install python3-venv)"
        )
    python = env / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    for folder in site.getsitepackages():
        for entry in Path(folder).iterdir():
            link = Path(purelib) / entry.name
            if not left_out(entry.name) and not link.exists():
                link.symlink_to(entry)
    (Path(purelib) / "jaxcheck_checkout.pth").write_text(f"{REPO}\n", "utf-8")
    for module in ("sphinx", "docutils"):
        tried = run(python, "-c", f"import {module}")
        assert f"No module named '{module}'" in tried.stderr, tried.stderr
    if run(python, "-c", "import jax").returncode != 0:
        pytest.skip(f"jax is not importable from {site.getsitepackages()}: pip install jax")
    return python


def run(
    python: Path, *args: str | Path, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``python ARGS`` in a fresh process, with nothing from PYTHONPATH."""
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    return subprocess.run(
        [str(python), *map(str, args)], capture_output=True, text=True, cwd=cwd, env=env
    )


def project(root: Path) -> Path:
    (root / "docs").mkdir(parents=True)
    config = "site_name: Units\nplugins:\n  - mkdocstrings\n"
    (root / "mkdocs.yml").write_text(config, "utf-8")
    (root / "docs" / "index.md").write_text(PAGE, "utf-8")
    (root / "scale.py").write_text(SCALE, "utf-8")
    return root


def test_check_judges_every_block_with_sphinx_unimportable(python: Path, tmp_path: Path) -> None:
    root = project(tmp_path)
    done = run(python, "-m", "sphinx_jaxcheck", "check", ".", "--format", "json", cwd=root)
    assert done.returncode == 1, done.stderr
    found = json.loads(done.stdout)
    # The first block's output holds: the worker could not import Sphinx either.
    assert [(b["line"], b["status"]) for b in found["blocks"]] == [(4, "verified"), (11, "stale")]
    assert [(e["path"], e["line"], e["status"]) for e in found["examples"]] == [
        ("docs/index.md", 14, "verified"),
        ("scale.py", 4, "verified"),
    ]
    assert [(f["line"], f["subtype"]) for f in found["findings"]] == [(11, "drift")]


def test_update_rewrites_the_drift_with_sphinx_unimportable(python: Path, tmp_path: Path) -> None:
    root = project(tmp_path)
    updated = run(python, "-m", "sphinx_jaxcheck", "update", ".", cwd=root)
    assert updated.returncode == 0, updated.stderr
    assert (root / "docs" / "index.md").read_text("utf-8") == PAGE.replace("# 5", "# 4")
    assert run(python, "-m", "sphinx_jaxcheck", "check", ".", cwd=root).returncode == 0


def test_pytest_takes_the_blocks_with_sphinx_unimportable(python: Path, tmp_path: Path) -> None:
    root = project(tmp_path)
    # Installed, the plugin is found by its entry point; else it is named.
    plugin = () if entry_point_registered() else ("-p", "sphinx_jaxcheck.pytest_plugin")
    done = run(
        python, "-m", "pytest", *plugin, "--jaxcheck", ".", "-p", "no:cacheprovider", cwd=root
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 failed, 3 passed" in done.stdout, done.stdout
    assert "FAILED docs/index.md::index.md:11" in done.stdout
