"""A zygote started before the build's configuration is read, adopted once it is.

A cold check waits for the zygote to import jax, about two seconds, more than
half of it in numpy and ml_dtypes. Those read none of the variables a
configuration gives jax and XLA, so a ``jaxcheck`` command starts a spare
zygote at once: it imports them and waits for its environment. The build's
workers adopt it when their own environment differs from the spare's only in
such variables (:data:`LATE_VARIABLES`), from the same interpreter and folder;
then it takes their environment before importing jax, as a zygote started then
would. Otherwise it is ended and the workers start their own.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO

from ..worker.protocol import ENV_FOLLOWS, encode

# Read by jax, jaxlib and this package's worker code only, all imported after adoption.
LATE_VARIABLES = re.compile(r"(JAX_|XLA_|TF_CPP_|JAXCHECK_)")


@dataclass
class Spare:
    """A zygote process that imported numpy and waits for its environment."""

    python: str
    env: dict[str, str]
    cwd: str
    process: subprocess.Popen[bytes]
    stderr: IO[bytes]

    def fits(self, python: str, env: Mapping[str, str]) -> bool:
        """Whether workers of ``python`` with ``env`` may take this process."""
        names = env.keys() | self.env.keys()
        changed = {name for name in names if env.get(name) != self.env.get(name)}
        return (
            python == self.python
            and os.getcwd() == self.cwd
            and self.process.poll() is None
            and all(LATE_VARIABLES.match(name) for name in changed)
        )

    def end(self) -> None:
        """Kill the process (it runs nothing yet) and release what it holds."""
        self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.stderr):
            if stream is not None:
                stream.close()


_SPARE: list[Spare] = []  # at most one, in the process that started it


def start_spare(python: str, env: Mapping[str, str]) -> None:
    """Start a spare zygote of ``python`` with ``env`` (no-op if one is waiting already)."""
    if _SPARE:
        return
    stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed by the adopter or end()
    process = subprocess.Popen(
        [python, "-m", "sphinx_jaxcheck.worker.zygote", ENV_FOLLOWS],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        env=dict(env),
    )
    _SPARE.append(Spare(python, dict(env), os.getcwd(), process, stderr))


def take_spare(
    python: str, env: Mapping[str, str]
) -> tuple[subprocess.Popen[bytes], IO[bytes]] | None:
    """The spare zygote, given ``env``, if it fits workers of ``python`` with ``env``; the
    spare is ended otherwise. None when there is none that fits."""
    if not _SPARE:
        return None
    spare = _SPARE.pop()
    assert spare.process.stdin is not None
    try:
        if spare.fits(python, env):
            spare.process.stdin.write(encode({"env": dict(env)}))
            spare.process.stdin.flush()
            return spare.process, spare.stderr
    except OSError:  # it ended meanwhile
        pass
    spare.end()
    return None


def end_spare() -> None:
    """End the spare zygote no build took, if any."""
    while _SPARE:
        _SPARE.pop().end()
