"""Any sequence of edits to a page or to a module its block imports, each followed by a warm
check and a check without the cache: the two always report the same.

``page.md`` and ``helper.py`` are links to one of three variants each (outside
the source folder, dated a day ago, as a checkout or an unpacked archive
leaves them). Each page variant prints a name and ``helper.NAME``, all names of
one length, and expects ``red red``. An edit, to the page or to the helper,
rewrites the variant the link points to, retargets the link, rewrites the
variant and puts its old modification time back, or replaces it by an older
copy of a variant (``cp -p``). The warm check is the incremental build with
the cache a user runs again and again; the other one reads every page and
runs every block and stores nothing (``-D jaxcheck_cache=0``, in a build folder of
its own).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from buildkit import write_project
from hypothesis import given, note, settings
from hypothesis import strategies as st
from notebooks import code as nb_code
from notebooks import notebook_text
from notebooks import stdout as nb_stdout

from sphinx_jaxcheck import cli

# Of one length: an edit that puts the old modification time back keeps the size too, so only
# the content tells the versions apart.
NAMES = ("red", "tan", "sky")
VARIANTS = 3


def page(name: str) -> str:
    """A page whose block prints ``name`` and the helper's name, and expects ``red red``."""
    block = f'import helper\nprint("{name}", helper.NAME)\n\n# red red\n'
    return f"# Page\n\n```{{jaxcheck}}\n{block}```\n"


def module(name: str) -> str:
    """A helper module naming ``name``."""
    return f"NAME = {name!r}\n"


# What may be edited: the link in the source folder, its variants' suffix, their text.
FILES: dict[str, tuple[str, str, Callable[[str], str]]] = {
    "page": ("page.md", ".md", page),
    "helper": ("helper.py", ".py", module),
}


def variant(root: Path, kind: str, index: int, folder: str = "variants") -> Path:
    return root.parent / folder / f"{kind}{index}{FILES[kind][1]}"


def linked(root: Path, kind: str) -> Path:
    """The variant the link points to."""
    return (root / FILES[kind][0]).resolve()


def rewrite(root: Path, kind: str, name: str, _index: int) -> None:
    """The variant the link points to gets new text."""
    linked(root, kind).write_text(FILES[kind][2](name))


def retarget(root: Path, kind: str, _name: str, index: int) -> None:
    link = root / FILES[kind][0]
    link.unlink()
    link.symlink_to(variant(root, kind, index))


def rewrite_keeping_mtime(root: Path, kind: str, name: str, _index: int) -> None:
    target = linked(root, kind)
    before = target.stat()
    target.write_text(FILES[kind][2](name))
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))


def older_copy(root: Path, kind: str, _name: str, index: int) -> None:
    """``cp -p`` of a variant as it was at the start, over the one the link points to."""
    shutil.copy2(variant(root, kind, index, "originals"), linked(root, kind))


EDITS = {
    "rewrite": rewrite,
    "retarget": retarget,
    "rewrite keeping mtime": rewrite_keeping_mtime,
    "older copy": older_copy,
}


def check(root: Path, *args: str) -> dict[str, Any]:
    """``jaxcheck check --format json``: the exit status, each block's status, each finding."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = cli.main(["check", str(root), "--format", "json", *args])
    report = json.loads(out.getvalue())
    return {
        "status": status,
        "blocks": [(b["name"], b["status"]) for b in report["blocks"]],
        "findings": [(f["subtype"], f["message"]) for f in report["findings"]],
    }


@pytest.fixture(scope="module")
def projects(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A fresh project for each example, its page and helper linked to their first
    variants."""

    def fresh() -> Path:
        base = tmp_path_factory.mktemp("edits")
        root = write_project(base / "docs", {}, conf="jaxcheck_cache = True\n")
        (root / "index.rst").write_text("Index\n=====\n\n.. toctree::\n\n   page\n")
        for folder in ("variants", "originals"):
            (base / folder).mkdir()
        for kind, (link, _, text) in FILES.items():
            for index, name in enumerate(NAMES):
                written = variant(root, kind, index)
                written.write_text(text(name))
                a_day_ago = written.stat().st_mtime - 86400
                os.utime(written, (a_day_ago, a_day_ago))
                shutil.copy2(written, variant(root, kind, index, "originals"))
            (root / link).symlink_to(variant(root, kind, 0))
        return root

    return fresh


