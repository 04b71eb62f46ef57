"""The configuration values' cleaners (no builds)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from sphinx.config import Config

from sphinx_jaxcheck.config import (
    VALUES,
    closest_setting,
    doctest_files,
    doctests_like_default,
    notebooks_default,
    read_settings,
)
from sphinx_jaxcheck.errors import ConfigurationError
from sphinx_jaxcheck.sphinx.settings import _resolved


def test_every_value_rejects_a_value_of_the_wrong_type() -> None:
    """The cleaners themselves: no value accepts an object of an unrelated type."""
    for spec in VALUES:
        with pytest.raises(ConfigurationError, match=spec.name):
            read_settings(lambda name, bad=spec.name: object() if name == bad else None)


@pytest.mark.parametrize(
    ("typo", "meant"),
    [
        ("jaxcheck_jax_verison", "jaxcheck_jax_version"),
        ("jaxcheck_doctest", "jaxcheck_doctests"),
        ("jaxcheck_memory_limit", "jaxcheck_memory_limit_mb"),
        ("jaxcheck_everything_please", None),
    ],
)
def test_a_misspelled_setting_names_the_closest_real_one(typo: str, meant: str | None) -> None:
    assert closest_setting(typo) == meant


def test_doctests_like_names_one_of_two_tools_or_leaves_the_choice_to_extensions() -> None:
    for given in ("pytest", "sphinx.ext.doctest"):
        chosen = read_settings(
            lambda name, v=given: v if name == "jaxcheck_doctests_like" else None
        )
        assert chosen.doctests_like == given
    assert read_settings(lambda name: None).doctests_like is None
    with pytest.raises(ConfigurationError, match=r"'sphinx' is not one of pytest, sphinx\.ext"):
        read_settings(lambda name: "sphinx" if name == "jaxcheck_doctests_like" else None)
    assert doctests_like_default(["sphinx.ext.autodoc", "sphinx.ext.doctest"]) == (
        "sphinx.ext.doctest"
    )
    assert doctests_like_default(["sphinx.ext.autodoc", "sphinx_jaxcheck"]) == "pytest"


def test_notebooks_are_checked_by_default_only_where_myst_nb_renders_them() -> None:
    """nbsphinx runs no notebook in a project's own doctest: there they are only counted."""
    assert notebooks_default(["myst_nb", "sphinx_jaxcheck"]) == "check"
    assert notebooks_default(["nbsphinx", "sphinx_jaxcheck"]) == "report"
    assert notebooks_default(["myst_parser", "sphinx_jaxcheck"]) == "report"
    assert read_settings(lambda name: None).notebooks is None  # left to the extensions
    for extensions, resolved in ((["myst_nb"], "check"), (["nbsphinx"], "report")):
        config = Config({"extensions": extensions})
        assert _resolved(read_settings(lambda name: None), config).notebooks == resolved
    for given in ("check", "report", "off"):  # a value conf.py gives always wins
        chosen = read_settings(lambda name, v=given: v if name == "jaxcheck_notebooks" else None)
        for extensions in (["myst_nb"], ["nbsphinx"]):
            config = Config({"extensions": extensions})
            assert _resolved(chosen, config).notebooks == given
    with pytest.raises(ConfigurationError, match="'run' is not one of check, report, off"):
        read_settings(lambda name: "run" if name == "jaxcheck_notebooks" else None)


def _files_setting(value: object) -> tuple[str, ...]:
    return read_settings(
        lambda name: value if name == "jaxcheck_doctest_files" else None
    ).doctest_files


