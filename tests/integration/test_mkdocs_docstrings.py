"""mkdocstrings' ``::: dotted.name`` lines of an MkDocs project: the ``>>>`` examples of the
docstrings rendered there (the object's and its public members') checked in real workers,
each docstring once, reported at its ``.py`` line; a name that cannot be imported is a
finding at its ``:::`` line; ``jaxcheck update`` and ``pytest --jaxcheck`` take them too."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from buildkit import jaxcheck
from pytest_runs import Run

OPS = '''\
"""Array helpers."""

import jax.numpy as jnp


def double(x):
    """Twice ``x``.

    >>> double(jnp.arange(3))
    Array([0, 2, 5], dtype=int32)
    """
    return 2 * x


def _hidden(x):
    """Private: mkdocstrings does not render it.

    >>> _hidden(1)
    99
    """
    return x


class Box:
    """A box.

    >>> Box(2).size
    2
    """

    def __init__(self, size):
        self.size = size

    def grow(self):
        """One bigger.

        >>> Box(2).grow().size
        3
        """
        return Box(self.size + 1)
'''
API = """\
# API

::: shapes.ops.double

::: shapes.ops.Box
    options:
      members: false

::: gone.thing

::: broken
"""
MORE = """\
# More

## ::: shapes.ops
"""


def docstring_project(root: Path) -> Path:
    subprocess.run(["git", "init", "-q", str(root)], check=True)  # update edits tracked files
    (root / "mkdocs.yml").write_text("site_name: Demo\nplugins:\n  - mkdocstrings\n", "utf-8")
    (root / "shapes").mkdir()
    (root / "shapes" / "__init__.py").write_text("", "utf-8")
    (root / "shapes" / "ops.py").write_text(OPS, "utf-8")
    (root / "broken.py").write_text('raise RuntimeError("needs a GPU")\n', "utf-8")
    (root / "docs").mkdir()
    (root / "docs" / "api.md").write_text(API, "utf-8")
    (root / "docs" / "more.md").write_text(MORE, "utf-8")
    return root


def test_each_rendered_docstring_is_checked_once_at_its_py_line(tmp_path: Path) -> None:
    root = docstring_project(tmp_path)
    done = jaxcheck("check", ".", "--format", "json", cwd=root)
    assert done.returncode == 1, done.stderr
    found = json.loads(done.stdout)
    # double twice shown, once checked; Box without members on api.md, its method on more.md;
    # _hidden is private.
    assert sorted((e["path"], e["line"], e["status"]) for e in found["examples"]) == [
        ("shapes/ops.py", 9, "stale"),
        ("shapes/ops.py", 27, "verified"),
        ("shapes/ops.py", 37, "verified"),
    ]
    findings = [(f["path"], f["line"], f["subtype"]) for f in found["findings"]]
    assert findings == [
        ("docs/api.md", 9, "dropped"),
        ("docs/api.md", 11, "dropped"),
        ("shapes/ops.py", 9, "drift"),
    ]
    messages = [f["message"] for f in found["findings"]]
    assert messages[0].startswith(
        "`::: gone.thing`: gone cannot be imported: ModuleNotFoundError: No module named 'gone'; "
    )
    assert "`::: broken`: broken cannot be imported: RuntimeError: needs a GPU" in messages[1]


def test_update_rewrites_the_docstring_and_pytest_takes_its_examples(tmp_path: Path) -> None:
    root = docstring_project(tmp_path)
    (root / "broken.py").write_text("", "utf-8")  # importable now
    stale = Run(root, "--jaxcheck", ".", "-p", "no:cacheprovider")
    assert stale.sphinx_imported is False
    assert stale.outcomes == {
        "docs/api.md::ops.py:9": "failed",
        "docs/api.md::ops.py:27": "passed",
        "docs/api.md::dropped line 9": "failed",
        "docs/more.md::ops.py:37": "passed",
    }
    assert stale.text("docs/api.md::ops.py:9").startswith("shapes/ops.py:9: drift: ")
    assert stale.text("docs/api.md::dropped line 9").startswith("docs/api.md:9: dropped: ")
    (root / "docs" / "api.md").write_text(API.replace("::: gone.thing\n", ""), "utf-8")
    updated = jaxcheck("update", ".", cwd=root)
    assert updated.returncode == 0, updated.stderr
    assert (root / "shapes" / "ops.py").read_text("utf-8") == OPS.replace("0, 2, 5", "0, 2, 4")
    assert jaxcheck("check", ".", cwd=root).returncode == 0


GUIDE_PAGE = Path(__file__).parents[2] / "demo_docs" / "guide" / "mkdocs.md"


def test_the_guide_shows_the_message_of_a_name_that_cannot_be_imported(tmp_path: Path) -> None:
    (tmp_path / "mkdocs.yml").write_text("site_name: X\nplugins:\n  - mkdocstrings\n", "utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "api.md").write_text("# API\n\n::: units.convert\n", "utf-8")
    done = jaxcheck("check", ".", cwd=tmp_path)
    assert done.returncode == 1
    first = done.stdout.splitlines()[0]
    assert first.startswith("docs/api.md:3: dropped: `::: units.convert`: units cannot be")
    assert first in GUIDE_PAGE.read_text("utf-8")


WHERE = '''\
def read():
    """What ``data.txt`` holds where the examples run.

    >>> print(open("data.txt").read())
    docs_dir
    """
'''


def test_docstring_examples_run_in_docs_dir_wherever_the_module_or_page_is(
    tmp_path: Path,
) -> None:
    """As a Sphinx project's docstrings run in its root document's folder: not the module's
    folder, nor that of the page that shows them, which may be in a subfolder; the page's own
    fences run in the page's folder. Wherever the command is run."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "where.py").write_text(WHERE, "utf-8")
    page = "# API\n\n```python\nprint(open('data.txt').read())  # page folder\n```\n\n::: where\n"
    (tmp_path / "docs" / "reference").mkdir(parents=True)
    (tmp_path / "docs" / "reference" / "api.md").write_text(page, "utf-8")
    for folder, text in [
        (".", "mkdocs.yml folder"),
        ("lib", "module folder"),
        ("docs", "docs_dir"),
        ("docs/reference", "page folder"),
    ]:
        (tmp_path / folder / "data.txt").write_text(text, "utf-8")
    config = "site_name: X\nplugins:\n  - mkdocstrings:\n      handlers:\n        python:\n"
    (tmp_path / "mkdocs.yml").write_text(config + "          paths: [lib]\n", "utf-8")
    done = jaxcheck("check", tmp_path, "--format", "json", cwd=tmp_path / "lib")
    assert done.returncode == 0, done.stdout + done.stderr
    found = json.loads(done.stdout)
    assert [(e["path"], e["status"]) for e in found["examples"]] == [("where.py", "verified")]
    assert [b["status"] for b in found["blocks"]] == ["verified"]


