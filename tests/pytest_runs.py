"""A user's own ``pytest --jaxcheck`` run, in a separate process, and what it reported: each
item's outcome and text, its location, the xdist worker that ran it, whether Sphinx was
imported, and how many jaxcheck zygotes started."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

# Records every report (and which xdist worker ran it) as the user's pytest sees it.
RECORDER = """
import json, os, sys

WORKER = False

def pytest_configure(config):
    global WORKER
    WORKER = hasattr(config, "workerinput")

def pytest_runtest_logreport(report):
    if WORKER:
        return  # the controller records it, with the worker that ran it
    if report.when == "call" or report.outcome != "passed":
        node = getattr(report, "node", None)
        record = {"nodeid": report.nodeid, "outcome": report.outcome, "when": report.when,
                  "worker": node.gateway.id if node is not None else None,
                  "text": report.longreprtext}
        with open("reports.jsonl", "a") as out:
            out.write(json.dumps(record) + "\\n")

def pytest_collection_finish(session):
    if not WORKER:
        with open("locations.json", "w") as out:
            json.dump({item.nodeid: list(item.location) for item in session.items}, out)

def pytest_sessionfinish(session):
    if not hasattr(session.config, "workerinput"):
        with open("sphinx-imported", "w") as out:
            out.write(str("sphinx.application" in sys.modules))
"""
# Every process started as the jaxcheck zygote leaves a line here.
ZYGOTE_SPY = """
import os, sys
# Where ZYGOTE_LOG is not passed on to the workers (jaxcheck_env_passthrough), nothing is noted.
if "sphinx_jaxcheck.worker.zygote" in sys.orig_argv and "ZYGOTE_LOG" in os.environ:
    with open(os.environ["ZYGOTE_LOG"], "a") as out:
        out.write(f"{os.getpid()}\\n")
"""


def entry_point_registered() -> bool:
    return any(
        ep.value == "sphinx_jaxcheck.pytest_plugin"
        for ep in importlib.metadata.entry_points(group="pytest11")
    )


class Run:
    """One pytest run in a project folder holding ``docs/``."""

    def __init__(self, root: Path, *args: str) -> None:
        for name in ("reports.jsonl", "zygotes.log", "sphinx-imported", "locations.json"):
            (root / name).unlink(missing_ok=True)
        (root / "conftest.py").write_text(RECORDER, "utf-8")
        spy = root / "spy"
        spy.mkdir(exist_ok=True)
        (spy / "sitecustomize.py").write_text(ZYGOTE_SPY, "utf-8")
        # Not the xdist worker running this test: the run is a user's own pytest.
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("PYTEST_XDIST_", "PYTEST_CURRENT"))
        }
        env["ZYGOTE_LOG"] = str(root / "zygotes.log")
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(spy), env.get("PYTHONPATH")]))
        # Installed, the plugin loads through its entry point, as for users.
        plugin = [] if entry_point_registered() else ["-p", "sphinx_jaxcheck.pytest_plugin"]
        self.result = subprocess.run(
            [sys.executable, "-m", "pytest", *plugin, *args],
            cwd=root,
            capture_output=True,
            text=True,
            env=env,
        )
        reports = root / "reports.jsonl"
        self.reports = (
            [json.loads(line) for line in reports.read_text().splitlines()]
            if reports.exists()
            else []
        )
        log = root / "zygotes.log"
        self.zygotes = len(log.read_text().splitlines()) if log.exists() else 0
        located = root / "locations.json"
        # Each item's location as pytest reports it: (file, 0-based line, description).
        self.locations: dict[str, list[Any]] = (
            json.loads(located.read_text()) if located.exists() else {}
        )
        imported = root / "sphinx-imported"
        self.sphinx_imported = imported.read_text() == "True" if imported.exists() else None

    @property
    def outcomes(self) -> dict[str, str]:
        return {r["nodeid"]: r["outcome"] for r in self.reports}

    def text(self, nodeid: str) -> str:
        return next(
            r["text"] for r in self.reports if r["nodeid"] == nodeid and r["outcome"] == "failed"
        )
