"""``jaxcheck update`` and ``-D jaxcheck_update=1`` on real projects (guide/command-line, "jaxcheck update")."""

from __future__ import annotations

import filecmp
import re
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
    assert "would rewrite 6 expectation(s) in 2 file(s)" in dry.stderr
    assert {name: (stale / name).read_bytes() for name in SOURCES} == before

    checked = jaxcheck("check", str(stale))
    assert checked.returncode == 1
    assert f"jaxcheck update {stale}" in checked.stdout

    done = jaxcheck("update", str(stale))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "jaxcheck update: rewrote 6 expectation(s) in 2 file(s)" in done.stderr
    assert same_as_fresh(stale, fresh)

    assert jaxcheck("check", str(stale)).returncode == 0
    again = jaxcheck("update", str(stale))
    assert again.returncode == 0
    assert "rewrote 0 expectation(s)" in again.stderr
    assert same_as_fresh(stale, fresh)


def test_sphinx_build_with_update_flag_rewrites_and_passes(tmp_path: Path) -> None:
    stale, fresh = copy_root("conformance-stale", tmp_path), copy_root("conformance-fresh", tmp_path)
    result = build(stale, jaxcheck_update=True)
    assert result.status == 0, result.warnings
    assert "jaxcheck update: rewrote 6 expectation(s) in 2 file(s)" in result.log
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
    assert "p.md:4: cannot update: block 'p[1]': the print now writes 2 lines" in result.stderr
    assert (root / "p.md").read_text() == page


def test_quotes_are_never_rewritten(tmp_path: Path) -> None:
    page = (
        "Q\n=\n\n:jaxquote:`this text is not in the file <jax/_src/lax/control_flow/loops.py::_check_carry_type>`\n"
    )
    root = write_project(tmp_path, {"q.rst": page}, conf='jaxcheck_jax_version = "0.10.2"\n')
    result = jaxcheck("update", str(root))
    assert result.returncode == 1
    assert (root / "q.rst").read_text() == page


# Every drift of the stale corpus: file, line, block, what is stale, the new actual line.
STALE_DRIFTS = [
    ("forms_md.md", 13, "md-trailing", "the expected output at the end of the block is stale:",
     "+{ lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = mul b 2.0:f32[] in (c,) }"),
    ("forms_md.md", 22, "md-inline", "the output of this print is stale:", "+[0 2 4]"),
    ("forms_md.md", 35, "md-repl", "the output of this `# >>>` statement is stale:", "+Array([2., 2.], dtype=float32)"),
    ("forms_md.md", 62, "md-raises", "the expected output at the end of the block is stale:",
     "+The input carry c has type int32[] but the corresponding output carry component has type float32[], so the dtypes do not match."),
    ("forms_rst.rst", 13, "rst-trailing", "the expected output at the end of the block is stale:",
     "+          f:f32[] = add d 1.0:f32[]"),
    ("forms_rst.rst", 50, "rst-doctest", "the output of this `>>>` statement is stale:", "+Array(2, dtype=int32, weak_type=True)"),
]
# Every block of the stale corpus: document, name, first line, status.
STALE_BLOCKS = [
    ("forms_md", "md-trailing", 8, "stale"), ("forms_md", "md-inline", 21, "stale"),
    ("forms_md", "md-repl", 35, "stale"), ("forms_md", "md-doctest", 48, "verified"),
    ("forms_md", "md-raises", 60, "stale"), ("forms_md", "md-ellipsis", 74, "verified"),
    ("forms_md", "md-jaxpr", 87, "verified"), ("forms_md", "md-tolerance", 96, "verified"),
    ("forms_md", "md-ignore", 107, "not compared"), ("forms_md", "md-skip", 115, "skipped"),
    ("forms_md", "md-session", 124, "verified"), ("forms_md", "md-hidden", 136, "not compared"),
    ("forms_md", "md-after-hidden", 143, "verified"), ("forms_rst", "rst-trailing", 7, "stale"),
    ("forms_rst", "rst-inline", 30, "verified"), ("forms_rst", "rst-raises", 36, "verified"),
    ("forms_rst", "rst-repl", 43, "verified"), ("forms_rst", "rst-doctest", 50, "stale"),
]


def test_check_reports_as_github_annotations_json_and_junit(tmp_path: Path) -> None:
    import json
    from xml.etree import ElementTree

    stale = copy_root("conformance-stale", tmp_path)
    junit = tmp_path / "junit.xml"
    github = jaxcheck("check", str(stale), "--format", "github", "--junit", str(junit))
    assert github.returncode == 1
    annotations = []
    for line in github.stdout.splitlines():
        if line.startswith("::"):
            found = re.fullmatch(r"::error file=(.+?),line=(\d+),title=jaxcheck drift::(.*)", line)
            assert found, line
            text = found[3].replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")
            annotations.append((Path(found[1]).name, int(found[2]), text.splitlines()))
    assert [(name, line, text[0]) for name, line, text in annotations] == [
        (name, line, f"block {block!r}: {what}") for name, line, block, what, _ in STALE_DRIFTS
    ]
    for (_, _, text), (*_, added) in zip(annotations, STALE_DRIFTS, strict=True):
        assert text[1:3] == ["--- expected", "+++ actual"] and added in text, text

    report = json.loads(jaxcheck("check", str(stale), "--format", "json").stdout)
    assert [(Path(f["path"]).name, f["line"]) for f in report["findings"]] == [(n, line) for n, line, *_ in STALE_DRIFTS]
    assert [(Path(b["path"]).stem, b["name"], b["line"], b["status"]) for b in report["blocks"]] == STALE_BLOCKS

    suite = ElementTree.parse(junit).getroot()
    assert suite.get("tests") == "18" and suite.get("failures") == "6" and suite.get("skipped") == "1"
    cases = []
    for case in suite.iter("testcase"):
        failure, skipped = case.find("failure"), case.find("skipped")
        outcome = failure.get("type") if failure is not None else "skipped" if skipped is not None else "passed"
        cases.append((case.get("classname"), case.get("name"), int(case.get("line", "0")), outcome))
        assert Path(case.get("file", "")).name == f"{case.get('classname')}.{'md' if case.get('name', '').startswith('md') else 'rst'}"
        if failure is not None:
            (drift,) = [d for d in STALE_DRIFTS if d[2] == case.get("name")]
            assert failure.get("message") == f"block {drift[2]!r}: {drift[3]}"
            assert drift[4] in (failure.text or "").splitlines()
    assert cases == [
        (document, name, line, {"stale": "drift", "skipped": "skipped"}.get(status, "passed"))
        for document, name, line, status in STALE_BLOCKS
    ]


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
