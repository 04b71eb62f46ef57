"""The pages of an MkDocs project (mkdocs/project.py): docs_dir, nav, the pages MkDocs finds
without a nav, and mkdocs.yml files that cannot be used."""

from __future__ import annotations

from pathlib import Path

import pytest

from sphinx_jaxcheck.errors import ConfigurationError
from sphinx_jaxcheck.mkdocs.project import config_file, read_project, unchecked_entries


def project(tmp_path: Path, config: str, pages: tuple[str, ...], docs: str = "docs") -> Path:
    (tmp_path / "mkdocs.yml").write_text(config, "utf-8")
    for page in pages:
        (tmp_path / docs / page).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / docs / page).write_text("# Page\n", "utf-8")
    return tmp_path / "mkdocs.yml"


def test_without_a_nav_every_page_of_docs_dir_but_hidden_ones(tmp_path: Path) -> None:
    config = project(
        tmp_path,
        "site_name: X\n",
        ("index.md", "api/b.md", "nb.ipynb", ".snippet.md", ".ipynb_checkpoints/nb.ipynb", "x.css"),
    )
    found = read_project(config)
    assert [page.docname for page in found.pages] == ["api/b", "index", "nb"]
    assert found.docs_dir == (tmp_path / "docs").resolve()


def test_the_nav_names_the_pages_in_its_order(tmp_path: Path) -> None:
    config = project(
        tmp_path,
        "site_name: X\ndocs_dir: site\nnav:\n  - b.md\n  - Section:\n    - Title: a.md\n"
        "    - gone.md\n  - https://example.org\n",
        ("a.md", "b.md", "c.md"),
        docs="site",
    )
    found = read_project(config)
    assert [page.docname for page in found.pages] == ["b", "a"]
    assert found.not_found == ("gone.md",)
    (line,) = unchecked_entries(found)
    assert "nav names 'gone.md', which is no file in" in line


def test_tags_of_plugins_are_read_as_plain_values(tmp_path: Path) -> None:
    config = project(
        tmp_path,
        "site_name: !ENV [SITE, X]\nmarkdown_extensions:\n  - pymdownx.emoji:\n"
        "      emoji_index: !!python/name:material.extensions.emoji.twemoji\n",
        ("index.md",),
    )
    assert [page.docname for page in read_project(config).pages] == ["index"]


def test_a_missing_docs_dir_names_the_line_that_sets_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the file named as from where the command runs
    config = project(tmp_path, "site_name: X\ndocs_dir: pages\n", ())
    with pytest.raises(ConfigurationError) as raised:
        read_project(config)
    message = str(raised.value)
    assert message.startswith(
        "configuration error: mkdocs.yml:2: docs_dir is 'pages', but pages is no folder"
    )
    assert message.endswith(
        "is no folder; create it, or set docs_dir to the folder that holds the pages"
    )


def test_an_unreadable_mkdocs_yml_names_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    config = project(tmp_path, "site_name: X\nnav:\n  - a.md\n - b.md\n", ())
    with pytest.raises(ConfigurationError) as raised:
        read_project(config)
    assert str(raised.value).startswith(
        "configuration error: mkdocs.yml:4: not YAML that can be read ("
    )


def test_a_folder_names_its_mkdocs_yml(tmp_path: Path) -> None:
    assert config_file(tmp_path) is None
    config = project(tmp_path, "site_name: X\n", ())
    assert config_file(tmp_path) == config
    assert config_file(config) == config


@pytest.mark.parametrize(
    ("plugins", "expected"),
    [
        ("plugins:\n  - search\n", []),  # no mkdocstrings: nothing added
        ("plugins:\n  - mkdocstrings\n", ["."]),  # its default: the folder of mkdocs.yml
        (
            "plugins:\n  - mkdocstrings:\n      handlers:\n        python:\n"
            "          paths: [src, ../lib]\n",
            ["src", "../lib"],
        ),
    ],
)
def test_the_workers_import_from_mkdocstrings_paths(
    tmp_path: Path, plugins: str, expected: list[str]
) -> None:
    found = read_project(project(tmp_path, "site_name: X\n" + plugins, ("index.md",)))
    assert found.python_path == tuple((tmp_path / path).resolve() for path in expected)
    assert found.mkdocstrings is ("mkdocstrings" in plugins)
