"""Doctest option flags, as stdlib doctest and pytest define them: their names, and the flags
in force for an example. (Outputs are compared in ``judge.matching``.) Pure: imports only the
standard library.
"""

from __future__ import annotations

import doctest
from collections.abc import Iterable

# pytest registers these names when it loads its doctest plugin; registering
# them here as well gives the same bits (a name already registered keeps its bit).
NUMBER = doctest.register_optionflag("NUMBER")
ALLOW_UNICODE = doctest.register_optionflag("ALLOW_UNICODE")
ALLOW_BYTES = doctest.register_optionflag("ALLOW_BYTES")


def flag_names() -> tuple[str, ...]:
    """Every name ``jaxcheck_doctest_flags`` and ``# doctest:`` directives accept."""
    return tuple(sorted(doctest.OPTIONFLAGS_BY_NAME))


def flags_from_names(names: Iterable[str]) -> int:
    """The bits of these flag names; ``ValueError`` names an unknown one."""
    flags = 0
    for name in names:
        bit = doctest.OPTIONFLAGS_BY_NAME.get(name)
        if bit is None:
            raise ValueError(
                f"{name!r} is not a doctest option flag; expected one of {', '.join(flag_names())}"
            )
        flags |= bit
    return flags


def names_of_flags(flags: int) -> tuple[str, ...]:
    """The names of the bits set in ``flags`` (``doctest_default_flags`` is a number)."""
    return tuple(name for name in flag_names() if flags & doctest.OPTIONFLAGS_BY_NAME[name])


def apply_directives(flags: int, options: dict[int, bool]) -> int:
    """``flags`` after an example's ``# doctest: +X -Y`` directives (doctest's rule)."""
    for bit, on in options.items():
        flags = flags | bit if on else flags & ~bit
    return flags
