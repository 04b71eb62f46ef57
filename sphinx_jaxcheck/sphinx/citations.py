"""The ``jaxsrc`` and ``jaxquote`` roles and the ``jaxcheck-quote`` directive.

Each checks its citation with :func:`sphinx_jaxcheck.cite.citation.check_citation`,
keeps it in the environment (so incremental and ``-j`` builds still know it),
records a finding when it does not hold, and renders a link to the pinned lines.
"""

from __future__ import annotations

import os
import textwrap
from typing import TYPE_CHECKING, Any, ClassVar

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util.docutils import SphinxDirective, SphinxRole

from ..model import Subtype
from ..report.findings import Finding
from .compat import source_info, source_path
from .domain import CITATIONS, domain_of
from .environment_records import CitedAt
from .markup_lines import own_line
from .pin import pin_of, source_index_of

if TYPE_CHECKING:
    from ..cite.citation import Citation

# ..cite.citation is imported where a citation is checked: pages without one never need it.


def setup_citations(app: Sphinx) -> None:
    """Register the roles and the directive."""
    app.add_role("jaxsrc", JaxSourceRole())
    app.add_role("jaxquote", JaxQuoteRole())
    app.add_directive("jaxcheck-quote", JaxcheckQuoteDirective)


def check_and_record(
    env: BuildEnvironment, target: str, path: str | None, line: int | None, quote: str | None = None
) -> Citation:
    """Check a citation written at ``path:line`` of the current document and remember it.

    A citation that does not hold becomes a finding (subtype ``citation``); a
    quote that is no longer in the source is drift. Cards and other features
    call this too.
    """
    from ..cite.citation import check_citation

    docname = env.docname
    where = path or str(source_path(env, docname))
    citation = check_citation(target, pin_of(env.config), quote, source_index_of(env.config))
    domain = domain_of(env)
    domain.per_document(CITATIONS).setdefault(docname, []).append(
        CitedAt(citation, docname, where, line or 0)
    )
    if citation.problem:
        if citation.is_drift:
            message = citation.problem  # already names the target and shows the diff
        else:
            message = f"citation {target!r} does not resolve: {citation.problem}"
        domain.add_finding(
            docname,
            Finding(
                Subtype.CITATION, message, os.fspath(where), line or 0, docname, citation.is_drift
            ),
        )
    return citation


def link_title(citation: Citation) -> str:
    """The tooltip of a link: what it points to, and at which JAX."""
    location = citation.location
    if location is None or citation.start is None:
        return location.path if location else citation.target
    if citation.start == citation.end:
        return f"{location.path}, line {citation.start}"
    return f"{location.path}, lines {citation.start}-{citation.end}"


def citation_link(citation: Citation, *children: nodes.Node, classes: list[str]) -> nodes.Element:
    """A link to the cited lines; plain inline text (class ``jaxcheck-broken``) when it names
    nothing."""
    if citation.url is None:
        return nodes.inline("", "", *children, classes=[*classes, "jaxcheck-broken"])
    return nodes.reference(
        "", "", *children, refuri=citation.url, reftitle=link_title(citation), classes=classes
    )


class JaxSourceRole(SphinxRole):
    """``:jaxsrc:`loops.py::_check_carry_type``` or ``:jaxsrc:`the check <target>```."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        from ..cite.citation import split_title

        title, target = split_title(self.text)
        path, line = source_info(self)
        line = own_line(self.env, path, line, self.rawtext)
        citation = check_and_record(self.env, target, path, line)
        shown: nodes.Node = nodes.Text(title) if title else nodes.literal(target, target)
        return [citation_link(citation, shown, classes=["jaxcheck-src"])], []


class JaxQuoteRole(SphinxRole):
    """``:jaxquote:`quoted text <target>```: the quote must occur in the target."""

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        from ..cite.citation import Citation, split_title

        quote, target = split_title(self.text)
        path, line = source_info(self)
        line = own_line(self.env, path, line, self.rawtext)
        if quote is None:
            # No ``<target>``: nothing to check against; say how to write it.
            citation = Citation(
                target,
                quote=target,
                problem="expected `quoted text <path::symbol>`, found no <target>",
            )
            quote = target
            record_problem(self.env, citation, path, line)
        else:
            citation = check_and_record(self.env, target, path, line, quote)
        text = nodes.inline(quote, quote, classes=["jaxcheck-quote-text"])
        return [citation_link(citation, text, classes=["jaxcheck-quote"])], []


def record_problem(
    env: BuildEnvironment, citation: Citation, path: str | None, line: int | None
) -> None:
    """Record a malformed citation (one that could not even be checked) as a finding."""
    domain = domain_of(env)
    where = os.fspath(path or source_path(env, env.docname))
    message = f"citation {citation.target!r}: {citation.problem}"
    domain.add_finding(
        env.docname, Finding(Subtype.CITATION, message, where, line or 0, env.docname)
    )


def lexes_as_python(code: str) -> bool:
    """Whether Pygments reads ``code`` as Python without errors (a docstring line may not)."""
    from pygments.lexers import PythonLexer  # type: ignore[import-untyped, unused-ignore]
    from pygments.token import Error  # type: ignore[import-untyped, unused-ignore]

    return not any(kind in Error for kind, _ in PythonLexer().get_tokens(code))


class JaxcheckQuoteDirective(SphinxDirective):
    """``.. jaxcheck-quote:: path`` with ``:symbol:`` and the quoted text as content.

    Renders the quoted source lines as a code block captioned with a link to
    them at the pinned commit.
    """

    has_content = True
    required_arguments = 1
    optional_arguments = 0
    final_argument_whitespace = False
    option_spec: ClassVar[dict[str, Any]] = {
        "symbol": directives.unchanged_required,
        "class": directives.class_option,
    }

    def run(self) -> list[nodes.Node]:
        from ..cite.citation import source_lines

        target = self.arguments[0]
        if "symbol" in self.options:
            target = f"{target}::{self.options['symbol'].strip()}"
        quote = "\n".join(self.content)
        path, line = source_info(self)
        citation = check_and_record(self.env, target, path, line, quote)
        if citation.location is not None and citation.start is not None and citation.ok:
            assert citation.end is not None
            index = source_index_of(self.env.config)
            code = textwrap.dedent(
                source_lines(citation.location, citation.start, citation.end, index)
            )
            language = "python" if lexes_as_python(code) else "text"
        else:
            code, language = quote, "text"  # unverified: show what was claimed
        block = nodes.literal_block(code, code, language=language)
        block["classes"] += ["jaxcheck-quote-code"]
        self.set_source_info(block)
        caption_text = link_title(citation)
        caption = nodes.caption(
            "",
            "",
            citation_link(citation, nodes.Text(caption_text), classes=["jaxcheck-quote-link"]),
        )
        self.set_source_info(caption)
        wrapper = nodes.container(
            "",
            caption,
            block,
            literal_block=True,
            classes=[
                "literal-block-wrapper",
                "jaxcheck-quote-block",
                *self.options.get("class", []),
            ],
        )
        self.set_source_info(wrapper)
        return [wrapper]
