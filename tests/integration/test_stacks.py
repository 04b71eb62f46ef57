"""The same project on every supported stack: a drifted block, a drifted ``>>>`` example and a
citation that does not resolve fail at their lines under ``sphinx-build`` and ``jaxcheck
check``, from reStructuredText and MyST alike, and pass once fixed (``jaxcheck update`` for
the outputs, by hand for the citation).

tox runs this file, with the rest of the compatibility part of the suite (``-m stack``), once
per Sphinx minor release from the lowest supported to the newest (``tox -e sphinx73`` ...).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import sphinx
from buildkit import jaxcheck, sphinx_build, write_project

pytestmark = pytest.mark.stack

MYST = """\
# On every stack

```{jaxcheck}
import jax.numpy as jnp

print(jnp.arange(3) * 2)

# [0 2 5]
```

An example of the page's own:

```python
>>> print(1 + 1)
3

```

A citation: {jaxsrc}`loops.py::_check_carry_typo`.

:::{jaxcheck-qa} Does a card render here?
:cite: conditionals.py::cond

Yes.
:::
"""
RST = """\
On every stack, in reStructuredText
===================================

.. jaxcheck::

   import jax.numpy as jnp

   print(jnp.arange(3) * 2)

   # [0 2 5]

An example of the page's own:

>>> print(1 + 1)
3

A citation: :jaxsrc:`loops.py::_check_carry_typo`.

.. jaxcheck-qa:: Does a card render here?
   :cite: conditionals.py::cond

   Yes.
"""
CONF = 'jaxcheck_doctests = "check"\nmyst_enable_extensions = ["colon_fence"]\n'
# What is wrong in each page, found by its text: the block's stale line, the example's prompt,
# the citation.
WRONG = ("# [0 2 5]", ">>> print(1 + 1)", "_check_carry_typo")
WARNING_AT = re.compile(r"^(?:\x1b\[[\d;]*m)*(?P<path>/\S+?):(?P<line>\d+): WARNING: ", re.M)


def line_of(text: str, words: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if words in line)


def expected_lines() -> set[tuple[str, int]]:
    return {(name, line_of(text, words)) for name, text in PAGES.items() for words in WRONG}


PAGES = {"page_md.md": MYST, "page_rst.rst": RST}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_project(tmp_path / "docs", dict(PAGES), conf=CONF)


def warned_at(stderr: str) -> set[tuple[str, int]]:
    return {(Path(m["path"]).name, int(m["line"])) for m in WARNING_AT.finditer(stderr)}


@pytest.mark.parametrize("parallel", [[], ["-j", "2"]], ids=["serial", "j2"])
def test_drift_and_a_bad_citation_fail_at_their_lines_until_fixed(
    project: Path, parallel: list[str]
) -> None:
    built = sphinx_build("-b", "html", *parallel, project, project / "_build" / "html")
    assert built.returncode == 1, built.stderr
    assert warned_at(built.stderr) == expected_lines(), (sphinx.__version__, built.stderr)
    assert "Traceback" not in built.stderr and "Exception occurred" not in built.stderr

    checked = jaxcheck("check", project, "--format", "json")
    assert checked.returncode == 1, checked.stderr
    findings = json.loads(checked.stdout)["findings"]
    assert {(Path(f["path"]).name, f["line"]) for f in findings} == expected_lines()

    # update accepts the two outputs; the citation is the author's to fix.
    updated = jaxcheck("update", project)
    assert updated.returncode == 1
    assert "rewrote 4 expectation(s) in 2 file(s)" in updated.stderr
    for name in PAGES:
        page = project / name
        text = page.read_text("utf-8")
        assert "# [0 2 4]" in text and ">>> print(1 + 1)\n2\n" in text
        page.write_text(text.replace("_check_carry_typo", "_check_carry_type"), "utf-8")

    assert jaxcheck("check", project).returncode == 0
    again = sphinx_build("-b", "html", *parallel, project, project / "_build" / "html")
    assert again.returncode == 0, again.stderr
    for name in PAGES:  # the block and the example, each with its marker; the card
        html = (project / "_build" / "html" / f"{Path(name).stem}.html").read_text("utf-8")
        assert html.count('class="jaxcheck-status jaxcheck-status-verified"') == 2, name
        assert '<details class="jaxcheck-qa"' in html, name
