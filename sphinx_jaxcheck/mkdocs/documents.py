"""An MkDocs project's pages read into blocks: a Markdown page's Python fences and ``>>>``
examples (:mod:`..expect.markdown_pages`), a notebook's code cells with their stored outputs
(:mod:`..expect.notebooks`); a page that cannot be read is a finding of its own. A page's
mkdocstrings lines (``::: name``) are noted, for their docstrings to be collected
(:mod:`.docstrings`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..config import Settings
from ..errors import NotebookError
from ..expect.markdown_pages import page_blocks
from ..expect.mkdocstrings import Shown, shown_objects
from ..expect.notebooks import excluding_pattern, notebook_blocks, read_notebook
from ..model import Block, Subtype
from ..report.findings import Finding
from ..rewrite.digests import digest
from .project import MkDocsProject, Page


@dataclass(frozen=True)
class Documents:
    """The blocks of each page (by docname, in page order), and the problems of pages that
    could not be read."""

    blocks: dict[str, list[Block]] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)
    paths: dict[str, str] = field(default_factory=dict)  # docname -> the page's file
    shown: dict[str, list[Shown]] = field(default_factory=dict)  # docname -> its ``:::`` lines


def read_documents(
    project: MkDocsProject, settings: Settings, texts: Mapping[str, bytes] | None = None
) -> Documents:
    """Every page's blocks; ``texts`` gives some files' bytes (by real path) to read instead
    of what they hold (``jaxcheck update``'s reading of the new texts)."""
    read = Documents()
    for page in project.pages:
        real = str(page.path.resolve())
        read.paths[page.docname] = str(page.path)
        try:
            data = texts[real] if texts and real in texts else page.path.read_bytes()
        except OSError as error:
            read.findings.append(_unreadable(page, f"cannot be read ({error.strerror})"))
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            why = f"is not UTF-8 ({error.reason} at byte {error.start}); save it as UTF-8"
            read.findings.append(_unreadable(page, why, Subtype.ENCODING))
            continue
        if page.path.suffix == ".ipynb":
            blocks = _notebook(page, text, digest(data), settings, read)
        else:
            blocks = page_blocks(
                text,
                docname=page.docname,
                path=str(page.path),
                flags=settings.doctest_optionflags,
                timeout=settings.timeout,
                digest=digest(data),
            )
            # Without the mkdocstrings plugin, MkDocs shows a ``:::`` line as it is.
            shown = shown_objects(text.splitlines()) if project.mkdocstrings else []
            if shown:
                read.shown[page.docname] = shown
        if blocks:
            read.blocks[page.docname] = blocks
    return read


def _notebook(page: Page, text: str, sha: str, settings: Settings, read: Documents) -> list[Block]:
    """A notebook's code cells, judged with its stored outputs; none when it is not Python."""
    try:
        notebook = read_notebook(text)
    except NotebookError as error:
        why = (
            f"{error}; its cells are not checked (open it in Jupyter and save it, or fix the JSON)"
        )
        read.findings.append(Finding(Subtype.SYNTAX, why, str(page.path), 1, page.docname))
        return []
    if notebook.language.lower() != "python":
        return []  # a kernel of another language: nothing of ours can run it
    pattern = excluding_pattern([str(page.path)], settings.notebooks_exclude)
    return notebook_blocks(
        page.docname,
        str(page.path),
        notebook,
        not_run=f"excluded from execution by jaxcheck_notebooks_exclude {pattern!r}"
        if pattern is not None
        else "",
        timeout=settings.timeout,
        normalizers=settings.notebook_normalizers,
        digest=sha,
        environment=settings.notebooks_environment,
        floats_as_written=settings.notebooks_number,
        tolerance=settings.notebooks_tolerance,
        images=settings.notebook_images,
    )


def _unreadable(page: Page, why: str, subtype: Subtype = Subtype.SYNTAX) -> Finding:
    return Finding(subtype, f"page {page.docname!r} {why}", str(page.path), 1, page.docname)


def page_folder(path: str) -> str:
    """The folder a page's blocks run in (as a Sphinx page's run in its own)."""
    return str(Path(path).parent)
