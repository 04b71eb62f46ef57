# conf.py of every project in tests/roots/: copy_root (tests/buildkit.py) puts it
# beside the copied documents, followed by the lines a test adds.
extensions = ["myst_parser", "sphinx_jaxcheck"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
myst_enable_extensions = ["colon_fence"]
jaxcheck_jax_version = "0.10.2"
jaxcheck_jax_commit = "990e6a0b84138346e6a38785412f36356e0e5dc3"
