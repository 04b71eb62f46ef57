"""The package under test is an input of every verdict: its code, not its version string.

A project whose CI tests its own package (JAX, Flax, optax, ...) installs it from
its checkout, or checks its docstrings (``jaxcheck_doctest_modules``); a change
to its code keeps the version it says. A warm check must then run again what
depended on it, as a ``--no-cache`` check does. The packages here are installed
as pip leaves them, in a ``site-packages`` folder of their own on the workers'
path: with a ``direct_url.json`` naming a local folder, or none (from an index).
"""

from __future__ import annotations

import json
from pathlib import Path

from buildkit import jaxcheck, write_project

import sphinx_jaxcheck

MODULE = '''"""A package whose code changes while its version stays."""


def step(x):
    """One more.

    >>> step(1)
    2
    """
    return x + 1
'''


def install(site: Path, name: str, local: bool) -> Path:
    """``name`` 1.0 in ``site`` as pip installs it, from a local folder or from an index."""
    package = site / name
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(MODULE, "utf-8")
    info = site / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "top_level.txt").write_text(f"{name}\n")
    if local:
        url = {"url": f"file://{site.parent / 'checkout'}", "dir_info": {"editable": False}}
        (info / "direct_url.json").write_text(json.dumps(url))
    return package / "__init__.py"


def check(root: Path) -> tuple[int, str]:
    done = jaxcheck("check", root)
    return done.returncode, done.stdout + done.stderr


def project(tmp_path: Path, conf: str, files: dict[str, str]) -> Path:
    site = str(tmp_path / "site-packages")
    env = f'jaxcheck_env = {{"JAX_PLATFORMS": "cpu", "PYTHONPATH": {site!r}}}\n'
    return write_project(tmp_path / "docs", files, conf="jaxcheck_cache = True\n" + env + conf)


def test_a_change_to_the_code_of_a_package_whose_docstrings_are_checked_is_checked(
    tmp_path: Path,
) -> None:
    code = install(tmp_path / "site-packages", "pkgundertest", local=False)
    root = project(tmp_path, 'jaxcheck_doctest_modules = ["pkgundertest"]\n', {})
    assert check(root)[0] == 0
    code.write_text(MODULE.replace("x + 1", "x + 5"), "utf-8")  # version 1.0 still
    status, said = check(root)
    assert status == 1 and "6" in said, said
    assert jaxcheck("check", root, "--no-cache").returncode == 1


def test_a_change_to_a_package_installed_from_a_folder_runs_its_users_again(
    tmp_path: Path,
) -> None:
    code = install(tmp_path / "site-packages", "pkglocal", local=True)
    page = "# Uses\n\n```{jaxcheck}\nimport pkglocal\n\nprint(pkglocal.step(1))\n\n# 2\n```\n"
    root = project(tmp_path, "", {"uses.md": page})
    assert check(root)[0] == 0
    code.write_text(MODULE.replace("x + 1", "x + 5"), "utf-8")
    status, said = check(root)
    assert status == 1 and "+6" in said, said


def test_the_workers_path_keeps_pythons_order(tmp_path: Path) -> None:
    # A checkout's own folder on PYTHONPATH comes before site-packages, and before wherever
    # sphinx-jaxcheck itself is installed (site-packages, or a checkout), as in Python itself.
    (tmp_path / "src").mkdir()
    ours = str(Path(sphinx_jaxcheck.__file__).resolve().parents[1])
    page = (
        "# Path\n\n```{jaxcheck}\nimport os, sys\n\n"
        "path = [os.path.realpath(p) for p in sys.path]\n"
        f"src = path.index({str(tmp_path / 'src')!r})\n"
        "site = min(n for n, p in enumerate(path) if p.endswith('site-packages'))\n"
        f"print(src < site and src < path.index({ours!r}))\n\n# True\n```\n"
    )
    root = write_project(
        tmp_path / "docs",
        {"path.md": page},
        conf=f'jaxcheck_env = {{"PYTHONPATH": {str(tmp_path / "src")!r}}}\n',
    )
    status, said = check(root)
    assert status == 0, said
