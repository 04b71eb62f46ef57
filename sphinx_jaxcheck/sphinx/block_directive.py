"""The ``jaxcheck`` directive: read a block, remember it for checking, render its code.

The block runs later, once every document has been read (see ``check``);
here it is only parsed and stored in the environment.
"""

from __future__ import annotations

import doctest
import os
from collections.abc import Callable
from typing import Any, ClassVar, cast

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.directives.code import container_wrapper
from sphinx.util.docutils import SphinxDirective

from ..expect.grammar import parse_body
from ..expect.options import bad_options, block_option_spec, block_options
from ..model import Block, BlockOptions, Subtype
from ..report.findings import Finding
from ..rewrite.digests import file_digest
from .compat import source_info, source_path
from .domain import domain_of
from .markup_lines import file_lines
from .nodes import jaxcheck_block
from .settings import settings_of

_DIGESTS = "jaxcheck_file_digests"  # temp_data: path -> digest, for the document being read


def setup_block_directive(app: Sphinx) -> None:
    """Register the ``jaxcheck`` directive."""
    app.add_directive("jaxcheck", JaxcheckDirective)


NOT_WRITTEN = (
    "its text is not written in the file where it is used (a MyST substitution made it): "
    "edit it where it is defined"
)


def _is_myst(directive: SphinxDirective) -> bool:
    try:
        from myst_parser.mocking import MockStateMachine
    except ImportError:  # pragma: no cover - myst-parser is a dependency
        return False
    return isinstance(directive.state_machine, MockStateMachine)


def _real_path(source: str | None, document: Callable[[], os.PathLike[str] | str]) -> str:
    """An absolute path for a docutils source name (``include`` may leave it relative);
    ``document`` gives the document's file, asked only when needed."""
    if source and os.path.isabs(source):
        return source
    if not source:
        return os.path.abspath(document())
    beside = os.path.join(os.path.dirname(os.path.abspath(document())), source)
    return beside if os.path.exists(beside) else os.path.abspath(source)


