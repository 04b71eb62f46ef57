"""What the workers' interpreter has installed, asked of that interpreter itself.

Run once per build: the distributions a block can import decide its outcome as
much as its code does, so their names and versions are part of the cache key.
The question goes to a short-lived process started exactly like the workers
(same interpreter, same environment), so it sees the workers' ``sys.path``,
not the Sphinx process's. It never imports jax.

The interpreter also stamps (see :mod:`sphinx_jaxcheck.stamps`) everything the
answer comes from, before reading it: its executable, the folders it imports
from, its ``.pth`` files and start-up modules, and each distribution's metadata.
While those stamps hold, the answer holds, and need not be asked again.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field

from ..stamps import Stamp

# Without the script's folder ('' for -c), as the workers drop theirs. Stamps
# come first, so that a change made while the question runs shows next time.
QUESTION = """\
import glob, importlib.metadata, json, os, site, sys
del sys.path[0]
from sphinx_jaxcheck.stamps import stamps
where = [sys.executable, os.path.realpath(sys.executable), os.path.join(sys.prefix, "pyvenv.cfg"), *sys.path]
for folder in [*site.getsitepackages(), site.getusersitepackages()]:
    where += [folder, *sorted(glob.glob(os.path.join(glob.escape(folder), "*.pth")))]
where += [m.__file__ for m in list(sys.modules.values()) if isinstance(getattr(m, "__file__", None), str)]
seen = stamps(dict.fromkeys(os.path.abspath(p or ".") for p in where))
found = set()
for dist in importlib.metadata.distributions():
    folder = getattr(dist, "_path", None)
    if folder is not None:
        seen.update(stamps([str(folder), str(folder / "METADATA"), str(folder / "PKG-INFO")]))
    found.add(((dist.metadata["Name"] or "?").lower().replace("_", "-"), dist.version or "?"))
print(json.dumps({"python": sys.version, "distributions": sorted(found), "stamps": seen}))
"""


@dataclass(frozen=True)
class PackageSet:
    """The workers' Python version and installed distributions (name, version), sorted.

    ``stamps``: what the answer was read from, stamped before it was read
    (empty when the interpreter could not answer).
    """

    python: str
    distributions: tuple[tuple[str, str], ...]
    stamps: Mapping[str, Stamp] = field(default_factory=dict, compare=False)


def probe(python: str, env: Mapping[str, str]) -> PackageSet:
    """Ask ``python``, run with ``env``, what it is and what it has installed.

    An interpreter that cannot answer yields a description of the failure: the
    workers will fail to start and say why; the key only has to differ.
    """
    try:
        done = subprocess.run(
            [python, "-c", QUESTION],
            env=dict(env),
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        answer = json.loads(done.stdout)
        distributions = tuple((str(n), str(v)) for n, v in answer["distributions"])
        return PackageSet(answer["python"], distributions, dict(answer["stamps"]))
    except (OSError, ValueError, KeyError, TypeError, subprocess.SubprocessError) as error:
        return PackageSet(f"unusable: {type(error).__name__}: {error}", ())
