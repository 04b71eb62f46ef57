"""The corpora the tests check: what the conformance corpus (``roots/test-conformance-stale``
and ``-fresh``) holds, and where JAX's own documentation pages are and how they are built."""

from __future__ import annotations

import doctest
import json
import os
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from buildkit import jaxcheck, sphinx_build

# Every drift of the stale corpus: file, line, block, what is stale, the new actual line.
STALE_DRIFTS = [
    (
        "forms_md.md",
        13,
        "md-trailing",
        "the expected output at the end of the block is stale:",
        "+{ lambda ; a:f32[]. let b:f32[] = sin a; c:f32[] = mul b 2.0:f32[] in (c,) }",
    ),
    ("forms_md.md", 22, "md-inline", "the output of this print is stale:", "+[0 2 4]"),
    (
        "forms_md.md",
        35,
        "md-repl",
        "the output of this `# >>>` statement is stale:",
        "+Array([2., 2.], dtype=float32)",
    ),
    (
        "forms_md.md",
        62,
        "md-raises",
        "the expected output at the end of the block is stale:",
        (
            "+The input carry c has type int32[] but the corresponding output carry component has "
            "type float32[], so the dtypes do not match."
        ),
    ),
    (
        "forms_rst.rst",
        13,
        "rst-trailing",
        "the expected output at the end of the block is stale:",
        "+          f:f32[] = add d 1.0:f32[]",
    ),
    (
        "forms_rst.rst",
        50,
        "rst-doctest",
        "the output of this `>>>` statement is stale:",
        "+Array(2, dtype=int32, weak_type=True)",
    ),
]
# Every block of the stale corpus: document, name, first line, status.
STALE_BLOCKS = [
    ("forms_md", "md-trailing", 8, "stale"),
    ("forms_md", "md-inline", 21, "stale"),
    ("forms_md", "md-repl", 35, "stale"),
    ("forms_md", "md-doctest", 48, "verified"),
    ("forms_md", "md-raises", 60, "stale"),
    ("forms_md", "md-ellipsis", 74, "verified"),
    ("forms_md", "md-jaxpr", 87, "verified"),
    ("forms_md", "md-tolerance", 96, "verified"),
    ("forms_md", "md-ignore", 107, "not compared"),
    ("forms_md", "md-skip", 115, "skipped"),
    ("forms_md", "md-session", 124, "verified"),
    ("forms_md", "md-hidden", 136, "not compared"),
    ("forms_md", "md-after-hidden", 143, "verified"),
    ("forms_rst", "rst-trailing", 7, "stale"),
    ("forms_rst", "rst-inline", 30, "verified"),
    ("forms_rst", "rst-raises", 36, "verified"),
    ("forms_rst", "rst-repl", 43, "verified"),
    ("forms_rst", "rst-doctest", 50, "stale"),
]
# The stale blocks alone: file, line, block.
STALE = [(file, line, block) for file, line, block, *_ in STALE_DRIFTS]

# Five of JAX's own pages (tools/realworld_pages.py fetches them and makes their converted
# copies), in shared/realworld beside the repository (or beside its worktrees), in .realworld
# in it, or where JAXCHECK_REALWORLD says; the tests that read them skip without them,
# saying how to get them.
_REPO = Path(__file__).resolve().parents[1]
REALWORLD = Path(
    os.environ.get("JAXCHECK_REALWORLD")
    or next(
        (
            folder
            for folder in (
                *(p / "shared" / "realworld" for p in _REPO.parents),
                _REPO / ".realworld",
            )
            if (folder / "jax-docs").is_dir()
        ),
        _REPO / ".realworld",
    )
)
REALWORLD_MISSING = (
    "needs five of JAX's own documentation pages, which this repository does not hold: "
    "run `python tools/realworld_pages.py` (it fetches them from github.com at jax-v0.10.2 "
    f"into {_REPO / '.realworld'}; `--from JAX_CHECKOUT` reads a clone instead), or set "
    "JAXCHECK_REALWORLD to a folder holding jax-docs/ and jax-docs-jaxcheck/"
)
# JAX's own doctest run on them (pytest --doctest-glob, jax 0.10.2 on CPU), per page:
# examples, passed, skipped (+SKIP), failed.
PYTEST_VERDICTS = {
    "aot.md": (28, 26, 2, 0),
    "async_dispatch.rst": (8, 4, 4, 0),
    "faq.rst": (10, 10, 0, 0),
    "transfer_guard.rst": (6, 5, 1, 0),
    "type_promotion.rst": (10, 9, 1, 0),
}
PAGES = ("aot.md", "async_dispatch.rst", "faq.rst", "transfer_guard.rst", "type_promotion.rst")

