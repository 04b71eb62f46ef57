"""mkdocstrings' ``::: dotted.name`` lines on a page, and which collected docstrings each one
renders there.

mkdocstrings replaces a line ``::: pkg.mod.func`` (after up to six ``#`` of a
heading) with the documentation of that object, its options in the YAML block
indented under it. Its Python handler renders the object's members too (the
``members`` option: all by default, ``false`` for none, or a list of names),
less private ones (its default filter ``!^_[^_]``; nor pytest's ``__test__``
strings, which it never renders) and less submodules (its
``show_submodules`` is off by default); a member's own members are rendered the
same way. Pure: nothing is imported or run.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .markdown_pages import find_fences

_SHOWN = re.compile(r"^(?:#{1,6} *)?::: ?(?P<name>\S.*?) *$")
_PRIVATE = re.compile(r"^_[^_]")  # mkdocstrings' default filter leaves these out
_NAME = re.compile(r"^[A-Za-z_][\w]*(\.[A-Za-z_][\w]*)*$")


@dataclass(frozen=True)
class Shown:
    """One ``::: name`` line of a page: the object, and which of its members are rendered
    (True: every public one; False: none; a tuple: these, by name)."""

    name: str
    line: int  # the page's 1-based line
    members: bool | tuple[str, ...] = True
    problem: str = ""  # why the line cannot be read (then nothing of it is checked)


def shown_objects(lines: Sequence[str]) -> list[Shown]:
    """Every ``::: name`` line of a page's lines, outside code fences, in order."""
    inside = {n for f in find_fences(lines) for n in range(f.opening, f.last + 1)}
    found = []
    for number, line in enumerate(lines, 1):
        matched = _SHOWN.match(line)
        if matched is None or number in inside:
            continue
        name = matched["name"]
        if not _NAME.match(name):
            problem = f"`::: {name}` names no Python object; expected a dotted name (pkg.mod.func)"
            found.append(Shown(name, number, problem=problem))
            continue
        members, problem = _members(lines, number)
        found.append(Shown(name, number, members, problem))
    return found


def _members(lines: Sequence[str], number: int) -> tuple[bool | tuple[str, ...], str]:
    """The ``members`` option of the YAML block under the ``:::`` line at ``number``."""
    import yaml

    block = []
    for line in lines[number:]:
        if line.strip() and not line.startswith((" ", "\t")):
            break
        block.append(line)
    try:
        options = yaml.safe_load("\n".join(block)) or {}
    except yaml.YAMLError as error:
        return True, f"the options under `{lines[number - 1].strip()}` are not YAML ({error})"
    given = options.get("options", {}) if isinstance(options, dict) else {}
    members = given.get("members", True) if isinstance(given, dict) else True
    if members is None or isinstance(members, bool):
        return members is not False, ""
    if isinstance(members, list) and all(isinstance(m, str) for m in members):
        return tuple(members), ""
    return True, (
        f"the members option under `{lines[number - 1].strip()}` is {members!r}; expected "
        "true, false or a list of names"
    )


def renders(shown: Shown, name: str, module: str, shown_module: str) -> bool:
    """Whether ``shown`` renders the docstring pytest names ``name``, collected from
    ``module``, where ``shown_module`` is the module its own name lies in."""
    if name == shown.name:
        return True
    if not name.startswith(shown.name + ".") or module != shown_module:
        return False  # not a member, or one of a submodule
    inner = name[len(shown.name) + 1 :].split(".")
    if shown.members is False or any(_PRIVATE.match(p) or p == "__test__" for p in inner):
        return False
    return shown.members is True or inner[0] in shown.members
