"""One family of exceptions: every class the package raises derives from ``JaxcheckError``.

The worker processes' own control-flow exceptions are the documented exception
(``worker/`` imports only the standard library and ``model``).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import sphinx_jaxcheck
from sphinx_jaxcheck.errors import ConfigurationError, InterruptError, JaxcheckError


def package_exceptions() -> list[type[BaseException]]:
    """Every exception class defined in a module of the package."""
    found = []
    for module_info in pkgutil.walk_packages(sphinx_jaxcheck.__path__, "sphinx_jaxcheck."):
        if module_info.name.endswith(".__main__"):
            continue  # running it is what importing it does
        module = importlib.import_module(module_info.name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__ == module.__name__:
                found.append(value)
    return found


def test_every_exception_of_the_package_is_a_jaxcheck_error_named_error() -> None:
    outside = {
        f"{cls.__module__}.{cls.__qualname__}"
        for cls in package_exceptions()
        if not issubclass(cls, JaxcheckError)
    }
    assert outside == {
        "sphinx_jaxcheck.worker.runner.OutputLimitExceeded",
        "sphinx_jaxcheck.worker.zygote.Terminated",
    }
    unnamed = [
        cls.__qualname__
        for cls in package_exceptions()
        if issubclass(cls, JaxcheckError) and not cls.__qualname__.endswith("Error")
    ]
    assert unnamed == []


def test_each_is_either_an_error_or_a_stop() -> None:
    """An error is caught by ``except Exception``; a stop (exit status) passes it."""
    family = [
        c for c in package_exceptions() if issubclass(c, JaxcheckError) and c is not JaxcheckError
    ]
    assert len(family) > 10
    stops = {cls for cls in family if issubclass(cls, SystemExit)}
    assert stops == {ConfigurationError, InterruptError}
    assert all(issubclass(cls, Exception) for cls in family if cls not in stops)
    assert not any(issubclass(cls, Exception) for cls in stops)


def test_a_configuration_error_passes_except_exception_and_exits_with_status_2() -> None:
    with pytest.raises(ConfigurationError) as raised:
        try:
            raise ConfigurationError("jaxcheck: configuration error: x = 1 is not a string")
        except Exception:  # what Sphinx's event loop catches: it must not
            pytest.fail("a configuration error was caught as an Exception")
    assert raised.value.code == 2
    assert str(raised.value) == "jaxcheck: configuration error: x = 1 is not a string"


def test_an_interrupt_exits_with_128_plus_the_signal_number() -> None:
    stopped = InterruptError(15)
    assert (stopped.code, stopped.signum) == (143, 15)