# conf.py of a project of those pages, as JAX's doctest run sees them; CACHE is replaced by a
# folder.
CONF = '''
extensions = ["myst_parser", "sphinx_jaxcheck"]
exclude_patterns = ["_build"]
suppress_warnings = ["ref.ref", "image.not_readable"]
jaxcheck_jax_version = "0.10.2"
jaxcheck_jax_commit = "990e6a0b84138346e6a38785412f36356e0e5dc3"
jaxcheck_env = {"JAX_PLATFORMS": "cpu", "XLA_FLAGS": "--xla_force_host_platform_device_count=8"}
jaxcheck_cache_dir = CACHE
jaxcheck_doctests = "check"
jaxcheck_doctest_flags = ["NUMBER", "NORMALIZE_WHITESPACE"]
jaxcheck_setup = """
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
"""
'''


def parsed_examples(text: str) -> list[doctest.Example]:
    return [
        piece for piece in doctest.DocTestParser().parse(text) if isinstance(piece, doctest.Example)
    ]


def skipped_lines(text: str) -> set[int]:
    """1-based lines of the ``>>>`` of every example doctest marks +SKIP."""
    return {e.lineno + 1 for e in parsed_examples(text) if e.options.get(doctest.SKIP)}


def assert_pytests_verdicts(root: Path, examples: list[dict[str, Any]]) -> None:
    """Every example of JAX's five pages in ``root`` has the verdict JAX's pytest run gives it:
    the counts of :data:`PYTEST_VERDICTS` per page, at the lines doctest's parser finds, skipped
    exactly where ``+SKIP`` says."""
    assert len(examples) == 62
    assert Counter(e["status"] for e in examples) == {"verified": 54, "skipped": 8}
    for page, (total, passed, skipped, failed) in PYTEST_VERDICTS.items():
        mine = Counter(e["status"] for e in examples if e["path"].endswith(page))
        assert (
            sum(mine.values()),
            mine["verified"],
            mine["skipped"],
            mine["stale"] + mine["failed"],
        ) == (
            total,
            passed,
            skipped,
            failed,
        ), page
        text = (root / page).read_text("utf-8")
        lines = {e["line"] for e in examples if e["path"].endswith(page)}
        assert lines == {e.lineno + 1 for e in parsed_examples(text)}, page
        assert {
            e["line"] for e in examples if e["path"].endswith(page) and e["status"] == "skipped"
        } == skipped_lines(text)


_TOPICS = ("arrays", "transformations", "devices", "random numbers", "compilation", "pytrees")


def padding_pages(count: int) -> dict[str, str]:
    """``count`` pages holding nothing to check, half reStructuredText and half MyST, as JAX's
    prose pages are: headings, cross-references, admonitions, math, tables and code blocks
    without ``>>>``. File name -> text."""
    pages = {}
    for number in range(count):
        topic = _TOPICS[number % len(_TOPICS)]
        paragraph = (
            f"Page {number} explains {topic}. A function transformed with :func:`jax.jit` is "
            f"traced once per shape and dtype; see :ref:`faq` and :doc:`index` for more. "
            "The same function runs on every backend, and its result is an array placed on "
            "a device, as :class:`jax.Array` describes.\n"
        )
        code = (
            "import jax\nimport jax.numpy as jnp\n\n"
            f"def step_{number}(x):\n    return jnp.tanh(x) * {number + 1}\n\n"
            f"fast = jax.jit(step_{number})\n"
        )
        if number % 2:
            myst = re.sub(r":(\w+):`", r"{\1}`", paragraph)
            pages[f"pad_{number:03d}.md"] = (
                f"# Notes on {topic} ({number})\n\n{myst}\n"
                f"## Usage\n\n{myst}\n```python\n{code}```\n\n"
                f"```{{note}}\nThe {topic} of page {number} are shown here without output.\n"
                "```\n\n| name | meaning |\n|---|---|\n| x | the input |\n| y | the output |\n\n"
                f"```{{math}}\nf(x) = \\tanh(x) \\cdot {number + 1}\n```\n\n"
                f"## Further reading\n\n{myst * 3}"
            )
        else:
            title = f"Notes on {topic} ({number})"
            pages[f"pad_{number:03d}.rst"] = (
                f"{title}\n{'=' * len(title)}\n\n{paragraph}\nUsage\n-----\n\n{paragraph}\n"
                ".. code-block:: python\n\n"
                + "".join(f"   {line}\n" for line in code.split("\n"))
                + f"\n.. note::\n\n   The {topic} of page {number} are shown without output.\n\n"
                ".. list-table::\n   :header-rows: 1\n\n   * - name\n     - meaning\n"
                "   * - x\n     - the input\n\n"
                f".. math::\n\n   f(x) = \\tanh(x) \\cdot {number + 1}\n\n"
                f"Further reading\n---------------\n\n{paragraph * 3}"
            )
    return pages


