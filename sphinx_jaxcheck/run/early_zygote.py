"""A zygote started before the build's configuration is read, adopted once it is.

A cold check waits for the zygote to import jax. A ``jaxcheck`` command knows
no configuration yet when it starts, but can guess the workers' environment:
the defaults, with the ``jaxcheck_env`` that ``conf.py`` spells as a literal
(see ``cli.project``). It starts an early zygote with that environment at once;
it imports jax and waits. The build's workers adopt it when their own
environment differs from its own only in variables that jax reads after
its import (:data:`~sphinx_jaxcheck.worker.protocol.AFTER_IMPORT`), from the
same interpreter and folder: it takes their environment and sets the
compilation cache's options as jax would have read them, so it is the zygote
a start with their environment would have made. Otherwise it is ended and the
workers start their own.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO

from ..worker.protocol import AFTER_IMPORT, CACHE_OPTIONS, ENV_FOLLOWS, Environment, encode


@dataclass
class WaitingZygote:
    """A zygote process that imported jax and waits for its environment."""

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
            # It sets the cache's options; it cannot take one away.
            and all(
                AFTER_IMPORT.match(name) and (name in env or name not in CACHE_OPTIONS)
                for name in changed
            )
        )

    def end(self) -> None:
        """Kill the process (it runs nothing yet) and release what it holds."""
        self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.stderr):
            if stream is not None:
                stream.close()


_WAITING: list[WaitingZygote] = []  # at most one, in the process that started it


def start_waiting_zygote(python: str, env: Mapping[str, str]) -> None:
    """Start an early zygote of ``python`` with ``env`` (no-op if one is waiting already)."""
    if _WAITING:
        return
    stderr = tempfile.TemporaryFile()  # noqa: SIM115 - closed by the adopter or end()
    process = subprocess.Popen(
        [python, "-m", "sphinx_jaxcheck.worker.zygote", ENV_FOLLOWS],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=stderr,
        env=dict(env),
    )
    _WAITING.append(WaitingZygote(python, dict(env), os.getcwd(), process, stderr))


def take_waiting_zygote(
    python: str, env: Mapping[str, str]
) -> tuple[subprocess.Popen[bytes], IO[bytes]] | None:
    """The early zygote, given ``env``, if it fits workers of ``python`` with ``env``; the
    early zygote is ended otherwise. None when there is none that fits."""
    if not _WAITING:
        return None
    waiting = _WAITING.pop()
    assert waiting.process.stdin is not None
    try:
        if waiting.fits(python, env):
            waiting.process.stdin.write(encode(Environment(dict(env))))
            waiting.process.stdin.flush()
            return waiting.process, waiting.stderr
    except OSError:  # it ended meanwhile
        pass
    waiting.end()
    return None


def end_waiting_zygote() -> None:
    """End the early zygote no build took, if any."""
    while _WAITING:
        _WAITING.pop().end()
