"""``jaxcheck_doctest_files``: text files beside the project (a README) whose ``>>>`` examples
are checked as ``pytest --doctest-glob`` checks them.

No reader reads such a file: it has no doctree and is no page. On
``env-updated`` its whole text is searched by stdlib doctest's parser, as a
page's is (:func:`...expect.page_examples.file_blocks`), and its examples
become a session of its own that :mod:`.doctest_modules` puts among the root
document's blocks, after the page's own: so they are checked, cached, reported
at the file's lines and rewritten in place by update with the rest. The text is
read in every build; an edit changes the root document's blocks, which are
then checked again. Under ``jaxcheck_doctests = "report"`` the examples are
counted, as the pages' are, and not run.
"""

from __future__ import annotations

import os

from sphinx.application import Sphinx

from ...config import doctest_files
from ...errors import ConfigurationError
from ...expect.page_examples import file_blocks
from ...judge.example_verdicts import example_verdicts
from ...model import Block, Subtype
from ...report.findings import Finding
from ...rewrite.digests import digest
from ..compat import source_path
from ..domain import domain_of
from ..settings import settings_of, stop


def named_files(app: Sphinx) -> list[str]:
    """The files ``jaxcheck_doctest_files`` names (checked when the configuration was read)."""
    try:
        return doctest_files(app.confdir, settings_of(app.config).doctest_files)
    except ConfigurationError as problem:  # a file removed while the build ran
        stop(f"configuration error: {problem} (in {os.path.join(app.confdir, 'conf.py')})")


def blocks_of_files(app: Sphinx, root: str) -> tuple[list[Block], list[Finding]]:
    """The blocks of every named file, as blocks of ``root``, and the files that cannot be
    read; none under ``jaxcheck_doctests = "report"``, which counts their examples instead."""
    settings = settings_of(app.config)
    if settings.doctests == "off" or not settings.doctest_files:
        return [], []
    paths = named_files(app)
    pages = {os.path.realpath(source_path(app.env, doc)): doc for doc in app.env.found_docs}
    blocks: list[Block] = []
    findings: list[Finding] = []
    for path in paths:
        name = shown_name(app, path)
        page = pages.get(os.path.realpath(path))
        if page is not None:
            stop(
                f"configuration error: jaxcheck_doctest_files names {name}, which is the page "
                f"{page!r} of this project, whose examples are checked there already: take it "
                f"out of jaxcheck_doctest_files (in {os.path.join(app.confdir, 'conf.py')})"
            )
        found = read_file_blocks(path, name, root, app)
        if isinstance(found, Finding):
            findings.append(found)
        else:
            blocks += found
    if settings.doctests == "report":  # the examples checking would run, counted
        domain_of(app.env).build.unchecked_file_examples = sum(
            len(example_verdicts(b, None)) for b in blocks
        )
        return [], findings
    return blocks, findings


def shown_name(app: Sphinx, path: str) -> str:
    """How reports and sessions name a file beside the project: from the folder of conf.py."""
    return os.path.relpath(path, app.confdir).replace(os.sep, "/")


def read_file_blocks(
    path: str, name: str, root: str, app: Sphinx, data: bytes | None = None
) -> list[Block] | Finding:
    """The blocks of one named file (of ``data``, when given, in place of its bytes), or why
    it cannot be read."""
    settings = settings_of(app.config)
    try:
        if data is None:
            with open(path, "rb") as handle:
                data = handle.read()
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        return Finding(
            Subtype.ENCODING,
            f"{name} (jaxcheck_doctest_files) is not UTF-8 ({error}), so its `>>>` examples are "
            "not checked: save it as UTF-8 text",
            path,
            1,
            root,
        )
    except OSError as error:
        return Finding(
            Subtype.ERROR,
            f"{name} (jaxcheck_doctest_files) cannot be read ({error.strerror or error}), so its "
            "`>>>` examples are not checked: make it readable",
            path,
            1,
            root,
        )
    return file_blocks(
        text,
        docname=root,
        path=path,
        name=name,
        flags=settings.doctest_optionflags,
        timeout=settings.timeout,
        digest=digest(data),
    )
