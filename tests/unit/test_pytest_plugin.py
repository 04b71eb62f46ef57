"""The pytest plugin's registration (no pytest run, no builds)."""

from __future__ import annotations

import importlib.metadata


def entry_point_registered() -> bool:
    return any(
        ep.value == "sphinx_jaxcheck.pytest_plugin"
        for ep in importlib.metadata.entry_points(group="pytest11")
    )


def test_the_plugin_is_registered_through_the_pytest11_entry_point() -> None:
    assert entry_point_registered(), (
        "reinstall the package (pip install -e .) to register the entry point"
    )
