"""Doctest option flags, as stdlib doctest and pytest define them: their names, and the flags
in force for an example. (Outputs are compared in ``judge.matching``.) Pure: imports only the
standard library.
"""

from __future__ import annotations

import difflib
import doctest
import re
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
            raise ValueError(f"{name!r} is not a doctest option flag; {meant_flag(name)}")
        flags |= bit
    return flags


def meant_flag(name: str, sign: str = "") -> str:
    """The next step for an unknown flag name: the one it is likely a misspelling of, else
    every name (``sign``: the ``+`` or ``-`` of a directive, given back with the guess)."""
    guess = difflib.get_close_matches(name.upper(), flag_names(), 1, 0.6)
    if guess:
        return f"did you mean {sign}{guess[0]}?"
    return f"expected one of {', '.join(flag_names())}"


def directive_problem(error: str) -> str:
    """doctest's parse error, with the flag meant when it names an unknown one (``invalid
    option: '+ELIPSIS'``)."""
    found = re.search(r"has an invalid option: '([+-])(\w*)'", error)
    return f"{error}; {meant_flag(found[2], found[1])}" if found else error


def names_of_flags(flags: int) -> tuple[str, ...]:
    """The names of the bits set in ``flags`` (``doctest_default_flags`` is a number)."""
    return tuple(name for name in flag_names() if flags & doctest.OPTIONFLAGS_BY_NAME[name])


def apply_directives(flags: int, options: dict[int, bool]) -> int:
    """``flags`` after an example's ``# doctest: +X -Y`` directives (doctest's rule)."""
    for bit, on in options.items():
        flags = flags | bit if on else flags & ~bit
    return flags
