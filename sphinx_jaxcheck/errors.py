"""The exceptions of sphinx-jaxcheck: one family under :class:`JaxcheckError`.

The root derives from ``BaseException``, as the standard library's
``BaseExceptionGroup`` does, so that the family holds two kinds:

- errors (also ``Exception``): something went wrong and is reported, with a
  message that says what and what to do next;
- stops (also ``SystemExit``): :class:`ConfigurationError` and
  :class:`InterruptError` end the run. They must pass through code that catches
  ``Exception``: Sphinx wraps such an exception of an event handler into its own
  and sphinx-build answers it with a crash report, and user code must not
  swallow Ctrl-C.

Here live the exceptions raised in one stage and caught in another (an adapter:
``sphinx/``, ``cli/``, the pytest plugin). Those caught where they are raised
stay in their module (``cite/jax_source.py``, ``expect/grammar.py``,
``cache/outcomes.py``, ``rewrite/``, ``cli/``, ``pytest_plugin.py``) and derive
from the root too.

Outside the family: the exceptions the worker processes raise for their own
control flow (``OutputLimitExceeded`` in ``worker/runner.py``, ``Terminated`` in
``worker/zygote.py``). ``worker/`` imports only the standard library and
``model``, and both are caught inside the worker; no other code sees them.
"""

from __future__ import annotations


class JaxcheckError(BaseException):
    """The root of every exception sphinx-jaxcheck raises (outside the worker processes).

    Derive an error from it and ``Exception``; only a stop derives from ``SystemExit``.
    """


class ConfigurationError(JaxcheckError, SystemExit):
    """conf.py, a ``-D`` value, the pin or a folder cannot be used: one message, exit status 2.

    Raised where the value is cleaned (``config``) and when a build finds it
    unusable; ``sphinx-build``, every ``jaxcheck`` command and the pytest plugin
    print its message once, without a traceback. A ``SystemExit`` because
    sphinx-build answers every ``Exception`` with its crash report (and a plea to
    report a Sphinx bug), and a wrong value in conf.py is no crash.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.code = 2


class InterruptError(JaxcheckError, SystemExit):
    """A SIGINT or SIGTERM arrived; the exit status is 128 + its number, as shells report it.

    A ``SystemExit``, so that neither Sphinx (which prints a crash report for
    other exceptions) nor user code that catches ``Exception`` swallows it.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(128 + signum)
        self.signum = signum


class ShardError(JaxcheckError, Exception):
    """Shards that cannot be used or merged; the message says why and what to do."""


class InterpreterError(JaxcheckError, Exception):
    """``jaxcheck_python`` (or ``--python``) names no interpreter the workers can run on."""


class WorkerStartError(JaxcheckError, Exception):
    """The worker process could not start; the message says why."""


class JaxUnavailableError(WorkerStartError):
    """The workers' interpreter cannot import jax, so no block can run."""


class PinMismatchError(JaxcheckError, Exception):
    """The workers' jax is not the release (or commit) the docs are pinned to."""


class NotebookError(JaxcheckError, ValueError):
    """A file that is not a notebook nbformat can read; the message says what was found."""
