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
