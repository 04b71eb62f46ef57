"""The pin: installed version and commit, mismatch errors, and links to the pinned commit."""

from __future__ import annotations

from pathlib import Path

import pytest
from buildkit import build, write_project

from sphinx_jaxcheck.cite.pin import (
    installed,
)
from sphinx_jaxcheck.errors import ConfigurationError

COMMIT = "990e6a0b84138346e6a38785412f36356e0e5dc3"


def pinned_project(root: Path, version: str) -> Path:
    """A page citing JAX source, in a project pinned to ``version``."""
    return write_project(
        root,
        {"index.rst": "Title\n=====\n\n:jaxsrc:`loops.py::_check_carry_type`\n"},
        conf=f'jaxcheck_jax_version = "{version}"\njaxcheck_jax_commit = "{COMMIT}"\n',
    )


def test_pin_mismatch_in_conf_py_stops_the_build_naming_both_versions(tmp_path: Path) -> None:
    srcdir = pinned_project(tmp_path / "src", "0.4.30")
    with pytest.raises(ConfigurationError) as error:
        build(srcdir)
    assert error.value.code == 2
    message = str(error.value)
    assert "0.4.30" in message and installed().version in message  # type: ignore[operator]
    assert "pip install jax==0.4.30" in message


def test_sphinx_build_exits_non_zero_on_pin_mismatch(tmp_path: Path) -> None:
    from sphinx.cmd.build import build_main

    srcdir = pinned_project(tmp_path / "src", "0.4.30")
    with pytest.raises(SystemExit) as stopped:
        build_main(["-q", "-b", "html", str(srcdir), str(tmp_path / "out")])
    assert stopped.value.code == 2


def test_override_with_installed_version_builds_and_links_by_tag(tmp_path: Path) -> None:
    srcdir = pinned_project(tmp_path / "src", "0.4.30")
    version = installed().version
    html = (build(srcdir, jaxcheck_jax_version=version).app.outdir / "index.html").read_text()
    assert f"/blob/jax-v{version}/jax/_src/lax/control_flow/loops.py#L" in html
    assert COMMIT not in html  # the configured commit belonged to the old pin
