"""The options of the ``jaxcheck`` directive: parse and validate (user guide: guide/blocks).

Converters never raise: a bad value becomes a :class:`BadOption` that the
directive reports as a build error. docutils and MyST handle converter errors
differently (error vs. dropped option); this way both report the same message
and both fail the build.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..model import BlockOptions, CompareMode, Limits, OutputMode
from . import conditions

DIRECTIVE = "jaxcheck"


@dataclass(frozen=True)
class BadOption:
    """An unknown option, or a value outside what the option allows."""

    option: str
    value: str | None
    allowed: str
    #: The option name (unknown option) or value (choice) most likely meant, if one is close.
    closest: str | None = None

    def message(self, directive: str = DIRECTIVE) -> str:
        """The error text: directive, option, what was found, what is allowed."""
        if self.allowed.startswith("one of the options"):
            found = f'"{directive}" directive: unknown option ":{self.option}:"'
            guess = f'":{self.closest}:"'
        else:
            found = (
                f'"{directive}" directive, option ":{self.option}:": {self.value!r} is not allowed'
            )
            guess = repr(self.closest)
        if self.closest:
            return f"{found}; did you mean {guess}? Expected {self.allowed}"
        return f"{found}; expected {self.allowed}"


def closest(found: str, known: Iterable[str]) -> str | None:
    """The known name a misspelt one most likely means (None when none is close)."""
    matches = difflib.get_close_matches(found, list(known), 1, 0.6)
    return matches[0] if matches else None


Converter = Callable[[str | None], Any]


def _choice(name: str, allowed: tuple[str, ...]) -> Converter:
    def convert(value: str | None) -> Any:
        text = (value or "").strip()
        if text in allowed:
            return text
        return BadOption(name, value, "one of " + ", ".join(allowed), closest(text, allowed))

    return convert


def _text(name: str, what: str) -> Converter:
    def convert(value: str | None) -> Any:
        text = (value or "").strip()
        return text if text else BadOption(name, value, what)

    return convert


def _positive_number(name: str) -> Converter:
    def convert(value: str | None) -> Any:
        try:
            number = float((value or "").strip())
        except ValueError:
            number = math.nan
        if math.isfinite(number) and number > 0:
            return number
        return BadOption(name, value, "a number greater than 0, e.g. 1e-6")

    return convert


def _flag(name: str) -> Converter:
    def convert(value: str | None) -> Any:
        return (
            True if not (value or "").strip() else BadOption(name, value, "no value (it is a flag)")
        )

    return convert


def _parsed(name: str, parse: Callable[[str], Any], what: str) -> Converter:
    def convert(value: str | None) -> Any:
        try:
            return parse(value or "")
        except ValueError:
            return BadOption(name, value, what)

    return convert


def _identifier_list(name: str) -> Converter:
    return _text(name, "a value")


class StrictOptionSpec(dict[str, Converter]):
    """An option spec that turns unknown options into problems instead of errors."""

    def __missing__(self, key: str) -> Converter:
        allowed = "one of the options " + ", ".join(f":{name}:" for name in sorted(self))

        def unknown(value: str | None) -> BadOption:
            return BadOption(key, value, allowed, closest(key, self))

        return unknown


def block_option_spec() -> StrictOptionSpec:
    """The option spec of ``jaxcheck`` (display options as for ``code-block``)."""
    return StrictOptionSpec(
        {
            "name": _text("name", "a label"),
            "session": _text("session", "a session name"),
            "raises": _text("raises", "an exception class name, e.g. TypeError"),
            "output": _choice("output", tuple(mode.value for mode in OutputMode)),
            "compare": _choice("compare", tuple(mode.value for mode in CompareMode)),
            "tolerance": _positive_number("tolerance"),
            "timeout": _positive_number("timeout"),
            "jax-version": _parsed(
                "jax-version", conditions.specifier, conditions.SPECIFIER_EXAMPLE
            ),
            "platforms": _parsed("platforms", conditions.platforms, conditions.PLATFORMS_EXAMPLE),
            "hide": _flag("hide"),
            "caption": _text("caption", "a caption"),
            "linenos": _flag("linenos"),
            "lineno-start": _positive_number("lineno-start"),
            "emphasize-lines": _text("emphasize-lines", "line numbers, e.g. 1,3-5"),
            "class": _identifier_list("class"),
        }
    )


def bad_options(options: Mapping[str, Any]) -> list[BadOption]:
    """Every unknown option or bad value among converted options."""
    return [value for value in options.values() if isinstance(value, BadOption)]


def block_options(options: Mapping[str, Any]) -> BlockOptions:
    """The execution-relevant options, once :func:`bad_options` found none."""
    return BlockOptions(
        name=options.get("name"),
        session=options.get("session"),
        raises=options.get("raises"),
        output=OutputMode(options.get("output", "check")),
        compare=CompareMode(options.get("compare", "text")),
        tolerance=options.get("tolerance"),
        timeout=options.get("timeout"),
        hide="hide" in options,
        limits=Limits(options.get("jax-version"), options.get("platforms", ())),
    )
