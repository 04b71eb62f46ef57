"""``jaxcheck update`` and ``-D jaxcheck_update=1`` on real projects (guide/command-line,
"jaxcheck update")."""

from __future__ import annotations

from pathlib import Path

import pytest
from buildkit import build, copy_root, jaxcheck_here, write_project

SOURCES = ("forms_md.md", "forms_rst.rst", "index.rst", "conf.py")


def same_as_fresh(srcdir: Path, fresh: Path) -> bool:
    return all((srcdir / name).read_bytes() == (fresh / name).read_bytes() for name in SOURCES)


def to_crlf(folder: Path) -> None:
    for name in SOURCES:
        path = folder / name
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))


# Sphinx reads both line endings alike (text mode): keeping CRLF bytes is the rewriter's, the
# same on every stack, so only the LF run is in the compatibility part.
@pytest.mark.parametrize(
    "crlf", [pytest.param(False, marks=pytest.mark.stack), True], ids=["lf", "crlf"]
)
def test_update_makes_stale_corpus_identical_to_fresh_and_is_idempotent(
    tmp_path: Path, crlf: bool
) -> None:
    stale, fresh = (
        copy_root("conformance-stale", tmp_path),
        copy_root("conformance-fresh", tmp_path),
    )
    if crlf:
        to_crlf(stale)
        to_crlf(fresh)
    before = {name: (stale / name).read_bytes() for name in SOURCES}

    dry = jaxcheck_here("update", str(stale), "--dry-run")
    assert dry.returncode == 1, dry.stderr
    assert "-print(y)  # [0 2 5]" in dry.stdout and "+print(y)  # [0 2 4]" in dry.stdout
    assert "would rewrite 6 expectation(s) in 2 file(s)" in dry.stderr
    assert {name: (stale / name).read_bytes() for name in SOURCES} == before

    checked = jaxcheck_here("check", str(stale))
    assert checked.returncode == 1
    assert f"jaxcheck update {stale}" in checked.stdout

    done = jaxcheck_here("update", str(stale))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "jaxcheck update: rewrote 6 expectation(s) in 2 file(s)" in done.stderr
    assert same_as_fresh(stale, fresh)

    assert jaxcheck_here("check", str(stale)).returncode == 0
    again = jaxcheck_here("update", str(stale))
    assert again.returncode == 0
    assert "rewrote 0 expectation(s)" in again.stderr
    assert same_as_fresh(stale, fresh)


@pytest.mark.stack
def test_sphinx_build_with_update_flag_rewrites_and_passes(tmp_path: Path) -> None:
    stale, fresh = (
        copy_root("conformance-stale", tmp_path),
        copy_root("conformance-fresh", tmp_path),
    )
    result = build(stale, jaxcheck_update=True)
    assert result.status == 0, result.warnings
    assert "jaxcheck update: rewrote 6 expectation(s) in 2 file(s)" in result.log
    assert same_as_fresh(stale, fresh)
    assert build(stale).status == 0


@pytest.mark.stack
def test_update_keeps_ellipsis_lines_and_indentation_in_nested_fences(tmp_path: Path) -> None:
    page = (
        "# Nested\n"
        "\n"
        "- An item\n"
        "\n"
        "  ```{jaxcheck}\n"
        "  print('jax', 1, 'on cpu')\n"
        "  print('two')\n"
        "\n"
        "  # jax ... on cpu\n"
        "  # three\n"
        "  ```\n"
        "\n"
        ":::{note}\n"
        "```{jaxcheck}\n"
        "print(5)  # 6\n"
        "```\n"
        ":::\n"
    )
    root = write_project(tmp_path, {"nested.md": page})
    assert jaxcheck_here("update", str(root)).returncode == 0
    text = (root / "nested.md").read_text()
    assert "  # jax ... on cpu\n  # two\n  ```" in text
    assert "print(5)  # 5\n" in text
    assert text.replace("  # two", "  # three").replace("# 5", "# 6") == page


