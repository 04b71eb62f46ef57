"""The pin: installed version and commit, mismatch errors, and links to the pinned commit (no
builds)."""

from __future__ import annotations

import importlib.metadata
import subprocess
import sys
from pathlib import Path

import pytest

from sphinx_jaxcheck.cite.pin import (
    Installed,
    Pin,
    installed,
    recorded_commit,
    resolve_pin,
)
from sphinx_jaxcheck.errors import PinMismatchError

REPO = "https://github.com/jax-ml/jax"
COMMIT = "990e6a0b84138346e6a38785412f36356e0e5dc3"


def test_installed_reads_version_from_metadata_and_commit_from_version_py() -> None:
    found = installed()
    assert found.version == importlib.metadata.version("jax")
    assert found.root is not None
    version_py = (found.root / "jax" / "version.py").read_text()
    assert f"_git_hash: str = '{found.commit}'" in version_py


def test_recorded_commit_parses_without_importing(tmp_path: Path) -> None:
    file = tmp_path / "version.py"
    file.write_text("import does_not_exist\n_git_hash: str = 'abc123'\n")
    assert recorded_commit(file) == "abc123"
    file.write_text("_git_hash = None\n")
    assert recorded_commit(file) is None


def test_installed_does_not_import_jax() -> None:
    code = (
        "import sys; from sphinx_jaxcheck.cite.pin import installed; installed(); "
        "print('jax' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_link_uses_commit_else_tag() -> None:
    assert (
        Pin("0.10.2", COMMIT, REPO).link("jax/x.py", 3, 9) == f"{REPO}/blob/{COMMIT}/jax/x.py#L3-L9"
    )
    assert (
        Pin("0.10.2", None, REPO).link("jax/x.py", 3, 3) == f"{REPO}/blob/jax-v0.10.2/jax/x.py#L3"
    )
    assert Pin("0.10.2", None, REPO + "/").link("jax/x.py") == f"{REPO}/blob/jax-v0.10.2/jax/x.py"


def test_version_mismatch_names_both_versions_and_next_steps() -> None:
    found = Installed("0.10.2", COMMIT, None)
    with pytest.raises(PinMismatchError) as error:
        resolve_pin("0.4.30", None, REPO, found)
    message = str(error.value)
    assert "0.10.2" in message and "0.4.30" in message
    assert "pip install jax==0.4.30" in message
    assert "-D jaxcheck_jax_version=0.10.2" in message


def test_commit_mismatch_names_both_commits() -> None:
    found = Installed("0.10.2", COMMIT, None)
    other = "0" * 40
    with pytest.raises(PinMismatchError) as error:
        resolve_pin("0.10.2", other, REPO, found)
    assert COMMIT in str(error.value) and other in str(error.value)


def test_overriding_the_version_drops_the_old_pins_commit_and_links_by_tag() -> None:
    found = Installed("0.10.2", COMMIT, None)
    pin = resolve_pin("0.10.2", "0" * 40, REPO, found, version_overridden=True)
    assert pin.commit is None
    assert pin.ref == "jax-v0.10.2"


def test_matching_pin_links_to_configured_commit() -> None:
    pin = resolve_pin("0.10.2", COMMIT, REPO, Installed("0.10.2", COMMIT, None))
    assert pin.ref == COMMIT
