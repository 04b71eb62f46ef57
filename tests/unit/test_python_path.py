"""The folders conf.py put on ``sys.path``: which they are, and where they stand."""

from __future__ import annotations

from pathlib import Path

from sphinx_jaxcheck.run.pool import PythonPath, WorkerSettings
from sphinx_jaxcheck.sphinx.python_path import added_folders
from sphinx_jaxcheck.worker.protocol import AFTER_IMPORT, PATH_LAST


def folders(tmp_path: Path, *names: str) -> list[str]:
    made = []
    for name in names:
        (tmp_path / name).mkdir()
        made.append(str(tmp_path / name))
    return made


def test_inserted_folders_go_first_and_appended_ones_last_in_pythons_order(tmp_path: Path) -> None:
    checkout, docs, stdlib, site, ext = folders(tmp_path, "checkout", "docs", "lib", "site", "ext")
    # conf.py: sys.path.insert(0, checkout); sys.path.append(ext); started from docs.
    path = [checkout, docs, stdlib, site, ext]
    assert added_folders(path, frozenset({stdlib, site}), {docs}) == PythonPath((checkout,), (ext,))


def test_the_folder_python_put_first_is_no_addition_unless_conf_py_inserted_it_too(
    tmp_path: Path,
) -> None:
    docs, stdlib = folders(tmp_path, "docs", "lib")
    assert added_folders([docs, stdlib], frozenset({stdlib}), {docs}) == PythonPath()
    # conf.py: sys.path.insert(0, os.path.abspath(".")) while started from that folder.
    assert added_folders([docs, docs, stdlib], frozenset({stdlib}), {docs}) == PythonPath((docs,))


def test_missing_and_repeated_folders_are_left_out(tmp_path: Path) -> None:
    checkout, stdlib = folders(tmp_path, "checkout", "lib")
    gone = str(tmp_path / "gone")
    path = [gone, checkout, checkout, stdlib]
    assert added_folders(path, frozenset({stdlib}), set()) == PythonPath((checkout,))


def test_workers_get_the_first_folders_before_pythonpath_and_the_last_ones_apart() -> None:
    settings = WorkerSettings(
        env={"PYTHONPATH": "/installed"}, python_path=PythonPath(("/checkout",), ("/ext",))
    )
    env = settings.process_env()
    assert env["PYTHONPATH"].split(":")[:2] == ["/checkout", "/installed"]
    assert env[PATH_LAST] == "/ext"
    # An early zygote imports jax with the path it started with: a different one refuses it.
    assert not AFTER_IMPORT.match(PATH_LAST)
    assert settings.key_env() != WorkerSettings(env={"PYTHONPATH": "/installed"}).key_env()
