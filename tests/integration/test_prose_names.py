"""`jax.` names written as inline code in prose are checked against the pinned source.

Real Sphinx builds of the same page in reStructuredText and MyST; the oracle
for whether a name exists is Python itself (import the module, then getattr).
"""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from buildkit import Build, build, copy_root

from sphinx_jaxcheck.cite.citation import installed_index
from sphinx_jaxcheck.cite.names import check_name

PAGES = {"names_rst.rst": (6, 16), "names_md.md": (5, 15)}  # (missing name, stale quote) lines
# What the names root adds: names in prose are checked, and drift is reported as a warning.
NAMES_CONF = 'jaxcheck_check_names = True\njaxcheck_on_drift = "warning"\n'


@pytest.fixture(scope="module")
def names_build(tmp_path_factory: pytest.TempPathFactory) -> Build:
    return build(copy_root("names", tmp_path_factory.mktemp("names"), NAMES_CONF))


@pytest.mark.parametrize("page", sorted(PAGES))
def test_only_the_missing_name_is_reported_at_its_own_line(names_build: Build, page: str) -> None:
    named = [r for r in names_build.reported if r.file == page and r.subtype == "name"]
    assert [(r.line, r.message.split("`")[1]) for r in named] == [
        (PAGES[page][0], "jax.numpy.no_such_function")
    ]
    assert "closest: jax.numpy.fromfunction" in named[0].message
    role = ":jaxremoved:" if page.endswith(".rst") else "{jaxremoved}"
    assert f"({role}`jax.numpy.no_such_function`)" in named[0].message


@pytest.mark.parametrize("page", sorted(PAGES))
def test_a_stale_quote_on_a_paragraphs_third_line_is_reported_at_that_line(
    names_build: Build, page: str
) -> None:
    quoted = [r for r in names_build.reported if r.file == page and r.subtype == "citation"]
    assert [r.line for r in quoted] == [PAGES[page][1]]
    assert "carry output must be identical" in quoted[0].message


def test_a_removed_name_renders_as_code_and_the_summary_counts_names(names_build: Build) -> None:
    html = (names_build.app.outdir / "names_md.html").read_text()
    assert '<code class="jaxcheck-removed docutils literal notranslate">' in html
    assert "2 unknown name(s)" in names_build.log
    assert names_build.status == 0  # jaxcheck_on_drift = "warning"


def test_names_follow_on_drift_and_are_off_by_default(tmp_path: Path) -> None:
    srcdir = copy_root("names", tmp_path, NAMES_CONF)
    failing = build(srcdir, fresh=True, jaxcheck_on_drift="error")
    assert failing.status == 1 and failing.subtypes().count("name") == 2
    ignored = build(srcdir, fresh=True, jaxcheck_on_drift="ignore")
    assert "name" not in ignored.subtypes()
    off = build(srcdir, fresh=True, jaxcheck_check_names=False)
    assert off.subtypes() == ["citation", "citation"]  # the stale quotes only


def test_marking_a_name_that_exists_as_removed_is_reported(tmp_path: Path) -> None:
    srcdir = copy_root("names", tmp_path, NAMES_CONF)
    page = srcdir / "names_rst.rst"
    page.write_text(
        page.read_text() + "\nOnce upon a time\nthere was :jaxremoved:`jax.lax.scan`.\n"
    )
    named = [r for r in build(srcdir).reported if r.subtype == "name" and r.file == "names_rst.rst"]
    assert sorted(r.line for r in named) == [6, 19]
    marked = next(r for r in named if r.line == 19)
    assert "`jax.lax.scan` is marked as removed, but jax 0.10.2 has it" in marked.message


def _exists_in_python(name: str) -> bool:
    """Import the longest module prefix, then getattr the rest: what Python says."""
    parts = name.split(".")
    for split in range(len(parts), 0, -1):
        try:
            value: object = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for part in parts[split:]:
            if not hasattr(value, part):
                return False
            value = getattr(value, part)
        return True
    return False


NAMES = [
    "jax.lax.scan",
    "jax.jit",
    "jax.numpy.where",
    "jax.debug.print",
    "jax.debug.check",
    "jax.numpy.no_such_function",
    "jax.nunpy.sum",
    "jax.config.update",
    "jax.config.updat",
    "jax.Array.at",
    "jax.numpy.ndarray.at",
    "jax.tree.map",
    "jax.tree_util.tree_map",
    "jax.experimental.checkify.check",
    "jax.errors.ConcretizationTypeError",
    "jax.lax.while_loop",
    "jax.lax.fori_loop",
    "jax.eval_shape",
    "jax.disable_jit",
    "jax.stages.Lowered.as_text",
    "jax.random.key",
    "jax.lax.scann",
    "jax.numpy.linalg.norm",
    "jax.jacfwd",
    "jax.lax.select_n",
    "jax.lax.cond_p",
]


@pytest.mark.parametrize("name", NAMES)
def test_a_name_exists_statically_exactly_when_python_finds_it(name: str) -> None:
    assert check_name(installed_index(), name).exists == _exists_in_python(name)


def test_a_missing_name_comes_with_the_closest_existing_ones() -> None:
    index = installed_index()
    assert check_name(index, "jax.lax.scann").closest[0] == "jax.lax.scan"
    assert check_name(index, "jax.nunpy.sum").closest == ("jax.numpy",)
    assert check_name(index, "jax.config.updat").closest == ("jax.config.update",)
    assert all(_exists_in_python(c) for c in check_name(index, "jax.numpy.wher").closest)
