"""When the reports are coloured: NO_COLOR, then FORCE_COLOR, then the terminal (no builds)."""

from __future__ import annotations

import os

import pytest

from sphinx_jaxcheck.report.colour import use_colour


def test_colour_follows_no_color_then_force_color_then_the_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    leader, follower = os.openpty()
    with open(follower, "w") as terminal, open(os.devnull, "w") as plain:
        monkeypatch.delenv("NO_COLOR", raising=False)
        monkeypatch.delenv("FORCE_COLOR", raising=False)
        assert use_colour(terminal) and not use_colour(plain)
        monkeypatch.setenv("FORCE_COLOR", "1")
        assert use_colour(plain)
        monkeypatch.setenv("NO_COLOR", "1")
        assert not use_colour(terminal) and not use_colour(plain)
    os.close(leader)
