"""A page's own ``>>>`` examples: report, off and check; sessions, setup, magics, bad config.

Real Sphinx builds of small projects; the examples' verdicts are the ones
stdlib doctest gives (see test_doctest_flags for the flag-by-flag oracle).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from buildkit import (
    HTML,
    Build,
    assert_configuration_error,
    build,
    jaxcheck_here,
    sphinx_build,
    write_project,
)

SESSION_MD = """\
# Session

Examples and blocks share the page's namespace, in page order.

```python
>>> first = 1
>>> first + answer
43

```

```{jaxcheck}
second = first + 1
print(second)  # 2
```

Text, then a bare doctest paragraph in a fence of another language:

```text
>>> second * 10
20

```
"""
SESSION_RST = """\
Session
=======

.. code-block:: python

   >>> import math
   >>> round(math.pi, 2)
   3.14

A literal block::

    >>> print("tuple", (1,
    ...                 2))
    tuple (1, 2)

.. jaxcheck::

   print(round(math.e, 3))  # 2.718

>>> print("a ... b")
a ... b
>>> print("a long b")  # doctest: +ELLIPSIS
a ... b
>>> print("a long b")
a ... b
"""
MAGIC_MD = """\
# Magic

```python
>>> x = 2
>>> %timeit x + 1
1 loop

```
"""
RAN = "open({mark!r}, 'w').close()"


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> Build:
    root = write_project(
        tmp_path_factory.mktemp("page_examples") / "docs",
        {"session.md": SESSION_MD, "session_rst.rst": SESSION_RST, "magic.md": MAGIC_MD},
        conf="jaxcheck_doctests = 'check'\njaxcheck_setup = 'answer = 42'\n",
    )
    return build(root, "text")


@pytest.mark.stack
def test_examples_and_blocks_share_the_page_session_in_page_order(checked: Build) -> None:
    assert [
        (r.file, r.line, r.subtype) for r in checked.reported if r.file.startswith("session")
    ] == [
        ("session_rst.rst", 24, "drift"),
    ]
    stale = next(r for r in checked.reported if r.file == "session_rst.rst")
    assert "-a ... b\n+a long b" in stale.message  # without ELLIPSIS, `...` is text


@pytest.mark.stack
def test_the_summary_counts_examples(checked: Build) -> None:
    assert "11 `>>>` example(s): 8 verified, 1 stale, 2 failed" in checked.log
    assert checked.status == 1


@pytest.mark.stack
def test_an_ipython_magic_is_a_syntax_problem_at_its_line(checked: Build) -> None:
    (magic,) = [r for r in checked.reported if r.file == "magic.md"]
    assert (magic.line, magic.subtype) == (5, "syntax")
    assert "`%timeit` is an IPython magic" in magic.message and "+SKIP" in magic.message


@pytest.mark.stack
def test_checked_examples_show_their_verdict_where_they_are_rendered(checked: Build) -> None:
    text = (Path(checked.app.outdir) / "session_rst.txt").read_text("utf-8")
    assert "Stale: with jax" in text and "a long b" in text


@pytest.mark.stack
@pytest.mark.parametrize("mode", ["report", "off"])
def test_report_counts_unchecked_examples_and_off_says_nothing(tmp_path: Path, mode: str) -> None:
    mark = tmp_path / "ran"
    page = (
        "# Page\n"
        "\n"
        "```python\n"
        f">>> {RAN.format(mark=str(mark))}\n"
        ">>> 1 + 1\n"
        "2\n"
        "\n"
        "```\n"
        "\n"
        "    >>> 3\n"
        "    3\n"
    )
    root = write_project(
        tmp_path / "docs", {"page.md": page}, conf=f"jaxcheck_doctests = {mode!r}\n"
    )
    result = build(root, "dummy")
    assert result.status == 0
    assert not mark.exists()
    hint = (
        "3 `>>>` example(s) of the pages were not checked: "
        'set jaxcheck_doctests = "check" in conf.py'
    )
    assert (hint in result.log) == (mode == "report")


def test_a_failing_setup_fails_every_block_of_its_session_and_says_why(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "docs",
        {"page.md": "# Page\n\n```{jaxcheck}\nprint(1)  # 1\n```\n\n```python\n>>> 2\n2\n\n```\n"},
        conf=(
            "jaxcheck_doctests = 'check'\n"
            "jaxcheck_setup = 'raise RuntimeError(\"no setup today\")'\n"
        ),
    )
    result = build(root, "dummy")
    assert result.status == 1
    assert [(r.line, r.subtype) for r in result.reported] == [(4, "error"), (8, "error")]
    assert all(
        "jaxcheck_setup (in conf.py) failed" in r.message and "no setup today" in r.message
        for r in result.reported
    )


@pytest.mark.parametrize(
    ("line", "words"),
    [
        (
            "jaxcheck_doctest_flags = ['NUMBERS']",
            ["'NUMBERS' is not a doctest option flag", "NUMBER"],
        ),
        ("jaxcheck_doctest_flags = 'NUMBER'", []),
        ("jaxcheck_doctests = 'yes'", ["jaxcheck_doctests = 'yes'", "check, report, off"]),
        ("jaxcheck_setup = 'import ('", ["jaxcheck_setup is not valid Python", "line 1"]),
        (
            "jaxcheck_setup = ['import jax']",
            ["jaxcheck_setup = ['import jax'] (list) is not Python source text"],
        ),
    ],
)
def test_bad_doctest_settings_stop_the_build_with_exit_2(
    tmp_path: Path, line: str, words: list[str]
) -> None:
    root = write_project(tmp_path / "docs", {"page.md": "# Page\n\n>>> 1\n1\n"}, conf=line + "\n")
    done = sphinx_build(*HTML, root, tmp_path / "out")
    if not words:  # a single name as a string is accepted, as from -D
        assert done.returncode == 0, done.stderr
        return
    assert_configuration_error(done, *words)


NOTEBOOK = "# Notebook\n\n```python\n>>> x = 2\n>>> x * 3\n6\n>>> x - 1\n1\n\n```\n"


@pytest.mark.stack
@pytest.mark.parametrize("mode", ["check", "report"])
def test_examples_of_pages_exclude_patterns_leaves_out_are_counted_as_unchecked(
    tmp_path: Path, mode: str
) -> None:
    """As JAX's conf.py leaves out notebooks/*.md, which pytest --doctest-glob checks."""
    pages = {
        "page.md": "# Page\n\n```python\n>>> 1 + 1\n2\n\n```\n",
        "notebooks/first.md": NOTEBOOK,
        "notebooks/second.md": NOTEBOOK.replace(">>> x - 1\n1\n", ""),
        "notebooks/plain.md": "# Prose only\n",
        # Where pytest never looks: hidden folders, virtual environments.
        ".hidden/copy.md": NOTEBOOK,
        "venv/lib/readme.md": NOTEBOOK,
    }
    conf = (
        f'jaxcheck_doctests = {mode!r}\nexclude_patterns += ["notebooks/*.md", ".hidden", "venv"]\n'
    )
    root = write_project(tmp_path / "docs", pages, conf=conf)
    (root / "index.rst").write_text("Index\n=====\n\n.. toctree::\n\n   page\n")
    said = (
        "; 5 `>>>` example(s) in 2 page(s) that exclude_patterns leaves out were not checked "
        "(notebooks/first.md, notebooks/second.md): take the pages out of exclude_patterns to "
        "check them"
    )
    result = build(root, "dummy")
    assert result.status == 0 and said in result.log, result.log
    done = jaxcheck_here("check", root, "--format", "json")
    assert done.returncode == 0 and said in done.stdout, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["excluded_examples"] == {"notebooks/first.md": 3, "notebooks/second.md": 2}
    assert said in report["summary"]
    off = build(root, "dummy", jaxcheck_doctests="off")
    assert "exclude_patterns" not in off.log


SPACES_MD = '# P\n\n```python\n>>> print("b  ")\nb\n\n```\n'


def test_a_drift_only_in_spaces_ending_a_line_shows_them_as_the_guide_does(
    tmp_path: Path,
) -> None:
    root = write_project(tmp_path, {"index.md": SPACES_MD}, conf='jaxcheck_doctests = "check"\n')
    done = jaxcheck_here("check", ".", cwd=root)
    assert done.returncode == 1, done.stderr
    ending = "(`jaxcheck update` accepts the actual output)"
    shown = done.stdout.split(ending)[0] + ending
    assert "\n-'b'\n+'b  '\n" in shown, shown
    assert shown.startswith("index.md:4: drift: block 'index.md:4': "), done.stdout
    guide = (Path(__file__).parents[2] / "demo_docs" / "guide" / "adopting.md").read_text()
    assert "\n".join(f"  {line}".rstrip() for line in shown.splitlines()) in guide
