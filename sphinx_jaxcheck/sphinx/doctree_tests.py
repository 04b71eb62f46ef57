"""A page's tests as ``sphinx-build -b doctest`` finds them: in the doctree, by node.

Its builder tests every ``literal_block`` or ``comment`` node that carries
``testnodetype`` (made by its own directives or by any other extension's,
such as Flax's ``codediff``), and every ``doctest_block`` (a bare ``>>>``
paragraph, in a page or a docstring autodoc brought in) unless
``doctest_test_doctest_blocks`` is empty; ``::`` literal blocks and code
blocks are shown, not tested. Each test is read from its node's own text, then
found in the file that holds it (the page, an included file, the docstring's
Python file; see :mod:`..expect.node_lines`), so what runs is what the builder
runs and a finding points at the line written. A test whose text is written
nowhere still runs, reported at the page line that shows it.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass, field

from docutils import nodes
from sphinx.application import Sphinx

from ..expect.docstrings import Docstring
from ..expect.doctest_directives import TestItem
from ..expect.node_lines import locate, node_lines
from ..model import Subtype
from ..report.findings import Finding
from ..rewrite.digests import file_digest
from .compat import first_line

DOCSTRING_OF = ":docstring of "
# Why examples a docstring node shows have no Python file line: autodoc showed them, but the
# object's own ``__doc__`` (what pytest reads, and what is placed) does not hold them.
NOT_IN_DOC = (
    "the text shown is not the documented object's own __doc__ (autodoc took it from an "
    "__init__, a base class, a #: comment or another extension)"
)


@dataclass
class Found:
    """The tests of one page, with their nodes, and the nodes whose tests will not run."""

    tests: list[tuple[TestItem, nodes.Element]] = field(default_factory=list)
    not_run: list[tuple[nodes.Element, str]] = field(default_factory=list)  # node, why
    held: list[TestItem] = field(default_factory=list)  # the tests of those nodes, not run
    findings: list[Finding] = field(default_factory=list)


def is_test_node(node: nodes.Node) -> bool:
    """A node sphinx.ext.doctest tests whatever its other settings: one with ``testnodetype``."""
    return isinstance(node, (nodes.literal_block, nodes.comment)) and "testnodetype" in node


def source_of(node: nodes.Node) -> str:
    """The source a node was read from (nested nodes often leave it to their parents).

    An indented ``>>>`` paragraph of a docstring sits in a ``block_quote`` that
    docutils gives no source, nor does autodoc's content node above it: the
    nearest earlier node of the same level that names a docstring is where it
    was read from, rather than the page the docstring is shown in.
    """
    current: nodes.Node | None = node
    while current is not None:
        if current.source:
            return str(current.source)
        parent = current.parent
        if parent is not None:
            for earlier in reversed(parent.children[: parent.index(current)]):
                if earlier.source and DOCSTRING_OF in str(earlier.source):
                    return str(earlier.source)
        current = parent
    return ""


def find_tests(
    doctree: nodes.document,
    *,
    path: str,
    lines: list[str],
    docname: str,
    docstrings: dict[str, Docstring],
    doctest_blocks: str | None,
) -> Found:
    """The tests of the page at ``path`` (its text ``lines``), in doctree order.

    ``doctest_blocks`` is the group of ``doctest_block`` nodes, None when they
    are not tests; ``docstrings`` places the docstrings autodoc brought in.
    """
    found = Found()
    reader = _Reader(path, lines, docstrings)
    last_line = 0  # the page line of the latest node read from the page itself
    page = os.path.abspath(path)
    absolute: dict[str, str] = {}  # by source name: the nodes of a page share a few
    for node in doctree.findall(nodes.Element):
        source = source_of(node)
        if source not in absolute:
            absolute[source] = os.path.abspath(source)
        if absolute[source] == page and node.line:
            last_line = node.line
        is_test = is_test_node(node) or (
            doctest_blocks is not None and isinstance(node, nodes.doctest_block)
        )
        if not is_test:
            continue
        kind = node.get("testnodetype", "doctest")
        text = node.get("test") or node.astext()
        item = reader.item(
            node,
            source,
            as_node_holds(text),
            kind=kind,
            groups=tuple(node.get("groups", [doctest_blocks or "default"])),
            page_line=last_line,
        )
        if item is None:
            continue
        if "skipif" in node:
            found.findings.append(
                Finding(
                    Subtype.OPTION,
                    f"{kind}: jaxcheck does not evaluate :skipif: (that would run code "
                    "in the Sphinx process), so this directive is not checked; mark its "
                    "examples `# doctest: +SKIP`, or drop the option",
                    path,
                    item.first if item.placed and not item.path else last_line,
                    docname,
                ),
            )
            found.not_run.append((node, ":skipif: is not evaluated"))
            found.held.append(item)
            continue
        found.tests.append((item, node))
    return found


class _Reader:
    """Finds each test's text in its file, one file read once."""

    def __init__(self, path: str, lines: list[str], docstrings: dict[str, Docstring]) -> None:
        self.path = os.path.abspath(path)
        self.files: dict[str, list[str] | None] = {self.path: lines}
        self.docstrings = docstrings
        self.searched_from: dict[tuple[str, int], int] = {}  # (file, node line) -> next start
        self.labels: dict[str, int] = {}
        self.fraction = 0.0

    def item(
        self,
        node: nodes.Element,
        source: str,
        text: tuple[str, ...],
        *,
        kind: str,
        groups: tuple[str, ...],
        page_line: int,
    ) -> TestItem | None:
        if not text:
            return None  # as sphinx.ext.doctest: nothing to run
        options = tuple((node.get("options") or {}).items())
        hidden = isinstance(node, nodes.comment)
        file, docstring, offset, name = self._where(source)
        not_placed = ""
        if name:  # a docstring: shown where the autodoc directive documenting it stands
            page_line = documented_at(self.files[self.path] or [], name, page_line)
            not_placed = self._not_placed(source)
        file_lines = (self._lines(file) or []) if docstring is None else docstring.text.split("\n")
        own_page = file == self.path
        line = 1 if docstring is not None else (first_line(node) or page_line or 1)
        key = (source, line)
        start = self.searched_from.get(key, line - 1)
        index = locate(file_lines, text, start)
        self.fraction += 1e-3  # keeps tests shown after one page line in doctree order
        order = None if own_page and index is not None else page_line + 0.5 + self.fraction
        if index is None:
            label = name or f"{os.path.basename(self.path)}:{page_line or line}"
            return TestItem(
                kind,
                groups,
                line if own_page else (page_line or line),
                text,
                options,
                hidden,
                path=self.path,
                placed=False,
                order=order,
                name=self._unique(label),
                refusal=(
                    f"this example is in the docstring of {name}: {not_placed}; edit it by hand "
                    "where it is written"
                    if name
                    else ""
                ),
            )
        self.searched_from[key] = index + 1
        # The file's lines, ending as the node's do: sphinx.ext.doctest compares the node's text,
        # whose lines a reader may have cut the spaces from (docutils does).
        written = tuple(
            line.rstrip() + own[len(own.rstrip()) :]
            for line, own in zip(file_lines[index : index + len(text)], text, strict=True)
        )
        return TestItem(
            kind,
            groups,
            offset + index + 1,
            written,
            options,
            hidden,
            path="" if own_page else file,
            digest="" if own_page else file_digest(file),
            order=order,
        )

    def _where(self, source: str) -> tuple[str, Docstring | None, int, str]:
        """(file, its placed docstring, the docstring's first file line - 1, the documented
        name)."""
        if DOCSTRING_OF not in source:
            return (os.path.abspath(source) if source else self.path), None, 0, ""
        name = source.rsplit(DOCSTRING_OF, 1)[1]
        docstring = self.docstrings.get(name)
        if docstring is None:
            return "", None, 0, name
        if docstring.unplaced:
            return "", None, 0, docstring.name
        return docstring.path, docstring, docstring.line - 1, docstring.name

    def _not_placed(self, source: str) -> str:
        """Why the docstring a node of ``source`` shows has no place in a Python file."""
        docstring = self.docstrings.get(source.rsplit(DOCSTRING_OF, 1)[1])
        if docstring is not None and docstring.unplaced:
            return docstring.unplaced
        return NOT_IN_DOC

    def _lines(self, file: str) -> list[str] | None:
        if file not in self.files:
            try:
                with open(file, encoding="utf-8-sig") as handle:
                    self.files[file] = handle.read().splitlines()
            except (OSError, UnicodeDecodeError):
                self.files[file] = None
        return self.files[file]

    def _unique(self, label: str) -> str:
        self.labels[label] = self.labels.get(label, 0) + 1
        count = self.labels[label]
        return label if count == 1 else f"{label} #{count}"


