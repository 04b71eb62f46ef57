"""``jaxcheck update`` never writes a wrong byte: after it, a page is right or untouched.

Each test is one way update used to damage sources, run as a user runs it (the
real command line, real Sphinx, real workers, real files): outputs that differ
between runs, skipped and IPython examples, tracebacks, symlinks, includes,
files outside the source folder, lines Sphinx reads differently from the file.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from buildkit import jaxcheck_here, write_project

UNSTABLE = """\
# Unstable outputs

```{jaxcheck}
:name: an-id

print("scope", id(object()))
# scope 1
```

```{jaxcheck}
:name: a-timing

import time
print(f"{time.perf_counter_ns()} ns")
# 1 ns
```

```{jaxcheck}
:name: ipython

>>> %time sum(range(10))
45
```

```{jaxcheck}
:name: skipped

>>> 40 + 2  # doctest: +SKIP
41
```
"""


def test_outputs_that_cannot_be_proven_leave_the_page_byte_identical_with_a_reason_each(
    tmp_path: Path,
) -> None:
    root = write_project(tmp_path, {"unstable.md": UNSTABLE})
    result = jaxcheck_here("update", str(root))
    assert result.returncode == 1, result.stderr
    assert (root / "unstable.md").read_text() == UNSTABLE
    reasons = {
        int(found["line"]): (found["what"], found["why"])
        for found in re.finditer(
            (
                r"unstable\.md:(?P<line>\d+): "
                r"(?P<what>cannot update|not updated): (?P<why>.*)"
            ),
            result.stderr,
        )
    }
    # The +SKIP example (line 28) is never compared, so update has nothing to say of it.
    assert sorted(reasons) == [7, 15, 21], result.stderr
    differs = r"the output differs between two runs \(output line 1: '\d+', then '\d+'\)"
    assert reasons[7][0] == "cannot update" and re.match("block 'an-id': " + differs, reasons[7][1])
    assert reasons[15][0] == "cannot update" and re.match(
        "block 'a-timing': " + differs, reasons[15][1]
    )
    assert reasons[21][0] == "not updated" and "`%time` is an IPython magic" in reasons[21][1]
    assert "jaxcheck update: rewrote 0 expectation(s) in 0 file(s)" in result.stderr


TRACEBACKS_RST = """\
Tracebacks
==========

.. jaxcheck::

   >>> def f(x):
   ...     return x / 0
   >>> f(1)  # doctest: +IGNORE_EXCEPTION_DETAIL
   ...
   Traceback (most recent call last):
   ValueError: not this message
   >>> 1 + 1
   3

.. jaxcheck::

   >>> int("x")
   Traceback (most recent call last):
       ...
   ValueError: wrong
"""

TRACEBACKS_MD = """\
# Tracebacks