class JaxcheckDirective(SphinxDirective):
    """``.. jaxcheck::`` / ```{jaxcheck}``: a Python block whose comments state its output."""

    has_content = True
    required_arguments = 0
    optional_arguments = 0
    final_argument_whitespace = False
    option_spec: ClassVar[dict[str, Any]] = block_option_spec()

    def run(self) -> list[nodes.Node]:
        # The opening line in the file that holds it (MyST includes: see compat.source_info).
        self.line = source_info(self)[1] or self.lineno
        domain = domain_of(self.env)
        docname = self.env.docname
        path, body_line = self._body_location()
        problems = bad_options(self.options)
        if problems:
            for problem in problems:
                line = self._option_line(path, body_line, problem.option)
                domain.add_finding(
                    docname, Finding(Subtype.OPTION, problem.message(), path, line, docname)
                )
            # Not run, but still reported under its own name when that one is good.
            name = self.options.get("name")
            options = BlockOptions(name=name if isinstance(name, str) else None)
        else:
            options = block_options(self.options)
        index = len(domain.blocks(docname))
        content = self.content
        # Its lines: a StringList iterates by indexing, one slow lookup per line.
        body = tuple(content.data if isinstance(content, StringList) else content)
        settings = settings_of(self.config)
        filename = f"<{options.name}>" if options.name else f"<{docname}[{index + 1}]>"
        # In a block ``...`` always matches any text (the block's own rule).
        parsed = parse_body(body, doctest_flags=doctest.ELLIPSIS | settings.doctest_optionflags)
        error, error_line, error_subtype = parsed.error, parsed.error_line, Subtype.SYNTAX
        placed = self._written_at(path, body_line, body)
        if not placed:
            body_line = self._used_at(path)
        unclosed = self._unclosed_fence(path, body_line, body) if placed else None
        if unclosed:
            error, error_line = unclosed, self.line - body_line + 1
        elif problems:
            error, error_line, error_subtype = (
                "not run: fix the options above first",
                1,
                Subtype.OPTION,
            )
        block = Block(
            docname=docname,
            index=index,
            path=path,
            body_line=body_line,
            body=body,
            options=options,
            expectations=parsed.expectations,
            program=parsed.program(filename, options, settings.timeout),
            error=error,
            file_digest=self._file_digest(path),
            error_line=error_line,
            error_subtype=error_subtype,
            placed=placed,
            update_refusal="" if placed else NOT_WRITTEN,
        )
        domain.add_block(block)
        return self._render(block)

    def _file_digest(self, path: str) -> str:
        """The file's digest, taken once per document read: its blocks share it."""
        digests = cast("dict[str, str]", self.env.temp_data.setdefault(_DIGESTS, {}))
        if path not in digests:
            digests[path] = file_digest(path)
        return digests[path]

    def _written_at(self, path: str, body_line: int, body: tuple[str, ...]) -> bool:
        """Whether the body stands in the file from ``body_line`` on, line by line, after any
        prefix of its container (a list's indent, a quote's ``>``); not when markup made it: a
        MyST substitution's text is defined in ``conf.py`` or the front matter."""
        lines = file_lines(self.env, path)
        if lines is None or not _is_myst(self):
            return True  # reStructuredText: every content line knows its own file and line
        written = lines[body_line - 1 : body_line - 1 + len(body)]
        return len(written) == len(body) and all(
            line.rstrip().endswith(text.strip()) for line, text in zip(written, body, strict=True)
        )

    def _used_at(self, path: str) -> int:
        """The line of the substitution (``{{ name }}``) that made a block not written in the
        file: at or above the line MyST gives (which may be the line after it)."""
        lines = file_lines(self.env, path) or []
        for number in range(min(self.line, len(lines)), 0, -1):
            if "{{" in lines[number - 1]:
                return number
        return self.line

    def _unclosed_fence(self, path: str, body_line: int, body: tuple[str, ...]) -> str | None:
        """Why a MyST fence that runs to the end of the file is not run, or None.

        An unclosed fence swallows the rest of the document as code; running that
        prose would only produce a confusing syntax error somewhere below.
        """
        if not _is_myst(self):
            return None
        lines = file_lines(self.env, path)  # read once per document, not once per block
        if lines is None:
            return None
        if any(line.strip() for line in lines[body_line - 1 + len(body) :]):
            return None  # the closing fence (or more document) follows the body
        opening = lines[self.line - 1].strip() if 0 < self.line <= len(lines) else "```{jaxcheck}"
        fence = opening[: len(opening) - len(opening.lstrip("`~:"))] or "```"
        return (
            f"the fence {opening!r} opened at line {self.line} is never closed, so "
            f"everything after it, to the end of the file, became this block; expected a "
            f"closing {fence!r} line after the block's last line: add it"
        )

    def _option_line(self, path: str, body_line: int, option: str) -> int:
        """The line that sets ``option``: searched upwards from the body to the opening line
        (``:option:`` in reStructuredText and MyST, ``option:`` in MyST's YAML block)."""
        lines = file_lines(self.env, path) or []
        for number in range(min(body_line - 1, len(lines)), 0, -1):
            text = lines[number - 1].strip()
            if text.startswith((f":{option}:", f"{option}:")):
                return number
            if number <= self.line:
                break
        return self.line

    def _body_location(self) -> tuple[str, int]:
        """The real file and the 1-based line of the first body line."""
        source, _ = source_info(self)

        def document() -> os.PathLike[str] | str:
            return source_path(self.env, self.env.docname)

        if _is_myst(self):
            # MyST: content_offset counts from the line after the opening fence.
            return _real_path(source, document), self.line + 1 + self.content_offset
        if self.content:
            # reStructuredText: every content line knows its file and 0-based
            # offset, also inside an ``include``d file.
            item_source, offset = self.content.info(0)
            if item_source and offset is not None:
                return _real_path(item_source, document), offset + 1
        return _real_path(source, document), self.content_offset + 1

    def _render(self, block: Block) -> list[nodes.Node]:
        container = jaxcheck_block(
            docname=block.docname, index=block.index, hidden=block.options.hide
        )
        if block.options.hide:
            return [container]
        code = "\n".join(block.body)
        literal: nodes.Element = nodes.literal_block(code, code, language="python")
        literal["classes"] += ["jaxcheck-code", *self.options.get("class", "").split()]
        if "linenos" in self.options or "lineno-start" in self.options:
            literal["linenos"] = True
        highlight_args: dict[str, Any] = {}
        if "lineno-start" in self.options:
            highlight_args["linenostart"] = int(self.options["lineno-start"])
        if "emphasize-lines" in self.options:
            from sphinx.util import parselinenos

            try:
                lines = parselinenos(self.options["emphasize-lines"], len(block.body))
                highlight_args["hl_lines"] = [n + 1 for n in lines]
            except ValueError as err:
                return [self.state.document.reporter.warning(str(err), line=self.lineno)]
        if highlight_args:
            literal["highlight_args"] = highlight_args
        self.set_source_info(literal)
        if "caption" in self.options:
            literal = container_wrapper(self, literal, self.options["caption"])
        if block.options.name:
            self.options["name"] = block.options.name
            self.add_name(literal)
        container += literal
        return [container]
