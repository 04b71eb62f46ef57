"""Documents that cannot be decoded fail alone, with a message, instead of crashing Sphinx.

Sphinx reads every source with ``source_encoding`` and stops the whole build
with a bare ``UnicodeDecodeError`` (naming no file) when one does not decode.
Before reading, we try each document ourselves; one that does not decode is
reported at its file and line as a ``jaxcheck.encoding`` error and left out of
this build, so the rest is still read, checked and reported.
"""

from __future__ import annotations

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment

from ..model import Subtype
from ..report.findings import Finding
from .compat import source_path
from .domain import FINDINGS, domain_of
from .stages import EnvBeforeReadDocs


def setup_source_files(app: Sphinx) -> None:
    """Check that documents decode before Sphinx reads them."""
    app.connect(
        "env-before-read-docs", _leave_out_undecodable, priority=EnvBeforeReadDocs.UNDECODABLE
    )


def decoding_problem(data: bytes, encoding: str) -> tuple[int, str] | None:
    """(line, message) when ``data`` is not text in ``encoding``; None when it is."""
    try:
        data.decode(encoding)
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        shown = data[error.start : error.end].hex(" ")
        name = (
            "UTF-8"
            if encoding.lower().replace("_", "-") in ("utf-8", "utf8", "utf-8-sig")
            else encoding
        )
        return line, (
            f"cannot read this file as {name}: found byte(s) {shown} at line {line}, column "
            f"{column}, which are not {name}; the document was left out of the build. "
            "Expected UTF-8 text: re-save the file as UTF-8 (e.g. `iconv -f latin1 -t utf-8`), "
            "or set `source_encoding` in conf.py to the file's encoding"
        )
    except LookupError as error:  # an unknown source_encoding is conf.py's problem
        return 1, f"cannot read this file: {error}; check `source_encoding` in conf.py"
    return None


def _leave_out_undecodable(app: Sphinx, env: BuildEnvironment, docnames: list[str]) -> None:
    domain = domain_of(env)
    encoding = env.settings.get("input_encoding") or app.config.source_encoding
    findings = domain.per_document(FINDINGS)
    for gone in [doc for doc in findings if doc not in env.found_docs and doc not in env.all_docs]:
        del findings[gone]  # a left-out document that has since been deleted
    for docname in list(docnames):
        path = source_path(env, docname)
        try:
            data = path.read_bytes()
        except OSError:
            continue  # Sphinx reports unreadable files itself
        problem = decoding_problem(data, encoding)
        if problem is None:
            continue
        line, message = problem
        docnames.remove(docname)
        env.clear_doc(docname)
        env.all_docs.pop(docname, None)
        # Not a document of this build: the next build finds it again and re-checks it.
        env.project.docnames.discard(docname)
        domain.add_finding(docname, Finding(Subtype.ENCODING, message, str(path), line, docname))
