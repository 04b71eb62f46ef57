"""Every form and option of a block (guide/blocks), from reStructuredText and from MyST alike."""

from __future__ import annotations

from pathlib import Path

import pytest
from buildkit import build, write_project
from cases import Case, documents, statuses

# In the compatibility part, run on every supported Sphinx (tox -e sphinx73 ...).
pytestmark = pytest.mark.stack

CASES = [
    Case("trailing", "import jax.numpy as jnp\nprint(jnp.arange(3))\n\n# [0 1 2]", "verified"),
    Case("trailing-stale", "print(1 + 1)\n\n# 3", "stale"),
    Case("inline", "print(jnp.int32(7))  # 7\nprint('rest')\n\n# rest", "verified"),
    Case("inline-stale", "print(jnp.int32(7))  # 8", "stale"),
    Case("repl", "# >>> jnp.float32(1.5) * 2\n# Array(3., dtype=float32)", "verified"),
    Case(
        "doctest",
        ">>> print(2 ** 10)\n"
        "1024\n"
        ">>> 1 / 0\n"
        "Traceback (most recent call last):\n"
        "    ...\n"
        "ZeroDivisionError: division by zero",
        "verified",
    ),
    Case("raises", "raise KeyError('k')\n\n# KeyError: 'k'", "verified", {"raises": "LookupError"}),
    Case("raises-wrong-class", "raise KeyError('k')", "failed", {"raises": "ValueError"}),
    Case("raises-nothing", "x = 1", "failed", {"raises": "ValueError"}),
    Case("raises-unknown-class", "raise KeyError('k')", "failed", {"raises": "NoSuchError"}),
    Case(
        "unexpected-exception", "print('before')\nraise RuntimeError('boom')\n\n# before", "failed"
    ),
    Case(
        "ignore",
        "import random\nprint(random.random())\n\n# 0.5",
        "not compared",
        {"output": "ignore"},
    ),
    Case("skip", "raise RuntimeError('never runs')", "skipped", {"output": "skip"}),
    Case(
        "jaxpr",
        "import jax\n"
        "print(jax.make_jaxpr(lambda p, q: p * q)(1.0, 2.0))\n"
        "\n"
        "# { lambda ; x:f32[] y:f32[]. let z:f32[] = mul x y in (z,) }",
        "verified",
        {"compare": "jaxpr"},
    ),
    Case(
        "jaxpr-as-text",
        "print(jax.make_jaxpr(lambda p, q: p * q)(1.0, 2.0))\n"
        "\n"
        "# { lambda ; x:f32[] y:f32[]. let z:f32[] = mul x y in (z,) }",
        "stale",
    ),
    Case("tolerance", "print(float(jnp.pi))\n\n# 3.14159", "verified", {"tolerance": "1e-5"}),
    Case(
        "tolerance-too-tight", "print(float(jnp.pi))\n\n# 3.14159", "stale", {"tolerance": "1e-9"}
    ),
    Case("timeout", "import time\ntime.sleep(30)", "failed", {"timeout": "1"}),
    Case("after-timeout", "print(jnp.arange(2))  # [0 1]", "verified"),
    Case("prints-without-expectation", "print('nobody expects this')", "stale"),
    Case("session-a", "shared = 41", "not compared", {"session": "s"}),
    Case("session-b", "print(shared + 1)  # 42", "verified", {"session": "s"}),
    Case("session-default-is-separate", "print('shared' in globals())  # False", "verified"),
    Case("hidden", "hidden_value = 5", "not compared", {"hide": ""}),
    Case("after-hidden", "print(hidden_value)  # 5", "verified"),
    Case(
        "display",
        "print('shown')  # shown",
        "verified",
        {"caption": "A caption", "linenos": "", "emphasize-lines": "1"},
    ),
]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    root = write_project(tmp_path_factory.mktemp("options"), documents(CASES))
    return root, build(root)


@pytest.mark.parametrize("suffix", ["-rst", "-md"])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_each_form_and_option_gets_its_verdict_in_rst_and_md(
    built, case: Case, suffix: str
) -> None:  # type: ignore[no-untyped-def]
    _, result = built
    assert statuses(result.app)[case.name + suffix] == case.status