_AUTODOC = re.compile(r"^\s*(?:\.\.\s+auto\w+::|[`:]{3,}\{auto\w+\})\s*(\S+)")


def as_node_holds(text: str) -> tuple[str, ...]:
    """A test node's lines without the blank lines around them (:func:`node_lines`), but with
    the spaces that end them: the builder compares those."""
    lines = text.split("\n")
    start = next((n for n, line in enumerate(lines) if line.strip()), 0)
    return tuple(line.rstrip("\r") for line in lines[start : start + len(node_lines(text))])


def documented_at(lines: list[str], name: str, after: int) -> int:
    """The page line of the autodoc directive that shows ``name`` (by its name, or a module
    holding it), looking from line ``after`` on; ``after`` when there is none."""
    best, best_line = 0, after
    for number in range(max(after, 1), len(lines) + 1):
        found = _AUTODOC.match(lines[number - 1])
        if not found:
            continue
        given = found.group(1)
        fit = 2 if name == given or name.endswith("." + given) else 0
        fit = fit or (1 if name.startswith(given + ".") else 0)
        if fit == 2:
            return number
        if fit > best:
            best, best_line = fit, number
    return best_line


def global_code(app: Sphinx, kind: str) -> TestItem | None:
    """``doctest_global_setup`` (``kind="testsetup"``) or ``doctest_global_cleanup`` as a
    test, placed at its lines in conf.py when they are written there."""
    name = "doctest_global_setup" if kind == "testsetup" else "doctest_global_cleanup"
    code = getattr(app.config, name, "") or ""
    text = node_lines(code) if isinstance(code, str) else ()
    if not text:
        return None
    conf = os.path.join(app.confdir, "conf.py")
    try:
        with open(conf, encoding="utf-8-sig") as handle:
            conf_lines = handle.read().splitlines()
    except (OSError, UnicodeDecodeError):
        conf_lines = []
    assigned = _assigned_at(conf_lines, name)
    index = locate(conf_lines, text, assigned - 1)
    label = f"{name} (conf.py)"
    if index is None:
        return TestItem(kind, ("*",), assigned, text, path=conf, placed=False, name=label)
    written = tuple(conf_lines[index : index + len(text)])
    return TestItem(
        kind, ("*",), index + 1, written, path=conf, digest=file_digest(conf), name=label
    )


def _assigned_at(lines: list[str], name: str) -> int:
    """The conf.py line assigning ``name`` (1 when it is not found there)."""
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return 1
    for statement in ast.walk(tree):
        if isinstance(statement, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == name for target in statement.targets
        ):
            return statement.lineno
    return 1