@settings(max_examples=5, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(sorted(FILES)),
            st.sampled_from(sorted(EDITS)),
            st.sampled_from(NAMES),
            st.integers(0, VARIANTS - 1),
        ),
        min_size=1,
        max_size=3,
    )
)
def test_a_warm_check_agrees_with_a_check_without_the_cache_after_any_edits(
    projects: Any, edits: list[tuple[str, str, str, int]]
) -> None:
    root = projects()
    cold = ["-D", "jaxcheck_cache=0", "--build-dir", str(root.parent / "cold")]
    assert check(root) == check(root, *cold)
    for kind, edit, name, index in edits:
        EDITS[edit](root, kind, name, index)
        now = {FILES[k][0]: (root / FILES[k][0]).read_text() for k in FILES}
        note(f"{edit} of the {kind} ({name}, variant {index}): now {now!r}")
        assert check(root) == check(root, *cold)


# A second project, whose edits change what reads what: a page that changes the state of its
# process appearing before one that prints that state, an include created and deleted, markup
# read into a directive, a docstring made from a data file; and shards run between the edits.
PRINTS_STATE = (
    "# Shows\n\n```{jaxcheck}\nimport jax.numpy as jnp\n\nprint(repr(jnp.ones(1)))\n\n"
    "# Array([1.], dtype=float32)\n```\n"
)
CHANGES_STATE = (
    "# Patches\n\n```{jaxcheck}\nimport jax.numpy as jnp\n\n"
    "type(jnp.ones(1)).__repr__ = lambda self: 'PATCHED'\n```\n"
)
SNIPPET = ".. jaxcheck::\n\n   print(1)\n\n   # 2\n"
MADE_DOC = '''"""A module whose docstring is read from a data file when it is imported."""

import os


def step(x):
    return x + 1


with open(os.path.join(os.path.dirname(__file__), "doc.txt")) as text:
    step.__doc__ = text.read()
'''


def _toggle(path: Path, text: str) -> None:
    if path.exists():
        path.unlink()
    else:
        path.write_text(text, "utf-8")


PROJECT_EDITS: dict[str, Callable[[Path], None]] = {
    "a page changing state": lambda root: _toggle(root / "a_patches.md", CHANGES_STATE),
    "an include created or deleted": lambda root: _toggle(root / "snip.txt", SNIPPET),
    "markup read as a directive": lambda root: (root / "markup.rst").write_text(
        "Markup\n======\n\n"
        + (
            "Text.\n"
            if "include" in (root / "markup.rst").read_text()
            else "- .. include:: snip2.txt\n"
        ),
        "utf-8",
    ),
    "a docstring's data file": lambda root: (
        root.parent / "src" / "madedoc" / "doc.txt"
    ).write_text(
        "One more.\n\n>>> step(1)\n"
        + ("3" if "2" in (root.parent / "src" / "madedoc" / "doc.txt").read_text() else "2")
        + "\n",
        "utf-8",
    ),
}


def merged_shards(root: Path) -> list[tuple[str, str]]:
    """The blocks of the two shards of a warm check, merged: (name, status)."""
    reports = []
    for k in (1, 2):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            cli.main(["check", str(root), "--shard", f"{k}/2", "--format", "json"])
        reports.append(root.parent / f"shard{k}.json")
        reports[-1].write_text(out.getvalue())
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["merge", *map(str, reports), "--format", "json"]) in (0, 1)
    return [(b["name"], b["status"]) for b in json.loads(out.getvalue())["blocks"]]


@pytest.fixture(scope="module")
def reading_projects(tmp_path_factory: pytest.TempPathFactory) -> Any:
    def fresh() -> Path:
        base = tmp_path_factory.mktemp("reads")
        package = base / "src" / "madedoc"
        package.mkdir(parents=True)
        (package / "__init__.py").write_text(MADE_DOC, "utf-8")
        (package / "doc.txt").write_text("One more.\n\n>>> step(1)\n2\n", "utf-8")
        conf = (
            'jaxcheck_cache = True\njaxcheck_workers = 1\njaxcheck_doctest_modules = ["madedoc"]\n'
            f'jaxcheck_env = {{"JAX_PLATFORMS": "cpu", "PYTHONPATH": {str(base / "src")!r}}}\n'
            'exclude_patterns += ["snip*"]\n'
        )
        pages = {
            "shows.md": PRINTS_STATE,
            "includes.rst": "Includes\n========\n\n.. include:: snip.txt\n",
            "markup.rst": "Markup\n======\n\nText.\n",
            "snip2.txt": SNIPPET,
        }
        return write_project(base / "docs", pages, conf=conf)

    return fresh