def test_failing_blocks_fail_the_build_with_typed_warnings_at_their_lines(built) -> None:  # type: ignore[no-untyped-def]
    root, result = built
    assert result.status == 1
    by_block = {r.message.split("'")[1]: r for r in result.reported}
    assert by_block["timeout-rst"].subtype == "timeout"
    assert "timeout of 1 s" in by_block["timeout-md"].message
    assert by_block["raises-wrong-class-md"].subtype == "raises"
    assert "NoSuchError" in by_block["raises-unknown-class-rst"].message
    assert by_block["unexpected-exception-rst"].subtype == "error"
    assert "RuntimeError: boom" in by_block["unexpected-exception-md"].message
    # Reported at the real file line of the statement or expectation.
    md = (root / "cases_md.md").read_text().split("\n")
    assert md[by_block["inline-stale-md"].line - 1].startswith("print(jnp.int32(7))  # 8")
    rst = (root / "cases_rst.rst").read_text().split("\n")
    assert rst[by_block["trailing-stale-rst"].line - 1].strip() == "# 3"


def test_tracebacks_use_the_block_name_and_block_relative_lines(built) -> None:  # type: ignore[no-untyped-def]
    _, result = built
    message = next(r.message for r in result.reported if "unexpected-exception-md" in r.message)
    assert 'File "<unexpected-exception-md>", line 2, in <module>' in message


def test_rst_and_md_render_the_same_html_for_the_same_blocks(built) -> None:  # type: ignore[no-untyped-def]
    root, _ = built
    import re

    def blocks(page: str) -> list[str]:
        html = (root / "_build" / "html" / page).read_text("utf-8")
        found = re.findall(r'<div class="jaxcheck-block.*?</div>\s*</div>', html, re.DOTALL)
        return [re.sub(r"-(rst|md)\b", "", b) for b in found]

    rst, md = blocks("cases_rst.html"), blocks("cases_md.html")
    assert len(rst) == len(CASES) - 1  # the hidden block renders nothing
    assert rst == md


def test_display_options_render_caption_line_numbers_and_emphasis(built) -> None:  # type: ignore[no-untyped-def]
    root, _ = built
    html = (root / "_build" / "html" / "cases_md.html").read_text("utf-8")
    assert "A caption" in html
    assert 'class="hll"' in html
    assert "linenos" in html
    assert "hidden_value = 5" not in html
    assert "✓ verified" in html


def test_named_block_can_be_referenced(tmp_path: Path) -> None:
    root = write_project(
        tmp_path,
        {
            "page.rst": (
                "Page\n"
                "====\n"
                "\n"
                ".. jaxcheck::\n"
                "   :name: target-block\n"
                "   :caption: The block\n"
                "\n"
                "   print(1)  # 1\n"
                "\n"
                "See :ref:`target-block`.\n"
            )
        },
    )
    result = build(root)
    assert result.status == 0
    html = (root / "_build" / "html" / "page.html").read_text("utf-8")
    assert 'href="#target-block"' in html


def test_status_table_lists_every_block_with_its_verdict_and_link(tmp_path: Path) -> None:
    root = write_project(
        tmp_path,
        {
            "a.md": (
                "# A\n"
                "\n"
                "```{jaxcheck}\n"
                ":name: first\n"
                "\n"
                "print(1)  # 1\n"
                "```\n"
                "\n"
                "```{jaxcheck}\n"
                "print(2)  # 3\n"
                "```\n"
            ),
            "examples.md": "# Examples\n\n>>> 1 + 1\n2\n>>> print('x')\nx\n",
            "status.rst": "Status\n======\n\n.. jaxcheck-status::\n",
        },
        conf='jaxcheck_on_drift = "warning"\njaxcheck_doctests = "check"\n',
    )
    assert build(root).status == 0
    html = (root / "_build" / "html" / "status.html").read_text("utf-8")
    # Blocks and examples counted in the summary's words; the prompt is code, not backticks.
    assert (
        '2 block(s): 1 verified, 1 stale; 2 <code class="docutils literal notranslate"><span '
        'class="pre">&gt;&gt;&gt;</span></code> example(s): 2 verified.'
    ) in html
    assert 'href="a.html#first"' in html and "✓ verified" in html
    assert "a[2]" in html and "⚠ stale" in html
    # The table follows the verdicts even when only another page changed.
    (root / "a.md").write_text((root / "a.md").read_text().replace("# 3", "# 2"))
    assert build(root).status == 0
    html = (root / "_build" / "html" / "status.html").read_text("utf-8")
    assert "2 block(s): 2 verified; 2 <" in html
