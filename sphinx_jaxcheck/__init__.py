"""sphinx-jaxcheck: documentation about JAX that verifies itself while Sphinx builds it.

Add ``"sphinx_jaxcheck"`` to ``extensions``. The Sphinx process never imports
jax: blocks run in worker processes (see :mod:`sphinx_jaxcheck.worker`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .version import __version__

__all__ = ["__version__", "setup"]

if TYPE_CHECKING:
    from sphinx.application import Sphinx


def setup(app: Sphinx) -> dict[str, Any]:
    """Register every component; each module sets up its own part."""
    from .sphinx import (
        block_directive,
        builder,
        checking,
        dropped_checks,
        frozen_heap,
        include_cycles,
        include_directive,
        interpreter,
        left_out_pages,
        matrix_page,
        notebooks,
        output_folders,
        page_examples,
        python_path,
        read_digests,
        reading_progress,
        rendering,
        settings,
        source_files,
        status_page,
    )
    from .sphinx.domain import JaxcheckDomain

    settings.setup_settings(app)
    output_folders.setup_output_folders(app)
    python_path.setup_python_path(app)
    interpreter.setup_interpreter(app)
    app.add_domain(JaxcheckDomain)
    source_files.setup_source_files(app)
    read_digests.setup_read_digests(app)
    reading_progress.setup_reading_progress(app)
    include_cycles.setup_include_cycles(app)
    include_directive.setup_include_directive(app)
    left_out_pages.setup_left_out_pages(app)
    block_directive.setup_block_directive(app)
    page_examples.setup_page_examples(app)
    dropped_checks.setup_dropped_checks(app)
    notebooks.setup_notebooks(app)
    checking.setup_checking(app)
    setup_pinned_source(app)
    rendering.setup_rendering(app)
    status_page.setup_status_page(app)
    builder.setup_builder(app)
    matrix_page.setup_matrix_page(app)
    frozen_heap.setup_frozen_heap(app)
    return {
        "version": __version__,
        "env_version": 6,
        "parallel_read_safe": True,
        "parallel_write_safe": True,
    }


def setup_pinned_source(app: Sphinx) -> None:
    """The pin check, the citation roles, prose name checks and the Q&A cards (user guide:
    guide/citations, guide/qa-cards)."""
    from .sphinx import citations, colon_fences, pin, prose_names, qa

    pin.setup_pin(app)
    citations.setup_citations(app)
    prose_names.setup_prose_names(app)
    qa.setup_qa(app)
    colon_fences.setup_colon_fences(app)
