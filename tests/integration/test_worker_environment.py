"""The environment a block sees: the allowlisted names of the build's, exactly, never a longer
name."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from buildkit import jaxcheck, write_project

from sphinx_jaxcheck.run.pool import INHERITED

# Each name on the list without a `*` is a whole name: a longer one that starts
# with it (HOME, HOMEBREW_GITHUB_API_TOKEN) is someone else's, often a secret.
EXACT = [name for name in INHERITED if not name.endswith("*")]
PREFIXES = [name[:-1] for name in INHERITED if name.endswith("*")]
PAGE = """# Environment

```{{jaxcheck}}
import json, os
with open({seen!r}, "w") as out:
    json.dump(dict(os.environ), out)
```
"""


def test_a_block_sees_the_listed_names_and_no_name_that_merely_starts_with_one(
    tmp_path: Path,
) -> None:
    seen = tmp_path / "seen.json"
    root = write_project(
        tmp_path / "docs",
        {"page.md": PAGE.format(seen=str(seen))},
        conf='jaxcheck_env_passthrough = ["MYDOCS_SETTING", "MYDOCS_DATA_*"]\n',
    )
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "PYTHONPATH")}
    listed = {"HOME": str(tmp_path), "USER": "someone", "LOGNAME": "someone", "TZ": "UTC"}
    env.update(listed)
    env.update({f"{prefix}JAXCHECK_TEST": "by prefix" for prefix in PREFIXES})
    longer = {f"{name}_JAXCHECK_SECRET": "secret" for name in EXACT}
    longer["HOMEBREW_GITHUB_API_TOKEN"] = "ghp_not_a_real_token"
    longer["MYDOCS_SETTINGS_TOKEN"] = "secret"  # longer than a passed-through name
    env.update(longer)
    env.update({"MYDOCS_SETTING": "passed", "MYDOCS_DATA_DIR": "passed by prefix"})
    done = jaxcheck("check", str(root), "--no-cache", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    inside = json.loads(seen.read_text())
    assert sorted(set(longer) & set(inside)) == []
    assert "secret" not in inside.values() and "ghp_not_a_real_token" not in inside.values()
    assert {name: inside.get(name) for name in listed} == listed
    for prefix in PREFIXES:
        assert inside[f"{prefix}JAXCHECK_TEST"] == "by prefix", prefix
    assert inside["MYDOCS_SETTING"] == "passed"
    assert inside["MYDOCS_DATA_DIR"] == "passed by prefix"


ANCESTORS = """# Ancestors

```{jaxcheck}
import os

pid = os.getppid()
while pid > 1:
    with open(f"/proc/{pid}/environ", "rb") as environ:
        for entry in environ.read().split(b"\\0"):
            if entry.startswith(b"JAXCHECK_TEST_TOKEN="):
                print(entry.decode())
    with open(f"/proc/{pid}/status") as status:
        pid = int(next(line for line in status if line.startswith("PPid:")).split()[1])

# nothing
```
"""
TOKEN = "ghp_not-a-real-token-42"


def test_a_value_the_workers_do_not_get_is_hidden_where_a_block_prints_it(
    tmp_path: Path,
) -> None:
    """A block reads the build's own environment from /proc: the value it prints reaches no
    report, diff, cache entry or page; its name shows where it was."""
    root = write_project(tmp_path / "docs", {"page.md": ANCESTORS}, conf="jaxcheck_cache = True\n")
    env = {**os.environ, "JAXCHECK_TEST_TOKEN": TOKEN}
    done = jaxcheck("check", root, "--format", "json", env=env)
    assert done.returncode == 1, done.stderr
    (finding,) = json.loads(done.stdout)["findings"]
    assert "+JAXCHECK_TEST_TOKEN=[hidden: $JAXCHECK_TEST_TOKEN]" in finding["message"]
    text = jaxcheck("check", root, env=env)
    html = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", str(root), str(tmp_path / "html")],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "[hidden: $JAXCHECK_TEST_TOKEN]" in (tmp_path / "html" / "page.html").read_text()
    written = [p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()]
    for shown in (done.stdout, done.stderr, text.stdout, text.stderr, html.stdout, html.stderr):
        assert TOKEN not in shown
    assert not [p for p in written if TOKEN.encode() in p]
