"""``jaxcheck update`` and ``-D jaxcheck_update=1`` on real projects (SPEC 6)."""

from __future__ import annotations

import filecmp
import subprocess
import sys
from pathlib import Path

import pytest
from buildkit import ROOTS, build, copy_root, write_project

SOURCES = ("forms_md.md", "forms_rst.rst", "index.rst", "conf.py")


def jaxcheck(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The real command line, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "sphinx_jaxcheck", *args], capture_output=True, text=True, cwd=cwd
    )


def same_as_fresh(srcdir: Path, fresh: Path) -> bool:
    return all((srcdir / name).read_bytes() == (fresh / name).read_bytes() for name in SOURCES)


def to_crlf(folder: Path) -> None:
    for name in SOURCES:
        path = folder / name
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
def test_update_makes_stale_corpus_identical_to_fresh_and_is_idempotent(tmp_path: Path, crlf: bool) -> None:
    stale, fresh = copy_root("conformance-stale", tmp_path), copy_root("conformance-fresh", tmp_path)
    if crlf:
        to_crlf(stale)
        to_crlf(fresh)
    before = {name: (stale / name).read_bytes() for name in SOURCES}

    dry = jaxcheck("update", str(stale), "--dry-run")
    assert dry.returncode == 1, dry.stderr
    assert "-print(y)  # [0 2 5]" in dry.stdout and "+print(y)  # [0 2 4]" in dry.stdout
    assert {name: (stale / name).read_bytes() for name in SOURCES} == before

    checked = jaxcheck("check", str(stale))
    assert checked.returncode == 1
    assert f"jaxcheck update {stale}" in checked.stdout

    done = jaxcheck("update", str(stale))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "6 expectation(s) in 2 file(s)" in done.stderr
    assert same_as_fresh(stale, fresh)

    assert jaxcheck("check", str(stale)).returncode == 0
    again = jaxcheck("update", str(stale))
    assert again.returncode == 0
    assert "0 expectation(s)" in again.stderr
    assert same_as_fresh(stale, fresh)


def test_sphinx_build_with_update_flag_rewrites_and_passes(tmp_path: Path) -> None:
    stale, fresh = copy_root("conformance-stale", tmp_path), copy_root("conformance-fresh", tmp_path)
    result = build(stale, jaxcheck_update=True)
    assert result.status == 0, result.warnings
    assert "jaxcheck update: 6 expectation(s) in 2 file(s)" in result.log
    assert same_as_fresh(stale, fresh)
    assert build(stale).status == 0


def test_update_keeps_ellipsis_lines_and_indentation_in_nested_fences(tmp_path: Path) -> None:
    page = (
        "# Nested\n\n- An item\n\n  ```{jaxcheck}\n  print('jax', 1, 'on cpu')\n  print('two')\n\n"
        "  # jax ... on cpu\n  # three\n  ```\n\n:::{note}\n```{jaxcheck}\nprint(5)  # 6\n```\n:::\n"
    )
    root = write_project(tmp_path, {"nested.md": page})
    assert jaxcheck("update", str(root)).returncode == 0
    text = (root / "nested.md").read_text()
    assert "  # jax ... on cpu\n  # two\n  ```" in text
    assert "print(5)  # 5\n" in text
    assert text.replace("  # two", "  # three").replace("# 5", "# 6") == page


def test_update_follows_included_files_to_their_real_path(tmp_path: Path) -> None:
    root = write_project(
        tmp_path,
        {
            "page.rst": "Page\n====\n\n.. include:: snippets/part.rst.txt\n",
            "snippets/part.rst.txt": ".. jaxcheck::\n\n   print(3 * 3)\n\n   # 10\n",
        },
    )
    result = jaxcheck("update", str(root))
    assert result.returncode == 0, result.stderr
    assert (root / "snippets" / "part.rst.txt").read_text() == ".. jaxcheck::\n\n   print(3 * 3)\n\n   # 9\n"


def test_inline_print_that_became_multiline_is_refused_with_a_message(tmp_path: Path) -> None:
    page = "# P\n\n```{jaxcheck}\nprint('a\\nb')  # a\n```\n"
    root = write_project(tmp_path, {"p.md": page})
    result = jaxcheck("update", str(root))
    assert result.returncode == 1
    assert "p.md:4: cannot update: the print now writes 2 lines" in result.stderr
    assert (root / "p.md").read_text() == page


def test_quotes_are_never_rewritten(tmp_path: Path) -> None:
    page = (
        "Q\n=\n\n:jaxquote:`this text is not in the file <jax/_src/lax/control_flow/loops.py::_check_carry_type>`\n"
    )
    root = write_project(tmp_path, {"q.rst": page}, conf='jaxcheck_jax_version = "0.10.2"\n')
    result = jaxcheck("update", str(root))
    assert result.returncode == 1
    assert (root / "q.rst").read_text() == page


def test_check_reports_as_github_annotations_json_and_junit(tmp_path: Path) -> None:
    stale = copy_root("conformance-stale", tmp_path)
    github = jaxcheck("check", str(stale), "--format", "github")
    assert github.returncode == 1
    annotations = [line for line in github.stdout.splitlines() if line.startswith("::error ")]
    assert len(annotations) == 6
    assert annotations[0].startswith("::error file=") and ",line=13,title=jaxcheck drift::" in annotations[0]
    assert "%0A" in annotations[0]

    import json

    report = json.loads(jaxcheck("check", str(stale), "--format", "json").stdout)
    assert [(Path(f["path"]).name, f["line"]) for f in report["findings"]][:2] == [("forms_md.md", 13), ("forms_md.md", 22)]
    statuses = {b["name"]: b["status"] for b in report["blocks"]}
    assert len(statuses) == 18 and statuses["md-trailing"] == "drift" and statuses["md-doctest"] == "verified"

    junit = tmp_path / "junit.xml"
    assert jaxcheck("check", str(stale), "--junit", str(junit)).returncode == 1
    from xml.etree import ElementTree

    suite = ElementTree.parse(junit).getroot()
    assert suite.get("tests") == "18" and suite.get("failures") == "6" and suite.get("skipped") == "1"


def test_usage_and_configuration_errors_exit_with_status_two(tmp_path: Path) -> None:
    assert jaxcheck("check", str(tmp_path)).returncode == 2  # no conf.py
    assert jaxcheck("frobnicate").returncode == 2
    root = write_project(tmp_path / "p", {"a.md": "# A\n"}, conf="jaxcheck_on_drift = 'sometimes'\n")
    result = jaxcheck("check", str(root))
    assert result.returncode == 2
    assert "jaxcheck_on_drift = 'sometimes' is not one of error, warning, ignore" in result.stderr


def test_check_writes_no_html(tmp_path: Path) -> None:
    fresh = copy_root("conformance-fresh", tmp_path)
    assert jaxcheck("check", str(fresh)).returncode == 0
    assert not list(fresh.rglob("*.html"))
    assert filecmp.cmp(fresh / "forms_md.md", ROOTS / "test-conformance-fresh" / "forms_md.md", shallow=False)
