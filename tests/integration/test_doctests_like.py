"""``jaxcheck_doctests_like``: whose rules decide which examples exist and where they run.

One small project holds each pattern on its own page: ``>>>`` in ``::``
literal blocks and code blocks beside bare doctest paragraphs, docstrings
shown by autodoc (one a ``functools.partial`` whose ``__doc__`` is in no
Python file) and one listed only in an ``autosummary`` table, groups with
``*`` and ``testsetup``/``testcleanup``, ``doctest_global_setup``, and a
third-party directive that makes ``testcode`` nodes of its own (as Flax's
``codediff`` does, tabs starting with the same line). Variants set
``doctest_test_doctest_blocks`` (empty: bare paragraphs are no tests; a group:
they join it), a ``doctest_global_cleanup`` that fails in one group only, and a
group whose ``testsetup`` fails.

Under ``"sphinx.ext.doctest"`` the oracle is ``sphinx-build -b doctest`` on
the same project: a recorder extension notes each example its runner tries and
whether it passed; jaxcheck must run exactly those, with the same outcomes.
Each example carries a tag (``# t-...``) that names it on both sides. Under
``"pytest"`` the oracle for a page is ``pytest --doctest-glob`` on it.
"""

from __future__ import annotations

import doctest
import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
import sphinx
from buildkit import Build, build

from sphinx_jaxcheck.judge.example_verdicts import example_verdicts
from sphinx_jaxcheck.model import ExpectationKind, Status
from sphinx_jaxcheck.sphinx.domain import domain_of

# In the compatibility part, run on every supported Sphinx (tox -e sphinx73 ...): its oracle is
# the sphinx.ext.doctest of each.
pytestmark = pytest.mark.stack

REPO = Path(__file__).resolve().parents[2]
TAG = re.compile(r"# (t-[\w-]+)")

CONF = """\
import os, sys
sys.path.insert(0, os.path.dirname(__file__))
extensions = ["sphinx.ext.autodoc", "sphinx.ext.autosummary", "sphinx.ext.doctest", "codediff"]
extensions.append("recorder" if os.environ.get("ORACLE_RECORDS") else "sphinx_jaxcheck")
exclude_patterns = ["_build"]
jaxcheck_doctests = "check"
jaxcheck_cache = False
doctest_global_setup = '''
import math
base = 10
'''
"""
RECORDER = '''\
"""Notes every example sphinx.ext.doctest's runner tries, and whether it passed."""
import doctest
import json
import os

TRIED = []


def _noting(outcome, original):
    def report(self, out, test, example, *rest):
        TRIED.append({"group": test.name, "source": example.source, "outcome": outcome})
        return original(self, out, test, example, *rest)

    return report


for name, outcome in [
    ("report_success", "passed"),
    ("report_failure", "failed"),
    ("report_unexpected_exception", "failed"),
]:
    setattr(doctest.DocTestRunner, name, _noting(outcome, getattr(doctest.DocTestRunner, name)))


def _write(app, exception):
    with open(os.environ["ORACLE_RECORDS"], "w") as handle:
        json.dump(TRIED, handle)


def setup(app):
    app.connect("build-finished", _write)
    return {"parallel_read_safe": True}
'''
CODEDIFF = '''\
"""A directive that shows code side by side and tests each side, as Flax's codediff does."""
from docutils import nodes
from sphinx.util.docutils import SphinxDirective


class CodeDiff(SphinxDirective):
    has_content = True

    def run(self):
        text = "\\n".join(self.content)
        shown = nodes.literal_block(text, text)
        made = [shown]
        for number, tab in enumerate(text.split("---\\n")):
            code = tab.strip("\\n")
            test = nodes.comment(code, code, testnodetype="testcode", groups=[f"tab{number}"])
            self.set_source_info(test)
            test["options"] = {}
            made.append(test)
        return made


def setup(app):
    app.add_directive("codediff", CodeDiff)
    return {"parallel_read_safe": True}
'''
PACKAGE = '''\
"""Functions whose docstrings hold examples."""
import functools


def double(x):
    """Double a number.

    >>> base * 2  # t-docstring-pass
    20
    >>> double(2)  # t-docstring-unknown-name
    4

    Shown, not run by sphinx.ext.doctest::

        >>> frobnicate(base)  # t-docstring-literal
        0
    """
    return 2 * x


def listed(x):
    """Shown only as a row of an autosummary table.

    >>> listed(1)  # t-autosummary
    'not this'
    """
    return x


def _scale(x, factor):
    return x * factor


triple = functools.partial(_scale, factor=3)
triple.__doc__ = """Triple a number (a partial: its docstring is made on import, in no file).

>>> base + FACTOR  # t-partial
13
""".replace("FACTOR", "3")
'''
LITERAL = """\
Literal blocks
==============

A literal block of pseudo-code::

    >>> frobnicate(data)  # t-literal
    ...

.. code-block:: python

   >>> 2 + 2  # t-code-block
   4

A bare doctest paragraph:

>>> math.floor(2.5)  # t-bare-pass
2

>>> 3 * 3  # t-bare-fail
10
"""
API = """\
API
===

.. autofunction:: mypkg.double

.. autosummary::

   mypkg.listed

.. autofunction:: mypkg.triple
"""
GROUPS = """\
Groups
======

.. testsetup:: g1

   value = 1

.. doctest:: g1

   >>> value + base  # t-group-own
   11

.. doctest::

   >>> 'value' in globals()  # t-group-apart
   False

.. testcode:: *

   print(base)  # t-every-group

.. testoutput:: *

   10

.. testcleanup:: g1

   del value
"""
FLAX = """\
Side by side
============

.. codediff::

   import math
   total = math.floor(2.5)  # t-tab-left
   assert total == 2
   ---
   import math
   total = math.ceil(2.5)  # t-tab-right
   assert total == 3
   print(total)
"""
INDEX = "Index\n=====\n\n.. toctree::\n\n   literal\n   api\n   groups\n   flax\n"
# What neither tool runs under sphinx.ext.doctest's rules.
NOT_RUN = {"t-literal", "t-code-block", "t-docstring-literal", "t-autosummary"}


