"""mkdocstrings' ``::: name`` lines read from a page, and which docstrings each renders."""

from __future__ import annotations

from sphinx_jaxcheck.expect.mkdocstrings import Shown, renders, shown_objects

PAGE = """\
# API

::: pkg.mod.Box
    options:
      members: [grow]

## ::: pkg.mod

```markdown
::: pkg.not_a_line
```

::: pkg.mod.f
    options:
      members: false

::: not a name
"""


def test_lines_outside_fences_with_their_members_option() -> None:
    found = shown_objects(PAGE.splitlines())
    assert [(s.name, s.line, s.members) for s in found] == [
        ("pkg.mod.Box", 3, ("grow",)),
        ("pkg.mod", 7, True),
        ("pkg.mod.f", 13, False),
        ("not a name", 17, True),
    ]
    assert [bool(s.problem) for s in found] == [False, False, False, True]
    assert "expected a dotted name" in found[3].problem


def test_a_bad_members_option_is_a_problem_naming_what_was_found() -> None:
    (found,) = shown_objects(["::: pkg.f", "    options:", "      members: 3"])
    assert found.problem == (
        "the members option under `::: pkg.f` is 3; expected true, false or a list of names"
    )


def test_members_are_rendered_as_mkdocstrings_renders_them() -> None:
    module = Shown("pkg.mod", 1)
    assert renders(module, "pkg.mod", "pkg.mod", "pkg.mod")  # its own docstring
    assert renders(module, "pkg.mod.Box.grow", "pkg.mod", "pkg.mod")  # a member's member
    assert not renders(module, "pkg.mod._private", "pkg.mod", "pkg.mod")  # default filter
    assert renders(module, "pkg.mod.Box.__call__", "pkg.mod", "pkg.mod")  # special: kept
    assert not renders(module, "pkg.mod.sub.f", "pkg.mod.sub", "pkg.mod")  # a submodule's
    listed = Shown("pkg.mod.Box", 1, members=("grow",))
    assert renders(listed, "pkg.mod.Box.grow", "pkg.mod", "pkg.mod")
    assert not renders(listed, "pkg.mod.Box.shrink", "pkg.mod", "pkg.mod")
    alone = Shown("pkg.mod.Box", 1, members=False)
    assert renders(alone, "pkg.mod.Box", "pkg.mod", "pkg.mod")
    assert not renders(alone, "pkg.mod.Box.grow", "pkg.mod", "pkg.mod")
    assert not renders(alone, "pkg.mod.Boxes", "pkg.mod", "pkg.mod")  # no prefix by letters
