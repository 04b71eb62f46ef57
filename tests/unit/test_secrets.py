"""What of the build's environment is hidden in what the workers send."""

from __future__ import annotations

import json
from pathlib import Path

from sphinx_jaxcheck.run.secrets import hidden_values, hide


def test_only_long_values_the_workers_lack_are_hidden_as_printed_and_as_json(
    tmp_path: Path,
) -> None:
    build = {
        "TOKEN": 'tok"en\\valué-123',
        "HOME": "/home/someone-long",
        "CI": "true",
        "SAME": "/given/to/workers",
        "PWD": str(tmp_path),
    }
    hidden = hidden_values(build, {"HOME": "/home/someone-long", "OTHER": "/given/to/workers"})
    line = json.dumps({"stdout": f"{build['TOKEN']} true {tmp_path}"}).encode()
    shown = json.loads(hide(line, hidden))["stdout"]
    assert shown == f"[hidden: $TOKEN] true {tmp_path}"
    assert hide(build["TOKEN"].encode(), hidden) == b"[hidden: $TOKEN]"
    assert set(hidden.values()) == {b"[hidden: $TOKEN]"}
