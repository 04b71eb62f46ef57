"""``jaxcheck check`` reads every page: no guess about a page's text leaves a check out.

Each page below holds a check in a form a scan of the text before parsing missed
(and left the page unparsed: ``0 block(s)``, exit status 0). A full check must
find every one of them, as a check of each page alone does.
"""

from __future__ import annotations

import json
from pathlib import Path

from buildkit import jaxcheck, write_project

STALE = "print(1)\n\n# 2\n"
SNIPPET = ".. jaxcheck::\n\n   " + STALE.replace("\n", "\n   ").rstrip() + "\n"
MYST_SNIPPET = "```{jaxcheck}\n" + STALE + "```\n"
BAD_CITE = "loops.py::_check_carry_typo"
PAGES = {
    "list_item.rst": "List\n====\n\n- .. include:: snip.txt\n",
    "grid_table.rst": (
        "Grid\n====\n\n+---------------------------+\n| .. include:: snip.txt     |\n"
        "+---------------------------+\n"
    ),
    "form_feed.rst": "Form feed\n=========\n\n\f" + SNIPPET,
    "file_separator.rst": "File separator\n==============\n\n\x1c" + SNIPPET,
    "line_separator.rst": "Line separator\n==============\n\n\u2028" + SNIPPET,
    "myst_list.md": "# MyST list\n\n- ```{include} snip_md.txt\n  ```\n",
    "role_case.rst": f"Role case\n=========\n\nSee :JAXSRC:`{BAD_CITE}`.\n",
    "default_role.rst": (
        f"Default role\n============\n\n.. default-role:: jaxsrc\n\nSee `{BAD_CITE}`.\n"
    ),
    "alias.rst": f"Alias\n=====\n\nSee :mysrc:`{BAD_CITE}`.\n",
    "front_matter.md": (
        "---\nmyst:\n  substitutions:\n    check: |\n      ```{jaxcheck}\n      print(1)\n\n"
        "      # 2\n      ```\n---\n\n# Front matter\n\n{{ check }}\n"
    ),
}
ALIAS = """
from sphinx_jaxcheck.sphinx.citations import JaxSourceRole


def setup(app):
    app.add_role("mysrc", JaxSourceRole())  # a project's own name for jaxsrc
    return {"parallel_read_safe": True}
"""


def test_every_page_holding_a_check_is_checked(tmp_path: Path) -> None:
    files = {**PAGES, "snip.txt": SNIPPET, "snip_md.txt": MYST_SNIPPET, "alias_ext.py": ALIAS}
    conf = (
        "import os, sys\nsys.path.insert(0, os.path.dirname(__file__))\n"
        'extensions.append("alias_ext")\n'
        'myst_enable_extensions = ["substitution"]\nexclude_patterns += ["snip*"]\n'
    )
    root = write_project(tmp_path / "docs", files, conf=conf)
    done = jaxcheck("check", root, "--format", "json")
    assert done.returncode == 1, done.stderr
    found = {Path(f["path"]).name for f in json.loads(done.stdout)["findings"]}
    # Each page, or the file it includes, holds its finding.
    assert found >= {"snip.txt", "snip_md.txt", *(p for p in PAGES if "include" not in PAGES[p])}
    shown = json.loads(done.stdout)["blocks"]
    docs = {b["path"].rsplit("/", 1)[-1] for b in shown}
    assert {"snip.txt", "snip_md.txt"} <= docs
