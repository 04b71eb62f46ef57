"""Every next step a report suggests is the command that was run, narrowed to what was asked,
and only where it can act; and a report names and orders what it found as the page does.

One page holds what a newcomer writes on a first day: a block whose output
drifted, pseudo-code in a ``>>>`` example, a verified example, a block with a
misspelt option (``:raise:``) and another with a bad value, each with its
``:name:``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from buildkit import build, write_project

from sphinx_jaxcheck import cli

NOTES = """\
# Notes

```{jaxcheck}
:name: first
print(2 * 3)

# 7
```

Pseudo-code:

>>> x = = 1
2

An example that holds:

>>> 1 + 1
2

```{jaxcheck}
:name: misspelt
:raise: TypeError
raise TypeError("x")
```

```{jaxcheck}
:name: second
print(3)

# 3
```

```{jaxcheck}
:name: bad-value
:timeout: -1
print(3)
```
"""
PSEUDO = """\
# Pseudo

>>> x = = 1
2
"""
CONF = 'jaxcheck_doctests = "check"\njaxcheck_cache = True\n'
SYNTAX = (
    "block 'notes.md:12': the `>>>` example 'x = = 1' is not valid Python (invalid syntax): "
    "doctest fails it too, and update cannot give it an output; write it as Python, or mark "
    "it `# doctest: +SKIP` if it only illustrates (pseudo-code, an IPython command)"
)


CITED = """\
# Cited

Loops are `jax.lax.scann`.

A quote: {jaxquote}`must have equal shapes <loops.py::_check_carry_type>`.

A citation: {jaxsrc}`loops.py::_check_carry_typo`.

```{jaxcheck}
print(1)

# 2
```
"""


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("next-steps") / "docs"
    return write_project(root, {"notes.md": NOTES}, conf=CONF)


@pytest.fixture(scope="module")
def pseudo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pseudo") / "docs"
    return write_project(root, {"pseudo.md": PSEUDO}, conf=CONF)


def check(
    docs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, *argv: str
) -> tuple[int, str]:
    monkeypatch.chdir(docs.parent)
    status = cli.main(["check", *argv])
    return status, capsys.readouterr().out


def test_checking_a_page_suggests_updating_that_page_with_the_same_options(
    docs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, out = check(docs, capsys, monkeypatch, "docs/notes.md", "-D", "jaxcheck_timeout=30")
    assert status == 1
    assert out.endswith(
        "Accept the new outputs with: jaxcheck update docs/notes.md -D jaxcheck_timeout=30\n"
    )
    status, out = check(docs, capsys, monkeypatch, "docs")
    assert out.endswith("Accept the new outputs with: jaxcheck update docs\n")


def test_an_example_that_does_not_compile_fails_and_update_is_not_suggested(
    pseudo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, out = check(pseudo, capsys, monkeypatch, "docs/pseudo.md")
    assert status == 1
    assert out == (
        f"docs/pseudo.md:3: syntax: {SYNTAX.replace('notes.md:12', 'pseudo.md:3')}\n\n"
        "jaxcheck: doctests like pytest: 1 `>>>` example(s): 1 failed (jax 0.10.2)\n"
    )
    built = build(pseudo, "html")  # sphinx-build says the same, and suggests no update either
    assert built.status == 1
    assert (
        "pytest: 1 `>>>` example(s): 1 failed" in built.log and "jaxcheck update" not in built.log
    )


def test_a_block_with_a_bad_option_keeps_its_name_and_findings_come_in_line_order(
    docs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, out = check(docs, capsys, monkeypatch, "docs/notes.md", "--format", "json")
    findings = [(f["line"], f["subtype"], f["block"]) for f in json.loads(out)["findings"]]
    assert findings == [
        (7, "drift", "first"),
        (12, "syntax", "notes.md:12"),
        (22, "option", None),  # at the option's own line
        (23, "option", "misspelt"),
        (35, "option", None),
        (36, "option", "bad-value"),
    ]
    built = build(docs, "html")
    notes = [(r.line, r.subtype) for r in built.reported if r.file == "notes.md"]
    assert notes == [(line, subtype) for line, subtype, _ in findings]
    assert "block 'misspelt': not run: fix the options above first" in built.warnings


def test_groups_of_examples_are_counted_apart_from_blocks(
    docs: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, out = check(docs, capsys, monkeypatch, "docs/notes.md", "--format", "json")
    report = json.loads(out)
    assert [b["name"] for b in report["blocks"]] == ["first", "misspelt", "second", "bad-value"]
    assert [(g["name"], g["status"]) for g in report["example_groups"]] == [
        ("notes.md:12", "failed"),
        ("notes.md:17", "verified"),
    ]
    assert [(e["line"], e["status"]) for e in report["examples"]] == [
        (12, "failed"),
        (17, "verified"),
    ]
    assert report["summary"] == (
        "jaxcheck: 4 block(s): 1 verified, 1 stale, 2 failed, "
        "2 other problem(s) (jax 0.10.2); doctests like pytest: 2 `>>>` example(s): 1 verified, "
        "1 failed"
    )


def test_update_names_the_check_of_the_same_pages_for_what_remains(
    pseudo: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(pseudo)
    assert cli.main(["update", "pseudo.md"]) == 1
    err = capsys.readouterr().err
    assert f"pseudo.md:3: not updated: {SYNTAX.replace('notes.md:12', 'pseudo.md:3')}\n" in err
    assert err.endswith(
        "jaxcheck: 0 expectation(s) could not be rewritten and 1 other problem(s) remain; "
        "`jaxcheck check pseudo.md` lists them\n"
    )
    assert (pseudo / "pseudo.md").read_text("utf-8") == PSEUDO


def test_update_counts_every_problem_it_leaves_and_says_each_in_one_whole_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_project(
        tmp_path / "docs", {"cited.md": CITED}, conf=CONF + "jaxcheck_check_names = True\n"
    )
    monkeypatch.chdir(root)
    assert cli.main(["update", "cited.md"]) == 1
    err = capsys.readouterr().err
    left = [line for line in err.splitlines() if ": not updated: " in line]
    # The unknown name, the stale quote and the citation that does not resolve: none is drift
    # of an expectation, so all three are what update leaves.
    assert [line.split(":")[1] for line in left] == ["3", "5", "7"]
    assert left[0].startswith("cited.md:3: not updated: `jax.lax.scann` does not exist")
    # The quote's closest passage follows its first line in a check; here the line says so
    # instead of ending at a colon.
    assert left[1].endswith("alike) (`jaxcheck check cited.md` shows the rest)")
    assert err.endswith(
        "jaxcheck: 0 expectation(s) could not be rewritten and 3 other problem(s) remain; "
        "`jaxcheck check cited.md` lists them\n"
    )
    assert "# 1\n```" in (root / "cited.md").read_text("utf-8")


FENCED = """\
# Fenced

