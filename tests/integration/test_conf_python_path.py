"""Workers import the modules the build imports: the folders conf.py put on ``sys.path``,
in Python's order, as ``sphinx.ext.doctest`` sees them in the build's own process.

numpyro's and dm-haiku's conf.py put their checkout first on ``sys.path``, so
that autodoc reads the code beside the docs and not an installed copy.
"""

from __future__ import annotations

import json
from pathlib import Path

from buildkit import jaxcheck, sphinx_build

CONF = """\
import os, sys, typing
# As dm-haiku's conf.py: the build's process then reads no annotation as typing would.
typing.get_type_hints = lambda obj, *unused: obj.__annotations__
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "checkout"))
sys.path.append(os.path.join(here, "..", "ext"))
extensions = ["sphinx.ext.autodoc", "sphinx.ext.doctest", "sphinx_jaxcheck"]
exclude_patterns = ["_build"]
jaxcheck_doctests = "check"
jaxcheck_cache = True
jaxcheck_env = {"JAX_PLATFORMS": "cpu", "PYTHONPATH": os.path.join(here, "..", "installed")}
"""
PAGE = """\
Widgets
=======

.. doctest::

   >>> import widgets, helpers
   >>> print(widgets.WHERE, helpers.WHERE)
   checkout ext

.. automodule:: widgets
   :members:
"""
WIDGETS = '''"""Widgets, as the checkout holds them."""

WHERE = "{where}"


def where():
    """Where this module was read from.

    >>> import widgets
    >>> widgets.where()
    'checkout'
    """
    return WHERE
'''


def project(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    for folder, name, text in [
        ("checkout", "widgets.py", WIDGETS.format(where="checkout")),
        # An installed copy on the workers' own path, which the checkout shadows.
        ("installed", "widgets.py", WIDGETS.format(where="installed")),
        ("ext", "helpers.py", 'WHERE = "ext"\n'),
        ("docs", "conf.py", CONF),
        ("docs", "index.rst", PAGE),
    ]:
        (tmp_path / folder).mkdir(exist_ok=True)
        (tmp_path / folder / name).write_text(text, "utf-8")
    return docs


def report(docs: Path) -> tuple[int, dict[str, object]]:
    done = jaxcheck("check", docs, "--format", "json")
    return done.returncode, json.loads(done.stdout)


def test_workers_import_the_checkout_conf_py_put_first_as_sphinx_doctest_does(
    tmp_path: Path,
) -> None:
    docs = project(tmp_path)
    # The oracle: sphinx.ext.doctest runs the examples in the build's own process.
    # In a process of its own: conf.py replaces typing.get_type_hints wherever it runs.
    out = tmp_path / "doctest"
    oracle = sphinx_build("-b", "doctest", docs, out)
    said = (out / "output.txt").read_text("utf-8")
    assert "4 tests" in said and "0 failures in tests" in said, said
    assert oracle.returncode == 0, oracle.stderr
    status, found = report(docs)
    assert status == 0, found
    examples = found["examples"]
    assert isinstance(examples, list)
    assert sorted((Path(e["path"]).name, e["line"], e["status"]) for e in examples) == [
        ("index.rst", 6, "verified"),
        ("index.rst", 7, "verified"),
        ("widgets.py", 9, "verified"),
        ("widgets.py", 10, "verified"),
    ]
    # The checkout is what the examples ran: an edit to it is seen by the next (warm) check.
    checkout = tmp_path / "checkout" / "widgets.py"
    checkout.write_text(WIDGETS.format(where="edited"), "utf-8")
    status, found = report(docs)
    assert status == 1
    examples = found["examples"]
    assert isinstance(examples, list)
    assert sorted((Path(e["path"]).name, e["line"], e["status"]) for e in examples) == [
        ("index.rst", 6, "verified"),
        ("index.rst", 7, "stale"),
        ("widgets.py", 9, "verified"),
        ("widgets.py", 10, "stale"),
    ]
