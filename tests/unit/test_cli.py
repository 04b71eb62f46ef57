"""The command line's own answers, given before any build starts (no builds)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sphinx_jaxcheck import __version__, cli


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        cli.main(["--version"])
    assert stopped.value.code == 0
    assert capsys.readouterr().out == f"jaxcheck {__version__} (sphinx-jaxcheck)\n"


def test_bad_shard_option_exits_with_status_two(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        cli.main(["check", str(tmp_path), "--shard", "3/2"])
    assert exit_.value.code == 2
    assert "K must be between 1 and N" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "hint"),
    [
        (["update"], "`jaxcheck update source`"),
        (["update", "--dry-run", "."], "`jaxcheck update source --dry-run`"),
        (["check", "--format", "json"], "`jaxcheck check source --format json`"),
        (
            ["matrix", "--python", "old/bin/python"],
            "`jaxcheck matrix source --python old/bin/python`",
        ),
    ],
)
def test_one_folder_above_conf_py_the_hint_repeats_the_command_that_was_run(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    hint: str,
) -> None:
    (tmp_path / "source").mkdir()
    (tmp_path / "source" / "conf.py").write_text("")
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == 2
    assert capsys.readouterr().err == (
        "jaxcheck: .: no conf.py there; expected the Sphinx source folder (the one holding "
        f"conf.py) or pages in it; source/conf.py is one level down: {hint}\n"
    )