def write(root: Path, conf: str = "", groups: str = "") -> Path:
    """The project at ``root``, with ``conf`` added to its conf.py and ``groups`` to its groups
    page."""
    (root / "mypkg").mkdir(parents=True)
    (root / "mypkg" / "__init__.py").write_text(PACKAGE, "utf-8")
    files = {
        "conf.py": CONF + conf,
        "recorder.py": RECORDER,
        "codediff.py": CODEDIFF,
        "index.rst": INDEX,
        "literal.rst": LITERAL,
        "api.rst": API,
        "groups.rst": GROUPS + groups,
        "flax.rst": FLAX,
    }
    for name, text in files.items():
        (root / name).write_text(text, "utf-8")
    return root


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write(tmp_path_factory.mktemp("doctests_like") / "docs")


def doctest_builder(project: Path, records: Path) -> list[dict[str, str]]:
    """What ``sphinx-build -b doctest`` ran: group, source and outcome of each example, setup
    and cleanup code included (their groups end in ``code)``)."""
    done = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-E", "-b", "doctest", ".", "_build/oracle"],
        cwd=project,
        env={**os.environ, "PYTHONPATH": str(REPO), "ORACLE_RECORDS": str(records)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert records.exists(), done.stderr
    tried: list[dict[str, str]] = json.loads(records.read_text("utf-8"))
    return tried


def outcomes_of(tried: list[dict[str, str]]) -> Counter[tuple[str, str]]:
    """(tag, outcome) of the examples among what the builder ran."""
    return Counter((_tag(r["source"]), r["outcome"]) for r in tried if "code)" not in r["group"])


@pytest.fixture(scope="module")
def oracle(project: Path, tmp_path_factory: pytest.TempPathFactory) -> Counter[tuple[str, str]]:
    """(tag, outcome) of every example ``sphinx-build -b doctest`` runs."""
    tried = doctest_builder(project, tmp_path_factory.mktemp("oracle") / "tried.json")
    output = (project / "_build" / "oracle" / "output.txt").read_text("utf-8")
    assert "0 failures in setup code" in output and "0 failures in cleanup code" in output
    return outcomes_of(tried)


def _tag(source: str) -> str:
    found = TAG.search(source)
    assert found, source
    return found.group(1)


def jaxcheck_outcomes(result: Build) -> Counter[tuple[str, str]]:
    """(tag, passed/failed) of every example jaxcheck ran in a build."""
    outcomes: Counter[tuple[str, str]] = Counter()
    for block, verdict in domain_of(result.app.env).checked_blocks():
        examples = [
            e
            for e in block.expectations
            if e.kind in (ExpectationKind.DOCTEST, ExpectationKind.REPL)
        ]
        for expectation, judged in zip(examples, example_verdicts(block, verdict), strict=True):
            if judged.status != "skipped":
                passed = judged.status == "verified"
                outcomes[_tag(expectation.source), "passed" if passed else "failed"] += 1
    return outcomes


@pytest.fixture(scope="module")
def like_sphinx(project: Path) -> Build:
    return build(project, "dummy", fresh=True)


def test_the_examples_sphinx_doctest_runs_are_run_with_its_outcomes(
    like_sphinx: Build, oracle: Counter[tuple[str, str]]
) -> None:
    ours = jaxcheck_outcomes(like_sphinx)
    assert ours == oracle
    assert {tag for tag, _ in oracle} & NOT_RUN == set()
    # Each pattern is there, with passes and failures both.
    assert oracle == Counter(
        {
            ("t-bare-pass", "passed"): 1,  # doctest_global_setup imported math
            ("t-bare-fail", "failed"): 1,
            ("t-docstring-pass", "passed"): 1,  # the page's default group: base is there
            ("t-docstring-unknown-name", "failed"): 1,  # nothing imported double
            ("t-partial", "passed"): 1,
            ("t-group-own", "passed"): 1,
            ("t-group-apart", "passed"): 1,
            ("t-every-group", "passed"): 2,  # in g1 and in default
            ("t-tab-left", "passed"): 1,
            ("t-tab-right", "failed"): 1,  # prints 3, and a testcode alone expects nothing
        }
    )


def test_the_summary_names_the_rules_and_failures_stand_at_their_lines(
    like_sphinx: Build,
) -> None:
    assert (
        "doctests like sphinx.ext.doctest: 11 `>>>` example(s): 8 verified, 3 stale"
        in like_sphinx.log
    )
    assert like_sphinx.status == 1
    found = {(r.file, r.line, r.subtype) for r in like_sphinx.reported}
    assert found == {
        ("literal.rst", 19, "drift"),
        ("__init__.py", 10, "drift"),
        ("flax.rst", 10, "drift"),  # the right tab's own lines, not the left tab's
    }


def test_the_guide_shows_the_summary_line_such_a_project_gets(like_sphinx: Build) -> None:
    """The adopting page's example of the summary under sphinx.ext.doctest's rules, in its
    section "Whose rules", is this project's, built from its own folder. (The worked examples
    further down quote real projects' runs.)"""
    guide = (REPO / "demo_docs" / "guide" / "adopting.md").read_text("utf-8")
    section = guide.split("\n## Whose rules\n", 1)[1].split("\n## ", 1)[0]
    shown = re.findall(r"^```text\n(jaxcheck: .*?sphinx\.ext\.doctest: .*)\n```$", section, re.M)
    (printed,) = re.findall(r"^jaxcheck: doctests like .*", like_sphinx.log, re.M)
    assert shown == [re.sub(r"jaxcheck update \S+`", "jaxcheck update .`", printed)]


def test_an_example_in_no_python_file_runs_and_is_reported_where_the_page_shows_it(
    like_sphinx: Build,
) -> None:
    (partial,) = [
        b for b, _ in domain_of(like_sphinx.app.env).checked_blocks() if b.label == "mypkg.triple"
    ]
    assert (Path(partial.path).name, partial.body_line, partial.placed) == ("api.rst", 10, False)
    assert "its text is not a string literal of the file it comes from" in partial.update_refusal


def pytest_failures(root: Path, page: str) -> set[int]:
    """The lines of the examples ``pytest --doctest-glob`` fails on one page."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            f"--doctest-glob={page}",
            "--doctest-continue-on-failure",
            page,
        ],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode in (0, 1), done.stdout + done.stderr
    return {int(n) for n in re.findall(rf"{re.escape(page)}:(\d+): \w+", done.stdout)}


def test_under_pytests_rules_a_page_gets_pytests_verdicts(project: Path) -> None:
    result = build(project, "dummy", fresh=True, jaxcheck_doctests_like="pytest")
    assert "doctests like pytest: " in result.log
    text = (project / "literal.rst").read_text("utf-8")
    examples = [
        p.lineno + 1
        for p in doctest.DocTestParser().parse(text)
        if isinstance(p, doctest.Example) and not p.options.get(doctest.SKIP)
    ]
    failing = pytest_failures(project, "literal.rst")
    verdicts = {
        e.line: e.status == "verified"
        for block, verdict in domain_of(result.app.env).checked_blocks()
        for e in example_verdicts(block, verdict)
        if Path(e.path).name == "literal.rst"
    }
    assert verdicts == {line: line not in failing for line in examples}
    assert failing and set(examples) - failing  # both kinds are there
    assert 6 in verdicts  # pytest runs the `::` block's example too


def test_report_counts_the_examples_sphinx_doctest_would_run(
    project: Path, oracle: Counter[tuple[str, str]]
) -> None:
    result = build(project, "dummy", fresh=True, jaxcheck_doctests="report")
    assert (
        f"doctests like sphinx.ext.doctest: {sum(oracle.values())} `>>>` example(s) of the pages "
        "were not checked"
    ) in result.log


# Fails in the group of the right tab only, the one whose code leaves total at 3.
CLEANUP = '''
doctest_global_cleanup = """
if globals().get("total") == 3:
    raise ValueError("the right tab")
"""
'''
IN_GROUP = "\nA bare paragraph:\n\n>>> value  # t-bare-in-group\n1\n"
# A group whose setup fails: sphinx.ext.doctest runs none of its tests.
FAILED_SETUP = """
.. testsetup:: g2

   raise ValueError("no setup")

.. doctest:: g2

   >>> 1 + 1  # t-after-failed-setup
   2
"""


@pytest.mark.parametrize("blocks", ["", "g1"])
def test_doctest_blocks_go_where_doctest_test_doctest_blocks_says_and_cleanup_runs_last(
    blocks: str, tmp_path: Path
) -> None:
    root = write(
        tmp_path / "docs",
        f"doctest_test_doctest_blocks = {blocks!r}\n{CLEANUP}",
        IN_GROUP + FAILED_SETUP,
    )
    tried = doctest_builder(root, tmp_path / "tried.json")
    result = build(root, "dummy", fresh=True)
    assert jaxcheck_outcomes(result) == outcomes_of(tried)
    bare = {"t-bare-pass", "t-bare-fail", "t-bare-in-group", "t-docstring-pass", "t-partial"}
    ran = {tag for tag, _ in outcomes_of(tried)}
    if blocks and sphinx.version_info >= (9, 0):  # bare paragraphs and docstrings join g1
        assert bare <= ran and ("t-bare-in-group", "passed") in outcomes_of(tried)
    elif blocks:  # before Sphinx 9.0, "default" (without g1's setup, `value` is unknown)
        assert bare <= ran and ("t-bare-in-group", "failed") in outcomes_of(tried)
    else:  # not tests at all
        assert ran & bare == set() and ran
    # The global cleanup runs after each group's own tests: it fails once, after the right tab.
    # g2's setup fails, so neither its test nor its cleanup runs. (The documents come in
    # alphabetical order from Sphinx 9.0 on, in the toctree's before.)
    failed = [r["group"] for r in tried if r["outcome"] == "failed" and "code)" in r["group"]]
    assert sorted(failed) == ["g2 (setup code)", "tab1 (cleanup code)"]
    assert "t-after-failed-setup" not in ran
    conf = (root / "conf.py").read_text("utf-8").splitlines()
    first = conf.index('if globals().get("total") == 3:') + 1
    setup = (
        (root / "groups.rst")
        .read_text("utf-8")
        .splitlines()
        .index('   raise ValueError("no setup")')
    )
    errors = [(r.file, r.line) for r in result.reported if r.subtype == "error"]
    assert errors == [("conf.py", first), ("groups.rst", setup + 1)]  # at the code's first lines
    (after,) = [
        v
        for b, v in domain_of(result.app.env).checked_blocks()
        if any("t-after-failed-setup" in e.source for e in b.expectations)
    ]
    assert (after.status, after.reason) == (
        Status.SKIPPED,
        f"its group's setup code (groups.rst:{setup + 1}) failed, so its tests and cleanup do "
        "not run",
    )
