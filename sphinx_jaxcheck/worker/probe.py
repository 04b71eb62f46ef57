"""What the workers' interpreter has installed, asked of that interpreter itself.

Run once per build: the distributions a block can import decide its outcome as
much as its code does, so their names and versions are part of the cache key.
The question goes to a short-lived process started exactly like the workers
(same interpreter, same environment), so it sees the workers' ``sys.path``,
not the Sphinx process's. It never imports jax.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass

# Without the script's folder ('' for -c), as the workers drop theirs.
_QUESTION = """\
import importlib.metadata, json, sys
del sys.path[0]
found = set()
for dist in importlib.metadata.distributions():
    found.add(((dist.metadata["Name"] or "?").lower().replace("_", "-"), dist.version or "?"))
print(json.dumps({"python": sys.version, "distributions": sorted(found)}))
"""


@dataclass(frozen=True)
class PackageSet:
    """The workers' Python version and installed distributions (name, version), sorted."""

    python: str
    distributions: tuple[tuple[str, str], ...]


def probe(python: str, env: Mapping[str, str]) -> PackageSet:
    """Ask ``python``, run with ``env``, what it is and what it has installed.

    An interpreter that cannot answer yields a description of the failure: the
    workers will fail to start and say why; the key only has to differ.
    """
    try:
        done = subprocess.run(
            [python, "-c", _QUESTION],
            env=dict(env),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        answer = json.loads(done.stdout)
        distributions = tuple((str(n), str(v)) for n, v in answer["distributions"])
        return PackageSet(answer["python"], distributions)
    except (OSError, ValueError, KeyError, TypeError, subprocess.SubprocessError) as error:
        return PackageSet(f"unusable: {type(error).__name__}: {error}", ())