# JAX's root conftest.py: every doctest sees jax, lax, jnp and np.
JAX_CONFTEST = """\
import jax
import numpy as np
import pytest


@pytest.fixture(autouse=True)
def add_imports(doctest_namespace):
    doctest_namespace["jax"] = jax
    doctest_namespace["lax"] = jax.lax
    doctest_namespace["jnp"] = jax.numpy
    doctest_namespace["np"] = np
"""


# A project in both formats with what every stack must catch: a drifted block, a drifted
# ``>>>`` example, a citation that does not resolve; and a card.
STACK_MYST = """\
# On every stack

```{jaxcheck}
import jax.numpy as jnp

print(jnp.arange(3) * 2)

# [0 2 5]
```

An example of the page's own:

```python
>>> print(1 + 1)
3

```

A citation: {jaxsrc}`loops.py::_check_carry_typo`.

:::{jaxcheck-qa} Does a card render here?
:cite: conditionals.py::cond

Yes.
:::
"""
STACK_RST = """\
On every stack, in reStructuredText
===================================

.. jaxcheck::

   import jax.numpy as jnp

   print(jnp.arange(3) * 2)

   # [0 2 5]

An example of the page's own:

>>> print(1 + 1)
3

A citation: :jaxsrc:`loops.py::_check_carry_typo`.

.. jaxcheck-qa:: Does a card render in reStructuredText?
   :cite: conditionals.py::cond

   Yes.
"""
STACK_CONF = 'jaxcheck_doctests = "check"\nmyst_enable_extensions = ["colon_fence"]\n'
# What is wrong in each page, found by its text: the block's stale line, the example's prompt,
# the citation.
_WRONG = ("# [0 2 5]", ">>> print(1 + 1)", "_check_carry_typo")
_WARNING_AT = re.compile(r"^(?:\x1b\[[\d;]*m)*(?P<path>/\S+?):(?P<line>\d+): WARNING: ", re.M)


def _line_of(text: str, words: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if words in line)


def wrong_lines() -> set[tuple[str, int]]:
    """Where each stack page is wrong: (file name, line)."""
    return {(name, _line_of(text, words)) for name, text in STACK_PAGES.items() for words in _WRONG}


STACK_PAGES = {"page_md.md": STACK_MYST, "page_rst.rst": STACK_RST}


def warned_at(stderr: str) -> set[tuple[str, int]]:
    """(file name, line) of every warning sphinx-build printed."""
    return {(Path(m["path"]).name, int(m["line"])) for m in _WARNING_AT.finditer(stderr)}


def assert_caught_until_fixed(project: Path, parallel: Sequence[str] = ()) -> None:
    """The stack pages in ``project`` fail at every wrong line under sphinx-build and jaxcheck
    check; update accepts the outputs, the citation is fixed by hand, and both pass, each
    block and example with its marker and the card rendered."""
    built = sphinx_build("-b", "html", *parallel, project, project / "_build" / "html")
    assert built.returncode == 1, built.stderr
    assert warned_at(built.stderr) == wrong_lines(), built.stderr
    assert "Traceback" not in built.stderr and "Exception occurred" not in built.stderr

    checked = jaxcheck("check", project, "--format", "json")
    assert checked.returncode == 1, checked.stderr
    findings = json.loads(checked.stdout)["findings"]
    assert {(Path(f["path"]).name, f["line"]) for f in findings} == wrong_lines()
    assert "WARNING" not in checked.stderr  # each finding once, in the report (no duplicate)

    # update accepts the two outputs; the citation is the author's to fix.
    updated = jaxcheck("update", project)
    assert updated.returncode == 1
    assert "rewrote 4 expectation(s) in 2 file(s)" in updated.stderr
    for name in STACK_PAGES:
        page = project / name
        text = page.read_text("utf-8")
        assert "# [0 2 4]" in text and ">>> print(1 + 1)\n2\n" in text
        page.write_text(text.replace("_check_carry_typo", "_check_carry_type"), "utf-8")

    assert jaxcheck("check", project).returncode == 0
    again = sphinx_build("-b", "html", *parallel, project, project / "_build" / "html")
    assert again.returncode == 0, again.stderr
    for name in STACK_PAGES:  # the block and the example, each with its marker; the card
        html = (project / "_build" / "html" / f"{Path(name).stem}.html").read_text("utf-8")
        assert html.count('class="jaxcheck-status jaxcheck-status-verified"') == 2, name
        assert '<details class="jaxcheck-qa"' in html, name
