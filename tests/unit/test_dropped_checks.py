"""A warning of autodoc that drops checks, read as a finding at the page's autodoc directive,
in the words of every supported Sphinx."""

from __future__ import annotations

from pathlib import Path

import pytest

from sphinx_jaxcheck.model import Subtype
from sphinx_jaxcheck.sphinx.dropped_checks import dropped_finding

PAGE = (
    "API\n===\n\n.. automodule:: tools\n\n.. automodule:: broken\n\n"
    ".. autofunction:: broken.scale\n"
)


@pytest.mark.parametrize(
    ("message", "name", "line", "reason"),
    [
        (  # Sphinx 9
            "autodoc: failed to import 'broken'; the following exception was raised:\n"
            "No module named 'numpyro_missing'",
            "broken",
            6,
            "No module named 'numpyro_missing'",
        ),
        (  # Sphinx 8.2, whose message holds the repr of the traceback's list of lines
            "autodoc: failed to import module 'broken'; the following exception was raised:\n"
            + repr(
                [
                    "Traceback (most recent call last):\n",
                    '  File "broken.py", line 1, in <module>\n    import numpyro_missing\n',
                    "ModuleNotFoundError: No module named 'numpyro_missing'\n",
                ]
            ),
            "broken",
            6,
            "ModuleNotFoundError: No module named 'numpyro_missing'",
        ),
        (  # Sphinx 7.3 to 8.1
            "autodoc: failed to import module 'broken'; the following exception was raised:\n"
            'Traceback (most recent call last):\n  File "broken.py", line 1\n'
            "ZeroDivisionError: division by zero\n",
            "broken",
            6,
            "ZeroDivisionError: division by zero",
        ),
        (
            "autodoc: failed to import function 'scale' from module 'broken'; the following "
            "exception was raised:\nNo module named 'broken'",
            "broken.scale",
            8,
            "No module named 'broken'",
        ),
    ],
)
def test_a_failed_import_is_found_at_the_directive_that_shows_it(
    tmp_path: Path, message: str, name: str, line: int, reason: str
) -> None:
    page = tmp_path / "api.rst"
    page.write_text(PAGE, encoding="utf-8")
    found = dropped_finding(message, page, "api")
    assert (found.subtype, found.path, found.line, found.docname) == (
        Subtype.DROPPED,
        str(page),
        line,
        "api",
    )
    assert found.message.startswith(
        f"autodoc could not import {name!r} ({reason}), so this page lacks its docstrings"
    )
    assert 'jaxcheck_fail_on_warnings = "off"' in found.message


def test_a_message_in_other_words_is_still_a_finding_at_the_page(tmp_path: Path) -> None:
    found = dropped_finding("autodoc: something else went wrong", tmp_path / "gone.rst", "gone")
    assert (found.line, found.subtype) == (1, Subtype.DROPPED)
    assert found.message.startswith(
        "autodoc could not import what an autodoc directive shows "
        "(autodoc: something else went wrong)"
    )