def test_doctest_files_are_paths_or_globs_from_conf_pys_folder(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    (docs / "examples").mkdir(parents=True)
    for name in ("README.md", "docs/examples/b.md", "docs/examples/a.md", "docs/examples/c.txt"):
        (tmp_path / name).write_text(">>> 1\n1\n", "utf-8")
    assert _files_setting("../README.md, examples/*.md") == ("../README.md", "examples/*.md")
    named = doctest_files(docs, ("../README.md", "examples/*.md", "examples/a.md"))
    # A glob's files in sorted order, each file once (the first naming keeps its place).
    assert [os.path.relpath(path, docs) for path in named] == [
        "../README.md",
        os.path.join("examples", "a.md"),
        os.path.join("examples", "b.md"),
    ]
    assert doctest_files(docs, ("**/*.txt",)) == [str(docs / "examples" / "c.txt")]


@pytest.mark.parametrize(
    ("entry", "what"),
    [("../READ_ME.md", "matches no file"), ("*.rst", "matches no file"), ("..", "is a folder")],
)
def test_a_doctest_files_entry_that_names_no_file_says_where_it_was_looked_for(
    tmp_path: Path, entry: str, what: str
) -> None:
    (tmp_path / "docs").mkdir()
    folder = re.escape(str(tmp_path / "docs"))
    with pytest.raises(
        ConfigurationError,
        match=rf"{re.escape(repr(entry))}, looked for in {folder} \(.*\), {what}",
    ):
        doctest_files(tmp_path / "docs", (entry,))


def test_notebook_cells_that_change_the_environment_are_skipped_unless_run_is_set() -> None:
    def given(value: object) -> str:
        chosen = read_settings(
            lambda name: value if name == "jaxcheck_notebooks_environment" else None
        )
        return chosen.notebooks_environment

    assert given(None) == "skip"
    assert given("run") == "run"
    with pytest.raises(ConfigurationError, match=r"= 'yes' is not one of skip, run"):
        given("yes")


def test_notebooks_number_is_a_flag_off_by_default() -> None:
    def given(value: object) -> bool:
        return read_settings(
            lambda name: value if name == "jaxcheck_notebooks_number" else None
        ).notebooks_number

    assert given(None) is False
    assert given(True) is True
    with pytest.raises(ConfigurationError, match="jaxcheck_notebooks_number"):
        given("maybe")


def test_notebooks_tolerance_is_a_number_greater_than_0_or_none() -> None:
    def given(value: object) -> float | None:
        return read_settings(
            lambda name: value if name == "jaxcheck_notebooks_tolerance" else None
        ).notebooks_tolerance

    assert given(None) is None
    assert [given(v) for v in (1e-6, 1, "1e-6", " 0.5 ", "")] == [1e-6, 1.0, 1e-6, 0.5, None]
    for bad, said in [
        (0, "= 0 is out of range: expected a number greater than 0, e.g. 1e-6"),
        (-1e-6, "= -1e-06 is out of range"),
        (float("nan"), "= nan is out of range"),
        (
            True,
            r"= True \(bool\) is not a number: expected e.g. jaxcheck_notebooks_tolerance = 1e-6",
        ),
        ("rel:1e-6", r"= 'rel:1e-6' \(str\) is not a number"),
    ]:
        with pytest.raises(ConfigurationError, match=rf"^jaxcheck_notebooks_tolerance {said}"):
            given(bad)


def test_notebook_images_is_ignore_compare_or_rms_with_a_tolerance() -> None:
    def given(value: object) -> str:
        chosen = read_settings(lambda name: value if name == "jaxcheck_notebook_images" else None)
        return chosen.notebook_images

    assert given(None) == "ignore"
    assert [given(v) for v in ("compare", "rms", "rms:0.5", " rms:3 ")] == [
        "compare",
        "rms",
        "rms:0.5",
        "rms:3",
    ]
    with pytest.raises(ConfigurationError, match=r'= 2 \(int\) is not one of .*: write "rms:2"'):
        given(2)
    for bad in ("rms:-1", "rms:nan", "pixels", True):
        with pytest.raises(ConfigurationError, match="rms:<tolerance> \\(a number, 0 or more\\)"):
            given(bad)


def test_notebooks_exclude_is_a_list_of_patterns() -> None:
    def given(value: object) -> tuple[str, ...]:
        chosen = read_settings(lambda name: value if name == "jaxcheck_notebooks_exclude" else None)
        return chosen.notebooks_exclude

    assert given(None) == given("") == ()
    assert given(["notebooks/layout.*", "pallas/*"]) == ("notebooks/layout.*", "pallas/*")
    assert given("slow/*, pallas/*") == ("slow/*", "pallas/*")  # as -D gives it
    for bad in (3, {"slow/*": True}):
        with pytest.raises(ConfigurationError, match=r"= .* is not a list of patterns"):
            given(bad)
    for bad_entry in (["slow/*", 3], [""]):
        with pytest.raises(ConfigurationError, match=r"the entry .* is not a pattern"):
            given(bad_entry)
