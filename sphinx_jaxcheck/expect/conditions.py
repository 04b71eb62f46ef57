"""Blocks limited to some JAX releases or platforms, and whether one applies to a run.

A block says ``:jax-version: <0.5`` (a PEP 440 specifier) or ``:platforms:
gpu`` (some of cpu, gpu, tpu); a page's own example says the same in a comment,
``# jaxcheck: jax-version <0.5`` (read by :mod:`.example_comments`). A block
whose limits exclude the JAX the workers run is skipped, with the reason.
Pure: versions come from metadata.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from ..model import Limits

PLATFORMS = ("cpu", "gpu", "tpu")
SPECIFIER_EXAMPLE = "a PEP 440 version specifier, e.g. <0.5 or >=0.7,<0.9"
PLATFORMS_EXAMPLE = "some of cpu, gpu, tpu, e.g. gpu or cpu, gpu"


def specifier(text: str) -> str:
    """``text`` as a specifier, spaces removed, in the author's order; ValueError if invalid.

    A bare version means ``==`` that version.
    """
    written = re.sub(r"\s+", "", text)
    if re.fullmatch(r"\d[\w.+!-]*", written):
        written = f"=={written}"
    try:
        parsed = SpecifierSet(written)
    except InvalidSpecifier:
        raise ValueError(text) from None
    if not str(parsed):
        raise ValueError(text)
    return written


def platforms(text: str) -> tuple[str, ...]:
    """The platforms of ``cpu, gpu``-style text; ValueError if one is unknown or none is given."""
    named = tuple(dict.fromkeys(part.lower() for part in re.split(r"[\s,]+", text.strip()) if part))
    if not named or any(name not in PLATFORMS for name in named):
        raise ValueError(text)
    return named


@dataclass(frozen=True)
class Runtime:
    """What the workers run: their jax version, and the platform (None when unknown)."""

    jax_version: str | None
    platform: str | None


def why_skipped(limits: Limits, runtime: Runtime) -> str | None:
    """Why a block with these limits does not run here, or None when it does."""
    if limits.jax_version and runtime.jax_version:
        try:
            running = Version(runtime.jax_version)
        except InvalidVersion:
            running = None
        if running is not None and not SpecifierSet(limits.jax_version).contains(
            running, prereleases=True
        ):
            return f"jax-version {limits.jax_version} excludes jax {runtime.jax_version}"
    if limits.platforms and runtime.platform and runtime.platform not in limits.platforms:
        return f"platforms {', '.join(limits.platforms)}: the workers run on {runtime.platform}"
    return None