@pytest.mark.stack
def test_update_follows_included_files_to_their_real_path(tmp_path: Path) -> None:
    root = write_project(
        tmp_path,
        {
            "page.rst": "Page\n====\n\n.. include:: snippets/part.rst.txt\n",
            "snippets/part.rst.txt": ".. jaxcheck::\n\n   print(3 * 3)\n\n   # 10\n",
        },
    )
    result = jaxcheck_here("update", str(root))
    assert result.returncode == 0, result.stderr
    assert (
        root / "snippets" / "part.rst.txt"
    ).read_text() == ".. jaxcheck::\n\n   print(3 * 3)\n\n   # 9\n"


def test_inline_print_that_became_multiline_is_refused_with_a_message(tmp_path: Path) -> None:
    page = "# P\n\n```{jaxcheck}\nprint('a\\nb')  # a\n```\n"
    root = write_project(tmp_path, {"p.md": page})
    result = jaxcheck_here("update", str(root))
    assert result.returncode == 1
    assert "p.md:4: cannot update: block 'p[1]': the print now writes 2 lines" in result.stderr
    assert (root / "p.md").read_text() == page


def test_a_dry_run_with_refusals_and_no_diff_fails_and_writes_nothing(tmp_path: Path) -> None:
    page = "# P\n\n```{jaxcheck}\nprint('a\\nb')  # a\n```\n"
    root = write_project(tmp_path, {"p.md": page})
    dry = jaxcheck_here("update", str(root), "--dry-run")
    assert dry.returncode == 1, dry.stdout + dry.stderr
    assert dry.stdout == ""  # no diff: the one drift cannot be rewritten
    assert "p.md:4: cannot update: block 'p[1]': the print now writes 2 lines" in dry.stderr
    assert "would rewrite 0 expectation(s) in 0 file(s)" in dry.stderr
    assert (root / "p.md").read_text() == page


def test_quotes_are_never_rewritten(tmp_path: Path) -> None:
    page = (
        "Q\n"
        "=\n"
        "\n"
        ":jaxquote:`this text is not in the file "
        "<jax/_src/lax/control_flow/loops.py::_check_carry_type>`\n"
    )
    root = write_project(tmp_path, {"q.rst": page}, conf='jaxcheck_jax_version = "0.10.2"\n')
    result = jaxcheck_here("update", str(root))
    assert result.returncode == 1
    assert (root / "q.rst").read_text() == page


def test_a_block_importing_a_module_beside_its_page_runs_again_there(tmp_path: Path) -> None:
    """The second run checks blocks in their documents' folders, as the first does: a module
    beside the page imports there, wherever update was started."""
    page = "# P\n\n```{jaxcheck}\nimport helper\nprint(helper.VALUE)\n\n# 1\n```\n"
    root = write_project(tmp_path / "docs", {"guide/p.md": page, "guide/helper.py": "VALUE = 2\n"})
    result = jaxcheck_here("update", str(root), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (root / "guide" / "p.md").read_text() == page.replace("# 1\n", "# 2\n")


JAXPR_PAGE = """\
# Jaxpr

```{jaxcheck}
:compare: jaxpr
import jax

print(jax.make_jaxpr(lambda x: x * 2.0)(1.0))

# { lambda ; a:f32[]. let
#     b:f32[] = mul a 2.0
#   in (b,) }
```
"""


def test_a_drifted_jaxpr_is_shown_and_rewritten_in_the_authors_line_breaks(
    tmp_path: Path,
) -> None:
    # jax prints this jaxpr on one line; the author broke it over three. One literal drifted.
    root = write_project(tmp_path / "docs", {"index.md": JAXPR_PAGE})
    checked = jaxcheck_here("check", str(root))
    assert checked.returncode == 1
    assert (
        "@@ -1,3 +1,3 @@\n { lambda ; a:f32[]. let\n-    b:f32[] = mul a 2.0\n"
        "+    b:f32[] = mul a 2.0:f32[]\n   in (b,) }\n"
    ) in checked.stdout
    assert jaxcheck_here("update", str(root)).returncode == 0
    assert (root / "index.md").read_text("utf-8") == JAXPR_PAGE.replace(
        "mul a 2.0\n", "mul a 2.0:f32[]\n"
    )
    assert jaxcheck_here("check", str(root)).returncode == 0
