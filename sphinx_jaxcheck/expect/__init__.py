"""Source text -> expectations: what a page or docstring says its code will print.

The comment grammar of ``jaxcheck`` blocks, their options and the JAX versions
and platforms they apply to, doctest flags, and the ``>>>`` examples that pages,
``sphinx.ext.doctest`` directives and docstrings already hold. Pure: strings in,
:class:`~sphinx_jaxcheck.model.Block` parts out.
"""
