"""Bad input never crashes the build, never passes silently, never corrupts a source.

Every problem is a warning at the real file and line that says what was found,
what was expected and what to do; the build fails; ``jaxcheck update`` leaves
the bytes of files it has nothing to rewrite alone. Also: what blocks print,
questions and quotes are escaped in HTML, and links only point into the
configured repository.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from buildkit import Build, build, jaxcheck_here, write_project
from cases import statuses

BAD_UTF8 = "# Café\n\n```{jaxcheck}\nprint('café')  # café\n```\n".encode("latin-1")

SOURCES: dict[str, bytes] = {
    "options_rst.rst": (
        b"Options\n=======\n\n.. jaxcheck::\n   :bogus: 1\n\n   print(1)  # 1\n\n"
        b".. jaxcheck::\n   :output: maybe\n\n   print(1)  # 1\n\n"
        b".. jaxcheck::\n   :timeout: -3\n\n   print(1)  # 1\n"
    ),
    "options_md.md": (
        b"# Options\n\n```{jaxcheck}\n:bogus: 1\n\nprint(1)  # 1\n```\n\n"
        b"```{jaxcheck}\n:compare: pixels\n\nprint(1)  # 1\n```\n\n"
        b"```{jaxcheck}\n:hide: yes\n\nprint(1)  # 1\n```\n"
    ),
    "misspelt_md.md": (
        b"# Misspelt\n\n```{jaxcheck}\n:name: one\n:raise: TypeError\n\nprint(1)  # 1\n```\n\n"
        b"```{jaxcheck}\n---\ncompare: jaxprs\n---\nprint(1)  # 1\n```\n"
    ),
    "misspelt_rst.rst": (
        b"Misspelt\n========\n\n.. jaxcheck::\n   :name: two\n   :raise: TypeError\n\n"
        b"   print(1)  # 1\n\n.. jaxcheck::\n   :compare: jaxprs\n\n   print(1)  # 1\n"
    ),
    "empty_md.md": b"# Empty\n\n```{jaxcheck}\n```\n\n```{jaxcheck}\n# only\n# comments\n```\n",
    "empty_rst.rst": (
        b"Empty\n=====\n\n.. jaxcheck::\n\nText.\n\n.. jaxcheck::\n\n   # only\n   # comments\n"
    ),
    "syntax_md.md": b"# Syntax\n\n```{jaxcheck}\nx = 1\ny = 2\nif x:\nprint(y)\n```\n",
    "syntax_rst.rst": (
        b"Syntax\n"
        b"======\n"
        b"\n"
        b"Text.\n"
        b"\n"
        b".. jaxcheck::\n"
        b"\n"
        b"   x = 1\n"
        b"   y = 2\n"
        b"   z = (x +\n"
        b"   print(z)\n"
    ),
    "tabs_md.md": b"# Tabs\n\n```{jaxcheck}\nfor i in range(2):\n\tprint(i)\n\n# 0\n# 1\n```\n",
    "tabs_rst.rst": (
        b"Tabs\n====\n\n.. jaxcheck::\n\n\tfor i in range(2):\n\t\tprint(i)\n\n\t# 0\n\t# 5\n"
    ),
    "latin1.md": BAD_UTF8,
    "bom.md": "\ufeff# Bom\n\n```{jaxcheck}\nprint('ü')  # ü\n```\n".encode(),
    "crlf.rst": b"Crlf\r\n====\r\n\r\n.. jaxcheck::\r\n\r\n   print(2)\r\n\r\n   # 2\r\n",
    "long.md": (
        "# Long\n\n```{jaxcheck}\nprint('" + "a" * 20000 + "')  # " + "a" * 20000 + "\n```\n"
    ).encode(),
    "unclosed.md": b"# Unclosed\n\n```{jaxcheck}\nprint(1)  # 1\n\nMore prose that became code.\n",
    "nested.md": (
        b"# Nested\n"
        b"\n"
        b"````{jaxcheck}\n"
        b"s = '''\n"
        b"```\n"
        b"'''\n"
        b"print(s.strip())  # ```\n"
        b"````\n"
        b"\n"
        b"- item\n"
        b"\n"
        b"  ```{jaxcheck}\n"
        b"  print(2)  # 2\n"
        b"  ```\n"
        b"\n"
        b"> ```{jaxcheck}\n"
        b"> print(3)  # 3\n"
        b"> ```\n"
    ),
    "raises.md": b"# Raises\n\n```{jaxcheck}\n:raises: NoSuchError\n\nraise KeyError('k')\n```\n",
    "cite_md.md": (
        b"# Cite\n"
        b"\n"
        b"Missing: {jaxsrc}`no_such_file_xyz.py::f`.\n"
        b"\n"
        b"Outside: {jaxsrc}`../../etc/passwd`.\n"
        b"\n"
        b"Absolute: {jaxsrc}`/etc/passwd`.\n"
        b"\n"
        b"Ambiguous: {jaxsrc}`__init__.py`.\n"
        b"\n"
        b"Quote outside: {jaxquote}`root <../../../etc/passwd>`.\n"
        b"\n"
        b"```{jaxcheck-quote} ../../etc/passwd\n"
        b"root\n"
        b"```\n"
    ),
    "cite_rst.rst": (
        b"Cite\n====\n\nMissing: :jaxsrc:`no_such_file_xyz.py::f`.\n\n"
        b"Outside: :jaxsrc:`../../etc/passwd`.\n\n.. jaxcheck-quote:: ../../etc/passwd\n\n   root\n"
    ),
    "good.md": b"# Good\n\n```{jaxcheck}\nprint(6 * 7)  # 42\n```\n",
}


def write_bad_project(root: Path) -> Path:
    write_project(
        root,
        {
            "index.rst": "Index\n=====\n\n.. toctree::\n\n"
            + "".join(f"   {n.rsplit('.', 1)[0]}\n" for n in SOURCES)
        },
    )
    for name, data in SOURCES.items():
        (root / name).write_bytes(data)
    return root


@pytest.fixture(scope="module")
def bad(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Build]:
    root = write_bad_project(tmp_path_factory.mktemp("bad"))
    return root, build(root)


def line_of(root: Path, name: str, number: int) -> str:
    return (root / name).read_bytes().decode("utf-8-sig").splitlines()[number - 1]


def reported(result: Build, file: str) -> list:  # type: ignore[type-arg]
    return [r for r in result.reported if r.file == file]


@pytest.mark.stack
def test_bad_input_fails_the_build_without_a_traceback_from_our_code(bad) -> None:  # type: ignore[no-untyped-def]
    _, result = bad
    assert result.status == 1
    assert "sphinx_jaxcheck/" not in result.warnings
    assert "Exception occurred" not in result.warnings
    # Bad input is refused, not run into a timeout.
    assert [r.message for r in result.reported if r.subtype == "timeout"] == []
    # The good document in the same build was still checked.
    assert not reported(result, "good.md")
    assert re.search(r"jaxcheck: \d+ block\(s\): [1-9]\d* verified", result.log)


@pytest.mark.stack
@pytest.mark.parametrize(
    ("file", "line", "words"),
    [
        (
            "options_rst.rst",
            5,
            '"jaxcheck" directive: unknown option ":bogus:"; expected one of the options :caption:',
        ),
        (
            "options_rst.rst",
            10,
            '"jaxcheck" directive, option ":output:": \'maybe\' is not allowed; '
            "expected one of check, ignore, skip",
        ),
        (
            "options_rst.rst",
            15,
            '"jaxcheck" directive, option ":timeout:": \'-3\' is not allowed; '
            "expected a number greater than 0",
        ),
        (
            "options_md.md",
            4,
            '"jaxcheck" directive: unknown option ":bogus:"; expected one of the options :caption:',
        ),
        (
            "options_md.md",
            10,
            '"jaxcheck" directive, option ":compare:": \'pixels\' is not allowed; '
            "expected one of text, jaxpr",
        ),
        (
            "options_md.md",
            16,
            '"jaxcheck" directive, option ":hide:": \'yes\' is not allowed; '
            "expected no value (it is a flag)",
        ),
        (
            "misspelt_md.md",
            5,
            '"jaxcheck" directive: unknown option ":raise:"; did you mean ":raises:"? Expected',
        ),
        (
            "misspelt_md.md",
            12,
            '"jaxcheck" directive, option ":compare:": \'jaxprs\' is not allowed; '
            "did you mean 'jaxpr'? Expected one of text, jaxpr",
        ),
        (
            "misspelt_rst.rst",
            6,
            '"jaxcheck" directive: unknown option ":raise:"; did you mean ":raises:"? Expected',
        ),
        (
            "misspelt_rst.rst",
            11,
            '"jaxcheck" directive, option ":compare:": \'jaxprs\' is not allowed; '
            "did you mean 'jaxpr'? Expected one of text, jaxpr",
        ),
    ],
)
def test_unknown_options_and_bad_values_are_reported_at_the_options_line_with_a_guess(
    bad, file: str, line: int, words: str
) -> None:  # type: ignore[no-untyped-def]
    _, result = bad
    found = [r for r in reported(result, file) if r.subtype == "option" and r.line == line]
    assert any(words in r.message for r in found), [r.message for r in reported(result, file)]


@pytest.mark.stack
def test_blocks_with_bad_options_are_not_run_and_say_so_once_per_block(bad) -> None:  # type: ignore[no-untyped-def]
    _, result = bad
    not_run = [
        r
        for r in reported(result, "options_md.md")
        if "not run: fix the options above first" in r.message
    ]
    assert len(not_run) == 3
    assert {r.subtype for r in not_run} == {"option"}


@pytest.mark.stack
@pytest.mark.parametrize(
    ("file", "line", "words"),
    [
        ("empty_md.md", 4, "the block is empty: expected Python code to run"),
        ("empty_md.md", 7, "the block holds only comments, so there is nothing to run"),
        ("empty_rst.rst", 10, "the block holds only comments, so there is nothing to run"),
    ],
)
def test_empty_and_comment_only_blocks_are_errors(bad, file: str, line: int, words: str) -> None:  # type: ignore[no-untyped-def]
    _, result = bad
    assert any(
        r.line == line and r.subtype == "syntax" and words in r.message
        for r in reported(result, file)
    ), reported(result, file)


@pytest.mark.stack
def test_an_rst_directive_without_body_is_reported(bad) -> None:  # type: ignore[no-untyped-def]
    _, result = bad
    assert any("empty" in r.message for r in reported(result, "empty_rst.rst") if r.line <= 5)


@pytest.mark.stack
@pytest.mark.parametrize(
    ("file", "offending"), [("syntax_md.md", "print(y)"), ("syntax_rst.rst", "z = (x +")]
)
def test_syntax_errors_are_reported_at_the_offending_document_line(
    bad, file: str, offending: str
) -> None:  # type: ignore[no-untyped-def]
    root, result = bad
    (found,) = reported(result, file)
    assert found.subtype == "syntax"
    assert "of the block is not valid Python" in found.message
    assert line_of(root, file, found.line).strip() == offending


@pytest.mark.stack
def test_tabs_run_as_python_reads_them(bad) -> None:  # type: ignore[no-untyped-def]
    _, result = bad
    assert not reported(result, "tabs_md.md")
    (stale,) = reported(result, "tabs_rst.rst")
    assert stale.subtype == "drift" and "+1" in stale.message


@pytest.mark.stack
def test_a_file_that_is_not_utf8_is_left_out_with_a_message_naming_file_line_and_byte(bad) -> None:  # type: ignore[no-untyped-def]
    _, result = bad
    (found,) = reported(result, "latin1.md")
    assert found.subtype == "encoding"
    assert found.line == 1
    assert "found byte(s) e9 at line 1, column 6, which are not UTF-8" in found.message
    assert "re-save the file as UTF-8" in found.message


@pytest.mark.stack
def test_bom_crlf_long_lines_and_nested_fences_are_verified(bad) -> None:  # type: ignore[no-untyped-def]
    _, result = bad
    pages = ("bom.md", "crlf.rst", "long.md", "nested.md", "good.md")
    for name in pages:
        assert not reported(result, name), name
    documents = {name.rsplit(".", 1)[0] for name in pages}
    found = {
        label: status
        for label, status in statuses(result.app).items()
        if label.split("[")[0] in documents
    }
    # Each block ran and its output matched: nothing reported is not enough.
    assert found == {
        "bom[1]": "verified",
        "crlf[1]": "verified",
        "long[1]": "verified",
        "nested[1]": "verified",
        "nested[2]": "verified",
        "nested[3]": "verified",
        "good[1]": "verified",
    }


@pytest.mark.stack
def test_an_unclosed_fence_is_reported_at_its_opening_line_and_not_run(bad) -> None:  # type: ignore[no-untyped-def]
    _, result = bad
    (found,) = reported(result, "unclosed.md")
    assert found.line == 3 and found.subtype == "syntax"
    assert "opened at line 3 is never closed" in found.message
    assert "expected a closing '```' line" in found.message


@pytest.mark.stack
def test_raises_naming_a_missing_class_says_so(bad) -> None:  # type: ignore[no-untyped-def]
    _, result = bad
    (found,) = reported(result, "raises.md")
    assert found.subtype == "raises"
    assert (
        "'NoSuchError', which is not a builtin, a name of the session or an importable class"
        in found.message
    )


@pytest.mark.stack
@pytest.mark.parametrize(
    ("file", "line", "words"),
    [
        ("cite_md.md", 3, "no file 'no_such_file_xyz.py' in the installed jax (looked under"),
        (
            "cite_md.md",
            3,
            "expected a path relative to site-packages, such as jax/_src/lax/control_flow/loops.py",
        ),
        ("cite_md.md", 5, "refused path '../../etc/passwd'"),
        ("cite_md.md", 7, "refused path '/etc/passwd'"),
        ("cite_md.md", 9, "'__init__.py' is ambiguous: it ends"),
        ("cite_md.md", 11, "refused path '../../../etc/passwd'"),
        ("cite_md.md", 13, "refused path '../../etc/passwd'"),
        ("cite_rst.rst", 4, "no file 'no_such_file_xyz.py' in the installed jax"),
        ("cite_rst.rst", 6, "refused path '../../etc/passwd'"),
        ("cite_rst.rst", 8, "refused path '../../etc/passwd'"),
    ],
)
def test_bad_citations_are_refused_at_their_line(bad, file: str, line: int, words: str) -> None:  # type: ignore[no-untyped-def]
    root, result = bad
    found = [r for r in reported(result, file) if r.line == line]
    assert found and found[0].subtype == "citation"
    assert words in found[0].message
    html = (
        root / "_build" / "html" / file.replace(".md", ".html").replace(".rst", ".html")
    ).read_text("utf-8")
    assert "root:x:0:0" not in html  # nothing outside the jax package is ever read


def test_jaxcheck_update_on_bad_input_rewrites_only_real_drift(tmp_path: Path) -> None:
    root = write_bad_project(tmp_path / "bad")
    before = {name: (root / name).read_bytes() for name in SOURCES}
    done = jaxcheck_here("update", root)
    assert done.returncode == 1  # problems remain that update cannot fix
    assert "Traceback" not in done.stderr, done.stderr
    changed = {name for name in SOURCES if (root / name).read_bytes() != before[name]}
    assert changed == set()  # the one drift (tabs in rST) cannot be rewritten byte for byte
    assert (
        "tabs_rst.rst:9: cannot update: block 'tabs_rst[1]': line 7 holds tabs, "
        "which reStructuredText expands to spaces" in done.stderr
    )


def test_jaxcheck_check_reports_bad_input_and_exits_one(tmp_path: Path) -> None:
    root = write_bad_project(tmp_path / "bad")
    done = jaxcheck_here("check", root)
    assert done.returncode == 1
    assert "Traceback (most recent call last)" not in done.stderr
    assert "latin1.md:1: encoding: cannot read this file as UTF-8" in done.stdout


def test_update_rewrites_stale_bom_crlf_and_long_lines_keeping_their_bytes(tmp_path: Path) -> None:
    long_line = "b" * 20000
    root = write_project(tmp_path, {})
    (root / "index.rst").write_text("Index\n=====\n\n.. toctree::\n\n   bom\n   crlf\n   long\n")
    (root / "bom.md").write_bytes("\ufeff# Bom\n\n```{jaxcheck}\nprint('ü')  # u\n```\n".encode())
    (root / "crlf.rst").write_bytes(
        b"Crlf\r\n====\r\n\r\n.. jaxcheck::\r\n\r\n   print(2)\r\n\r\n   # 3\r\n"
    )
    (root / "long.md").write_bytes(
        f"# Long\n\n```{{jaxcheck}}\nprint('{long_line}')  # {long_line[:-1]}\n```".encode()
    )
    done = jaxcheck_here("update", root)
    assert done.returncode == 0, done.stderr
    assert (
        root / "bom.md"
    ).read_bytes() == "\ufeff# Bom\n\n```{jaxcheck}\nprint('ü')  # ü\n```\n".encode()
    assert (
        root / "crlf.rst"
    ).read_bytes() == b"Crlf\r\n====\r\n\r\n.. jaxcheck::\r\n\r\n   print(2)\r\n\r\n   # 2\r\n"
    assert (
        (root / "long.md").read_bytes()
        == f"# Long\n\n```{{jaxcheck}}\nprint('{long_line}')  # {long_line}\n```".encode()
    )


def test_a_pin_to_a_version_that_is_not_installed_stops_with_both_versions_and_next_steps(
    tmp_path: Path,
) -> None:
    root = write_project(tmp_path, {"a.md": "# A\n"}, conf='jaxcheck_jax_version = "0.0.1"\n')
    done = jaxcheck_here("check", root)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("jaxcheck: installed jax ")
    assert "0.0.1" in done.stderr and "pip install jax==0.0.1" in done.stderr
    assert "-D jaxcheck_jax_version=" in done.stderr


# -- output safety ---------------------------------------------------------------------

SCRIPT = "<script>alert(1)</script>"
REPO = "https://example.org/fork/jax"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Build]:
    md = (
        "# Hostile\n"
        "\n"
        "```{jaxcheck}\n"
        f"print('{SCRIPT}')  # {SCRIPT}\n"
        "```\n"
        "\n"
        "```{jaxcheck}\n"
        f"print('{SCRIPT}')  # stale\n"
        "```\n"
        "\n"
        "```{jaxcheck}\n"
        f"raise ValueError('{SCRIPT}')\n"
        "```\n"
        "\n"
        f":::{{jaxcheck-qa}} Why {SCRIPT} and <b>bold</b>?\n"
        ":cite: loops.py::while_loop\n"
        "\n"
        f"Answer with {{jaxquote}}`{SCRIPT} <loops.py::while_loop>` and <!-- a comment.\n"
        ":::\n"
        "\n"
        "```{jaxcheck-quote} jax/_src/lax/control_flow/loops.py\n"
        ":symbol: while_loop\n"
        "\n"
        f"{SCRIPT}\n"
        "```\n"
    )
    rst = (
        "Hostile rST\n"
        "===========\n"
        "\n"
        f".. jaxcheck-qa:: Why {SCRIPT}?\n"
        "   :cite: loops.py::while_loop\n"
        "\n"
        "   Answer.\n"
        "\n"
        ".. jaxcheck::\n"
        "\n"
        f"   print('{SCRIPT}')\n"
        "\n"
        "   # nope\n"
    )
    root = write_project(
        tmp_path_factory.mktemp("hostile"),
        {"hostile.md": md, "hostile_rst.rst": rst},
        conf=(
            'jaxcheck_on_drift = "warning"\n'
            'myst_enable_extensions = ["colon_fence"]\n'
            f'jaxcheck_jax_repo = "{REPO}/"\n'
        ),
    )
    return root, build(root)


@pytest.mark.stack
@pytest.mark.parametrize("page", ["hostile.html", "hostile_rst.html"])
def test_printed_output_questions_and_quotes_are_escaped_in_html(hostile, page: str) -> None:  # type: ignore[no-untyped-def]
    root, result = hostile
    assert result.status == 0  # jaxcheck_on_drift = "warning"
    html = (root / "_build" / "html" / page).read_text("utf-8")
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<b>bold</b>" not in html


@pytest.mark.stack
def test_stale_and_error_markers_escape_what_the_block_printed(hostile) -> None:  # type: ignore[no-untyped-def]
    root, _ = hostile
    html = (root / "_build" / "html" / "hostile.html").read_text("utf-8")
    stale = re.search(
        r'<details class="jaxcheck-status jaxcheck-status-stale"[^>]*>.*?</details>',
        html,
        re.DOTALL,
    )
    failed = re.search(
        r'<details class="jaxcheck-status jaxcheck-status-failed"[^>]*>.*?</details>',
        html,
        re.DOTALL,
    )
    assert stale and "&lt;script&gt;alert(1)&lt;/script&gt;" in stale.group()
    assert failed and "ValueError: &lt;script&gt;alert(1)&lt;/script&gt;" in failed.group()


@pytest.mark.stack
def test_faq_json_ld_holds_no_markup(hostile) -> None:  # type: ignore[no-untyped-def]
    root, _ = hostile
    html = (root / "_build" / "html" / "hostile.html").read_text("utf-8")
    (script,) = re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, re.DOTALL)
    assert "<" not in script and ">" not in script
    import json

    data = json.loads(script)
    assert SCRIPT in data["mainEntity"][0]["name"]


@pytest.mark.stack
def test_links_point_only_into_the_configured_repository(hostile) -> None:  # type: ignore[no-untyped-def]
    root, _ = hostile
    for page in ("hostile.html", "hostile_rst.html"):
        html = (root / "_build" / "html" / page).read_text("utf-8")
        external = set(re.findall(r'href="((?:[a-z]+:)?//[^"]*|[a-z]+:[^"]*)"', html))
        ours = {
            link for link in external if "sphinx-doc.org" not in link and "alabaster" not in link
        }
        assert ours and all(link.startswith(f"{REPO}/blob/") for link in ours), ours


SUBSTITUTED = """# Page

Some text.

{{ snippet }}

More.
"""


@pytest.mark.stack
def test_a_block_a_myst_substitution_holds_runs_and_is_reported_where_it_is_used(
    tmp_path: Path,
) -> None:
    """Its text is not in the page, so no fence of the page is left open: the block runs, its
    drift is reported at the substitution, and update leaves the page alone, saying why."""
    conf = (
        'myst_enable_extensions = ["substitution"]\n'
        'myst_substitutions = {"snippet": "```{jaxcheck}\\nprint(1)\\n\\n# 2\\n```"}\n'
    )
    root = write_project(tmp_path / "docs", {"page.md": SUBSTITUTED}, conf=conf)
    done = build(root)
    assert done.subtypes() == ["drift"], done.warnings
    assert done.reported[0].file.endswith("page.md") and done.reported[0].line == 5
    updated = jaxcheck_here("update", root)
    assert (root / "page.md").read_text() == SUBSTITUTED
    assert "not written in the file" in updated.stdout + updated.stderr
