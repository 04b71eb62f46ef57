"""The names of what Sphinx keeps in a build folder, which the command reads before it loads
Sphinx, are Sphinx's own."""

from __future__ import annotations

from sphinx.application import ENV_PICKLE_FILENAME

from sphinx_jaxcheck.sphinx.build_folder import ENV_PICKLE


def test_the_environment_file_is_named_as_sphinx_names_it() -> None:
    assert ENV_PICKLE == ENV_PICKLE_FILENAME
