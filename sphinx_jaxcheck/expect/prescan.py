"""Which page texts provably hold nothing to check: a conservative scan before parsing.

A page can be left unparsed by ``jaxcheck check`` only when its text shows
none of what a check could come from. The scan looks at the text as written,
in both reStructuredText and MyST syntax whatever the page's format (MyST's
``eval-rst`` holds rST), and answers "may hold checks" for a page with:

* ``>>>`` anywhere (the pages' own examples, doctest blocks, docstrings);
* ``jaxcheck`` or one of our roles' names anywhere (blocks, citations, quotes,
  Q&A cards, status and matrix tables);
* any directive not known to be inert: unknown directives may bring text
  from elsewhere (``include``, ``literalinclude``, autodoc, autosummary) or
  run code (``plot``, ``code-cell``), and ``toctree`` and ``default-role``
  change how other pages or this page's roles are read;
* ``orphan`` anywhere (the page's metadata keeps Sphinx's toctree warning as it is);
* with name checks on, ``jax`` anywhere (names in prose);
* with MyST substitutions configured, ``{{`` anywhere.

Anything else (headings, prose, cross-references, admonitions, images, math,
tables, code blocks without ``>>>``) leaves the page unparsed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Directives that only arrange text written in the page itself, or show a file as an
# image or a table of its own text. Their content is scanned as page text.
INERT_DIRECTIVES = frozenset(
    {
        # docutils
        "admonition",
        "attention",
        "caution",
        "class",
        "compound",
        "container",
        "contents",
        "danger",
        "date",
        "epigraph",
        "error",
        "figure",
        "footer",
        "header",
        "highlights",
        "hint",
        "image",
        "important",
        "line-block",
        "list-table",
        "math",
        "meta",
        "note",
        "parsed-literal",
        "pull-quote",
        "raw",
        "replace",
        "rubric",
        "sectnum",
        "sidebar",
        "table",
        "tip",
        "title",
        "topic",
        "unicode",
        "warning",
        # Sphinx
        "centered",
        "code",
        "code-block",
        "deprecated",
        "glossary",
        "highlight",
        "hlist",
        "index",
        "only",
        "productionlist",
        "rst-class",
        "seealso",
        "sourcecode",
        "tabularcolumns",
        "versionadded",
        "versionchanged",
        "versionremoved",
        # MyST
        "margin",
        # sphinx-design: layout around the page's own text
        "card",
        "dropdown",
        "grid",
        "grid-item",
        "grid-item-card",
        "tab-item",
        "tab-set",
    }
)

# Words whose presence anywhere means the page is read.
ALWAYS_READ = (">>>", "jaxcheck", "jaxsrc", "jaxquote", "jaxremoved", "orphan")

_RST_DIRECTIVE = re.compile(
    r"^[ \t>]*\.\.[ \t]+(?:\|[^|\n]*\|[ \t]+)?([^\s`|][^\s`]*?)[ \t]*::(?=[ \t]|$)", re.MULTILINE
)
_MYST_DIRECTIVE = re.compile(r"^[ \t>]*(?:`{3,}|~{3,}|:{3,})[ \t]*\{([^}\n]*)\}", re.MULTILINE)


@dataclass(frozen=True)
class Prescan:
    """What, beyond a page's own text, decides whether it may hold checks."""

    check_names: bool = False  # jaxcheck_check_names: ``jax.`` names in prose are checked
    substitutions: bool = False  # MyST substitutions are configured: ``{{ name }}`` brings text
    prolog: str = ""  # rst_prolog and rst_epilog, added to every reStructuredText page

    def may_hold_checks(self, text: str) -> bool:
        """Whether the page with this source text may hold anything to check (False: provably
        nothing)."""
        return bool(self.reasons(text + "\n" + self.prolog))

    def reasons(self, text: str) -> list[str]:
        """Why a page with this text is read (empty: it holds nothing to check)."""
        found = [f"holds {word!r}" for word in ALWAYS_READ if word in text]
        if self.check_names and "jax" in text:
            found.append("holds 'jax' (names in prose are checked)")
        if self.substitutions and "{{" in text:
            found.append("holds a MyST substitution")
        found += [f"has the directive {name!r}" for name in directives(text) - INERT_DIRECTIVES]
        return found


def directives(text: str) -> set[str]:
    """The names of every directive written in ``text``, rST or MyST (MyST's without the
    braces; a domain's with its prefix, as written)."""
    names = {m.group(1) for m in _RST_DIRECTIVE.finditer(text)}
    names |= {m.group(1).strip() for m in _MYST_DIRECTIVE.finditer(text)}
    return names
