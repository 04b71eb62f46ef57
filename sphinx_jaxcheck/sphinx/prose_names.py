"""``jaxcheck_check_names``: every ``jax.`` name written as inline code in prose must exist.

After a document is read, each inline literal (````jax.lax.scan````,
``{func}`jax.jit```) that is a dotted ``jax.`` name is resolved in the pinned
source, like a citation. One that does not exist is a ``jaxcheck.name``
finding at its own line, treated as drift (``jaxcheck_on_drift`` decides).
The ``jaxremoved`` role marks a deliberate mention of a name the pinned JAX
lacks (a removed or renamed API); it is checked the other way round.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.environment import BuildEnvironment
from sphinx.util.docutils import SphinxRole

from ..model import Subtype
from ..report.findings import Finding
from .compat import source_info, source_path
from .domain import domain_of
from .markup_lines import own_line
from .pin import pin_of, source_index_of
from .settings import settings_of, stop
from .stages import ConfigInited, DoctreeRead

if TYPE_CHECKING:
    from ..cite.jax_source import SourceIndex

# ..cite.names is imported where a name is checked: with the check off, never.

# Inline code inside these is not a claim of its own: citations check theirs.
_NOT_PROSE = (
    nodes.literal_block,
    nodes.raw,
    nodes.comment,
    nodes.system_message,
    nodes.doctest_block,
)
_CHECKED_ELSEWHERE = {"jaxcheck-src", "jaxcheck-quote", "jaxcheck-removed"}
REMOVED_CLASS = "jaxcheck-removed"


def setup_prose_names(app: Sphinx) -> None:
    """Register the check (after reading each document) and the ``jaxremoved`` role."""
    app.add_role("jaxremoved", JaxRemovedRole())
    app.connect("config-inited", _needs_jax, priority=ConfigInited.PROSE_NAMES)
    app.connect("doctree-read", _check_document, priority=DoctreeRead.PROSE_NAMES)


def _needs_jax(app: Sphinx, config: Config) -> None:
    if settings_of(config).check_names:
        _index(config)


def _index(config: Config) -> SourceIndex:
    """The source citations are checked against: the workers' jax."""
    index = source_index_of(config)
    if index is None:
        stop(
            "jaxcheck_check_names = True, but the interpreter that runs the blocks has no "
            "jax installed, so names cannot be checked: install jax there, or set "
            "jaxcheck_check_names = False"
        )
    return index


def _check_document(app: Sphinx, doctree: nodes.document) -> None:
    if not settings_of(app.config).check_names:
        return
    from ..cite.names import check_name

    for literal in list(doctree.findall(nodes.literal)):
        name = _name_of(literal)
        if name is None or not _is_prose(literal):
            continue
        path, line = _written_at(app.env, literal)
        result = check_name(_index(app.config), name)
        if not result.exists:
            _record(app.env, path, line, _missing(name, result.closest, app.config, path))


def _name_of(literal: nodes.literal) -> str | None:
    """The ``jax.`` name of a literal: its text, or the target of a Python cross-reference."""
    from ..cite.names import dotted_name

    parent = literal.parent
    if isinstance(parent, addnodes.pending_xref) and parent.get("refdomain") == "py":
        return dotted_name(parent.get("reftarget", ""))
    return dotted_name(literal.astext())


def _is_prose(literal: nodes.literal) -> bool:
    node: nodes.Node | None = literal
    while node is not None:
        if isinstance(node, _NOT_PROSE):
            return False
        if isinstance(node, nodes.Element) and _CHECKED_ELSEWHERE & set(node.get("classes", [])):
            return False
        node = node.parent
    return True


def _written_at(env: BuildEnvironment, node: nodes.Node) -> tuple[str, int]:
    """The file and own line of inline markup (its paragraph's line, refined in the file)."""
    holder: nodes.Node | None = node
    while holder is not None and holder.line is None:
        holder = holder.parent
    path = (holder.source if holder is not None else None) or str(source_path(env, env.docname))
    first = holder.line if holder is not None else 0
    raw = (
        node.parent.rawsource if isinstance(node.parent, addnodes.pending_xref) else node.rawsource
    )
    return os.fspath(path), own_line(env, path, first, raw or node.astext())


def _missing(name: str, closest: tuple[str, ...], config: Config, path: str) -> str:
    version = pin_of(config).version or "installed"
    hint = f"; closest: {', '.join(closest)}" if closest else ""
    role = ":jaxremoved:" if path.endswith(".rst") else "{jaxremoved}"
    return (
        f"`{name}` does not exist in jax {version}{hint}. Expected a name the pinned "
        f"source defines or re-exports: fix it, or, if the text means an API this JAX "
        f"lacks on purpose, write it with the jaxremoved role ({role}`{name}`)"
    )


def _record(env: BuildEnvironment, path: str, line: int, message: str) -> None:
    domain = domain_of(env)
    finding = Finding(Subtype.NAME, message, path, line, env.docname, is_drift=True)
    domain.add_finding(env.docname, finding)


class JaxRemovedRole(SphinxRole):
    """``{jaxremoved}`jax.old_name```: a deliberate mention of a name the pinned JAX lacks.

    Renders as inline code. With ``jaxcheck_check_names`` on, a name that does
    exist at the pin is reported: the mark would then be false.
    """

    def run(self) -> tuple[list[nodes.Node], list[nodes.system_message]]:
        from ..cite.names import check_name, dotted_name

        text = self.text.strip()
        literal = nodes.literal(self.rawtext, text, classes=[REMOVED_CLASS])
        name = dotted_name(text)
        if settings_of(self.config).check_names and name is not None:
            found = check_name(_index(self.config), name)
            if found.exists and found.location is not None:
                path, line = source_info(self)
                line = own_line(self.env, path, line, self.rawtext)
                where = os.fspath(path or source_path(self.env, self.env.docname))
                version = pin_of(self.config).version or "installed"
                _record(
                    self.env,
                    where,
                    line,
                    f"`{name}` is marked as removed, but jax {version} has it "
                    f"({found.location.label}): write it as plain inline code",
                )
        return [literal], []
