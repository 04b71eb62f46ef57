"""Warnings that fail the check: autodoc's failed import, which drops a page's docstring
examples, by default (``jaxcheck_fail_on_warnings``), and any warning under ``jaxcheck check
-W``; the exit status as the command line gives it."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from buildkit import build, jaxcheck, write_project

# In the compatibility part, run on every supported Sphinx (tox -e sphinx73 ...): each words
# autodoc's warning its own way.
pytestmark = pytest.mark.stack

BROKEN = (
    'import not_installed_anywhere\n\n\ndef scale(x):\n    """\n    >>> scale(2)\n    4\n    """\n'
    "    return 2 * x\n"
)
FIXED = BROKEN.replace("import not_installed_anywhere\n", "")
API = "API\n===\n\nThe scaling helpers.\n\n.. automodule:: scaling\n   :members:\n"
CONF = 'extensions = ["sphinx.ext.autodoc", "sphinx_jaxcheck"]\njaxcheck_doctests = "check"\n'


def _project(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A project whose API page shows the module ``scaling``, found through PYTHONPATH by
    Sphinx and the workers alike."""
    package = tmp_path / "src"
    package.mkdir()
    (package / "scaling.py").write_text(BROKEN, encoding="utf-8")
    root = write_project(tmp_path / "docs", {"api.rst": API}, conf=CONF)
    path = os.pathsep.join(filter(None, [str(package), os.environ.get("PYTHONPATH")]))
    return root, {**os.environ, "PYTHONPATH": path}


def test_a_module_autodoc_cannot_import_fails_the_check_until_it_imports(
    tmp_path: Path,
) -> None:
    root, env = _project(tmp_path)
    failed = jaxcheck("check", "docs", cwd=tmp_path, env=env)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    # Sphinx 9 names the exception's type, older releases give its message alone.
    assert re.search(
        r"^docs/api\.rst:6: dropped: autodoc could not import 'scaling' \((ModuleNotFoundError: )?"
        r"No module named 'not_installed_anywhere'\), so this page lacks its docstrings and none "
        r"of their examples is checked\.",
        failed.stdout,
        re.MULTILINE,
    ), failed.stdout
    assert "0 failed, 1 failed autodoc import(s) (jax" in failed.stdout
    # Nothing changed: the page is read again, and fails again.
    again = jaxcheck("check", root, env=env)
    assert again.returncode == 1, again.stdout + again.stderr
    assert "1 failed autodoc import(s)" in again.stdout
    # The module imports now, though no page changed: its example is checked.
    (tmp_path / "src" / "scaling.py").write_text(FIXED, encoding="utf-8")
    fixed = jaxcheck("check", root, env=env)
    assert fixed.returncode == 0, fixed.stdout + fixed.stderr
    assert "1 `>>>` example(s): 1 verified" in fixed.stdout


def test_with_the_setting_off_the_rest_is_checked_and_passes(tmp_path: Path) -> None:
    root, env = _project(tmp_path)
    done = jaxcheck("check", root, "-D", "jaxcheck_fail_on_warnings=off", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "dropped" not in done.stdout
    assert "autodoc: failed to import" in done.stderr  # Sphinx's own warning, as it was


def test_minus_w_fails_on_any_warning(tmp_path: Path) -> None:
    root, env = _project(tmp_path)
    (tmp_path / "src" / "scaling.py").write_text(FIXED, encoding="utf-8")
    (root / "orphan.rst").write_text("Orphan\n======\n", encoding="utf-8")  # in no toctree
    plain = jaxcheck("check", root, env=env)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert "document isn't included in any toctree" in plain.stderr
    strict = jaxcheck("check", root, "-W", env=env)
    assert strict.returncode == 1, strict.stdout + strict.stderr
    assert strict.stdout.rstrip().endswith(
        '; 1 warning(s), which fail the check (jaxcheck_fail_on_warnings = "any", '
        "as sphinx-build -W)"
    )


def test_sphinx_build_fails_on_the_dropped_examples_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, _ = _project(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    built = build(root, "html", fresh=True)
    assert built.status == 1
    assert [(r.file, r.line, r.subtype) for r in built.reported] == [("api.rst", 6, "dropped")]