WARNS = '''\
"""An API on its way out."""

import warnings


def old():
    """Warns, and returns 1.

    >>> old()
    1
    """
    warnings.warn("old() is deprecated", DeprecationWarning, stacklevel=2)
    return 1
'''
WARNING_PAGE = """\
# Old

::: warns.old

>>> from warns import old
>>> old()
1

```python
from warns import old

print(old())  # 1
```
"""


def test_filterwarnings_apply_to_the_examples_pytest_would_run_as_on_a_sphinx_project(
    tmp_path: Path,
) -> None:
    """``-D jaxcheck_filterwarnings``: a docstring's examples and the page's own ``>>>``
    examples (judged as ``--doctest-glob`` judges them) run under the filters, as pytest runs
    them; the fence, a block, does not: a warning the filters make an error fails the
    examples alone (it raises, and doctest compares what it raised with the output)."""
    (tmp_path / "mkdocs.yml").write_text("site_name: X\nplugins:\n  - mkdocstrings\n", "utf-8")
    (tmp_path / "warns.py").write_text(WARNS, "utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "old.md").write_text(WARNING_PAGE, "utf-8")

    def statuses(*options: str) -> dict[tuple[str, int], str]:
        done = jaxcheck("check", ".", "--format", "json", *options, cwd=tmp_path)
        found = json.loads(done.stdout)
        checked = [*found["examples"], *found["blocks"]]
        return {(e["path"], e["line"]): e["status"] for e in checked}

    assert statuses() == {
        ("warns.py", 9): "verified",
        ("docs/old.md", 5): "verified",
        ("docs/old.md", 6): "verified",
        ("docs/old.md", 10): "verified",  # the fence
    }
    assert statuses("-D", "jaxcheck_filterwarnings=error::DeprecationWarning") == {
        ("warns.py", 9): "stale",  # it raised, as doctest reports it
        ("docs/old.md", 5): "verified",
        ("docs/old.md", 6): "stale",
        ("docs/old.md", 10): "verified",
    }


def test_without_the_mkdocstrings_plugin_a_name_line_is_text(tmp_path: Path) -> None:
    """MkDocs shows a ``:::`` line as it is when mkdocstrings is not among the plugins: no
    docstring of it is checked, and a name that cannot be imported is no finding."""
    docstring_project(tmp_path)
    (tmp_path / "mkdocs.yml").write_text("site_name: Demo\nplugins:\n  - search\n", "utf-8")
    done = jaxcheck("check", ".", "--format", "json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["findings"] == [] and report["example_groups"] == [], done.stdout
