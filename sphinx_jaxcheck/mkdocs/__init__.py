"""MkDocs projects, checked with no Sphinx involved: the pages ``mkdocs.yml`` names
(``project``), read into blocks by the pure reader of Markdown pages and notebooks
(``documents``), run and judged by the engine Sphinx projects use (``check``), and their
stale expectations rewritten by the same planner (``update``). Nothing here imports Sphinx,
docutils, MyST or MkDocs itself: ``mkdocs.yml`` is read as YAML.
"""
