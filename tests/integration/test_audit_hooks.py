"""The package installs no audit hook: not on import, not in a check, not in a Sphinx build.

Python cannot remove an audit hook once added; one left behind would hear every
file opened and process started by whatever the user's process does next. A
fresh process adds its own hook first, which hears the ``sys.addaudithook``
event Python raises whenever another hook is added, then imports the package,
runs ``jaxcheck check`` through ``sphinx_jaxcheck.cli.main`` (a real worker
stores the session in the cache) and a ``sphinx-build -E`` (the session comes
from the cache).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from buildkit import write_project

SCRIPT = """
import json, sys, traceback

root, out = sys.argv[1:]
added = []


def first(event, args):
    if event == "sys.addaudithook":
        added.append("".join(traceback.format_stack(limit=8)))


sys.addaudithook(first)

import sphinx_jaxcheck
from sphinx_jaxcheck import cli
from sphinx.cmd.build import build_main

checked = cli.main(["check", root])
built = build_main(["-q", "-E", "-b", "html", root, out])
print(json.dumps({"checked": checked, "built": built, "added": added}))
"""

PAGE = "# Page\n\n```{jaxcheck}\nprint(1 + 1)\n\n# 2\n```\n"


def test_no_audit_hook_is_added_by_import_check_or_build(tmp_path: Path) -> None:
    root = write_project(tmp_path / "docs", {"page.md": PAGE}, conf="jaxcheck_cache = True\n")
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(root), str(tmp_path / "html")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    assert (seen["checked"], seen["built"]) == (0, 0), done.stderr
    assert any((root / ".jaxcheck_cache").glob("*.json"))  # the build used the result cache
    assert seen["added"] == [], "an audit hook was added:\n" + "\n".join(seen["added"])
