"""When blocks run during a build, how their problems are reported, and the exit status.

One module per job, each connecting its own events, in the order a build
reaches them:

* ``signals``: from ``builder-inited`` to ``build-finished``, SIGINT and
  SIGTERM unwind the build cleanly;
* ``outdated``: ``env-get-outdated`` re-reads (so re-checks) documents whose
  text or includes differ from what was read (whatever their times say), or
  whose workers' interpreter or imported project files changed;
* ``workers``: the zygote starts while Sphinx reads, on a cold build;
* ``doctest_modules``: ``env-updated`` adds the docstrings of
  ``jaxcheck_doctest_modules``, and the examples of ``jaxcheck_doctest_files``
  (``doctest_files``), to the root document's blocks;
* ``check``: ``env-updated`` runs every unchecked document's sessions
  (``sessions``, ``shards``, ``progress``), stores the verdicts, bounds the cache;
* ``updating``: ``jaxcheck_update`` rewrites stale expectations;
* ``findings``: every open problem becomes a Sphinx warning at its file and line;
* ``summary``: ``build-finished`` logs the one-line summary and sets the exit status.

``read_only`` marks applications that only read (the pytest plugin runs the
blocks itself), and ``run_description`` says what a report was made from.
"""

from __future__ import annotations

from sphinx.application import Sphinx


def setup_checking(app: Sphinx) -> None:
    """Connect the events that run blocks and report on them."""
    from . import check, doctest_modules, findings, outdated, signals, summary, updating, workers

    signals.setup_signals(app)
    outdated.setup_outdated(app)
    workers.setup_workers(app)
    doctest_modules.setup_doctest_modules(app)
    check.setup_check(app)
    updating.setup_updating(app)
    findings.setup_findings(app)
    summary.setup_summary(app)