```python
>>> print("new")
old
```
"""
FENCE_REFUSAL = (
    "line 6 ('```') closes the Markdown fence '```python' opened at line 3, but doctest reads "
    "it as a line of this example's expected output, since no blank line stands before it; "
    "update would delete the fence, and the page after it would become part of this code. "
    "Put a blank line before line 6, then run update again"
)


def test_a_drift_update_refuses_for_its_fence_is_not_offered_to_update_and_the_check_says_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_project(tmp_path / "docs", {"fenced.md": FENCED}, conf=CONF)
    status, out = check(root, capsys, monkeypatch, "docs/fenced.md")
    assert status == 1
    assert f"+new\n({FENCE_REFUSAL})\n" in out
    assert out.endswith(
        f"jaxcheck update rewrites none of the 1 stale output(s): {FENCE_REFUSAL}\n"
    )
    _, out = check(root, capsys, monkeypatch, "docs/fenced.md", "--format", "json")
    assert [f["updatable"] for f in json.loads(out)["findings"]] == [False]
    # update refuses it for the same reason, before running anything a second time.
    assert cli.main(["update", "docs/fenced.md"]) == 1
    assert f"fenced.md:4: cannot update: block 'fenced.md:4': {FENCE_REFUSAL}\n" in (
        capsys.readouterr().err
    )
    assert (root / "fenced.md").read_text("utf-8") == FENCED


def test_a_docstring_example_update_cannot_write_ends_the_report_with_why_not_with_update(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A module outside any checkout, as an installed package is: update never writes it.
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "first_day_pkg.py").write_text(
        'def f():\n    """Add.\n\n    >>> 1 + 1\n    3\n    """\n', "utf-8"
    )
    root = write_project(
        tmp_path / "docs",
        {"index.rst": "Index\n=====\n\nText.\n"},
        conf='import os, sys\nsys.path.insert(0, os.path.abspath("../site"))\n'
        'jaxcheck_doctest_modules = ["first_day_pkg"]\n',
    )
    status, out = check(root, capsys, monkeypatch, "docs")
    assert status == 1
    assert "Accept the new outputs" not in out
    assert out.splitlines()[-1] == (
        f"jaxcheck update rewrites none of the 1 stale output(s): the source folder {root} is "
        "in no version-control checkout (no .git in it or above it), so update cannot tell the "
        "project's own Python files and rewrites none: edit the docstring by hand"
    )
