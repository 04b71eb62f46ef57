"""When each of the extension's handlers runs within its Sphinx event: the stages of every
event the extension handles more than once, in order, in one place.

Sphinx calls an event's handlers by priority, lower first (500 when none is given), and in
the order they were connected where priorities tie. Every handler of ours is connected with
its stage here, so the order is read in one place and no module holds a number. Where a
value is not 500, its comment says why it must run before or after the handlers of Sphinx
and other extensions.
"""

from __future__ import annotations

import enum


class ConfigInited(enum.IntEnum):
    """``config-inited``: the configuration is read."""

    SETTINGS = 100  # the jaxcheck_* settings checked first: every stage after reads them
    OUTPUT_FOLDERS = 200  # the build's own folders inside the sources are not read as pages
    PYTHON_PATH = 300  # the folders conf.py put on sys.path, before anything starts a worker
    INTERPRETER = 500  # the question to the workers' Python starts (answered while pages read)
    PIN = 600  # the pinned JAX source, checked against the installed jax
    PROSE_NAMES = 700  # whether prose names need jax's list of names
    NOTEBOOKS = 800  # MyST-NB runs no notebook that jaxcheck runs


class BuilderInited(enum.IntEnum):
    """``builder-inited``: the builder is made, nothing read yet."""

    UNPARSED_MARKDOWN = 500  # Markdown pages no parser reads are refused
    AUTODOC = 501  # follow autodoc's docstrings into the pages that show them
    SIGNALS = 502  # an interruption stops the workers
    PLAIN_CARDS = 503  # Q&A cards for builders without HTML
    ASSETS = 504  # stylesheets linked
    RENDERERS = 505  # the markers' renderers for this builder's format
    DROPPED_CHECKS = 506  # autodoc's failed imports heard while pages are read
    # Last: what every extension made while the builder was made lives through the build.
    FROZEN_HEAP = 1000


class EnvBeforeReadDocs(enum.IntEnum):
    """``env-before-read-docs``: the documents to read are known."""

    UNDECODABLE = 500  # a file that does not decode is left out (and reported)
    INCLUDE_CYCLES = 501  # documents that include each other are refused
    WORKERS = 502  # the workers start, importing jax while Sphinx reads
    READING_PROGRESS = 503  # off a terminal, a line at least every 30 s until all are read


class DoctreeRead(enum.IntEnum):
    """``doctree-read``: one document is read."""

    NOTEBOOK_CELLS = 499  # a notebook's code cells become blocks (its text holds no examples)
    PAGE_EXAMPLES = 500  # the page's own ``>>>`` examples become blocks
    PROSE_NAMES = 501
    COLON_FENCES = 502  # a ``:::{jaxcheck-...}`` fence MyST showed as text
    # The digest of what was read, after every other extension changed the doctree.
    READ_DIGESTS = 900
    READING_PROGRESS = 901  # one more document read, once every handler is done with it


class EnvUpdated(enum.IntEnum):
    """``env-updated``: every document is read, nothing written yet."""

    READING_PROGRESS = 300  # every document is read: its progress lines end
    DOCSTRINGS = 400  # the docstrings' examples join the blocks
    LEFT_OUT_PAGES = 490  # the examples of pages left out of the build, counted
    CHECK = 500  # every block run (or taken from the cache) and judged
    QA_INDEX = 510  # the documents holding Q&A cards
    UPDATE = 600  # stale expectations rewritten (jaxcheck update)
    STATUS_TABLES = 610  # pages showing the status table, read again
    MATRIX = 650  # drift-history tables checked against their saved matrices
    FINDINGS = 700  # every finding warned, once update has said what it left
    FROZEN_HEAP = 1000  # last: what was read and checked lives until the pages are written


class BuildFinished(enum.IntEnum):
    """``build-finished``: the build is done or failed."""

    ASSETS = 500  # stylesheets and scripts copied
    DROPPED_CHECKS = 501  # autodoc no longer heard
    READING_PROGRESS = 502  # a build stopped while reading: its progress lines end
    # After other extensions' handlers: the workers are stopped and the summary printed last.
    SIGNALS = 900
    WORKERS = 901
    SUMMARY = 902
    FROZEN_HEAP = 1000  # after everything: the build's objects are collectable again


class HtmlPageContext(enum.IntEnum):
    """``html-page-context``: one HTML page is about to be written."""

    FAQ_JSON_LD = 500  # structured data of a page's Q&A cards
    ASSETS = 501  # a page's own scripts


class SourceRead(enum.IntEnum):
    """``source-read``: a document's text is read."""

    READ_DIGESTS = 1  # the text as the file holds it, before any extension changes it
    NOTEBOOK_LANGUAGE = 500  # a notebook that names no language is Python, as our run shows it