@settings(max_examples=4, deadline=None)
@given(st.lists(st.sampled_from(sorted(PROJECT_EDITS)), min_size=1, max_size=3))
def test_a_warm_check_and_merged_shards_agree_with_a_check_without_the_cache_after_any_edits(
    reading_projects: Any, edits: list[str]
) -> None:
    root = reading_projects()
    cold = ["-D", "jaxcheck_cache=0", "--build-dir", str(root.parent / "cold")]
    assert check(root) == check(root, *cold)
    for edit in edits:
        PROJECT_EDITS[edit](root)
        note(f"{edit}: {sorted(p.name for p in root.iterdir())}")
        without_cache = check(root, *cold)
        assert check(root) == without_cache
        assert merged_shards(root) == without_cache["blocks"]


# A third project: a notebook (read by MyST-NB) whose cell imports a helper module; an edit
# changes a cell's code, what the notebook stores for it, or the helper, and may put the old
# modification time back (the names are of one length, so only the content tells).
def notebook(code_name: str, stored_name: str) -> str:
    return notebook_text(
        nb_code("import helper"),
        nb_code(f'print("{code_name}", helper.NAME)', nb_stdout(f"{stored_name} red\n")),
    )


NOTEBOOK_EDITS: dict[str, Callable[[Path, str], None]] = {
    "the cell's code": lambda root, name: _rewrite_notebook(root, code=name),
    "the stored output": lambda root, name: _rewrite_notebook(root, stored=name),
    "the helper": lambda root, name: (root / "helper.py").write_text(module(name)),
    "the cell's code, keeping the time": lambda root, name: _keeping_time(
        root / "nb.ipynb", lambda: _rewrite_notebook(root, code=name)
    ),
}


def _rewrite_notebook(root: Path, code: str | None = None, stored: str | None = None) -> None:
    path = root / "nb.ipynb"
    node = json.loads(path.read_text())
    was_code = node["cells"][1]["source"][0].split('"')[1]
    was_stored = node["cells"][1]["outputs"][0]["text"][0].split()[0]
    path.write_text(notebook(code or was_code, stored or was_stored))


def _keeping_time(path: Path, edit: Callable[[], None]) -> None:
    before = path.stat()
    edit()
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


@pytest.fixture(scope="module")
def notebook_projects(tmp_path_factory: pytest.TempPathFactory) -> Any:
    def fresh() -> Path:
        base = tmp_path_factory.mktemp("notebooks")
        conf = (
            'jaxcheck_cache = True\nextensions = ["myst_nb", "sphinx_jaxcheck"]\n'
            'source_suffix = {".rst": "restructuredtext", ".ipynb": "myst-nb"}\n'
        )
        root = write_project(base / "docs", {}, conf=conf)
        (root / "index.rst").write_text("Index\n=====\n\n.. toctree::\n\n   nb\n")
        (root / "nb.ipynb").write_text(notebook("red", "red"))
        (root / "helper.py").write_text(module("red"))
        return root

    return fresh


@pytest.mark.skipif(
    importlib.util.find_spec("myst_nb") is None,
    reason="MyST-NB reads the notebook: pip install 'sphinx-jaxcheck[test]'",
)
@settings(max_examples=3, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(sorted(NOTEBOOK_EDITS)), st.sampled_from(NAMES)),
        min_size=1,
        max_size=3,
    )
)
def test_a_notebooks_warm_check_agrees_with_a_check_without_the_cache_after_any_edits(
    notebook_projects: Any, edits: list[tuple[str, str]]
) -> None:
    root = notebook_projects()
    cold = ["-D", "jaxcheck_cache=0", "--build-dir", str(root.parent / "cold")]
    assert check(root) == check(root, *cold)
    for edit, name in edits:
        NOTEBOOK_EDITS[edit](root, name)
        note(f"{edit} ({name})")
        assert check(root) == check(root, *cold)
