"""The environment a block sees: the allowlisted names of the build's, exactly, never a longer
name."""

from __future__ import annotations

import json
import os
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
