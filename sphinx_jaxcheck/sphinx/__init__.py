"""Thin Sphinx adapters over the pure core: directives, roles, nodes, events."""
