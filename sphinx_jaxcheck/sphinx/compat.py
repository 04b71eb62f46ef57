"""The stack the extension supports, and every difference between its releases, in one place.

Each function names the Sphinx or docutils releases it serves; the rest of the
package calls these instead of asking for a version itself. When the lowest
supported release passes a line below, that branch goes.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Set
from pathlib import Path
from typing import Any

import docutils
import sphinx
from docutils import nodes
from sphinx.application import Sphinx
from sphinx.builders import Builder
from sphinx.environment import BuildEnvironment
from sphinx.util.docutils import SphinxDirective, SphinxRole
from sphinx.util.inspect import safe_getattr

#: The releases of the stack this version supports and is tested with, from the lowest to
#: below the first one it does not support; pyproject.toml declares the same (a unit test
#: holds them equal).
SUPPORTED = {
    "sphinx": ((7, 3), (9, 1)),
    "docutils": ((0, 21), (0, 23)),
    "myst-parser": ((4, 0), (6, 0)),
}


def unsupported_stack() -> str | None:
    """Which part of the stack this build runs is outside :data:`SUPPORTED`, and the range
    it should be in (None: all of it fits). Read from the modules already imported, so
    that asking costs nothing."""
    found = {"sphinx": sphinx.__version__, "docutils": docutils.__version__}
    myst = sys.modules.get("myst_parser")
    if myst is not None:
        found["myst-parser"] = getattr(myst, "__version__", "")
    for name, version in found.items():
        low, high = SUPPORTED[name]
        if not low <= _release(version) < high:
            shown = f">={_dotted(low)},<{_dotted(high)}"
            return (
                f"sphinx-jaxcheck supports {name} {shown}, and this build runs {name} "
                f"{version}: install a supported one (`pip install '{name}{shown}'`)"
            )
    return None


def _release(version: str) -> tuple[int, ...]:
    """``(8, 2)`` of ``8.2.3`` or ``8.2.0rc1``: the numbers the range compares."""
    numbers = re.match(r"\d+(?:\.\d+)*", version)
    return tuple(int(part) for part in numbers.group().split(".")) if numbers else (0,)


def _dotted(release: tuple[int, ...]) -> str:
    return ".".join(map(str, release))


def first_line(node: nodes.Element) -> int | None:
    """The 1-based line where a node's text starts (None: unknown).

    docutils before 0.22 gives a doctest block the line of its last line.
    """
    line = int(node.line or 0)
    if line and isinstance(node, nodes.doctest_block) and docutils.__version_info__ < (0, 22):
        text: str = node.astext()
        return line - text.count("\n")
    return line or None


def source_info(item: SphinxDirective | SphinxRole) -> tuple[str, int]:
    """The file and 1-based line of a directive or role (line 0: unknown).

    myst-parser before 5.0 numbers the lines of a file that MyST's ``include``
    reads one too high (it renders the file from ``startline + 1``).
    """
    source, line = item.get_source_info()
    source, line = source or "", int(line or 0)
    myst = sys.modules.get("myst_parser")
    if line > 1 and myst is not None and _release(getattr(myst, "__version__", "")) < (5,):
        from myst_parser.mocking import MockInliner, MockStateMachine

        by_myst = isinstance(getattr(item, "state_machine", None), MockStateMachine) or (
            isinstance(getattr(item, "inliner", None), MockInliner)
        )
        own = os.path.abspath(source_path(item.env, item.env.docname))
        if by_myst and source and os.path.abspath(source) != own:
            return source, line - 1
    return source, line


def read_configuration(conf: Path) -> dict[str, Any]:
    """The names a ``conf.py`` defines, as Sphinx evaluates it (no tags set).

    ``eval_config_file`` takes a str before Sphinx 8.0 and a Path from 9.0.
    """
    from sphinx.config import eval_config_file
    from sphinx.util.tags import Tags

    if sphinx.version_info < (8, 0):
        return eval_config_file(str(conf), Tags())  # type: ignore[arg-type, unused-ignore]
    return eval_config_file(conf, Tags())


def doctest_blocks_group(named: str) -> str:
    """The group ``sphinx.ext.doctest`` runs bare ``>>>`` paragraphs in, given the group
    ``doctest_test_doctest_blocks`` names.

    Before Sphinx 9.0 the value only turns them on: they join the group ``default``.
    """
    return named if sphinx.version_info >= (9, 0) else "default"


def source_path(env: BuildEnvironment, docname: str) -> Path:
    """The source file of a document (``env.doc2path`` gives a str before Sphinx 8.0)."""
    return Path(env.doc2path(docname))


def add_setting(
    app: Sphinx, name: str, default: object, help_text: str, *, rereads: bool = True
) -> None:
    """Register a ``jaxcheck_*`` value, which re-reads every document when it changes unless
    ``rereads`` is False.

    Sphinx 7.4 added the ``description`` argument; 7.3 has no place for the help text.
    """
    if sphinx.version_info >= (7, 4):
        app.add_config_value(name, default, "env" if rereads else "", description=help_text)
    else:
        app.add_config_value(name, default, "env" if rereads else "")


class BuilderWritingNothing(Builder):
    """A builder whose writing step does nothing, on every supported Sphinx.

    Sphinx 8.1 added ``write_documents``; before it, ``write`` itself loops over
    the documents, resolving each doctree only to hand it to ``write_doc``, so
    there the whole step is skipped (as ``sphinx.ext.doctest``'s builder did).
    """

    def write_documents(self, docnames: Set[str]) -> None:
        pass

    if sphinx.version_info < (8, 1):
        # Final from 8.1 on, where this branch is not taken.
        def write(self, *args: Any, **kwargs: Any) -> None:  # type: ignore[misc]
            pass


def warnings_logged(app: Sphinx) -> int:
    """The warnings the build logged, less those ``suppress_warnings`` silenced: what
    ``sphinx-build -W`` fails on. Sphinx 7.3 to 9 count them in ``Sphinx._warncount``."""
    return int(getattr(app, "_warncount", 0))


def docstring_source_name(obj: Any, documented: str) -> str:
    """The name autodoc gives a docstring in its nodes' source, ``<file>:docstring of NAME``:
    the object's own ``__module__`` and ``__qualname__`` when it has both (so an inherited
    method names its class, a re-exported function its defining module), else the name it
    was documented under. ``Documenter.get_sourcename`` in 7.3 to 8.2 and its legacy
    documenters in 9.0, ``_docstring_source_name`` in 9.0: the same rule."""
    module = safe_getattr(obj, "__module__", None)
    qualname = safe_getattr(obj, "__qualname__", None)
    return f"{module}.{qualname}" if module and qualname else documented