```{jaxcheck}
>>> import math
>>> math.sqrt(-1)
...
Traceback (most recent call last):
ValueError: wrong
>>> print("after")
after
```
"""


def test_tracebacks_are_written_as_doctest_expects_them_and_bare_continuations_stay(
    tmp_path: Path,
) -> None:
    root = write_project(tmp_path, {"tb_rst.rst": TRACEBACKS_RST, "tb_md.md": TRACEBACKS_MD})
    result = jaxcheck_here("update", str(root))
    assert result.returncode == 0, result.stderr
    assert (root / "tb_rst.rst").read_text() == (
        TRACEBACKS_RST.replace(
            "ValueError: not this message", "ZeroDivisionError: division by zero"
        )
        .replace("   3\n", "   2\n")
        .replace("ValueError: wrong", "ValueError: invalid literal for int() with base 10: 'x'")
    )
    assert (root / "tb_md.md").read_text() == TRACEBACKS_MD.replace(
        "ValueError: wrong", "ValueError: math domain error"
    )
    again = jaxcheck_here("update", str(root))
    assert again.returncode == 0 and "0 expectation(s)" in again.stderr


def test_lines_that_end_in_spaces_are_rewritten_and_tabs_are_refused_by_name(
    tmp_path: Path,
) -> None:
    spaces = "Spaces\n======\n\n.. jaxcheck::\n\n   >>> print('a ')  \n   a \n   >>> 1 + 1\n   3\n"
    tabs = "Tabs\n====\n\n.. jaxcheck::\n\n   >>> 1 + 1\t# two\n   3\n"
    root = write_project(tmp_path, {"spaces.rst": spaces, "tabs.rst": tabs})
    result = jaxcheck_here("update", str(root))
    assert result.returncode == 1
    assert (root / "spaces.rst").read_text() == spaces.replace("   3\n", "   2\n")
    assert "tabs.rst:6: cannot update: block 'tabs[1]': line 6 holds tabs" in result.stderr
    assert "the file changed" not in result.stderr
    assert (root / "tabs.rst").read_text() == tabs


STALE = "```{jaxcheck}\nprint(2 + 2)\n# 5\n```\n"


def test_symlinked_pages_are_written_through_and_outside_files_only_when_allowed(
    tmp_path: Path,
) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "far.md").write_text("# Far\n\n" + STALE)
    (outside / "part.rst.txt").write_text(".. jaxcheck::\n\n   print(3 * 3)\n\n   # 10\n")
    root = write_project(
        tmp_path / "docs",
        {
            "real/near.md.txt": "# Near\n\n" + STALE,
            "included.rst": "Included\n========\n\n.. include:: ../elsewhere/part.rst.txt\n",
        },
    )
    (root / "near.md").symlink_to(root / "real" / "near.md.txt")
    (root / "far.md").symlink_to(outside / "far.md")
    (root / "index.rst").write_text(
        "Index\n=====\n\n.. toctree::\n\n   near\n   far\n   included\n"
    )

    refused = jaxcheck_here("update", str(root))
    assert refused.returncode == 1
    assert (root / "near.md").is_symlink()
    assert (root / "real" / "near.md.txt").read_text() == "# Near\n\n" + STALE.replace("# 5", "# 4")
    assert f"is outside the source folder {root}" in refused.stderr
    assert "pass --allow-outside" in refused.stderr
    assert f"far.md, which is {outside / 'far.md'}" in refused.stderr
    assert (outside / "far.md").read_text() == "# Far\n\n" + STALE
    assert (outside / "part.rst.txt").read_text().endswith("# 10\n")

    allowed = jaxcheck_here("update", str(root), "--allow-outside")
    assert allowed.returncode == 0, allowed.stderr
    assert (root / "far.md").is_symlink() and os.readlink(root / "far.md") == str(
        outside / "far.md"
    )
    assert (outside / "far.md").read_text() == "# Far\n\n" + STALE.replace("# 5", "# 4")
    assert (outside / "part.rst.txt").read_text().endswith("# 9\n")
    assert not [p for p in tmp_path.rglob(".jaxcheck-*")]


def test_a_snippet_included_twice_is_edited_once_or_refused_naming_both_documents(
    tmp_path: Path,
) -> None:
    snippet = ".. jaxcheck::\n\n   print(value * 2)\n\n   # 0\n"
    setup = ".. jaxcheck::\n   :hide:\n\n   value = {}\n\n"
    root = write_project(
        tmp_path,
        {
            "snippets/double.rst.txt": snippet,
            "snippets/same.rst.txt": ".. jaxcheck::\n\n   print(21 * 2)\n\n   # 0\n",
            "a.rst": "A\n=\n\n"
            + setup.format(1)
            + ".. include:: snippets/double.rst.txt\n\n.. include:: snippets/same.rst.txt\n",
            "b.rst": "B\n=\n\n"
            + setup.format(2)
            + ".. include:: snippets/double.rst.txt\n\n.. include:: snippets/same.rst.txt\n",
            "z.md": "# Z, read after the snippets\n\n" + STALE,
        },
    )
    result = jaxcheck_here("update", str(root))
    assert result.returncode == 1, result.stderr
    assert (root / "snippets" / "same.rst.txt").read_text().endswith("   # 42\n")
    assert (root / "snippets" / "double.rst.txt").read_text() == snippet
    refusals = [
        line for line in result.stderr.splitlines() if "double.rst.txt:5: cannot update" in line
    ]
    assert len(refusals) == 2
    for line in refusals:
        assert "included by more than one document, which disagree" in line
        assert "document 'a' needs ['2']" in line and "document 'b' needs ['4']" in line
    assert (root / "z.md").read_text().endswith("# 4\n```\n")  # a later file is still updated
    assert "Traceback" not in result.stderr
